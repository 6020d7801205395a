"""Decisions from outside: any strategy's decision at a position given as plain data.

This module is the one way in (the names below, documented as ``gin_sim.players.decide.X``);
each part lives in its own module: the view (``players.view``), the decision
(``players.decision``), the opponent memory (``players.memory``, with the strategy it is
prepared from in ``players.prepared``) and the hand's end (``players.hand_end``).

``decide(view, rules, strategy, seed)`` takes what the deciding player knows (the fields
of docs/strategies.md, "Decisions from outside"), builds a kernel position from it with
the opponent's hidden cards and the stock filled in arbitrarily (no decision reads them:
a search samples its own worlds), and asks the kernels: ``kernels.position.family_action_nb``
for a family or ``random`` strategy, ``kernels.search.search_nb`` for a search player,
whose candidates come back with their estimated values.

>>> view = {
...     "decision": "discard",
...     "hand": "AS 2S 3S 4H 4D 4C 9H TH JH QS KD",
...     "taken": "KD",
...     "taken_from_pile": False,
...     "pile": "7C",
...     "stock_left": 30,
...     "opp_turns": 0,
...     "own_turns": 1,
...     "dealer": "opponent",
... }
>>> decide(view, "hollywood", "simple").action
'knock KD'
"""

from __future__ import annotations

# Names outside __all__ below are re-exported too: code and tests import them from here.
# ruff: noqa: F401
from gin_sim.players.decision import (
    Candidate,
    Decider,
    Decision,
    _drawn,
    _kernel_decision,
    _prepared,
    action_words,
    candidate_table,
    decide,
    interval95,
    stream_state,
)
from gin_sim.players.hand_end import (
    END_FIELDS,
    KNOCKERS,
    HandEnd,
    hand_end_of_position,
    parse_hand_end,
    position_from_end,
)
from gin_sim.players.memory import OpponentMemory
from gin_sim.players.view import (
    DRAWS_PER_TURN,
    HAND_SIZE,
    PHASES,
    SCORE_KEYS,
    STOCK_AFTER_DEAL,
    VIEW_FIELDS,
    View,
    max_decisions,
    max_draws,
    max_turns,
    parse_score,
    parse_view,
    position_from_view,
    score_field,
    view_of_position,
)

__all__ = [
    "Candidate",
    "Decider",
    "Decision",
    "HandEnd",
    "OpponentMemory",
    "action_words",
    "candidate_table",
    "decide",
    "hand_end_of_position",
    "interval95",
    "max_decisions",
    "max_draws",
    "max_turns",
    "parse_hand_end",
    "parse_view",
    "position_from_end",
    "position_from_view",
    "score_field",
    "stream_state",
    "view_of_position",
]
