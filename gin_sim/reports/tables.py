"""Record DataFrames in, tidy tables out: every figure a report shows, with its 95% interval.

Every number here is read from hand or match records through pandas and the estimators of
``gin_sim.experiments.summary`` (ratios of sums, intervals by the delta method with the two hands of a
duplicate deck as one unit), so a report computes nothing the records do not support and a
reader can redo any table from the records of the same run.

A tidy figure table has one row per (key, figure): the key columns (a threshold, a schedule,
a rule set), then ``figure``, ``mean``, ``half_width``, ``low``, ``high`` and ``n`` (the
independent units behind the estimate: decks, or matches for the match win rate).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
import pandas as pd

from gin_sim.experiments.advice import stock_band  # noqa: F401 (reports read it here)
from gin_sim.experiments.summary import (  # noqa: F401 (the row helpers are read from here too)
    ESTIMATE_COLUMNS,
    RATE_COLUMNS,
    Estimate,
    Moments,
    estimate_row,
    hand_summary,
    is_duplicate,
    match_summary,
    paired_difference,
    player_summary,
    rate_row,
    seat_of,
)

NET = "net points per hand"
MATCHES_WON = "matches won"
# The figures of one strategy against its opponent, in the order reports show them.
HAND_FIGURES = (
    NET,
    "hands won",
    "knock rate",
    "gin rate",
    "undercut rate (per knock)",
    "deadwood when knocking",
    "turns per hand",
)
FIGURES = (*HAND_FIGURES, MATCHES_WON)
# Shown in percent; the others in their own unit (points, deadwood points, turns).
RATE_FIGURES = frozenset(
    {"hands won", "knock rate", "gin rate", "undercut rate (per knock)", MATCHES_WON}
)
# Only the columns a paired comparison of net points reads (see ``slim``).
SLIM_COLUMNS = ["deal", "swapped", "winner", "points"]


def strategy_figures(
    hands: pd.DataFrame, matches: pd.DataFrame | None = None, player: int = 0
) -> dict[str, Estimate]:
    """The figures of ``players[player]`` over a head-to-head run (and its match run).

    Per hand: net points (won minus lost), hands won, knocks, gins (knocks with deadwood
    0), undercuts per knock made, the mean deadwood of its knocks (gins count as 0), and
    the mean length of a hand in turns (both players' turns). Per match: matches won.
    """
    paired = is_duplicate(hands)
    summary = player_summary(hands, player, paired)
    figures = {name: summary[name] for name in HAND_FIGURES[:5]}
    knocked = hands["knocker"].to_numpy() == seat_of(hands, player)
    groups = hands["deal"].to_numpy() if paired else None
    figures["deadwood when knocking"] = Estimate.of(
        np.where(knocked, hands["knocker_deadwood"].to_numpy(), 0), knocked, groups
    )
    figures["turns per hand"] = hand_summary(hands, paired)["turns"]
    if matches is not None:
        figures[MATCHES_WON] = match_summary(matches, player, is_duplicate(matches))[MATCHES_WON]
    return figures


def tidy(rows: Sequence[tuple[Mapping[str, Any], Mapping[str, Estimate]]]) -> pd.DataFrame:
    """One row per (key, figure) from ``(key columns, {figure: estimate})`` pairs."""
    records = [
        {**key, "figure": figure, **estimate_row(estimate)}
        for key, figures in rows
        for figure, estimate in figures.items()
    ]
    return pd.DataFrame.from_records(records)


def wide(table: pd.DataFrame, key: str | list[str], column: str = "mean") -> pd.DataFrame:
    """A tidy figure table as one row per key and one column per figure (in table order)."""
    keys = [key] if isinstance(key, str) else key
    order = list(dict.fromkeys(table["figure"]))
    out = table.pivot_table(index=keys, columns="figure", values=column, sort=False)
    return out[order]


def slim(hands: pd.DataFrame) -> pd.DataFrame:
    """The columns of a hand run that paired comparisons of net points need."""
    return hands[SLIM_COLUMNS].copy()


def paired_differences(
    runs: Mapping[Any, pd.DataFrame], reference: Any, key: str, player: int = 0
) -> pd.DataFrame:
    """Net points per hand of each run minus the ``reference`` run, paired deck by deck.

    The runs must share their decks (same seed and deals: common random numbers), so
    each difference keeps only what changed between the runs. ``significant`` is true
    when the 95% interval excludes 0.
    """
    rows = []
    for label, frame in runs.items():
        difference = paired_difference(frame, runs[reference], player)
        row = {key: label, **estimate_row(difference)}
        row["significant"] = bool(label != reference and (row["low"] > 0 or row["high"] < 0))
        rows.append(row)
    return pd.DataFrame.from_records(rows)


def ranked(table: pd.DataFrame, key: str, figure: str = NET) -> pd.DataFrame:
    """The rows of one figure, best (highest mean) first."""
    rows = table[table["figure"] == figure]
    return rows.sort_values(["mean", key], ascending=[False, True], kind="stable").reset_index(
        drop=True
    )


UNDERCUT_KEYS = ("knocker_deadwood", "stock_left")
# What undercut tables read of a knock (``knocks_of``), so a sweep can keep just these.
KNOCK_COLUMNS = ["deal", "swapped", "knocker", "knocker_deadwood", "stock_left", "undercut"]


def knocks_of(hands: pd.DataFrame, player: int = 0) -> pd.DataFrame:
    """The hands in which ``players[player]`` knocked (gins included)."""
    return hands[hands["knocker"].to_numpy() == seat_of(hands, player)]


def undercut_rates(
    hands: pd.DataFrame, by: Sequence[str] = UNDERCUT_KEYS, player: int = 0
) -> pd.DataFrame:
    """Undercuts per knock made by ``players[player]``, by the columns ``by`` of its knocks.

    ``knocker_deadwood`` is the knocker's deadwood and ``stock_left`` the cards left in
    the stock when it knocked. Every deadwood 0 to 10 gets a row (0: gin, which is never
    undercut; a deadwood without knocks has ``knocks`` 0 and no rate). Intervals are Wilson's
    (``rate_row``), with the two hands of a duplicate deck as one unit, as everywhere else.
    """
    knocks = knocks_of(hands, player)
    paired = is_duplicate(hands)
    rows = []
    for key, group in knocks.groupby(list(by), sort=True, observed=True):
        values = key if isinstance(key, tuple) else (key,)
        estimate = Moments.of(
            group["undercut"].to_numpy(), groups=group["deal"].to_numpy() if paired else None
        ).estimate()
        rows.append(
            dict(zip(by, (v if isinstance(v, str) else int(v) for v in values), strict=True))
            | {"knocks": len(group), "undercuts": int(group["undercut"].sum())}
            | rate_row(estimate, len(group))
        )
    columns = [*by, "knocks", "undercuts", *RATE_COLUMNS]
    table = pd.DataFrame.from_records(rows, columns=columns)
    if "knocker_deadwood" in by:  # the full 0..10 range, so every table has the same rows
        full = _full_index(table, by)
        table = table.set_index(list(by)).reindex(full).reset_index()
        table[["knocks", "undercuts"]] = table[["knocks", "undercuts"]].fillna(0).astype(int)
        table["n"] = table["n"].fillna(0).astype(int)
    return table.rename(columns={"mean": "rate"})


def _full_index(table: pd.DataFrame, by: Sequence[str]) -> pd.MultiIndex | pd.Index:
    levels = [
        range(11) if column == "knocker_deadwood" else sorted(table[column].unique())
        for column in by
    ]
    if len(levels) == 1:
        return pd.Index(levels[0], name=by[0])
    return pd.MultiIndex.from_product(levels, names=list(by))


def undercut_rate(hands: pd.DataFrame, player: int = 0) -> Estimate:
    """Undercuts per knock made by ``players[player]``, over all its knocks."""
    knocks = knocks_of(hands, player)
    groups = knocks["deal"].to_numpy() if is_duplicate(hands) else None
    return Estimate.of(knocks["undercut"].to_numpy(), groups=groups)
