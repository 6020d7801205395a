"""A hand's end given as plain data (``END_FIELDS``; docs/strategies.md, "The end of a
hand"): its parsing and checks (``parse_hand_end``) and the showdown position it stands for
(``position_from_end``) or that stands for it (``hand_end_of_position``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from gin_sim.game.cards import (
    FULL_DECK,
    N_CARDS,
    cards_of,
    format_card,
    format_cards,
)
from gin_sim.game.config import shown
from gin_sim.game.match_start import MatchStart
from gin_sim.game.melds import min_deadwood_exhaustive
from gin_sim.game.rules import Rules
from gin_sim.kernels.enums import (
    N_POSITION_MASKS,
    N_POSITION_SLOTS,
    Phase,
    PositionMask,
    PositionSlot,
)
from gin_sim.players.view import (
    HAND_SIZE,
    STOCK_AFTER_DEAL,
    VIEW_FIELDS,
    _cards,
    _count,
    _mask,
    _set_public,
    _set_score,
    max_turns,
    parse_score,
    truth,
)

# What a host reports when a hand ends (``OpponentMemory.hand_ended``; docs/strategies.md,
# "The end of a hand"): who ended it, the cards the showdown shows and the public facts of
# the position after the last action, named as a view names them, from the side of the
# player whose memory it is. (required, what it is); a drawn hand gives "knocker" alone.
END_FIELDS = {
    "knocker": (True, '"me", "opponent", or "none" when the hand was drawn (R18, R18a)'),
    "big_gin": (False, "true when the knocker declared big gin (R14; default false)"),
    "hand": (True, "your cards at the end: 10, or 11 after your big gin"),
    "opp_hand": (
        True,
        "the opponent's cards shown at the showdown, melded, laid off or not: 10, or 11 after its big gin",
    ),
    "pile": (True, "the discard pile at the end, bottom first (the knock's discard on top)"),
    "stock_left": (True, "cards in the stock"),
    "dealer": (True, '"me" or "opponent"'),
    "taken_from_pile": (True, "whether the knocker took its last card from the discard pile"),
    "taken": (False, "that card (required when it came from the discard pile)"),
    "opp_turns": VIEW_FIELDS["opp_turns"],
    "own_turns": (False, "turns you have played (default 0)"),
    "pile_takes": VIEW_FIELDS["pile_takes"],
    "opp_taken": VIEW_FIELDS["opp_taken"],
    "opp_passed": VIEW_FIELDS["opp_passed"],
    "own_taken": VIEW_FIELDS["own_taken"],
    "own_passed": VIEW_FIELDS["own_passed"],
    "knock_limit": VIEW_FIELDS["knock_limit"],
    "score": VIEW_FIELDS["score"],
}
KNOCKERS = ("me", "opponent", "none")


@dataclass(frozen=True)
class HandEnd:
    """A parsed and checked hand end (``parse_hand_end``): card sets as masks, the pile as
    a list, bottom first. A drawn hand (``knocker`` "none") carries nothing else."""

    knocker: str  # "me", "opponent" or "none"
    big_gin: bool = False
    hand: int = 0
    opp_hand: int = 0
    pile: tuple[int, ...] = ()
    stock_left: int = 0
    i_deal: bool = False
    opp_turns: int = 0
    own_turns: int = 0
    pile_takes: int = 0
    opp_taken: int = 0
    opp_passed: int = 0
    own_taken: int = 0
    own_passed: int = 0
    knock_limit: int = 0
    taken: int = -1  # -1: not named (a draw from the stock)
    taken_from_pile: bool = False
    score: MatchStart | None = None


def _end_fail(message: str) -> None:
    raise ValueError(f"hand end: {message}")


def parse_hand_end(document: Mapping[str, Any], rules: Rules) -> HandEnd:
    """Check a hand's end given as plain data (``END_FIELDS``; docs/strategies.md, "The
    end of a hand"): the cards add up to 52, the knock was one the rules allow (R12 to
    R14), the turns and takes agree. Bad input is a one-line ``ValueError``."""
    if not isinstance(document, Mapping):
        _end_fail(f"a mapping of field names to values, got {type(document).__name__}")
    for key in document:
        if key not in END_FIELDS:
            _end_fail(f"unknown field {shown(key)}: allowed {', '.join(END_FIELDS)}")
    if "knocker" not in document:
        _end_fail(f"field 'knocker' is missing: {END_FIELDS['knocker'][1]}")
    knocker = document["knocker"]
    if not isinstance(knocker, str) or knocker not in KNOCKERS:
        _end_fail(f"field 'knocker' = {shown(knocker)}: allowed 'me', 'opponent' or 'none'")
    if knocker == "none":
        others = [key for key in document if key != "knocker"]
        if others:
            _end_fail(
                f"field {others[0]!r}: a drawn hand (knocker 'none') shows no cards (R18): give 'knocker' alone"
            )
        return HandEnd(knocker="none")
    for key, (required, what) in END_FIELDS.items():
        if required and key not in document:
            _end_fail(f"field {key!r} is missing: {what}")
    try:
        return _parse_knock_end(document, rules, knocker)
    except ValueError as error:
        message = str(error)
        if message.startswith("view field"):  # the helpers shared with views say "view field"
            message = message.replace("view field", "field", 1)
        if not message.startswith("hand end: "):
            message = "hand end: " + message
        raise ValueError(message) from None


def _parse_knock_end(document: Mapping[str, Any], rules: Rules, knocker: str) -> HandEnd:
    big_gin = truth(document.get("big_gin", False))
    if big_gin is None:
        _end_fail(f"field 'big_gin' = {shown(document['big_gin'])}: allowed true or false")
    if big_gin and rules.big_gin_bonus <= 0:
        _end_fail(f"big gin does not exist under rules {rules.name!r} (R14: big_gin_bonus = 0)")
    dealer = document["dealer"]
    if not isinstance(dealer, str) or dealer not in ("me", "opponent"):
        _end_fail(f"field 'dealer' = {shown(dealer)}: allowed 'me' or 'opponent'")
    hand = _mask(_cards(document, "hand"))
    opp_hand = _mask(_cards(document, "opp_hand"))
    pile = _cards(document, "pile")
    for name, cards, mine in (("hand", hand, "me"), ("opp_hand", opp_hand, "opponent")):
        size = 11 if big_gin and knocker == mine else HAND_SIZE
        if cards.bit_count() != size:
            _end_fail(f"field {name!r} has {cards.bit_count()} cards: {END_FIELDS[name][1]}")
    pile_mask = _mask(pile)
    for (one, a), (other, b) in (
        (("hand", hand), ("opp_hand", opp_hand)),
        (("hand", hand), ("pile", pile_mask)),
        (("opp_hand", opp_hand), ("pile", pile_mask)),
    ):
        if a & b:
            _end_fail(f"fields {one!r} and {other!r} share {format_cards(a & b)}")
    stock_left = _count(document, "stock_left", 0, STOCK_AFTER_DEAL)
    expected = N_CARDS - hand.bit_count() - opp_hand.bit_count() - len(pile)
    if stock_left != expected:
        _end_fail(
            f"field 'stock_left' = {stock_left}: the hands' {hand.bit_count() + opp_hand.bit_count()} cards and the pile's {len(pile)} leave {expected} of the 52"
        )
    if stock_left < rules.wall:
        _end_fail(f"field 'stock_left' = {stock_left}: the hand ended at the wall before (R18)")
    limit_default = None if rules.oklahoma else rules.knock_limit
    if "knock_limit" not in document and limit_default is None:
        _end_fail("field 'knock_limit' is missing: under Oklahoma (R14a) the upcard sets it")
    knock_limit = _count(document, "knock_limit", 0, 10, limit_default or 0)
    knocks = hand if knocker == "me" else opp_hand
    deadwood = min_deadwood_exhaustive(knocks)
    if big_gin and deadwood:
        _end_fail(f"big gin with deadwood {deadwood}: all 11 cards must be in melds (R14)")
    if not big_gin and deadwood > knock_limit:
        _end_fail(f"a knock with deadwood {deadwood}, above the knock limit {knock_limit} (R12)")
    if not big_gin and not pile:
        _end_fail("field 'pile' is empty: the knock's discard lies on it (R12)")
    opp_taken = _mask(_cards(document, "opp_taken"))
    own_taken = _mask(_cards(document, "own_taken"))
    if opp_taken & ~opp_hand:
        _end_fail(f"field 'opp_taken': {format_cards(opp_taken & ~opp_hand)} not in 'opp_hand'")
    if own_taken & ~hand:
        _end_fail(f"field 'own_taken': {format_cards(own_taken & ~hand)} not in 'hand'")
    cap = rules.max_upcard_takes
    most_turns = max_turns(rules)
    opp_turns = _count(document, "opp_turns", 0, most_turns)
    own_turns = _count(document, "own_turns", 0, most_turns)
    pile_takes = _count(document, "pile_takes", 0, cap)
    turns = STOCK_AFTER_DEAL - stock_left + pile_takes
    if own_turns + opp_turns != turns:
        _end_fail(
            f"fields 'own_turns' + 'opp_turns' = {own_turns + opp_turns}: with {STOCK_AFTER_DEAL - stock_left} cards drawn from the stock and {pile_takes} pile takes there were {turns} turns"
        )
    lead = own_turns - opp_turns if knocker == "me" else opp_turns - own_turns
    if lead not in (0, 1) or turns < 1:
        _end_fail(
            f"fields 'own_turns' = {own_turns}, 'opp_turns' = {opp_turns}: the knocker played the last turn and the turns alternate"
        )
    from_pile = truth(document["taken_from_pile"])
    if from_pile is None:
        _end_fail(
            f"field 'taken_from_pile' = {shown(document['taken_from_pile'])}: allowed true or false"
        )
    if from_pile and "taken" not in document:
        _end_fail("field 'taken' is missing: the knocker took that card from the pile")
    if from_pile and pile_takes < 1:
        _end_fail("field 'pile_takes' = 0, but the knocker took from the pile")
    taken = -1
    whole = knocks | (0 if big_gin else 1 << pile[-1])  # its 11 cards before the knock
    if "taken" in document:
        taken_cards = _cards(document, "taken")
        if len(taken_cards) != 1 or not whole >> taken_cards[0] & 1:
            _end_fail(
                f"field 'taken' = {shown(document['taken'])}: one of the knocker's cards (its hand and its knock's discard)"
            )
        taken = taken_cards[0]
        if from_pile and not big_gin and taken == pile[-1] and not rules.may_discard_drawn_upcard:
            _end_fail("the knock's discard is the card just taken from the pile (R11)")
    return HandEnd(
        knocker=knocker,
        big_gin=big_gin,
        hand=hand,
        opp_hand=opp_hand,
        pile=tuple(pile),
        stock_left=stock_left,
        i_deal=dealer == "me",
        opp_turns=opp_turns,
        own_turns=own_turns,
        pile_takes=pile_takes,
        opp_taken=opp_taken,
        opp_passed=_mask(_cards(document, "opp_passed")),
        own_taken=own_taken,
        own_passed=_mask(_cards(document, "own_passed")),
        knock_limit=knock_limit,
        taken=taken,
        taken_from_pile=from_pile,
        score=parse_score(document["score"], rules) if "score" in document else None,
    )


def position_from_end(end: HandEnd, seat: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The kernel position (masks, state) after the knock that ended ``end``'s hand, the
    reporting player in seat ``seat``: as ``kernels.position.apply_nb`` leaves it (phase
    OVER, the knocker's seat in KNOCKER and PLAYER), the stock's unknown order its cards
    in increasing order (nothing after a hand reads it)."""
    if end.knocker == "none":
        raise ValueError("hand end: a drawn hand has no showdown position")
    M, S = PositionMask, PositionSlot
    me, opponent = seat, 1 - seat
    knocker = me if end.knocker == "me" else opponent
    pile = _mask(list(end.pile))
    stock = cards_of(FULL_DECK & ~end.hand & ~end.opp_hand & ~pile)
    masks = np.zeros(N_POSITION_MASKS, np.uint64)
    state = np.zeros(N_POSITION_SLOTS, np.int64)
    masks[M.HAND + me] = end.hand
    masks[M.HAND + opponent] = end.opp_hand
    stock_pos = _set_public(masks, state, end, me)
    state[S.PHASE] = Phase.OVER
    state[S.PLAYER] = knocker
    state[S.KNOCKER] = knocker
    state[S.BIG_GIN] = int(end.big_gin)
    state[S.DECK : S.DECK + stock_pos] = -1
    state[S.DECK + stock_pos : S.DECK + N_CARDS] = stock
    _set_score(state, end.score, me)
    return masks, state


def hand_end_of_position(masks: np.ndarray, state: np.ndarray, seat: int) -> dict[str, Any]:
    """The plain-data hand end (what ``OpponentMemory.hand_ended`` takes) of player
    ``seat`` at a kernel position whose hand is over: what the table shows it then."""
    M, S = PositionMask, PositionSlot
    if int(state[S.PHASE]) != Phase.OVER:
        raise ValueError("hand_end_of_position: the hand is not over")
    knocker = int(state[S.KNOCKER])
    if knocker < 0:
        return {"knocker": "none"}
    me, opponent = seat, 1 - seat
    pile = [int(c) for c in state[S.PILE : S.PILE + int(state[S.PILE_SIZE])]]
    from_pile = bool(state[S.FROM_PILE])
    document: dict[str, Any] = {
        "knocker": "me" if knocker == me else "opponent",
        "hand": format_cards(int(masks[M.HAND + me])),
        "opp_hand": format_cards(int(masks[M.HAND + opponent])),
        "pile": format_cards(pile),
        "stock_left": N_CARDS - int(state[S.STOCK_POS]),
        "dealer": "me" if int(state[S.DEALER]) == me else "opponent",
        "taken_from_pile": from_pile,
        "opp_turns": int(state[S.TURNS_BY + opponent]),
        "own_turns": int(state[S.TURNS_BY + me]),
        "pile_takes": int(state[S.TAKES]),
        "opp_taken": format_cards(int(masks[M.TAKEN + opponent])),
        "opp_passed": format_cards(int(masks[M.PASSED + opponent])),
        "own_taken": format_cards(int(masks[M.TAKEN + me])),
        "own_passed": format_cards(int(masks[M.PASSED + me])),
        "knock_limit": int(state[S.LIMIT]),
    }
    if state[S.BIG_GIN]:
        document["big_gin"] = True
    if from_pile:  # after a stock draw the drawn card is the knocker's secret
        document["taken"] = format_card(int(state[S.TAKEN_CARD]))
    return document
