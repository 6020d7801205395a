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
from gin_sim.players.decide import HAND_SIZE, STOCK_AFTER_DEAL, Decision, candidate_table

PHASES = ("offer", "draw", "discard")


def complete_view(fields: Mapping[str, Any]) -> dict[str, Any]:
    """``fields`` with ``stock_left`` and the turn counts filled in when they are left out:
    the stock holds what the hands and the pile do not; every turn took a card from the
    stock or from the pile, and the turns alternate, the non-dealer's first (R7 to R10).
    Fields given are kept as they are, for ``decide`` to check."""
    view = dict(fields)
    decision = view.get("decision")
    if "stock_left" not in view and isinstance(view.get("hand"), str | list):
        try:
            held = len(_card_list(view["hand"])) + len(_card_list(view.get("pile", "")))
        except ValueError:
            return view  # decide says what is wrong with the cards
        view["stock_left"] = N_CARDS - held - HAND_SIZE
    stock_left, takes = view.get("stock_left"), view.get("pile_takes", 0)
    if "own_turns" in view or "opp_turns" in view:
        return view
    if not isinstance(stock_left, int) or not isinstance(takes, int) or decision not in PHASES:
        return view
    turns = STOCK_AFTER_DEAL - stock_left + takes
    # At a discard this turn is yours (the larger half); at a draw the opponent has just
    # played (the larger half is theirs).
    mine = (turns + 1) // 2 if decision == "discard" else turns // 2
    view["own_turns"], view["opp_turns"] = mine, turns - mine
    return view


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
        shown = decision.candidates
        if by_score:  # equity changes are fractions of a game or match: read as percentages
            shown = tuple(
                replace(c, mean=100 * c.mean, low=100 * c.low, high=100 * c.high, gain=100 * c.gain)
                for c in shown
            )
        lines.append(
            f"  it searched {decision.worlds} worlds (mean {unit}, 95% interval,"
            " gain over its first candidate):"
        )
        lines += candidate_table(shown, decision.chosen, indent=2)
        best = max(range(len(decision.candidates)), key=lambda c: decision.candidates[c].mean)
        if best != decision.chosen and not math.isnan(decision.candidates[best].low):
            lines.append(
                f"  (it keeps {decision.candidates[decision.chosen].action} unless another is"
                " clearly better: docs/strategies.md, 'Search players')"
            )
    return lines
