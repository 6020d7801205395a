"""Advice tables from a dataset of evaluated positions (docs/advice.md): knock or play on,
take or draw.

Every figure is read from the rows of ``gin_sim.positions.load_positions``: a cell's gain is
the mean of its positions' headline gains (knocking over the best way to play on; taking
over drawing or declining) with the
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
TAKE_GAIN = "gain of taking over drawing (points per hand)"
# What the card on offer does for the hand (``take_positions``), from most to least.
CARD_DOES = (
    "completes a meld",
    "lowers deadwood by 5 or more",
    "lowers deadwood by 1 to 4",
    "lowers nothing",
)
# A cell with fewer positions than this is marked thin: at 30 positions the interval of a
# mean gain is about ±0.4 standard deviations of a position's gain wide.
MIN_CELL_POSITIONS = 30
# Bootstrap resamples of the positions behind the knock line's interval (seeded).
LINE_RESAMPLES = 1000


def _evaluated(positions: pd.DataFrame) -> None:
    if "gain" not in positions:
        raise ValueError("the positions were not evaluated: build them without --no-evaluate")


def knock_positions(positions: pd.DataFrame) -> pd.DataFrame:
    """The evaluated knock positions, with their stock band (``tables.stock_band``) and
    ``opponent_took``: whether the opponent had taken a card from the discard pile."""
    _evaluated(positions)
    knocks = positions[positions["kind"] == "knock"]
    return knocks.assign(
        stock_band=stock_band(knocks["stock_left"]), opponent_took=knocks["opp_takes"] > 0
    )


def take_positions(positions: pd.DataFrame) -> pd.DataFrame:
    """The evaluated offer and draw positions, with their stock band, ``opponent_took``
    and ``card_does`` (CARD_DOES, an ordered categorical): the card completes a meld, else
    how much taking it lowers the deadwood (``card_lowers``)."""
    _evaluated(positions)
    takes = positions[positions["kind"].isin(["offer", "draw"])]
    lowers = takes["card_lowers"].to_numpy()
    codes = np.where(
        takes["card_melds"].to_numpy(), 0, np.where(lowers >= 5, 1, np.where(lowers >= 1, 2, 3))
    )
    return takes.assign(
        kind=takes["kind"].astype(str),
        stock_band=stock_band(takes["stock_left"]),
        opponent_took=takes["opp_takes"] > 0,
        card_does=pd.Categorical.from_codes(codes, categories=list(CARD_DOES), ordered=True),
    )


def _weights(rows: pd.DataFrame, weighted: bool) -> np.ndarray:
    if weighted:
        return rows["kind_count"].to_numpy(np.float64)
    return np.ones(len(rows))


def _levels(rows: pd.DataFrame, column: str) -> list:
    if isinstance(rows[column].dtype, pd.CategoricalDtype):
        return list(rows[column].cat.categories)
    return sorted(rows[column].unique())


def gain_cells(
    rows: pd.DataFrame, by: Sequence[str], key: str, levels: Sequence, weighted: bool = False
) -> pd.DataFrame:
    """The mean headline gain of ``rows`` by the columns ``by`` and ``key`` (every value of
    ``levels`` gets a row): ``positions``, ``thin`` (fewer than MIN_CELL_POSITIONS), and
    the mean gain with its interval (``mean``, ``half_width``, ``low``, ``high``, ``n``);
    per hand, or per decision when ``weighted`` (module docstring). A cell without
    positions has ``positions`` 0 and no gain."""
    keys = [*by, key]
    records = []
    for values, group in rows.groupby(keys, sort=True, observed=True):
        weights = _weights(group, weighted)
        estimate = Estimate.of(weights * group["gain"].to_numpy(np.float64), weights)
        records.append(
            dict(zip(keys, values, strict=True))
            | {"positions": len(group)}
            | estimate_row(estimate)
        )
    table = pd.DataFrame.from_records(records, columns=[*keys, "positions", *ESTIMATE_COLUMNS])
    full = pd.MultiIndex.from_product([*(_levels(rows, c) for c in by), levels], names=keys)
    table = table.set_index(keys).reindex(full).reset_index()
    table["positions"] = table["positions"].fillna(0).astype(int)
    table["n"] = table["n"].fillna(0).astype(int)
    table["thin"] = table["positions"] < MIN_CELL_POSITIONS
    return table


def knock_cells(
    knocks: pd.DataFrame, by: Sequence[str] = ("stock_band",), weighted: bool = False
) -> pd.DataFrame:
    """``gain_cells`` of the knock positions by ``by`` and the deadwood, 0 to the highest
    knock limit: the gain of knocking over the best way to play on."""
    highest = int(knocks["knock_limit"].max()) if len(knocks) else 10
    return gain_cells(knocks, by, "deadwood", range(highest + 1), weighted)


def take_cells(
    takes: pd.DataFrame, by: Sequence[str] = ("kind",), weighted: bool = False
) -> pd.DataFrame:
    """``gain_cells`` of the offer and draw positions by ``by`` and what the card does for
    the hand (CARD_DOES): the gain of taking over drawing (or declining the offer)."""
    return gain_cells(takes, by, "card_does", CARD_DOES, weighted)


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
