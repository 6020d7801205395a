"""Strategy reports: knock thresholds, undercut risk, knock schedules and rule variants.

The layers, each in its own module:

- ``sweeps``: play the runs (variants of a strategy against one opponent on the same decks,
  common random numbers) and keep their tables;
- ``tables``: record DataFrames to tidy tables, every figure with its 95% interval, through
  the estimators of ``gin_sim.experiments.summary`` (nothing the records do not support);
- ``figures`` (matplotlib) and ``document`` (markdown, CSV, Parquet, ``index.md``): lay out
  tables that are already computed;
- ``knock``, ``undercut``, ``schedule``, ``variants``, ``tournament``, ``tune``, ``equity``: one module per
  report type;
- ``build``: play, tabulate and write each report, and the default set of ``make run``.

Layer 6 of 7. May import: ``gin_sim.experiments``, ``gin_sim.reference``, ``gin_sim.players``,
``gin_sim.game``, ``gin_sim.kernels``.
"""

from gin_sim.reports.build import (
    DefaultSet,
    default_set,
    equity,
    knock,
    schedule,
    tournament,
    undercut,
    variants,
)

__all__ = [
    "DefaultSet",
    "default_set",
    "equity",
    "knock",
    "schedule",
    "tournament",
    "undercut",
    "variants",
]
