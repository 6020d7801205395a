"""A strategy prepared once for a rule set (``PreparedStrategy``): what ``Decider`` decides
with and an ``OpponentMemory`` keeps, made in one place so that the memory need not know
the decision."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from gin_sim.game.config import shown
from gin_sim.game.environment import check_environment
from gin_sim.game.rules import Rules, load_rules
from gin_sim.players.calibration import load_undercut_table
from gin_sim.players.strategies import Strategy, load_strategy
from gin_sim.players.view import max_draws


def _check_kinds(rules: Any, strategy: Any) -> None:
    """What ``decide`` and ``Decider`` accept as a rule set and a strategy."""
    if not isinstance(rules, str | Path | Rules):
        raise ValueError(
            f"rules = {shown(rules)}: allowed a rule set's name, a TOML path or a gin_sim.Rules"
        )
    if not isinstance(strategy, str | Path | Strategy):
        raise ValueError(
            f"strategy = {shown(strategy)}: allowed a strategy's name, a TOML path or a gin_sim.Strategy"
        )


class PreparedStrategy:
    """A strategy prepared once for a rule set: its kernel vector (with its rollout and
    opponent-model policies, whose TOML files are read here and not again), the rule
    set's vector and the undercut table (``Decider`` decides with them)."""

    def __init__(
        self, strategy: str | Path | Strategy = "mc", rules: str | Path | Rules = "hollywood"
    ):
        check_environment()
        _check_kinds(rules, strategy)
        self.rules = load_rules(rules)
        self.strategy = load_strategy(strategy).for_rules(self.rules)
        self.searches = self.strategy.kind == "mc"
        self._params = self.strategy.to_kernel(self.rules)
        self._kernel_rules = self.rules.to_kernel()
        self._undercut = load_undercut_table()
        self._most_draws = max_draws(self.rules)
        self._equity: np.ndarray | None = None  # a score-aware searcher's, made when first needed
