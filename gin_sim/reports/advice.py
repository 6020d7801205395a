"""Advice tables from a dataset of evaluated positions (docs/advice.md): knock or play on,
take or draw.

Every figure is read from the rows of ``gin_sim.experiments.positions.load_positions``: a cell's gain is
the mean of its positions' headline gains (knocking over the best way to play on; taking
over drawing or declining) with the
95% interval of a ratio of sums (``gin_sim.experiments.summary.Estimate``; positions are independent,
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
from dataclasses import dataclass

import numpy as np
import pandas as pd

from gin_sim.experiments.advice import CARD_DOES, MIN_CELL_POSITIONS, STOCK_BANDS
from gin_sim.experiments.summary import Estimate
from gin_sim.game.rules import Rules
from gin_sim.kernels.enums import DecisionKind
from gin_sim.reports import figures
from gin_sim.reports.document import Report, Section, format_rate
from gin_sim.reports.tables import (
    ESTIMATE_COLUMNS,
    RATE_COLUMNS,
    estimate_row,
    rate_row,
    stock_band,
    undercut_rates,
)

KNOCK_GAIN = "gain of knocking over the best discard (points per hand)"
TAKE_GAIN = "gain of taking over drawing (points per hand)"
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


# ------------------------------------------------------------------ undercut risk
def strong_knocks(positions: pd.DataFrame) -> pd.DataFrame:
    """The knocks the dataset's players made at their kept knock positions, in the columns
    of the undercut tables (``tables.KNOCK_COLUMNS``), with ``weight`` = ``kind_count``: a
    hand's kept knock position is the knock itself with probability 1 / ``kind_count``, so
    weighting by it makes the rates per knock. A knock the player made and lost is
    undercut (R17: only an undercut makes the knocker lose)."""
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
            "weight": knocks["kind_count"].to_numpy(np.float64),
        }
    )


def strong_undercut_rates(knocks: pd.DataFrame, by: str | Sequence[str]) -> pd.DataFrame:
    """Undercuts per knock of ``strong_knocks`` by the column(s) ``by``
    (``knocker_deadwood`` gets every deadwood 0 to 10, ``stock_band`` every band): ``knocks``
    (positions behind the cell), the rate per knock and its 95% Wilson interval (a ratio of
    weighted sums over independent hands; ``rate_row``), and ``thin`` (fewer than
    MIN_CELL_POSITIONS knocks)."""
    keys = [by] if isinstance(by, str) else list(by)
    records = []
    for values, group in knocks.groupby(keys, sort=True, observed=True):
        weights = group["weight"].to_numpy()
        estimate = Estimate.of(weights * group["undercut"].to_numpy(np.float64), weights)
        # Where the rate is 0 or 1 its Wilson interval needs trials: the weighted knocks'
        # effective number (Kish), since a position standing for many knocks counts more.
        kish = weights.sum() ** 2 / (weights**2).sum()
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


def undercut_grid(rates: pd.DataFrame, count: str) -> pd.DataFrame:
    """Rates by deadwood (rows, 1 to 10: gin is never undercut) and stock band (columns,
    from the start of the hand) as 'rate (low to high) [count]', thin cells marked."""
    bands = [f"{low}-{high}" for low, high in STOCK_BANDS]
    shown = rates.assign(stock_band=rates["stock_band"].astype(str))
    shown = shown[shown["knocker_deadwood"] > 0]
    shown = shown.assign(
        text=[
            ""
            if not r[count]
            else f"{_rate(r['rate'], r['low'], r['high'])} [{r[count]:,}]"
            + (" thin" if r[count] < MIN_CELL_POSITIONS else "")
            for _, r in shown.iterrows()
        ]
    )
    grid = shown.pivot(index="knocker_deadwood", columns="stock_band", values="text")
    grid = grid.reindex(columns=[b for b in bands if b in grid.columns]).fillna("")
    grid.columns = [str(c) for c in grid.columns]
    return grid.reset_index().rename(columns={"knocker_deadwood": "deadwood"}).astype(str)


# --------------------------------------------------------------- across rule sets
def paired_gains(base: pd.DataFrame, other: pd.DataFrame, key: str) -> pd.DataFrame:
    """The rows of ``base`` with ``key`` and ``gain`` = ``other``'s headline gain less
    ``base``'s on the same position (rows matched by deal and decision): a paired comparison
    of two rule sets, since ``evaluate_frame`` gives each position the same worlds."""
    joined = base[list(dict.fromkeys(["deal", "decision", key, "gain"]))].merge(
        other[["deal", "decision", "gain"]], on=["deal", "decision"], suffixes=("", "_other")
    )
    return joined.assign(gain=joined["gain_other"] - joined["gain"])


def paired_gain_differences(
    base: pd.DataFrame, other: pd.DataFrame, key: str, levels: Sequence
) -> pd.DataFrame:
    """``gain_cells`` of ``paired_gains`` by ``key``: per value, the mean change of the
    headline gain from ``base``'s rule set to ``other``'s, with its 95% interval."""
    return gain_cells(paired_gains(base, other, key), [], key, levels)


# ------------------------------------------------------------ check against play
# The cells checked against play (part 5 of issue 16): name, kind(s), and a row filter.
CHECK_CELLS = (
    ("knock, deadwood 1 to 5", ("knock",), lambda r: (r["deadwood"] >= 1) & (r["deadwood"] <= 5)),
    ("knock, deadwood 6 to 10", ("knock",), lambda r: r["deadwood"] >= 6),
    ("take or draw, card completes a meld", ("offer", "draw"), lambda r: r["card_melds"]),
    ("take or draw, card lowers nothing", ("offer", "draw"), lambda r: ~r["card_melds"] & (r["card_lowers"] <= 0)),
)  # fmt: skip


def check_rows(positions: pd.DataFrame, per_cell: int) -> pd.DataFrame:
    """The positions checked against play: per cell of CHECK_CELLS, its first ``per_cell``
    evaluated positions in deal order (a position is in one cell only), with ``cell``."""
    _evaluated(positions)
    parts = []
    for name, kinds, keep in CHECK_CELLS:
        rows = positions[positions["kind"].isin(kinds)]
        rows = rows[keep(rows).to_numpy(bool)].head(per_cell)
        parts.append(rows.assign(cell=name))
    return pd.concat(parts, ignore_index=True)


def check_table(positions: pd.DataFrame, checked: pd.DataFrame) -> pd.DataFrame:
    """Per checked cell: the table's gain over the whole cell (``table_*``), the search's
    and play's gains over the checked positions (``search_*``, ``play_*``), and their
    paired difference per position (``difference_*``: play less search), each a mean with
    its 95% interval; ``within``: play's mean falls inside the search's interval over the
    same positions (the table's figure for them)."""
    records = []
    for name, kinds, keep in CHECK_CELLS:
        rows = positions[positions["kind"].isin(kinds)]
        cell = rows[keep(rows).to_numpy(bool)]
        part = checked[checked["cell"] == name]
        table = Estimate.of(cell["gain"].to_numpy(np.float64))
        search = Estimate.of(part["gain"].to_numpy(np.float64))
        play = Estimate.of(part["play_gain"].to_numpy(np.float64))
        difference = Estimate.of((part["play_gain"] - part["gain"]).to_numpy(np.float64))
        record: dict[str, object] = {
            "cell": name,
            "cell_positions": len(cell),
            "checked": len(part),
        }
        for label, estimate in (
            ("table", table),
            ("search", search),
            ("play", play),
            ("difference", difference),
        ):
            record |= {f"{label}_{k}": v for k, v in estimate_row(estimate).items() if k != "n"}
        # Against the table's figure for the same positions (the search's mean over them):
        # the whole cell's interval also holds the spread between positions, which says
        # nothing about whether search and play agree.
        record["within"] = bool(abs(play.mean - search.mean) <= search.half_width)
        records.append(record)
    return pd.DataFrame.from_records(records)


# ------------------------------------------------- the search's values against play
# The decision kinds, in the order of gin_sim.experiments.positions.KINDS (offer, draw, discard, knock).
KINDS = tuple(name.lower() for name in DecisionKind._fields)


def played_value_gaps(positions: pd.DataFrame) -> pd.DataFrame:
    """Per kind: the search's value of the move the player made (``values`` at ``played``)
    against the hand's real points (``hand_points``), over the positions where the move
    is among the evaluated actions. The search plays the rest of the hand with its rollout
    policies (the player by ``rollout``, the opponent by ``opponent_model``), the real hand
    was played by the dataset's players, so ``gap`` (real points less the search's value,
    per position, with its 95% interval) measures how far the rollouts' values are from
    real play; an unbiased search would have a gap of 0 within its interval."""
    _evaluated(positions)
    records = []
    for kind in KINDS:
        rows = positions[positions["kind"].astype(str) == kind]
        value, real = [], []
        for actions, values, played, points in zip(
            rows["actions"], rows["values"], rows["played"], rows["hand_points"], strict=True
        ):
            actions = list(actions)
            if played in actions:
                value.append(float(values[actions.index(played)]))
                real.append(float(points))
        value_array, real_array = np.asarray(value), np.asarray(real)
        records.append(
            {
                "kind": kind,
                "positions": len(value),
                "search_value": value_array.mean() if len(value) else np.nan,
                "real_points": real_array.mean() if len(value) else np.nan,
            }
            | {
                f"gap_{k}": v
                for k, v in estimate_row(Estimate.of(real_array - value_array)).items()
            }
        )
    return pd.DataFrame.from_records(records)


# ------------------------------------------------------------------------ the report
@dataclass
class AdviceStudy:
    """What ``report advice`` measured: the positions of ``players`` under ``rules``
    (evaluated), the same positions re-evaluated under each compared rule set (or, where
    a stored position's knock limit does not apply, that rule set's own positions:
    ``paired[name]`` False), the check against play, and ``basic``'s knocks from a knock
    sweep (``tables.KNOCK_COLUMNS``) for the undercut comparison."""

    rules: str
    players: tuple[str, str]
    deals: int
    seed: int
    evaluation: str
    positions: pd.DataFrame
    compared: dict[str, pd.DataFrame]
    paired: dict[str, bool]
    checked: pd.DataFrame
    continuations: int
    basic_knocks: pd.DataFrame
    basic_label: str
    rule_sets: dict[str, Rules]  # the rule sets of ``rules`` and ``compared``, by name


def _gain(mean: float, half_width: float) -> str:
    if mean is None or not np.isfinite(mean):
        return "n/a"
    if not np.isfinite(half_width):
        return f"{mean:+.2f}"
    return f"{mean:+.2f} ± {half_width:.2f}"


def _cell_text(row) -> str:
    if row.positions == 0:
        return ""
    text = f"{_gain(row.mean, row.half_width)} ({row.positions})"
    return text + " thin" if row.thin else text


def _grid(cells: pd.DataFrame, row: str, column: str, row_label: str) -> pd.DataFrame:
    """A cells table (``gain_cells``) as rows by columns of 'gain ± half (positions)'."""
    shown = cells.assign(text=[_cell_text(r) for r in cells.itertuples()])
    grid = shown.pivot(index=row, columns=column, values="text")
    grid.columns = [str(c) for c in grid.columns]
    grid = grid.reset_index().rename(columns={row: row_label})
    grid[row_label] = grid[row_label].astype(str)
    return grid.fillna("")


def _line_text(line: pd.DataFrame, by: Sequence[str]) -> str:
    parts = []
    for row in line.itertuples():
        label = ", ".join(f"{getattr(row, c)}" for c in by)
        value = "none" if row.line < 0 else str(row.line)
        thin = f", thin: {row.positions} positions" if row.positions < MIN_CELL_POSITIONS else ""
        parts.append(f"{label}: {value} ({row.low} to {row.high}{thin})")
    return "; ".join(parts)


def _line_table(line: pd.DataFrame, by: Sequence[str], labels: Sequence[str]) -> pd.DataFrame:
    out = {label: line[c].astype(str) for c, label in zip(by, labels, strict=True)}
    out["knock line"] = ["none" if v < 0 else str(v) for v in line["line"]]
    out["95% interval"] = [
        f"{lo} to {hi}" for lo, hi in zip(line["low"], line["high"], strict=True)
    ]
    out["positions"] = [
        f"{n} thin" if n < MIN_CELL_POSITIONS else str(n) for n in line["positions"]
    ]
    return pd.DataFrame(out)


def _rate(rate: float, low: float, high: float) -> str:
    return format_rate(rate, low, high, digits=1)


def advice_tables(study: AdviceStudy) -> dict[str, pd.DataFrame]:
    """Every table of the advice report, by file name."""
    knocks = knock_positions(study.positions)
    takes = take_positions(study.positions)
    strong = strong_knocks(study.positions)
    basic = study.basic_knocks.assign(
        stock_band=stock_band(study.basic_knocks["stock_left"]).to_numpy()
    )
    parts = {
        "knock-cells": knock_cells(knocks),
        "knock-cells-by-opponent": knock_cells(knocks, ("opponent_took", "stock_band")),
        "knock-line": knock_line(knocks, seed=study.seed),
        "knock-line-by-opponent": knock_line(knocks, ("opponent_took", "stock_band"), study.seed),
        "take-cells": take_cells(takes, ("kind",)),
        "take-cells-by-stock": take_cells(takes, ("stock_band",)),
        "undercut-strong-by-deadwood": strong_undercut_rates(strong, "knocker_deadwood"),
        "undercut-strong-by-stock": strong_undercut_rates(strong, "stock_band"),
        "undercut-strong-cells": strong_undercut_rates(strong, ["knocker_deadwood", "stock_band"]),
        "undercut-basic-by-deadwood": undercut_rates(basic, ["knocker_deadwood"]),
        "undercut-basic-by-stock": undercut_rates(basic, ["stock_band"]),
        "undercut-basic-cells": undercut_rates(basic, ["knocker_deadwood", "stock_band"]),
        "check-against-play": check_table(study.positions, study.checked),
        "played-value-gaps": played_value_gaps(study.positions),
    }
    lines = []
    for name, frame in study.compared.items():
        other_knocks = knock_positions(frame)
        line = knock_line(other_knocks, seed=study.seed).assign(rules=name)
        lines.append(line)
        if study.paired[name]:
            highest = int(knocks["knock_limit"].max()) if len(knocks) else 10
            parts[f"knock-difference-{name}"] = paired_gain_differences(
                knocks, other_knocks, "deadwood", range(highest + 1)
            )
            parts[f"take-difference-{name}"] = paired_gain_differences(
                takes, take_positions(frame), "card_does", CARD_DOES
            )
    if lines:
        own = parts["knock-line"].assign(rules=study.rules)
        parts["knock-line-by-rules"] = pd.concat([own, *lines], ignore_index=True)
    return parts


def _undercut_side_by_side(
    strong: pd.DataFrame, basic: pd.DataFrame, key: str, label: str
) -> pd.DataFrame:
    merged = strong.merge(basic, on=key, how="outer", suffixes=("_strong", "_basic"))
    if key == "stock_band":  # from the start of the hand to its end
        order = {f"{low}-{high}": i for i, (low, high) in enumerate(STOCK_BANDS)}
        merged = merged.sort_values(key, key=lambda c: c.astype(str).map(order))
    merged = merged[
        (merged["knocks_strong"].fillna(0) > 0) | (merged["knocks_basic"].fillna(0) > 0)
    ]
    return pd.DataFrame(
        {
            label: merged[key].astype(str),
            "strong: undercut rate": [
                _rate(r, lo, hi)
                for r, lo, hi in zip(
                    merged["rate_strong"], merged["low_strong"], merged["high_strong"], strict=True
                )
            ],
            "strong: knock positions": merged["knocks_strong"].fillna(0).astype(int).astype(str),
            "basic: undercut rate": [
                _rate(r, lo, hi)
                for r, lo, hi in zip(
                    merged["rate_basic"], merged["low_basic"], merged["high_basic"], strict=True
                )
            ],
            "basic: knocks": merged["knocks_basic"].fillna(0).astype(int).astype(str),
        }
    )


def _check_shown(check: pd.DataFrame) -> pd.DataFrame:
    return pd.DataFrame(
        {
            "cell": check["cell"],
            "table (whole cell)": [
                f"{_gain(m, h)} ({n})"
                for m, h, n in zip(
                    check["table_mean"],
                    check["table_half_width"],
                    check["cell_positions"],
                    strict=True,
                )
            ],
            "search (checked positions)": [
                f"{_gain(m, h)} ({n})"
                for m, h, n in zip(
                    check["search_mean"], check["search_half_width"], check["checked"], strict=True
                )
            ],
            "play (checked positions)": [
                _gain(m, h)
                for m, h in zip(check["play_mean"], check["play_half_width"], strict=True)
            ],
            "play less search (paired)": [
                _gain(m, h)
                for m, h in zip(
                    check["difference_mean"], check["difference_half_width"], strict=True
                )
            ],
            "play within the search's interval": ["yes" if w else "no" for w in check["within"]],
        }
    )


def _check_findings(check: pd.DataFrame, players: tuple[str, str]) -> str:
    parts = []
    for row in check.itertuples():
        if row.checked < 2:
            parts.append(f"{row.cell}: too few positions to check ({row.checked})")
            continue
        agrees = row.difference_low <= 0 <= row.difference_high
        verdict = (
            "agree"
            if agrees
            else (f"differ by {row.difference_mean:+.2f} ± {row.difference_half_width:.2f}")
        )
        parts.append(
            f"{row.cell}: search {row.search_mean:+.2f}, play {row.play_mean:+.2f} ({verdict})"
        )
    return (
        f"Checked against play ({players[0]} against {players[1]} playing the hands out): "
        + "; ".join(parts)
        + "."
    )


def _gap_findings(gaps: pd.DataFrame, study: AdviceStudy) -> str:
    words = [
        f"{r.kind} {_gain(r.gap_mean, r.gap_half_width)} ({r.positions})"
        for r in gaps.itertuples()
        if r.positions
    ]
    return (
        f"The search's values against real play: the hand's real points less the search's "
        f"value of the move {study.players[0]} and {study.players[1]} made, per position "
        "(points per hand; below 0: the rollouts, with the opponent played by the search's "
        "opponent model, overrate the player's prospects), by kind: " + "; ".join(words) + "."
    )


def advice_report(study: AdviceStudy, command: str) -> Report:
    """The advice report: knock or play on, take or draw, undercut risk of the strong
    player beside ``basic``'s, the rule sets compared, and the check against play."""
    parts = advice_tables(study)
    a, b = study.players
    line = parts["knock-line"]
    by_opponent = parts["knock-line-by-opponent"]
    takes = parts["take-cells"]
    strong_rates = parts["undercut-strong-by-deadwood"]
    check = parts["check-against-play"]
    knocks_of_study = knock_positions(study.positions)
    n_knock = len(knocks_of_study)
    n_take = int(study.positions["kind"].isin(["offer", "draw"]).sum())

    findings = [
        f"Knock line of {a} against {b} under {study.rules} (the highest deadwood at which "
        "knocking gains over the best way to play on, by cards left in the stock, 95% "
        f"interval in brackets): {_line_text(line, ['stock_band'])}.",
        "Split by whether the opponent has taken from the pile (True: it has): "
        + _line_text(by_opponent, ["opponent_took", "stock_band"])
        + ".",
    ]
    draws = takes[takes["kind"] == "draw"]
    take_words = []
    for row in draws.itertuples():
        if row.positions:
            verdict = "take" if row.low > 0 else ("draw" if row.high < 0 else "either")
            take_words.append(f"{row.card_does}: {_gain(row.mean, row.half_width)} ({verdict})")
    findings.append(
        "Take the discard or draw, by what the card does for the hand (gain of taking, "
        "points per hand): " + "; ".join(take_words) + "."
    )
    knocked = strong_rates[strong_rates["knocks"] > 0]
    findings.append(
        f"Undercut risk of {a}'s own knocks by deadwood: "
        + ", ".join(
            f"{int(r.knocker_deadwood)}: {_rate(r.rate, r.low, r.high)}"
            for r in knocked.itertuples()
        )
        + "; beside those of basic against simple in the undercut section."
    )
    if "knock-line-by-rules" in parts:
        by_rules = parts["knock-line-by-rules"]
        words = []
        for name, group in by_rules.groupby("rules", sort=False):
            words.append(f"{name}: " + ", ".join(
                f"{r.stock_band} {'none' if r.line < 0 else r.line} ({r.low}-{r.high})" for r in group.itertuples()
            ))  # fmt: skip
        findings.append("Knock line by rule set (by stock band): " + "; ".join(words) + ".")
        for name in study.compared:
            key = f"knock-difference-{name}"
            if key in parts:
                change = Estimate.of(
                    paired_gains(
                        knocks_of_study, knock_positions(study.compared[name]), "deadwood"
                    )["gain"]
                )
                findings.append(
                    f"Under {name} the gain of knocking over playing on changes by "
                    f"{_gain(change.mean, change.half_width)} points per knock position "
                    f"against {study.rules}, on the same positions and worlds (by deadwood in "
                    "the rule-set section)."
                )
    findings.append(_check_findings(check, study.players))
    findings.append(_gap_findings(parts["played-value-gaps"], study))

    knock_grid = _grid(parts["knock-cells"], "deadwood", "stock_band", "deadwood")
    sections = [
        Section(
            "Knock or play on",
            f"Each cell: the mean gain of knocking over the best way to play on (points per "
            f"hand, 95% interval), then the positions, over {n_knock:,} knock positions (one "
            f"per hand that had one; `knock-cells.csv`). Cells of fewer than "
            f"{MIN_CELL_POSITIONS} positions are marked thin (grey in the figure). Positive: "
            "knock.",
            knock_grid,
            ["knock-gain-map"],
        ),
        Section(
            "The knock line",
            "The highest deadwood whose mean gain of knocking is above 0, per stock band, "
            "with a 95% interval from 1,000 bootstrap resamples of the positions "
            "(`knock-line.csv`; by the opponent's pile takes in `knock-line-by-opponent.csv`). "
            "It does not require every lower deadwood to gain too: see the cells.",
            _line_table(line, ["stock_band"], ["cards in the stock"]),
            ["knock-line"],
        ),
        Section(
            "The knock line when the opponent has taken from the pile, or not",
            "",
            _line_table(
                by_opponent,
                ["opponent_took", "stock_band"],
                ["opponent took", "cards in the stock"],
            ),
            ["knock-line-by-opponent"],
        ),
        Section(
            "Take or draw",
            f"Each cell: the mean gain of taking the card on offer over drawing (declining at "
            f"the first upcard), by what the card does for the hand, over {n_take:,} offer "
            "and draw positions (`take-cells.csv`). Positive: take.",
            _grid(parts["take-cells"], "card_does", "kind", "the card"),
            ["take-gain-map"],
        ),
        Section(
            "Take or draw by cards in the stock",
            "",
            _grid(parts["take-cells-by-stock"], "card_does", "stock_band", "the card"),
            [],
        ),
        Section(
            "Undercut risk of strong knockers",
            f"{a}'s knocks at its kept knock positions (each weighted by the knock decisions "
            f"of its hand, so the rates are per knock), beside {study.basic_label}'s knocks "
            "(all thresholds pooled, as `report undercut`). The opponents differ, so the "
            "comparison is of the two settings, not of the knockers alone.",
            _undercut_side_by_side(
                parts["undercut-strong-by-deadwood"],
                parts["undercut-basic-by-deadwood"],
                "knocker_deadwood",
                "deadwood",
            ),
            [],
        ),
        Section(
            "Undercut risk by cards in the stock",
            "",
            _undercut_side_by_side(
                parts["undercut-strong-by-stock"],
                parts["undercut-basic-by-stock"],
                "stock_band",
                "cards in the stock",
            ),
            [],
        ),
        Section(
            "Undercut risk of strong knockers by deadwood and cards in the stock",
            f"{a}'s knocks as above, by deadwood (rows) and cards left in the stock (columns, "
            "from the start of the hand): each cell the rate per knock, its 95% Wilson "
            f"interval and, in square brackets, its knock positions; cells of fewer than "
            f"{MIN_CELL_POSITIONS} are marked thin (`undercut-strong-cells.csv`).",
            undercut_grid(parts["undercut-strong-cells"], "knocks"),
            [],
        ),
        Section(
            f"Undercut risk of {study.basic_label.split(' (')[0]} by deadwood and cards in "
            "the stock",
            f"The same grid for {study.basic_label} (`undercut-basic-cells.csv`; knocks in "
            "square brackets).",
            undercut_grid(parts["undercut-basic-cells"], "knocks"),
            [],
        ),
    ]
    figures_drawn = {
        "knock-gain-map": lambda path: figures.gain_map(
            path,
            parts["knock-cells"],
            "deadwood",
            "stock_band",
            f"Gain of knocking over playing on, {a} against {b}, {study.rules}",
            "deadwood after the discard",
            "cards left in the stock (the hand goes on to the right)",
            MIN_CELL_POSITIONS,
        ),
        "knock-line": lambda path: figures.knock_lines(
            path,
            line,
            "stock_band",
            None,
            f"Knock line, {a} against {b}, {study.rules}",
            "cards left in the stock",
            MIN_CELL_POSITIONS,
        ),
        "knock-line-by-opponent": lambda path: figures.knock_lines(
            path,
            by_opponent,
            "stock_band",
            "opponent_took",
            "Knock line by whether the opponent has taken from the pile",
            "cards left in the stock",
            MIN_CELL_POSITIONS,
        ),
        "take-gain-map": lambda path: figures.gain_map(
            path,
            parts["take-cells"],
            "card_does",
            "kind",
            f"Gain of taking over drawing, {a} against {b}, {study.rules}",
            "what the card does",
            "decision",
            MIN_CELL_POSITIONS,
        ),
    }
    if "knock-line-by-rules" in parts:
        by_rules = parts["knock-line-by-rules"]
        text = "The knock line under each rule set. " + " ".join(
            f"{name}: the same positions re-evaluated on the same worlds (paired)."
            if study.paired[name]
            else f"{name}: its own positions (its knock limit differs, R14a), not paired."
            for name in study.compared
        )
        sections.append(
            Section(
                "Across rule sets",
                text,
                _line_table(by_rules, ["rules", "stock_band"], ["rules", "cards in the stock"]),
                ["knock-line-by-rules"],
            )
        )
        figures_drawn["knock-line-by-rules"] = lambda path: figures.knock_lines(
            path,
            by_rules,
            "stock_band",
            "rules",
            "Knock line by rule set",
            "cards left in the stock",
            MIN_CELL_POSITIONS,
        )
        for name in study.compared:
            if f"knock-difference-{name}" in parts:
                diff = parts[f"knock-difference-{name}"]
                sections.append(
                    Section(
                        f"{name} against {study.rules}, paired",
                        f"The gain of knocking under {name} less under {study.rules}, on the "
                        "same positions and worlds, by deadwood (`knock-difference-*.csv`; "
                        "take or draw in `take-difference-*.csv`).",
                        pd.DataFrame(
                            {
                                "deadwood": diff["deadwood"].astype(str),
                                "change in the gain of knocking": [
                                    _cell_text(r) for r in diff.itertuples()
                                ],
                            }
                        ),
                        [],
                    )
                )
    sections.append(
        Section(
            "Check against play",
            f"For each cell, its first {int(check['checked'].max()) if len(check) else 0} "
            "positions in deal order: from the position as it was (the opponent's real hand; "
            "the stock reshuffled, since neither player has seen it, so every order is as "
            f"likely as the real one), the headline action and its baseline are forced and "
            f"{a} and {b} play the hand out, {study.continuations} times per position on the "
            "same stocks for both actions. The search's gains use rollout policies, not the "
            "real players; this measures what the advice is worth in the players' own play. "
            "Re-dealing the opponent's hand from the player's view instead would need a model "
            "of the opponent's hand (the search's own), which is what is being checked. "
            "'Within': play's mean lies inside the search's 95% interval over the same "
            "positions (the table's figure for them); the whole cell's mean differs from "
            "theirs by the sampling of positions, which says nothing about search against "
            "play. The paired difference is the test: where its interval excludes 0 the "
            "findings say by how much they differ.",
            _check_shown(check),
            [],
        )
    )
    gaps = parts["played-value-gaps"]
    sections.append(
        Section(
            "The search's values against the hands' real outcomes",
            f"For every kind: the search's mean value of the move the player made, the mean "
            f"real points of those hands, and the gap (real less search, per position, 95% "
            f"interval; `played-value-gaps.csv`). The search plays the rest of the hand with "
            f"its rollout policies ({study.evaluation}); the hands were played by {a} and "
            f"{b}. A gap that is not 0 says the rollouts misjudge how the hand goes on (an "
            "opponent model weaker than the real opponent makes the player's prospects look "
            "better). Gains are differences between actions' values on the same worlds, so a "
            "gap shared alike by every action leaves them unchanged; the check against play "
            "above tests the gains themselves.",
            pd.DataFrame(
                {
                    "kind": gaps["kind"],
                    "positions": gaps["positions"].astype(str),
                    "search's value of the move made": [f"{v:+.2f}" for v in gaps["search_value"]],
                    "real points": [f"{v:+.2f}" for v in gaps["real_points"]],
                    "gap (real less search)": [
                        _gain(m, h)
                        for m, h in zip(gaps["gap_mean"], gaps["gap_half_width"], strict=True)
                    ],
                }
            ),
            [],
        )
    )
    from gin_sim.experiments.distill import DISTILLED_BASE, family_base, proposals

    made = proposals(
        parts, study.rule_sets[study.rules], [study.rule_sets[n] for n in study.compared],
        family_base(DISTILLED_BASE),
    )  # fmt: skip
    sections.append(
        Section(
            "A distilled strategy",
            f"The changes to {DISTILLED_BASE} these tables propose (`gin_sim.experiments.distill`): "
            "each rule set's knock line as its knock schedule (a band of fewer than "
            f"{MIN_CELL_POSITIONS} positions keeps the band before it; none: gin only) and "
            "the take rule of the take-or-draw cells. The tables measure what a decision is "
            f"worth in {a}'s play, not in a family member's, so `gin-sim distill OUT --deals "
            f"N --seed S --out advised.toml` plays each change against {DISTILLED_BASE} and "
            "keeps only those that win there; confirm the result on decks of another seed "
            '(docs/advice.md, "The distilled strategy").',
            pd.DataFrame(
                {
                    "rule set": [p.rules for p in made],
                    "proposed change": [p.describe() for p in made],
                }
            ),
        )
    )
    parts["distill-proposals"] = pd.DataFrame(
        {
            "rules": [p.rules for p in made],
            "when": [str(dict(p.when)) for p in made],
            "changes": [str(dict(p.changes)) for p in made],
            "source": [p.source for p in made],
        }
    )
    return Report(
        kind="advice",
        title=f"Advice from strong play: {a} against {b} under {study.rules}",
        command=command,
        setup=[
            f"Positions: {study.deals:,} deals of {a} against {b} under {study.rules}, seed "
            f"{study.seed}; one position of each kind per deal (docs/advice.md).",
            f"Evaluation: {study.evaluation}.",
            f"Check against play: {study.continuations} continuations per checked position.",
            f"Undercut comparison: {study.basic_label}.",
        ],
        findings=findings,
        sections=sections,
        tables={name: frame for name, frame in parts.items()},
        figures=figures_drawn,
    )
