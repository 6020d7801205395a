"""Advice tables from a dataset of evaluated positions (docs/advice.md): knock or play on.

Every figure is read from the rows of ``gin_sim.positions.load_positions``: a cell's gain is
the mean of its positions' headline gains (knocking over the best way to play on) with the
95% interval of a ratio of sums (``gin_sim.summary.Estimate``; positions are independent,
one per hand). The interval counts both the spread of the positions and the noise of each
position's search, since each gain carries both.

By default every position counts once: the mean is per hand (each hand's kept knock
decision, chosen uniformly among its knock decisions). With ``weighted`` each position
counts ``kind_count`` times, the knock decisions of its hand it stands for: the mean is per
decision. The two differ where hands differ in how many knock decisions they bring: in
mc-against-mc play, hands where the player plays on bring many (up to 58 in 1,000 hands),
so per decision the gain of knocking is lower and much noisier.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

from gin_sim.reports.tables import ESTIMATE_COLUMNS, estimate_row, stock_band
from gin_sim.summary import Estimate

KNOCK_GAIN = "gain of knocking over the best discard (points per hand)"
# A cell with fewer positions than this is marked thin: at 30 positions the interval of a
# mean gain is about ±0.4 standard deviations of a position's gain wide.
MIN_CELL_POSITIONS = 30
# Bootstrap resamples of the positions behind the knock line's interval (seeded).
LINE_RESAMPLES = 1000


def knock_positions(positions: pd.DataFrame) -> pd.DataFrame:
    """The evaluated knock positions, with their stock band (``tables.stock_band``) and
    ``opponent_took``: whether the opponent had taken a card from the discard pile."""
    if "gain" not in positions:
        raise ValueError("the positions were not evaluated: build them without --no-evaluate")
    knocks = positions[positions["kind"] == "knock"]
    return knocks.assign(
        stock_band=stock_band(knocks["stock_left"]), opponent_took=knocks["opp_takes"] > 0
    )


def _weights(knocks: pd.DataFrame, weighted: bool) -> np.ndarray:
    if weighted:
        return knocks["kind_count"].to_numpy(np.float64)
    return np.ones(len(knocks))


def knock_cells(
    knocks: pd.DataFrame, by: Sequence[str] = ("stock_band",), weighted: bool = False
) -> pd.DataFrame:
    """The gain of knocking by the columns ``by`` and the deadwood (0 to the highest knock
    limit): ``positions``, ``thin`` (fewer than MIN_CELL_POSITIONS), and the weighted mean
    gain with its interval (``mean``, ``half_width``, ``low``, ``high``, ``n``); per hand, or
    per decision when ``weighted`` (module docstring). A cell without positions has
    ``positions`` 0 and no gain."""
    keys = [*by, "deadwood"]
    rows = []
    for key, group in knocks.groupby(keys, sort=True, observed=True):
        weights = _weights(group, weighted)
        estimate = Estimate.of(weights * group["gain"].to_numpy(np.float64), weights)
        rows.append(
            dict(zip(keys, key, strict=True)) | {"positions": len(group)} | estimate_row(estimate)
        )
    table = pd.DataFrame.from_records(rows, columns=[*keys, "positions", *ESTIMATE_COLUMNS])
    highest = int(knocks["knock_limit"].max()) if len(knocks) else 10
    levels = [
        knocks[column].cat.categories
        if hasattr(knocks[column], "cat")
        else sorted(knocks[column].unique())
        for column in by
    ]
    full = pd.MultiIndex.from_product([*levels, range(highest + 1)], names=keys)
    table = table.set_index(keys).reindex(full).reset_index()
    table["positions"] = table["positions"].fillna(0).astype(int)
    table["n"] = table["n"].fillna(0).astype(int)
    table["thin"] = table["positions"] < MIN_CELL_POSITIONS
    return table


def _line(deadwood: np.ndarray, weighted_gain: np.ndarray, weights: np.ndarray) -> int:
    """The highest deadwood whose mean gain of knocking is above 0; -1 when there is none.

    Not "above 0 at every lower deadwood too": the positions strong play reaches at a low
    deadwood are not those it reaches at a high one (a deadwood of 3 often comes after
    playing on, in hands where knocking was not worth it), so a dip below the line is
    shown by the cells, not hidden by the line."""
    sums = np.bincount(deadwood, weighted_gain, minlength=11)
    totals = np.bincount(deadwood, weights, minlength=11)
    above = np.flatnonzero((totals > 0) & (sums > 0))
    return int(above[-1]) if len(above) else -1


def knock_line(
    knocks: pd.DataFrame,
    by: Sequence[str] = ("stock_band",),
    seed: int = 0,
    weighted: bool = False,
) -> pd.DataFrame:
    """The knock line per group of ``by``: the highest deadwood at which knocking is right
    (``_line``: its mean gain is above 0 there), with a 95%
    interval from LINE_RESAMPLES bootstrap resamples of the group's positions (percentiles
    2.5 and 97.5; seeded by ``seed``, so the table is reproducible), and the positions;
    per hand, or per decision when ``weighted``."""
    rng = np.random.default_rng(seed)
    rows = []
    for key, group in knocks.groupby(list(by), sort=True, observed=True):
        deadwood = group["deadwood"].to_numpy(np.int64)
        weights = _weights(group, weighted)
        weighted_gain = weights * group["gain"].to_numpy(np.float64)
        line = _line(deadwood, weighted_gain, weights)
        draws = rng.integers(0, len(group), size=(LINE_RESAMPLES, len(group)))
        lines = [_line(deadwood[d], weighted_gain[d], weights[d]) for d in draws]
        low, high = np.percentile(lines, [2.5, 97.5], method="nearest")
        values = key if isinstance(key, tuple) else (key,)
        rows.append(
            dict(zip(by, values, strict=True))
            | {"line": line, "low": int(low), "high": int(high), "positions": len(group)}
        )
    return pd.DataFrame.from_records(rows, columns=[*by, "line", "low", "high", "positions"])
