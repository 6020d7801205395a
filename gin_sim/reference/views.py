"""The plain-data view (what ``gin_sim.players.decide`` takes) of a reference engine's
decision, so that the reference engine can be played against ``decide`` decision by decision."""

from __future__ import annotations

from typing import Any

from gin_sim.game.cards import format_card, format_cards
from gin_sim.players.decide import score_field
from gin_sim.reference.engine import Situation


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
