"""gin-sim: a Monte Carlo strategy simulator for Hollywood Gin.

The public API, one way in for each concept:

- cards: ``parse_cards``, ``format_cards`` (``gin_sim.cards``)
- deadwood: ``min_deadwood``, ``min_deadwood_many`` (numba kernel), ``best_arrangement``
- rules and strategies: ``Rules``, ``load_rules``, ``load_strategy``
- play: ``play_hand`` (one hand from an explicit deck), ``simulate_deals``,
  ``records_to_frame``
- decisions from outside: ``decide`` (any strategy's decision for a view given as plain data),
  ``Decider`` (a strategy prepared once for a rule set, for many decisions)
- runs: ``load_run`` (the records of a run folder written with ``--out``)
- positions: ``load_positions`` (a dataset of evaluated decision positions, docs/advice.md)
"""

# First of all: the environment variables numba reads are checked before it is imported.
import gin_sim.environment  # noqa: F401
from gin_sim.cards import format_cards, parse_cards
from gin_sim.deadwood import min_deadwood, min_deadwood_many
from gin_sim.decide import Decider, Decision, decide
from gin_sim.melds import Arrangement, best_arrangement
from gin_sim.positions import load_positions
from gin_sim.rules import Rules, load_rules
from gin_sim.runs import load_run
from gin_sim.simulate import play_hand, records_to_frame, simulate_deals
from gin_sim.strategies import Strategy, load_strategy

__version__ = "0.1.0"

__all__ = [
    "Arrangement",
    "Decider",
    "Decision",
    "Rules",
    "Strategy",
    "__version__",
    "best_arrangement",
    "decide",
    "format_cards",
    "load_positions",
    "load_rules",
    "load_run",
    "load_strategy",
    "min_deadwood",
    "min_deadwood_many",
    "parse_cards",
    "play_hand",
    "records_to_frame",
    "simulate_deals",
]
