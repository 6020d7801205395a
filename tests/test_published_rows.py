"""The published advice figures are recomputed from the published rows.

docs/advice-run/rows.parquet holds one row per kept position of the published run
(tools/publish_advice_rows.py wrote it from the run folder, whose own positions git
ignores). Here every table of docs/advice-run that the rows determine is computed again
from them, by the functions the report uses (``experiments.advice``), and its figures are
compared with the published CSV files: the knock cells (all, by the opponent's pile takes),
the take cells (by kind, by stock band), the knock line and its fit (its bootstrap seeded
with the run's seed), the undercut rates of mc's own knocks, the paired differences under
hollywood-gin20 and standard, the knock line by rule set (those three rule sets) and the
search-against-real-play gaps. A few are also recomputed by plain numpy (a weighted mean,
a clustered variance), so a wrong row or a wrong function could not agree by accident.

The strategy card's hollywood knock cells are valued by play (``knock-cells-by-play``,
issue 47): the rows keep each knock position's ``play_gain``, and the table is recomputed
from them too, one cell by plain numpy.

Not recomputable from these rows: the check against play (its continuations' rows are not
kept by the run) and oklahoma's knock line (another dataset, played under oklahoma).
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from gin_sim.experiments import advice
from gin_sim.experiments.advice import CARD_DOES

RUN = Path(__file__).resolve().parents[1] / "docs" / "advice-run"
SEED = 2512  # the published run's seed (docs/advice-run/report.md)
COMPARED = ("hollywood-gin20", "standard")


@pytest.fixture(scope="module")
def rows() -> pd.DataFrame:
    frame = pd.read_parquet(RUN / "rows.parquet")
    # the run's own columns as the report reads them
    return frame.assign(
        played=np.where(frame["knocked"], "knock", "other"),
        kind=frame["kind"].astype(str),
        weight=frame["weight"].astype(np.float64),
    )


def _published(name: str) -> pd.DataFrame:
    return pd.read_csv(RUN / f"{name}.csv")


def _same(ours: pd.DataFrame, theirs: pd.DataFrame, columns) -> None:
    assert len(ours) == len(theirs)
    for column in columns:
        a = pd.to_numeric(ours[column].reset_index(drop=True), errors="coerce").to_numpy(float)
        b = pd.to_numeric(theirs[column], errors="coerce").to_numpy(float)
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-9, equal_nan=True, err_msg=column)


CELL = ["positions", "decisions", "mean", "half_width", "low", "high", "n"]


def test_the_rows_are_the_published_run(rows):
    """The rows' counts are the report's: 389,460 positions of 24,000 deals, per kind as
    the played-value table counts them."""
    assert rows["deal"].nunique() == 24_000 and rows["deal"].max() == 23_999
    assert rows["kind"].value_counts().to_dict() == {
        "draw": 278_179, "knock": 41_482, "offer": 37_198, "discard": 32_601
    }  # fmt: skip
    assert not rows.duplicated(["deal", "decision"]).any()


def test_the_knock_and_take_cells_are_recomputed(rows):
    knocks = advice.knock_positions(rows)
    takes = advice.take_positions(rows)
    _same(advice.knock_cells(knocks), _published("knock-cells"), CELL)
    by_opponent = ("opponent_took", "stock_band")
    _same(advice.knock_cells(knocks, by_opponent), _published("knock-cells-by-opponent"), CELL)
    _same(advice.take_cells(takes, ("kind",)), _published("take-cells"), CELL)
    _same(advice.take_cells(takes, ("stock_band",)), _published("take-cells-by-stock"), CELL)


def test_the_cards_knock_cells_by_play_are_recomputed(rows):
    """``knock-cells-by-play``: play's cells, the search's over the same positions and
    the paired difference, from the rows' ``play_gain``; every knock position has one, and
    no other kind; the cell 13-18 cards, deadwood 8 by plain numpy (a Hajek mean of play's
    gains, and of play less search)."""
    knocks = advice.knock_positions(rows)
    assert knocks["play_gain"].notna().all()
    assert rows.loc[rows["kind"] != "knock", "play_gain"].isna().all()
    played = knocks[["deal", "decision", "play_gain"]]
    table = advice.knock_cells_by_play(knocks, played)
    published = _published("knock-cells-by-play")
    assert (published["rules"] == "hollywood").all()
    columns = [*CELL, "search_mean", "search_low", "search_high", "difference_mean",
               "difference_low", "difference_high"]  # fmt: skip
    _same(table, published, columns)
    cell = knocks[knocks["stock_left"].between(13, 18) & (knocks["deadwood"] == 8)]
    w = cell["weight"].to_numpy()
    play = (w * cell["play_gain"]).sum() / w.sum()
    moved = (w * (cell["play_gain"] - cell["gain"])).sum() / w.sum()
    row = published.set_index(["stock_band", "deadwood"]).loc[("13-18", 8)]
    assert play == pytest.approx(row["mean"]) and moved == pytest.approx(row["difference_mean"])


def test_a_knock_cell_and_the_take_rule_by_plain_numpy(rows):
    """Independent of ``experiments.advice``: the Hajek mean of the knock cell 19-24 cards,
    deadwood 8 (published +0.65 ± 0.18 over 1,826 positions) and its interval clustered by
    deal (the sums per deal, n / (n - 1) times their spread); and the take cells' means
    by what the card does."""
    cell = rows[
        (rows["kind"] == "knock") & rows["stock_left"].between(19, 24) & (rows["deadwood"] == 8)
    ]
    w, x = cell["weight"].to_numpy(), cell["gain"].to_numpy()
    mean = (w * x).sum() / w.sum()
    sums = pd.DataFrame({"deal": cell["deal"], "r": w * (x - mean)}).groupby("deal")["r"].sum()
    n = len(sums)
    half = 1.959963984540054 * math.sqrt(n / (n - 1) * (sums**2).sum()) / w.sum()
    assert len(cell) == 1826 and round(mean, 2) == 0.65 and round(half, 2) == 0.18
    published = _published("knock-cells").set_index(["stock_band", "deadwood"]).loc[("19-24", 8)]
    assert mean == pytest.approx(published["mean"]) and half == pytest.approx(
        published["half_width"]
    )
    takes = rows[rows["kind"].isin(["offer", "draw"])]
    does = np.where(
        takes["card_melds"],
        0,
        np.where(takes["card_lowers"] >= 5, 1, np.where(takes["card_lowers"] >= 1, 2, 3)),
    )
    table = _published("take-cells")
    for kind in ("offer", "draw"):
        for code, name in enumerate(CARD_DOES):
            part = takes[(takes["kind"] == kind) & (does == code)]
            ours = (part["weight"] * part["gain"]).sum() / part["weight"].sum()
            theirs = table[(table["kind"] == kind) & (table["card_does"] == name)]["mean"].item()
            assert ours == pytest.approx(theirs)


def test_the_knock_line_and_its_fit_are_recomputed(rows):
    knocks = advice.knock_positions(rows)
    line, fit = advice.knock_model(knocks, seed=SEED)
    _same(line, _published("knock-line"), [c for c in line.columns if c != "stock_band"])
    _same(fit, _published("knock-fit"), [c for c in fit.columns if c != "stock_band"])


def test_the_undercut_rates_of_mc_s_knocks_are_recomputed(rows):
    strong = advice.strong_knocks(rows)
    for by, name in (("knocker_deadwood", "by-deadwood"), ("stock_band", "by-stock")):
        ours = advice.strong_undercut_rates(strong, by)
        _same(ours, _published(f"undercut-strong-{name}"), [c for c in ours.columns if c != by])


def _under(rows: pd.DataFrame, rules: str) -> pd.DataFrame:
    """The positions as evaluated under ``rules`` (the same positions and worlds)."""
    column = f"gain_{rules}"
    return rows[rows[column].notna()].assign(gain=lambda r: r[column])


@pytest.mark.parametrize("rules", COMPARED)
def test_the_rule_set_differences_and_lines_are_recomputed(rows, rules):
    knocks, takes = advice.knock_positions(rows), advice.take_positions(rows)
    other = _under(rows, rules)
    knock_difference = advice.paired_gain_differences(
        knocks,
        advice.knock_positions(other),
        "deadwood",
        range(int(knocks["knock_limit"].max()) + 1),
    )
    _same(knock_difference, _published(f"knock-difference-{rules}"), CELL)
    take_difference = advice.paired_gain_differences(
        takes, advice.take_positions(other), "card_does", CARD_DOES
    )
    _same(take_difference, _published(f"take-difference-{rules}"), CELL)
    line, _ = advice.knock_model(advice.knock_positions(other), seed=SEED)
    published = _published("knock-line-by-rules")
    published = published[published["rules"] == rules].drop(columns="rules")
    _same(line, published, [c for c in line.columns if c != "stock_band"])


def test_the_search_against_real_play_gaps_are_recomputed(rows):
    """Per kind, the Hajek mean over the positions whose played move was evaluated of the
    hand's real points less the search's value of that move (plain numpy)."""
    table = _published("played-value-gaps").set_index("kind")
    for kind, part in rows.groupby("kind"):
        part = part[part["played_value"].notna()]
        w = part["weight"].to_numpy()
        gap = (w * (part["hand_points"] - part["played_value"])).sum() / w.sum()
        assert len(part) == table.loc[kind, "positions"]
        assert gap == pytest.approx(table.loc[kind, "gap_mean"])
