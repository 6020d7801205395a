"""Advice on one position in words: what a strategy would do and, for a search, what each
candidate is worth (``gin-sim advise``, and the hints of ``gin-sim play``).

A view can be given as its fields (``decide``'s, docs/strategies.md "Decisions from
outside"); ``complete_view`` fills in what a person at the table would rather not count:
the cards left in the stock, and the turns each player has played, from the cards drawn.

>>> view = complete_view({"decision": "offer", "hand": "7h 8h 9h 2c 2d 2s 5s 6d jc kd",
...                       "pile": "5h", "dealer": "opponent"})
>>> view["stock_left"], view["own_turns"], view["opp_turns"]
(31, 0, 0)
>>> from gin_sim.players.decide import decide
>>> print("\\n".join(advice_lines(decide(view, "hollywood", "simple"), "simple", view)))
simple would decline the upcard 5H
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from gin_sim.game.cards import N_CARDS, format_card, parse_card_list
from gin_sim.game.config import shown
from gin_sim.players.decide import (
    HAND_SIZE,
    STOCK_AFTER_DEAL,
    Candidate,
    Decision,
    candidate_table,
)

PHASES = ("offer", "draw", "discard")
CARD_FIELDS = ("hand", "pile", "own_taken", "opp_taken", "own_passed", "opp_passed", "taken")


def complete_view(fields: Mapping[str, Any]) -> dict[str, Any]:
    """``fields`` with ``stock_left``, ``pile_takes`` and the turn counts filled in when
    they are left out: the stock holds what the hands and the pile do not; the pile has
    been taken from at least once for each card a player took from it and still holds
    (the card just taken from it included); every turn took a card from the stock or from
    the pile, and the turns alternate, the non-dealer's first (R7 to R10). Fields given are
    kept as they are, for ``decide`` to check; a card that cannot be read is an error
    naming its field (what the counts would be made from)."""
    view = dict(fields)
    decision = view.get("decision")
    for key in CARD_FIELDS:  # what the counts are made from: said before any count is missed
        if key in view and not _is_cards(view[key]):
            raise ValueError(
                f"view field {key!r}: expected card strings such as '7H', got {shown(view[key])}"
            )
    if "stock_left" not in view and _is_cards(view.get("hand")) and _is_cards(view.get("pile", "")):
        held = len(_field_cards(view, "hand")) + len(_field_cards(view, "pile"))
        view["stock_left"] = N_CARDS - held - HAND_SIZE
    if "pile_takes" not in view and decision in PHASES:
        implied = _implied_pile_takes(view)
        if implied:
            view["pile_takes"] = implied
    stock_left, takes = view.get("stock_left"), view.get("pile_takes", 0)
    if "own_turns" in view or "opp_turns" in view:
        return view
    if not _is_count(stock_left) or not _is_count(takes) or decision not in PHASES:
        return view
    turns = STOCK_AFTER_DEAL - stock_left + takes
    # At a discard this turn is yours (the larger half); at a draw the opponent has just
    # played (the larger half is theirs).
    mine = (turns + 1) // 2 if decision == "discard" else turns // 2
    view["own_turns"], view["opp_turns"] = mine, turns - mine
    return view


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_cards(value: Any) -> bool:
    """Whether ``value`` is of a card field's type (text, or a list of card strings)."""
    return isinstance(value, str) or (
        isinstance(value, list | tuple) and all(isinstance(c, str) for c in value)
    )


def _field_cards(view: Mapping[str, Any], key: str) -> list[int]:
    """The cards of field ``key`` (of a card field's type), or an error naming the field."""
    try:
        return _card_list(view.get(key, ""))
    except ValueError as error:
        raise ValueError(f"view field {key!r}: {error}") from None


def _implied_pile_takes(view: Mapping[str, Any]) -> int:
    """The fewest takes from the pile the cards imply: one per card each player took from
    it and still holds, the card just taken from it included (0 when a field cannot say)."""
    fields = ("own_taken", "opp_taken")
    if not all(_is_cards(view.get(key, "")) for key in fields):
        return 0
    own = set(_field_cards(view, "own_taken"))
    if view.get("decision") == "discard" and view.get("taken_from_pile") is True:
        if not _is_cards(view.get("taken")):
            return 0
        own |= set(_field_cards(view, "taken"))
    return len(own) + len(_field_cards(view, "opp_taken"))


def _card_list(value: Any) -> list[int]:
    return parse_card_list(value if isinstance(value, str) else " ".join(map(str, value)))


def advice_lines(
    decision: Decision, strategy: str, view: Mapping[str, Any], by_score: bool = False
) -> list[str]:
    """What ``strategy`` would do at ``view`` in words, then a search's candidates with
    their values (mean points from the deciding player's side over the worlds, 95%
    interval, gain over the first candidate; ``by_score``: a score-aware searcher at a view
    with a score, whose values are changes in its game or match equity)."""
    action = decision.action
    if decision.take is not None:
        pile = _card_list(view.get("pile", ""))
        card = f" {format_card(pile[-1])}" if pile else ""
        what = "upcard" if view.get("decision") == "offer" else "discard"
        action = {
            "take": f"take the {what}{card}",
            "decline": f"decline the upcard{card}",
            "draw": f"draw from the stock (not the discard{card})",
        }[action]
    elif decision.knock:
        action = f"knock, discarding {decision.discard}"
    lines = [f"{strategy} would {action}"]
    if decision.candidates:
        unit = "change in your game or match equity in %" if by_score else "points from your side"
        lines.append(
            f"  it searched {decision.worlds} worlds (mean {unit}, 95% interval,"
            " gain over its first candidate):"
        )
        lines += candidate_table(_shown(decision.candidates, by_score), decision.chosen, indent=2)
        best = max(range(len(decision.candidates)), key=lambda c: decision.candidates[c].mean)
        if best != decision.chosen and not math.isnan(decision.candidates[best].low):
            lines.append(
                f"  (it keeps {decision.candidates[decision.chosen].action} unless another is"
                " clearly better: docs/strategies.md, 'Search players')"
            )
    if decision.screened_out:
        lines.append(
            f"  its screening dropped these after its first {decision.screen_worlds} worlds:"
            " clearly worse than its first candidate, or not among its best discards"
        )
        lines.append(
            "  (their figures over those worlds; docs/strategies.md, 'Search players', step 4b):"
        )
        lines += candidate_table(_shown(decision.screened_out, by_score), -1, indent=2)
    if decision.early_screened_out:
        lines.append(
            f"  its screening's first cut dropped these after {decision.early_screen_worlds}"
            " worlds: clearly worse than its first candidate, or not among its best discards"
        )
        lines.append(
            "  (their figures over those worlds; docs/strategies.md, 'Search players', step 4b):"
        )
        lines += candidate_table(_shown(decision.early_screened_out, by_score), -1, indent=2)
    return lines


def _shown(candidates: tuple[Candidate, ...], by_score: bool) -> tuple[Candidate, ...]:
    """Candidates as advice shows them: equity changes (``by_score``), fractions of a game
    or a match, read as percentages; points as they are."""
    if not by_score:
        return candidates
    return tuple(
        replace(c, mean=100 * c.mean, low=100 * c.low, high=100 * c.high, gain=100 * c.gain)
        for c in candidates
    )
