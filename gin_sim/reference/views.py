"""The plain-data view (what ``gin_sim.players.decide`` takes) of a reference engine's
decision, so that the reference engine can be played against ``decide`` decision by decision,
and the plain-data end of its hand (what ``OpponentMemory.hand_ended`` takes)."""

from __future__ import annotations

from typing import Any

from gin_sim.game.cards import format_card, format_cards
from gin_sim.players.decide import score_field
from gin_sim.reference.engine import OVER, Hand, Situation


def view_from_situation(situation: Situation) -> dict[str, Any]:
    """The plain-data view of a reference engine's ``Situation`` (what ``decide`` takes)."""
    view = situation.view
    document: dict[str, Any] = {
        "decision": situation.phase,
        "hand": format_cards(view.hand),
        "pile": format_cards(list(situation.pile_order)),
        "stock_left": view.stock_left,
        "dealer": "me" if situation.dealer == situation.player else "opponent",
        "opp_turns": view.opp_turns,
        "own_turns": situation.own_turns,
        "pile_takes": situation.upcard_takes,
        "opp_taken": format_cards(view.opp_taken),
        "opp_passed": format_cards(view.opp_passed),
        "own_taken": format_cards(situation.own_taken),
        "own_passed": format_cards(situation.own_passed),
        "knock_limit": view.knock_limit,
    }
    if situation.phase == "discard":
        document["taken"] = format_card(situation.taken_card)
        document["taken_from_pile"] = view.taken_from_pile is not None
    if situation.score is not None:
        document["score"] = score_field(situation.score, situation.player)
    return document


def hand_end_from_hand(hand: Hand, player: int) -> dict[str, Any]:
    """The plain-data end (``gin_sim.players.decide.END_FIELDS``) of a reference engine's
    hand that is over, from the side of ``player``: what the table shows it then."""
    if hand.phase != OVER:
        raise ValueError("hand_end_from_hand: the hand is not over")
    record, table = hand.record, hand.table
    knocker = int(record["knocker"])
    if knocker < 0:
        return {"knocker": "none"}
    opponent = 1 - player
    document: dict[str, Any] = {
        "knocker": "me" if knocker == player else "opponent",
        "hand": format_cards(table.hands[player]),
        "opp_hand": format_cards(table.hands[opponent]),
        "pile": format_cards(list(table.pile)),
        "stock_left": table.stock_left,
        "dealer": "me" if hand.dealer == player else "opponent",
        "taken_from_pile": hand.from_pile,
        "opp_turns": table.turns_of[opponent],
        "own_turns": table.turns_of[player],
        "pile_takes": table.upcard_takes,
        "opp_taken": format_cards(table.taken[opponent]),
        "opp_passed": format_cards(table.passed[opponent]),
        "own_taken": format_cards(table.taken[player]),
        "own_passed": format_cards(table.passed[player]),
        "knock_limit": hand.knock_limit,
    }
    if record["big_gin"]:
        document["big_gin"] = True
    if hand.from_pile:  # after a stock draw the drawn card is the knocker's secret
        document["taken"] = format_card(hand.taken_card)
    if hand.score is not None:
        document["score"] = score_field(hand.score, player)
    return document
