"""The advice figures of a dataset of evaluated decision positions (docs/advice.md): knock or
play on, take or draw, the knock line, undercut risk of strong knockers, rule sets compared,
the search's values against real outcomes and the check against play.

Every figure that is a mean over decisions is the weighted ratio (Hajek) estimator
``Estimate.of(w * x, w, groups=deal)``: ``w`` is a row's ``weight`` (1 / the probability
that its decision was kept: the decisions of its kind it stands for), and the interval is
clustered by deal, since one deal gives several rows and they are not independent. The
knock line is read from a model that uses all cells of a stock band together (a weighted
least-squares line of the gain on the deadwood) with a cluster bootstrap over deals.

Computed here, below the reports, so that ``reports.advice`` only lays the figures out and
``distill`` reads the advice report's tables by the same cells.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence

import numpy as np
import pandas as pd

from gin_sim.experiments.summary import (
    ESTIMATE_COLUMNS,
    RATE_COLUMNS,
    Z95,
    Estimate,
    estimate_row,
    rate_row,
)
from gin_sim.kernels.enums import DecisionKind

# Cards left in the stock when knocking, in bands from the start of a hand to its end.
STOCK_BANDS = ((25, 31), (19, 24), (13, 18), (7, 12), (0, 6))
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
# The decision kinds, in the order of gin_sim.experiments.positions.KINDS.
KINDS = tuple(name.lower() for name in DecisionKind._fields)
# Bootstrap resamples of deals behind the knock line's intervals (seeded).
LINE_RESAMPLES = 1000
# The deadwoods the knock line's model fits: 1 to 10 (0 is gin, which is no choice to knock
# early: it scores a bonus and is never undercut, R14, R17).
LINE_DEADWOOD = np.arange(1, 11)
# A band gets a knock line only with positions from this many deals or more, at three
# deadwoods or more: with fewer, resamples of deals repeat a few deals and their lines
# coincide (an interval of width 0), and a line through two cells fits them exactly.
MIN_LINE_DEALS = 10
MIN_LINE_DEADWOODS = 3
# Where a resample's fitted gain does not fall with deadwood, its line is +inf when the
# fitted gain is above 0 at the middle of the range (knock at any deadwood) and -inf when
# it is below (knock only for gin); the percentiles then stay defined.
_LINE_MIDDLE = 5.5
# The smallest true difference the check against play detects with 80% power in a
# two-sided test at 5% is (1.96 + 0.84) standard errors of the difference.
Z80 = 0.8416212335729143
DETECTABLE_SES = Z95 + Z80


def stock_band(stock_left: pd.Series) -> pd.Series:
    """The band (``"25-31"`` ...) of each stock size, as an ordered categorical."""
    labels = [f"{low}-{high}" for low, high in STOCK_BANDS]
    codes = np.full(len(stock_left), -1)
    for code, (low, high) in enumerate(STOCK_BANDS):
        codes[(stock_left.to_numpy() >= low) & (stock_left.to_numpy() <= high)] = code
    return pd.Series(
        pd.Categorical.from_codes(codes, categories=labels, ordered=True), index=stock_left.index
    )


def weights(rows: pd.DataFrame) -> np.ndarray:
    """The rows' ``weight`` (the decisions each stands for: 1 / its keep probability)."""
    if "weight" not in rows:
        raise ValueError(
            "the positions have no weight column: they were sampled before decisions were "
            "kept with a known probability; build the dataset again"
        )
    return rows["weight"].to_numpy(np.float64)


def per_decision(rows: pd.DataFrame, values) -> Estimate:
    """The mean of ``values`` over the decisions ``rows`` stand for: the weighted ratio
    (Hajek) estimator, its interval clustered by deal."""
    w = weights(rows)
    x = np.asarray(values, np.float64)
    return Estimate.of(w * x, w, groups=rows["deal"].to_numpy())


def _evaluated(positions: pd.DataFrame) -> None:
    if "gain" not in positions:
        raise ValueError("the positions were not evaluated: build them without --no-evaluate")


def knock_positions(positions: pd.DataFrame) -> pd.DataFrame:
    """The evaluated knock positions, with their stock band (``stock_band``) and
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


def _levels(rows: pd.DataFrame, column: str) -> list:
    if isinstance(rows[column].dtype, pd.CategoricalDtype):
        return list(rows[column].cat.categories)
    return sorted(rows[column].unique())


# -------------------------------------------------------------------------- cells
def gain_cells(rows: pd.DataFrame, by: Sequence[str], key: str, levels: Sequence) -> pd.DataFrame:
    """The mean headline gain per decision of ``rows`` by the columns ``by`` and ``key``
    (every value of ``levels`` gets a row): ``positions`` (rows), ``decisions`` (the sum of
    their weights: the decisions they stand for), ``thin`` (fewer than MIN_CELL_POSITIONS
    positions) and the mean gain with its 95% interval (``per_decision``: ``mean``,
    ``half_width``, ``low``, ``high``, ``n`` deals). A cell without positions has
    ``positions`` 0 and no gain."""
    keys = [*by, key]
    records = []
    for values, group in rows.groupby(keys, sort=True, observed=True):
        estimate = per_decision(group, group["gain"].to_numpy(np.float64))
        records.append(
            dict(zip(keys, values, strict=True))
            | {"positions": len(group), "decisions": float(weights(group).sum())}
            | estimate_row(estimate)
        )
    table = pd.DataFrame.from_records(
        records, columns=[*keys, "positions", "decisions", *ESTIMATE_COLUMNS]
    )
    if by:
        full = pd.MultiIndex.from_product([*(_levels(rows, c) for c in by), levels], names=keys)
    else:
        full = pd.Index(list(levels), name=key)
    table = table.set_index(keys).reindex(full).reset_index()
    for column in by:  # keep the groups' order (stock bands from the start of the hand)
        if isinstance(rows[column].dtype, pd.CategoricalDtype):
            table[column] = pd.Categorical(
                table[column], categories=rows[column].cat.categories, ordered=True
            )
    if not isinstance(levels, range):
        table[key] = pd.Categorical(table[key], categories=list(levels), ordered=True)
    table["positions"] = table["positions"].fillna(0).astype(int)
    table["decisions"] = table["decisions"].fillna(0.0)
    table["n"] = table["n"].fillna(0).astype(int)
    table["thin"] = table["positions"] < MIN_CELL_POSITIONS
    return table


def highest_deadwood(knocks: pd.DataFrame) -> int:
    """The highest knock limit of the knock positions (10 when there are none)."""
    return int(knocks["knock_limit"].max()) if len(knocks) else 10


def knock_cells(knocks: pd.DataFrame, by: Sequence[str] = ("stock_band",)) -> pd.DataFrame:
    """``gain_cells`` of the knock positions by ``by`` and the deadwood, 0 to the highest
    knock limit: the gain of knocking over the best way to play on."""
    return gain_cells(knocks, by, "deadwood", range(highest_deadwood(knocks) + 1))


def knock_cells_by_play(knocks: pd.DataFrame, played: pd.DataFrame) -> pd.DataFrame:
    """``knock_cells`` by stock band of the knock positions valued by play instead of by the
    search: ``played`` (``positions.play_in_parts``: ``deal``, ``decision``, ``play_gain``)
    gives each position's gain of knocking in the players' own play. Beside play's cell
    (``positions``, ``mean``, ``half_width``, ``low``, ``high``, ``n``, ``thin``): the
    search's over the same positions (``search_*``) and their paired difference, play less
    search (``difference_*``), each a mean per decision clustered by deal."""
    rows = knocks.drop(columns="play_gain", errors="ignore").merge(
        played[["deal", "decision", "play_gain"]], on=["deal", "decision"], validate="one_to_one"
    )
    table = knock_cells(rows.assign(gain=rows["play_gain"]))
    keys = ["stock_band", "deadwood"]
    for label, gains in (
        ("search", rows["gain"]),
        ("difference", rows["play_gain"] - rows["gain"]),
    ):
        other = knock_cells(rows.assign(gain=gains))
        shown = other[[*keys, "mean", "half_width", "low", "high"]]
        table = table.merge(
            shown.rename(columns={c: f"{label}_{c}" for c in shown.columns if c not in keys}),
            on=keys,
            how="left",
        )
    return table


def take_cells(takes: pd.DataFrame, by: Sequence[str] = ("kind",)) -> pd.DataFrame:
    """``gain_cells`` of the offer and draw positions by ``by`` and what the card does for
    the hand (CARD_DOES): the gain of taking over drawing (or declining the offer)."""
    return gain_cells(takes, by, "card_does", CARD_DOES)


# ------------------------------------------------------------------- knock line
LINE_COLUMNS = [
    "line", "low", "high", "crossing", "direction", "intercept", "slope", "threshold",
    "positions", "deals",
]  # fmt: skip
FIT_COLUMNS = [
    "deadwood", "positions", "cell_mean", "fitted", "fitted_low", "fitted_high", "residual",
    "residual_low", "residual_high",
]  # fmt: skip


def _fit(w: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The weighted least-squares line ``gain = a + b * deadwood`` from cell sums: ``w``
    the summed weights and ``y`` the summed weighted gains of deadwood 1 to 10 (last axis).
    NaN where fewer than two deadwoods have positions."""
    d = LINE_DEADWOOD.astype(np.float64)
    s0, s1, s2 = w.sum(-1), (w * d).sum(-1), (w * d * d).sum(-1)
    t0, t1 = y.sum(-1), (y * d).sum(-1)
    det = s0 * s2 - s1 * s1
    with np.errstate(divide="ignore", invalid="ignore"):
        # det is a sum of squared deadwood differences: 0 (up to rounding) with one deadwood
        defined = det > 1e-9 * np.maximum(s0 * s2, 1e-300)
        b = np.where(defined, (s0 * t1 - s1 * t0) / det, np.nan)
        a = np.where(defined, (t0 - b * s1) / s0, np.nan)
    return a, b


def _crossing(a: np.ndarray, b: np.ndarray, rising: bool) -> np.ndarray:
    """Where the fitted gain crosses 0, ``-a / b``, for resamples whose line turns the same
    way as the estimate's (``rising``: knock above the line; else below it). A resample
    whose line is flat or turns the other way has no crossing of that kind: it counts as
    the end of the scale that says what it advises at mid-range (_LINE_MIDDLE's gain):
    knocking everywhere is a falling line at +inf and a rising one at -inf, knocking
    nowhere the opposite. NaN where there is no line."""
    with np.errstate(divide="ignore", invalid="ignore"):
        crossing = -a / b
        knocks_everywhere = a + b * _LINE_MIDDLE > 0
        end = np.where(knocks_everywhere == rising, -np.inf, np.inf)
    same_way = (b > 0) if rising else (b < 0)
    return np.where(np.isnan(b), np.nan, np.where(same_way, crossing, end))


def _threshold(a: float, b: float, limit: int) -> int:
    """The family knock threshold the fit says (knock at deadwood up to it): the crossing
    rounded down, within 0 and ``limit``; where the line does not fall (a threshold cannot
    say "knock only above"), ``limit`` if the fitted gain's mean over deadwood 1 to
    ``limit`` is above 0 (knocking at every deadwood allowed beats knocking only for gin),
    else 0; -1 without a line."""
    if not (math.isfinite(a) and math.isfinite(b)):
        return -1
    if b < 0:
        return int(min(max(math.floor(-a / b), 0), limit))
    return limit if a + b * (1 + limit) / 2 > 0 else 0


def _quantiles(draws: np.ndarray, axis: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The 2.5 and 97.5 percentiles of bootstrap draws, NaNs left out (a resample without
    positions at a deadwood has no cell mean there); values are picked, never interpolated,
    so infinite ends stay as they are."""
    with warnings.catch_warnings():  # a deadwood no resample holds: NaN, said as such
        warnings.simplefilter("ignore", RuntimeWarning)
        low, high = np.nanquantile(draws, [0.025, 0.975], axis=axis, method="inverted_cdf")
    return low, high


def knock_model(
    knocks: pd.DataFrame, by: Sequence[str] = ("stock_band",), seed: int = 0
) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The knock line per group of ``by``, from a model that uses all its cells together.

    Per group, the gain of knocking is fitted on the deadwood 1 to 10 by weighted least
    squares (each position weighted by ``weight``): ``gain = a + b * deadwood``. The knock
    line is the deadwood where the fitted gain crosses 0, ``-a / b``, a real number not
    clipped to the deadwoods that exist. Its ``direction`` says which side knocks: a
    falling line (``b < 0``, "below") says knock at deadwood below the line (above 10:
    at every deadwood allowed; below 1: only for gin); a rising one (``b > 0``, "above")
    says knock above it and play on below, for gin (below 1: knock at every deadwood;
    above 10: only for gin). Only a flat fit (``b == 0``) has no crossing (``crossing``
    False, ``line`` NaN). Intervals are the 2.5 and 97.5 percentiles of LINE_RESAMPLES
    cluster-bootstrap resamples of the group's deals (a resample draws deals with
    replacement and takes all their rows), seeded by ``seed`` and the group's place, so
    the table is reproducible; a resample whose line turns the other way counts as ±inf
    (``_crossing``). A group with positions from fewer than MIN_LINE_DEALS deals, or at
    fewer than MIN_LINE_DEADWOODS deadwoods, gets no line.

    Returns (line, fit). ``line``: per group ``line``, ``low``, ``high``, ``crossing``,
    ``direction``, ``intercept`` ``a``, ``slope`` ``b``, ``threshold`` (``_threshold``),
    ``positions`` (rows of deadwood 1 to 10) and ``deals``. ``fit``: per group and deadwood 1 to 10 the
    positions, the cell's mean gain per decision, the fitted gain and the residual (cell
    mean less fit), each fitted figure with its bootstrap interval: a residual interval
    that excludes 0 says the line does not describe that cell.
    """
    lines, fits = [], []
    for place, (key, group) in enumerate(knocks.groupby(list(by), sort=True, observed=True)):
        values = dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True))
        rows = group[(group["deadwood"] >= 1) & (group["deadwood"] <= LINE_DEADWOOD[-1])]
        deals, deal_of = np.unique(rows["deal"].to_numpy(), return_inverse=True)
        column = rows["deadwood"].to_numpy(np.int64) - 1
        w = weights(rows)
        cell_w = np.zeros((len(deals), len(LINE_DEADWOOD)))
        cell_y = np.zeros((len(deals), len(LINE_DEADWOOD)))
        np.add.at(cell_w, (deal_of, column), w)
        np.add.at(cell_y, (deal_of, column), w * rows["gain"].to_numpy(np.float64))
        enough = (
            len(deals) >= MIN_LINE_DEALS and np.count_nonzero(cell_w.sum(0)) >= MIN_LINE_DEADWOODS
        )
        a, b = (float(v) for v in _fit(cell_w.sum(0), cell_y.sum(0)))
        if not enough:
            a = b = math.nan
        fitted = a + b * LINE_DEADWOOD
        with np.errstate(divide="ignore", invalid="ignore"):
            cell_mean = cell_y.sum(0) / cell_w.sum(0)
        boot_a, boot_b, boot_mean = _resample(cell_w, cell_y, np.random.default_rng([seed, place]))
        if not enough:
            boot_a = boot_b = np.full(LINE_RESAMPLES, np.nan)
        boot_line = _crossing(boot_a, boot_b, rising=bool(b > 0))
        boot_fitted = boot_a[:, None] + boot_b[:, None] * LINE_DEADWOOD
        boot_residual = boot_mean - boot_fitted
        line_low, line_high = _quantiles(boot_line) if enough else (np.nan, np.nan)
        lines.append(
            values
            | {
                "line": -a / b if b != 0 else math.nan,
                "low": float(line_low),
                "high": float(line_high),
                "crossing": bool(b != 0),
                "direction": "below" if b < 0 else "above" if b > 0 else "",
                "intercept": a,
                "slope": b,
                "threshold": _threshold(a, b, highest_deadwood(group)),
                "positions": len(rows),
                "deals": len(deals),
            }
        )
        fitted_low, fitted_high = _quantiles(boot_fitted)
        residual_low, residual_high = _quantiles(boot_residual)
        counts = np.bincount(column, minlength=len(LINE_DEADWOOD))
        for i, deadwood in enumerate(LINE_DEADWOOD):
            fits.append(
                values
                | {
                    "deadwood": int(deadwood),
                    "positions": int(counts[i]),
                    "cell_mean": float(cell_mean[i]),
                    "fitted": float(fitted[i]),
                    "fitted_low": float(fitted_low[i]),
                    "fitted_high": float(fitted_high[i]),
                    "residual": float(cell_mean[i] - fitted[i]),
                    "residual_low": float(residual_low[i]),
                    "residual_high": float(residual_high[i]),
                }
            )
    line = pd.DataFrame.from_records(lines, columns=[*by, *LINE_COLUMNS])
    fit = pd.DataFrame.from_records(fits, columns=[*by, *FIT_COLUMNS])
    for column in by:  # keep the groups' order (stock bands from the start of the hand)
        if isinstance(knocks[column].dtype, pd.CategoricalDtype):
            for table in (line, fit):
                table[column] = pd.Categorical(
                    table[column], categories=knocks[column].cat.categories, ordered=True
                )
    return line, fit


def _in_deal_order(counts: np.ndarray, cells: np.ndarray) -> np.ndarray:
    """``counts @ cells`` (resamples by deals, times deals by cells), each sum added deal
    after deal. Why not ``@``: BLAS splits and orders its sums by the CPU it runs on and its
    threads, so the last digits of the report's intervals changed from one machine to
    another and a regenerated report was not the same file; a running sum along the deals
    has one order everywhere."""
    return np.add.accumulate(counts[:, :, None] * cells[None, :, :], axis=1)[:, -1]


def _resample(
    cell_w: np.ndarray, cell_y: np.ndarray, rng: np.random.Generator, batch: int = 100
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """LINE_RESAMPLES cluster-bootstrap resamples of the deals (rows of ``cell_w``,
    ``cell_y``: each deal's summed weights and weighted gains by deadwood): each resample's
    fitted intercept and slope and its cell means (NaN where it has no positions)."""
    n = len(cell_w)
    if n == 0:
        empty = np.full(LINE_RESAMPLES, np.nan)
        return empty, empty, np.full((LINE_RESAMPLES, len(LINE_DEADWOOD)), np.nan)
    sums_w, sums_y = [], []
    for start in range(0, LINE_RESAMPLES, batch):
        k = min(batch, LINE_RESAMPLES - start)
        draws = rng.integers(0, n, size=(k, n))
        counts = np.bincount((draws + n * np.arange(k)[:, None]).ravel(), minlength=k * n)
        counts = counts.reshape(k, n).astype(np.float64)
        sums_w.append(_in_deal_order(counts, cell_w))
        sums_y.append(_in_deal_order(counts, cell_y))
    w, y = np.concatenate(sums_w), np.concatenate(sums_y)
    a, b = _fit(w, y)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = np.where(w > 0, y / w, np.nan)
    return a, b, mean


def knock_line(
    knocks: pd.DataFrame, by: Sequence[str] = ("stock_band",), seed: int = 0
) -> pd.DataFrame:
    """The knock line per group of ``by`` (``knock_model``'s first table)."""
    return knock_model(knocks, by, seed)[0]


# ------------------------------------------------------------------ undercut risk
def strong_knocks(positions: pd.DataFrame) -> pd.DataFrame:
    """The knocks the dataset's players made at their kept knock positions, in the columns
    of the undercut tables (``reports.tables.KNOCK_COLUMNS``), with the row's ``weight``
    (the knock decisions it stands for), so weighted rates are per knock. A knock the
    player made and lost is undercut (R17: only an undercut makes the knocker lose)."""
    knocks = positions[
        (positions["kind"] == "knock") & positions["played"].astype(str).str.startswith("knock")
    ]
    return pd.DataFrame(
        {
            "deal": knocks["deal"].to_numpy(),
            "knocker_deadwood": knocks["deadwood"].to_numpy(np.int64),
            "stock_left": knocks["stock_left"].to_numpy(np.int64),
            "stock_band": stock_band(knocks["stock_left"]).to_numpy(),
            "undercut": (knocks["hand_points"] < 0).to_numpy(),
            "weight": weights(knocks),
        }
    )


def strong_undercut_rates(knocks: pd.DataFrame, by: str | Sequence[str]) -> pd.DataFrame:
    """Undercuts per knock of ``strong_knocks`` by the column(s) ``by``
    (``knocker_deadwood`` gets every deadwood 0 to 10, ``stock_band`` every band):
    ``knocks`` (positions behind the cell), the rate per knock (``per_decision``: weighted,
    clustered by deal) and its 95% Wilson interval (``rate_row``), and ``thin`` (fewer
    than MIN_CELL_POSITIONS knocks)."""
    keys = [by] if isinstance(by, str) else list(by)
    records = []
    for values, group in knocks.groupby(keys, sort=True, observed=True):
        estimate = per_decision(group, group["undercut"].to_numpy(np.float64))
        # Where the rate is 0 or 1 its Wilson interval needs trials: the effective number
        # (Kish) of the deals' summed weights, since a deal standing for many knocks counts
        # more and a deal's rows are one unit.
        totals = pd.Series(weights(group)).groupby(group["deal"].to_numpy()).sum().to_numpy()
        kish = totals.sum() ** 2 / (totals**2).sum()
        key = dict(zip(keys, values if isinstance(values, tuple) else (values,), strict=True))
        records.append(key | {"knocks": len(group)} | rate_row(estimate, kish))
    table = pd.DataFrame.from_records(records, columns=[*keys, "knocks", *RATE_COLUMNS])
    full = {
        "knocker_deadwood": range(11),
        "stock_band": [f"{low}-{high}" for low, high in STOCK_BANDS],
    }
    if all(key in full for key in keys):  # every cell gets a row, in the hand's order
        table[keys] = table[keys].astype({k: str if k == "stock_band" else int for k in keys})
        index = (
            pd.Index(full[keys[0]], name=keys[0])
            if len(keys) == 1
            else pd.MultiIndex.from_product([full[k] for k in keys], names=keys)
        )
        table = table.set_index(keys).reindex(index).reset_index()
        table["knocks"] = table["knocks"].fillna(0).astype(int)
    table["thin"] = table["knocks"] < MIN_CELL_POSITIONS
    return table.rename(columns={"mean": "rate"})


# --------------------------------------------------------------- across rule sets
# A row's key within its deal: its decision's index in the hand (several rows of a kind
# can come from one deal).
ROW_KEY = ["deal", "decision"]


def paired_gains(base: pd.DataFrame, other: pd.DataFrame, key: str) -> pd.DataFrame:
    """The rows of ``base`` (``deal``, ``decision``, ``weight``, ``key``) with ``gain`` =
    ``other``'s headline gain less ``base``'s on the same position (rows matched by deal
    and decision): a paired comparison of two rule sets, since ``evaluate_frame`` gives
    each position the same worlds."""
    joined = base[[*ROW_KEY, "weight", key, "gain"]].merge(
        other[[*ROW_KEY, "gain"]], on=ROW_KEY, suffixes=("", "_other")
    )
    return joined.assign(gain=joined["gain_other"] - joined["gain"])


def paired_gain_differences(
    base: pd.DataFrame, other: pd.DataFrame, key: str, levels: Sequence
) -> pd.DataFrame:
    """``gain_cells`` of ``paired_gains`` by ``key``: per value, the mean change per
    decision of the headline gain from ``base``'s rule set to ``other``'s, with its 95%
    interval (clustered by deal)."""
    return gain_cells(paired_gains(base, other, key), [], key, levels)


def paired_change(base: pd.DataFrame, other: pd.DataFrame) -> Estimate:
    """The mean change per decision of the headline gain from ``base``'s rule set to
    ``other``'s over all of ``base``'s rows (``paired_gains``)."""
    pairs = paired_gains(base, other, "kind")
    return per_decision(pairs, pairs["gain"].to_numpy(np.float64))


# ------------------------------------------------------------ check against play
# The cells checked against play (part 5 of issue 16): name, kind(s), and a row filter.
CHECK_CELLS: tuple[tuple[str, tuple[str, ...], Callable[[pd.DataFrame], pd.Series]], ...] = (
    ("knock, deadwood 1 to 5", ("knock",), lambda r: (r["deadwood"] >= 1) & (r["deadwood"] <= 5)),
    ("knock, deadwood 6 to 10", ("knock",), lambda r: r["deadwood"] >= 6),
    ("take or draw, card completes a meld", ("offer", "draw"), lambda r: r["card_melds"]),
    ("take or draw, card lowers nothing", ("offer", "draw"), lambda r: ~r["card_melds"] & (r["card_lowers"] <= 0)),
)  # fmt: skip


def _cell_rows(positions: pd.DataFrame, kinds: Sequence[str], keep) -> pd.DataFrame:
    rows = positions[positions["kind"].isin(kinds)]
    return rows[keep(rows).to_numpy(bool)]


def check_rows(positions: pd.DataFrame, per_cell: int) -> pd.DataFrame:
    """The positions checked against play: per cell of CHECK_CELLS, its first ``per_cell``
    evaluated positions in deal order (a position is in one cell only), with ``cell``.
    Deals are independent draws, so the first positions are a sample of the cell's, and
    their weights make their mean one per decision."""
    _evaluated(positions)
    parts = []
    for name, kinds, keep in CHECK_CELLS:
        parts.append(_cell_rows(positions, kinds, keep).head(per_cell).assign(cell=name))
    return pd.concat(parts, ignore_index=True)


# The parts of the check's paired difference (``check_table``): name, what is subtracted
# from what, per position. ``difference`` (play less search) is the sum of the other two.
CHECK_PARTS = (
    ("difference", "play_gain", "gain"),  # play less search: the whole check
    ("policies", "play_gain", "rollout_gain"),  # play less the search's policies, real cards
    ("worlds", "rollout_gain", "gain"),  # the search's policies: real cards less its worlds
)


def _tested(part: pd.DataFrame, values: np.ndarray, label: str) -> dict[str, object]:
    """``label``'s paired difference as a mean per decision with its 95% interval, its
    standard error, ``detectable`` ((1.96 + 0.84) standard errors: the smallest true
    difference detected with 80% power in a two-sided test at 5%) and ``flagged`` (the
    interval excludes 0)."""
    estimate = per_decision(part, values)
    record: dict[str, object] = {
        f"{label}_{k}": v for k, v in estimate_row(estimate).items() if k != "n"
    }
    se = math.sqrt(estimate.variance) if estimate.variance >= 0 else math.nan
    prefix = "" if label == "difference" else f"{label}_"
    record[f"{label}_se"] = se
    record[f"{prefix}detectable"] = DETECTABLE_SES * se
    record[f"{prefix}flagged"] = bool(
        estimate.half_width > 0 and abs(estimate.mean) > estimate.half_width
    )
    return record


def check_table(positions: pd.DataFrame, checked: pd.DataFrame) -> pd.DataFrame:
    """Per checked cell, each figure a mean per decision (``per_decision``) with its 95%
    interval: the table's gain over the whole cell (``table_*``), the search's and play's
    gains over the checked positions (``search_*``, ``play_*``) and their paired
    difference (``difference_*``: play less search, position by position, clustered by
    deal), with ``difference_se`` its standard error; ``flagged``: the difference's
    interval excludes 0; ``detectable``: the smallest true difference the check would
    detect with 80% power in a two-sided test at 5%, (1.96 + 0.84) standard errors
    (``DETECTABLE_SES``).

    With ``rollout_gain`` in ``checked`` (``positions.rollout_headline``: the search's own
    rollout policies playing from the real cards on play's stocks), the difference is
    split in two, each tested alike (``CHECK_PARTS``): ``policies_*`` (play less the
    rollouts: the real players against the search's policies and opponent model, on the
    same cards and stocks; ``policies_flagged``, ``policies_detectable``) and ``worlds_*``
    (the rollouts less the search: the real hidden cards against the search's worlds,
    under the same policies; ``worlds_flagged``, ``worlds_detectable``)."""
    parts = CHECK_PARTS if "rollout_gain" in checked else CHECK_PARTS[:1]
    records = []
    for name, kinds, keep in CHECK_CELLS:
        cell = _cell_rows(positions, kinds, keep)
        part = checked[checked["cell"] == name]
        record: dict[str, object] = {
            "cell": name,
            "cell_positions": len(cell),
            "checked": len(part),
        }
        for label, estimate in (
            ("table", per_decision(cell, cell["gain"].to_numpy(np.float64))),
            ("search", per_decision(part, part["gain"].to_numpy(np.float64))),
            ("play", per_decision(part, part["play_gain"].to_numpy(np.float64))),
        ):
            record |= {f"{label}_{k}": v for k, v in estimate_row(estimate).items() if k != "n"}
        if len(parts) > 1:
            rollouts = per_decision(part, part["rollout_gain"].to_numpy(np.float64))
            record |= {f"rollout_{k}": v for k, v in estimate_row(rollouts).items() if k != "n"}
        for label, minuend, subtrahend in parts:
            values = part[minuend].to_numpy(np.float64) - part[subtrahend].to_numpy(np.float64)
            record |= _tested(part, values, label)
        records.append(record)
    return pd.DataFrame.from_records(records)


# ------------------------------------------------- the search's values against play
def played_value_gaps(positions: pd.DataFrame) -> pd.DataFrame:
    """Per kind: the search's value of the move the player made (``values`` at ``played``)
    against the hand's real points (``hand_points``), over the positions where the move
    is among the evaluated actions, each a mean per decision (``per_decision``). The
    search plays the rest of the hand with its rollout policies (the player by
    ``rollout``, the opponent by ``opponent_model``) in worlds drawn from the player's
    view; the real hand was played by the dataset's players from the real cards. ``gap``
    (real points less the search's value, per position, with its 95% interval) is the
    mean of that difference: how far the search's values are from the real outcomes, from
    both its policies and its worlds."""
    _evaluated(positions)
    records = []
    for kind in KINDS:
        rows = positions[positions["kind"].astype(str) == kind]
        made, value, real = [], [], []
        for actions, values, played, points in zip(
            rows["actions"], rows["values"], rows["played"], rows["hand_points"], strict=True
        ):
            actions = list(actions)
            made.append(played in actions)
            value.append(float(values[actions.index(played)]) if made[-1] else math.nan)
            real.append(float(points))
        kept = rows[np.asarray(made, bool)]
        value_array = np.asarray(value)[np.asarray(made, bool)]
        real_array = np.asarray(real)[np.asarray(made, bool)]
        records.append(
            {
                "kind": kind,
                "positions": len(kept),
                "search_value": per_decision(kept, value_array).mean,
                "real_points": per_decision(kept, real_array).mean,
            }
            | {
                f"gap_{k}": v
                for k, v in estimate_row(per_decision(kept, real_array - value_array)).items()
            }
        )
    return pd.DataFrame.from_records(records)


def shares_positions(rules: str, other: str) -> bool:
    """Whether ``report advice`` re-evaluates the positions played under ``rules`` for the
    rule set ``other`` (paired): a stored position keeps its hand's knock limit, so both
    must have one fixed limit (not Oklahoma, R14a) and the same one."""
    from gin_sim.game.rules import load_rules

    own, their = load_rules(rules), load_rules(other)
    return not own.oklahoma and not their.oklahoma and own.knock_limit == their.knock_limit
