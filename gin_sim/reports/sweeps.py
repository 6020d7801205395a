"""Play the runs a report needs and keep only their tables (and what paired tests need).

A sweep plays several variants of one strategy (knock thresholds, knock schedules) against
one opponent, each on the same decks (the same seed and deal numbers: common random
numbers) with duplicate deals, and optionally the same Hollywood matches. Each variant's
records become rows of a tidy figure table (``tables.strategy_figures``); of the records
only the four columns that paired comparisons read are kept, so a sweep of many variants
fits in memory.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from gin_sim.experiments.cluster import active_client
from gin_sim.experiments.simulate import head_to_head, head_to_head_matches
from gin_sim.game.config import ConfigError
from gin_sim.game.rules import Rules
from gin_sim.players.strategies import Strategy, load_strategy
from gin_sim.reports import tables

Progress = Callable[[int], None] | None


@dataclass
class Sweep:
    """Variants of one strategy against one opponent, on the same decks and matches."""

    rules: Rules
    opponent: Strategy
    key: str  # the name of the column that labels variants ("threshold", "schedule")
    variants: dict[Any, Strategy]
    deals: int
    matches: int
    seed: int
    first_deal: int = 0
    figures: pd.DataFrame = field(default_factory=pd.DataFrame)  # tidy, keyed by ``key``
    runs: dict[Any, pd.DataFrame] = field(default_factory=dict)  # slim records per variant
    knocks: pd.DataFrame | None = None  # every knock the swept strategy made (``keep_knocks``)

    def ranking(self, figure: str = tables.NET) -> pd.DataFrame:
        return tables.ranked(self.figures, self.key, figure)

    def best(self) -> Any:
        return self.ranking().loc[0, self.key]

    def runner_up(self) -> Any:
        return self.ranking().loc[1, self.key]

    def differences(self, reference: Any | None = None) -> pd.DataFrame:
        """Net points of every variant minus the ``reference`` (default: the best), paired."""
        reference = self.best() if reference is None else reference
        return tables.paired_differences(self.runs, reference, self.key)

    def lead(self) -> dict[str, Any]:
        """The best variant's lead over the next best in net points per hand, paired."""
        best, second = self.best(), self.runner_up()
        row = tables.paired_differences(
            {best: self.runs[best], second: self.runs[second]}, second, self.key
        ).iloc[0]
        return {"best": best, "next": second, **row.drop(self.key).to_dict()}


def _play_variant(
    rules: Rules,
    strategy: Strategy,
    opponent: Strategy,
    deals: int,
    matches: int,
    seed: int,
    first_deal: int,
) -> tuple[pd.DataFrame, pd.DataFrame | None]:
    hands = head_to_head(rules, (strategy, opponent), deals, seed, True, first_deal)
    match_records = (
        head_to_head_matches(rules, (strategy, opponent), matches, seed)[0] if matches else None
    )
    return hands, match_records


def play_sweep(
    rules: Rules,
    opponent: Strategy,
    key: str,
    variants: Mapping[Any, Strategy],
    deals: int,
    matches: int,
    seed: int,
    first_deal: int = 0,
    keep_knocks: bool = False,
    on_run: Progress = None,
) -> Sweep:
    """Play every variant against ``opponent``: ``deals`` decks (duplicate), ``matches`` matches.

    ``matches`` 0 skips the match runs. ``on_run(1)`` is called after each run (a variant's
    hand run, then its match run). With ``keep_knocks`` the knocks of every variant are
    kept (for ``tables.undercut_rates``), labelled by the ``key`` column.
    """
    if len(variants) < 2:
        raise ConfigError(
            f"a sweep compares two or more variants, got {len(variants)} (rules {rules.name!r} "
            f"with knock_limit = {rules.knock_limit} leaves one knock threshold)"
        )
    sweep = Sweep(rules, opponent, key, dict(variants), deals, matches, seed, first_deal)
    rows = []
    knocks = []
    client = active_client()  # on a Dask cluster each variant's runs are one task
    tasks = {
        label: client.submit(_play_variant, rules, strategy, opponent, deals, matches, seed, first_deal, pure=False)
        for label, strategy in variants.items()
    } if client is not None else {}  # fmt: skip
    for label, strategy in variants.items():
        if label in tasks:
            hands, match_records = tasks.pop(label).result()
        else:
            hands, match_records = _play_variant(
                rules, strategy, opponent, deals, matches, seed, first_deal
            )
        if on_run is not None:
            on_run(2 if matches else 1)
        rows.append(({key: label}, tables.strategy_figures(hands, match_records)))
        sweep.runs[label] = tables.slim(hands)
        if keep_knocks:
            knocks.append(tables.knocks_of(hands)[tables.KNOCK_COLUMNS].assign(**{key: label}))
        del hands, match_records
    sweep.figures = tables.tidy(rows)
    if keep_knocks:
        sweep.knocks = pd.concat(knocks, ignore_index=True)
    return sweep


def variant(strategy: Strategy, rules: Rules, overrides: list[str]) -> Strategy:
    """``strategy`` as played under ``rules`` (its ``[[adapt]]`` tables applied), then with
    ``overrides`` of its knocking, so that an adaptation cannot undo the swept parameter."""
    neutral = load_strategy(strategy, ["knock_threshold=0", "knock_schedule="])
    return load_strategy(neutral.for_rules(rules), overrides)


def threshold_variants(strategy: Strategy, rules: Rules) -> dict[int, Strategy]:
    """``strategy`` with each knock threshold from 0 (gin only) to the rule set's knock limit."""
    return {
        threshold: variant(strategy, rules, [f"knock_threshold={threshold}", "knock_schedule="])
        for threshold in range(rules.knock_limit + 1)
    }


def knock_sweep(
    rules: Rules,
    strategy: Strategy,
    opponent: Strategy,
    deals: int,
    matches: int,
    seed: int,
    on_run: Progress = None,
) -> Sweep:
    """The knock-threshold sweep, keeping every knock (for the undercut risk)."""
    return play_sweep(
        rules,
        opponent,
        "threshold",
        threshold_variants(strategy, rules),
        deals,
        matches,
        seed,
        keep_knocks=True,
        on_run=on_run,
    )


def sweep_runs(rules: Rules, matches: int) -> int:
    """The number of runs a knock sweep plays (for progress bars)."""
    return (rules.knock_limit + 1) * (2 if matches else 1)


def format_schedule(schedule: tuple[tuple[int, int], ...]) -> str:
    """``((20, 10), (10, 6), (0, 2))`` as ``20:10,10:6,0:2`` (the command-line form)."""
    return ",".join(f"{stock}:{threshold}" for stock, threshold in schedule)
