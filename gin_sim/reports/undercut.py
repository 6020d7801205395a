"""The undercut-risk report: how often a knock is undercut, by the knocker's deadwood and by
the cards left in the stock when it knocks."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from gin_sim.experiments.summary import rate_interval
from gin_sim.players.strategies import Strategy
from gin_sim.reports import figures, tables
from gin_sim.reports.document import Report, Section, format_rate
from gin_sim.reports.knock import run_setup
from gin_sim.reports.sweeps import Sweep

RATE = "undercut rate (per knock)"
# A heat-map cell's rate is drawn in colour only when at least this many knocks back it:
# at 200 knocks the 95% interval of a rate near 10% is about ±4 points. Cells with fewer
# knocks are grey and hatched and show their knock count (figures.heat_map).
MIN_CELL_KNOCKS = 200
# The line of rates by stock size shows its 95% interval as a band, so it needs fewer.
MIN_PLOTTED_KNOCKS = 30


def _shown(table: pd.DataFrame, key: str, key_label: str) -> pd.DataFrame:
    return pd.DataFrame(
        {
            key_label: table[key].astype(str),
            "knocks": [f"{k:,}" for k in table["knocks"]],
            "undercuts": [f"{u:,}" for u in table["undercuts"]],
            "undercut rate": [
                format_rate(r, low, high)
                for r, low, high in zip(table["rate"], table["low"], table["high"], strict=True)
            ],
        }
    )


def _as_figure(table: pd.DataFrame) -> pd.DataFrame:
    """An undercut table in the tidy shape ``figures.lines_with_bands`` draws."""
    return table.rename(columns={"rate": "mean"}).assign(figure=RATE)


def undercut_tables(knocks: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """The cells (deadwood by stock left) and both margins of the knocks of one player."""
    banded = knocks.assign(stock_band=tables.stock_band(knocks["stock_left"]))
    return {
        "undercut-cells": tables.undercut_rates(knocks),
        "undercut-by-deadwood": tables.undercut_rates(knocks, ["knocker_deadwood"]),
        "undercut-by-stock": tables.undercut_rates(knocks, ["stock_left"]).sort_values(
            "stock_left", ascending=False, ignore_index=True
        ),
        "undercut-by-stock-band": tables.undercut_rates(banded, ["stock_band"]),
    }


def thin_cells_text(cells: pd.DataFrame) -> str:
    """What the heat map greys out, in words: the cells with fewer than MIN_CELL_KNOCKS."""
    with_knocks = cells[cells["knocks"] > 0]
    thin = with_knocks[with_knocks["knocks"] < MIN_CELL_KNOCKS]
    if thin.empty:
        return f"Every cell with knocks has at least {MIN_CELL_KNOCKS:,} of them."
    largest = thin.loc[thin["rate"].idxmax()]
    return (
        f"{len(thin)} of the {len(with_knocks)} cells with knocks have fewer than "
        f"{MIN_CELL_KNOCKS:,} knocks ({int(thin['knocks'].sum()):,} knocks in all, from "
        f"{int(thin['knocks'].min()):,} to {int(thin['knocks'].max()):,} per cell): they "
        "are grey and hatched, with the rate and, in brackets, the knock count, because "
        "their rates are too uncertain to colour like the others (the highest, "
        f"{format_rate(largest['rate'], largest['low'], largest['high'])} at deadwood "
        f"{int(largest['knocker_deadwood'])} with {int(largest['stock_left'])} cards left, "
        f"rests on {int(largest['knocks']):,} knocks). Cells without knocks are blank."
    )


def undercut_findings(knocks: pd.DataFrame, parts: dict[str, pd.DataFrame]) -> list[str]:
    overall = tables.undercut_rate(knocks)
    by_deadwood = parts["undercut-by-deadwood"]
    by_deadwood = by_deadwood[(by_deadwood["knocker_deadwood"] > 0) & (by_deadwood["knocks"] > 0)]
    bands = parts["undercut-by-stock-band"]
    highest = bands.loc[bands["rate"].idxmax()]
    return [
        f"Overall {format_rate(overall.mean, *rate_interval(overall, len(knocks)))} of "
        f"{len(knocks):,} "
        "knocks were undercut (gins, which cannot be undercut, included).",
        "Undercut rate by the deadwood knocked with: "
        + ", ".join(
            f"{row.knocker_deadwood}: {format_rate(row.rate, row.low, row.high)}"
            for row in by_deadwood.itertuples()
        )
        + ".",
        "By cards left in the stock when knocking: "
        + ", ".join(
            f"{row.stock_band} cards: {format_rate(row.rate, row.low, row.high)}"
            for row in bands.itertuples()
        )
        + f"; the highest risk is with {highest['stock_band']} cards left.",
    ]


def _trend(rates: pd.Series) -> str:
    """'rises' or 'falls' when the rates move one way only, else 'ranges'."""
    steps = rates.diff().dropna()
    if len(steps) and (steps > 0).all():
        return "rises"
    if len(steps) and (steps < 0).all():
        return "falls"
    return "ranges"


def undercut_answer(
    knocks: pd.DataFrame, parts: dict[str, pd.DataFrame], strategy: str, opponent: str, rules: str
) -> list[str]:
    """The report's opening (issue 43): how often a knock is undercut, and how the risk moves
    with the deadwood knocked with and with the cards left in the stock."""
    overall = tables.undercut_rate(knocks)
    by_deadwood = parts["undercut-by-deadwood"]
    by_deadwood = by_deadwood[(by_deadwood["knocker_deadwood"] > 0) & (by_deadwood["knocks"] > 0)]
    bands = parts["undercut-by-stock-band"]
    bands = bands[bands["knocks"] > 0]
    answer = [
        f"Against `{opponent}` under `{rules}`, "
        f"{format_rate(overall.mean, *rate_interval(overall, len(knocks)))} of `{strategy}`'s "
        f"{len(knocks):,} knocks were undercut (a gin never is)."
    ]
    if len(by_deadwood) > 1:
        low, high = by_deadwood.iloc[0], by_deadwood.iloc[-1]
        answer.append(
            f"The risk {_trend(by_deadwood['rate'])} with the deadwood you knock with: "
            f"{format_rate(low['rate'], low['low'], low['high'])} at deadwood "
            f"{int(low['knocker_deadwood'])}, {format_rate(high['rate'], high['low'], high['high'])} "
            f"at deadwood {int(high['knocker_deadwood'])}."
        )
    if len(bands) > 1:
        first, last = bands.iloc[0], bands.iloc[-1]
        answer.append(
            f"As the stock runs down it {_trend(bands['rate'])}: "
            f"{format_rate(first['rate'], first['low'], first['high'])} with "
            f"{first['stock_band']} cards left, {format_rate(last['rate'], last['low'], last['high'])} "
            f"with {last['stock_band']}."
        )
    return answer


def undercut_report(sweep: Sweep, strategy: Strategy, command: str) -> Report:
    """The undercut-risk report of the knocks kept by a knock sweep (``Sweep.knocks``).

    The knocks of every threshold are pooled: a knock's risk depends on its deadwood, the
    stage of the hand and the defender, and pooling puts knocks in every cell (at the knock
    limit alone, low-deadwood knocks are rare). Intervals count the hands of one deck, over
    all thresholds, as one unit.
    """
    if sweep.knocks is None:
        raise ValueError("the sweep kept no knocks: play it with keep_knocks=True")
    knocks = sweep.knocks
    parts = undercut_tables(knocks)
    rules = sweep.rules
    title = f"Undercut risk under {rules.name} against {sweep.opponent.name}"
    answer = undercut_answer(knocks, parts, strategy.name, sweep.opponent.name, rules.name)
    by_deadwood_title = answer[1] if len(answer) > 1 else "Undercut rate by your deadwood"
    by_stock_title = answer[-1] if len(answer) > 2 else "Undercut rate by cards left in the stock"

    def draw_heat_map(path: Path) -> None:
        figures.heat_map(
            path,
            parts["undercut-cells"],
            "knocker_deadwood",
            "stock_left",
            "rate",
            "knocks",
            figures.finding_title(by_deadwood_title, 110)
            + f"\nundercut rate (%) of {strategy.name}'s knocks (all thresholds) against "
            f"{sweep.opponent.name}, {rules.name}",
            "deadwood you knock with",
            "cards left in the stock when knocking (the hand goes on to the right)",
            min_count=MIN_CELL_KNOCKS,
            count_label="knocks",
            descending_columns=True,
        )

    def draw_by_deadwood(path: Path) -> None:
        figures.lines_with_bands(
            path,
            _as_figure(parts["undercut-by-deadwood"]),
            "knocker_deadwood",
            [RATE],
            title=figures.finding_title(by_deadwood_title, 55),
            x_label="deadwood you knock with",
        )

    def draw_by_stock(path: Path) -> None:
        by_stock = parts["undercut-by-stock"]
        figures.lines_with_bands(
            path,
            _as_figure(by_stock[by_stock["knocks"] >= MIN_PLOTTED_KNOCKS]),
            "stock_left",
            [RATE],
            title=figures.finding_title(by_stock_title, 55),
            x_label="cards left in the stock when knocking",
            reverse_x=True,
        )

    return Report(
        kind="undercut",
        title=title,
        command=command,
        setup=run_setup(
            sweep,
            strategy,
            f"`{strategy.name}` with each knock threshold 0 (gin only) to {rules.knock_limit} "
            "(the knocks of all thresholds pooled, so that every deadwood up to the knock limit "
            "is knocked with at every stage of a hand)",
        ),
        findings=undercut_findings(knocks, parts),
        sections=[
            Section(
                "Undercut rate by deadwood and cards left in the stock",
                "Each cell: the share of the knocks made with that deadwood and that many cards "
                "left in the stock that were undercut (R17). "
                + thin_cells_text(parts["undercut-cells"])
                + " `undercut-cells.csv` has every cell with its knocks and 95% interval.",
                None,
                ["undercut-heat-map"],
            ),
            Section(
                "By the knocker's deadwood",
                "",
                _shown(parts["undercut-by-deadwood"], "knocker_deadwood", "deadwood"),
                ["undercut-by-deadwood"],
            ),
            Section(
                "By cards left in the stock",
                f"In bands; the figure shows every stock size with at least {MIN_PLOTTED_KNOCKS} knocks "
                "(`undercut-by-stock.csv`).",
                _shown(parts["undercut-by-stock-band"], "stock_band", "cards left"),
                ["undercut-by-stock"],
            ),
        ],
        tables=parts,
        figures={
            "undercut-heat-map": draw_heat_map,
            "undercut-by-deadwood": draw_by_deadwood,
            "undercut-by-stock": draw_by_stock,
        },
        answer=answer,
        answer_figure="undercut-heat-map",
    )
