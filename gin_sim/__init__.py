"""gin-sim: a Monte Carlo strategy simulator for Hollywood Gin.

The public API, one way in for each concept:

- cards: ``parse_cards``, ``format_cards`` (``gin_sim.game.cards``)
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
import gin_sim.game.environment  # noqa: F401
from gin_sim.experiments.positions import load_positions
from gin_sim.experiments.runs import load_run
from gin_sim.experiments.simulate import play_hand, records_to_frame, simulate_deals
from gin_sim.game.cards import format_cards, parse_cards
from gin_sim.game.deadwood import min_deadwood, min_deadwood_many
from gin_sim.game.melds import Arrangement, best_arrangement
from gin_sim.game.rules import Rules, load_rules
from gin_sim.players.decide import Decider, Decision, decide
from gin_sim.players.strategies import Strategy, load_strategy
from gin_sim.version import __version__

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
