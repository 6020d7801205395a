"""The advice report's layout pinned by properties, not by today's output (issue 27;
docs/testing.md).

The report (``gin_sim.reports.advice``) computes no figure itself: it calls the functions
of ``gin_sim.experiments.advice`` (tested in tests/test_mutants_advice.py) and lays their
figures out as text and grids. These tests build a small made-up study by hand, whose
figures are known without running anything (noise-free knock lines, cells of one gain,
rates of 0 or 1), and check that each figure lands in its table, its grid cell and its
sentence, in the words the report's own sections define; the helpers that write a figure
are checked on hand-computed cases. No deal is played: the file takes seconds.
"""

from __future__ import annotations

import math
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest

from gin_sim.experiments.advice import (
    CARD_DOES,
    LINE_RESAMPLES,
    MIN_CELL_POSITIONS,
    MIN_LINE_DEADWOODS,
    MIN_LINE_DEALS,
    STOCK_BANDS,
    check_rows,
)
from gin_sim.experiments.summary import Z95, wilson_interval
from gin_sim.game.rules import load_rules
from gin_sim.reports.document import render_markdown

# The stock size of each band used below (the bands' own order: from the start of the hand).
STOCK = {"25-31": 28, "19-24": 20, "13-18": 15, "7-12": 10, "0-6": 3}


def _row(deal, decision, kind, **fields) -> dict:
    base = {
        "deal": deal, "decision": decision, "kind": kind, "deadwood": 5, "knock_limit": 10,
        "stock_left": 28, "opp_takes": 0, "weight": 1.0, "gain": 0.0, "card_melds": False,
        "card_lowers": 0, "played": "discard", "hand_points": 0,
        "actions": ["discard", "knock"], "values": [0.0, 0.0],
    }  # fmt: skip
    return base | fields


# Knock lines by band, noise-free: (deals, deadwoods cycled, gain of deadwood, weights).
# Under the report's own rule set (hollywood):
OWN_LINES = {
    "25-31": (12, (1, 2, 3, 4), lambda d: d - 3.0),  # rising: line 3, knock above it
    "19-24": (30, (4, 5, 6, 7), lambda d: 5.0 - d),  # falling: line 5, knock below it
    "13-18": (10, (1, 2, 3), lambda d: 12.0 - d),  # falling past 10: knock anywhere
    "7-12": (10, (2, 3, 4), lambda d: 2.0 + 0.0 * d),  # flat above 0: no crossing
    "0-6": (1, (2,), lambda d: -1.0 + 0.0 * d),  # one deal: no line
}
# Under the compared, paired rule set (standard), on the same knock positions:
PAIRED_LINES = {
    "25-31": lambda d: 0.5 - d,  # falling below 1: knock only for gin
    "19-24": lambda d: d + 1.0,  # rising below 1: knock at any deadwood
    "13-18": lambda d: d - 12.0,  # rising past 10: knock only for gin
    "7-12": lambda d: -2.0 + 0.0 * d,  # flat below 0
    "0-6": lambda d: -1.0 + 0.0 * d,
}
GIN_GAIN = 20.0  # a gin knock (deadwood 0) in deal 0, left out of every line


def _knocks(gain_of: dict) -> list[dict]:
    """The knock positions: deal after deal through the bands; each deal's knock is made
    (``played`` knock) and undercut (hand points < 0) exactly at deadwood 2; weight 2 in
    the band 19-24 (the line is the same: it is exact), else 1; the opponent has taken from
    the pile in the second four deals of each eight of a band (so 14 of the 30 of the band
    19-24, at every deadwood). Every knock limit is 10 but the gin knock's, 8."""
    rows, deal = [], 0
    for band, (deals, deadwoods, _) in OWN_LINES.items():
        for i in range(deals):
            d = deadwoods[i % len(deadwoods)]
            rows.append(_row(
                deal, 0, "knock", deadwood=d, stock_left=STOCK[band], opp_takes=i // 4 % 2,
                weight=2.0 if band == "19-24" else 1.0, gain=float(gain_of[band](d)),
                played="knock", hand_points=-12 if d == 2 else 8,
                actions=["knock", "discard"], values=[float(gain_of[band](d)), 0.0],
            ))  # fmt: skip
            if deal == 0:
                rows.append(_row(
                    0, 1, "knock", deadwood=0, knock_limit=8, stock_left=STOCK[band], gain=GIN_GAIN,
                    played="knock", hand_points=25, actions=["knock", "discard"],
                    values=[GIN_GAIN, 0.0],
                ))  # fmt: skip
            deal += 1
    return rows


# Take or draw: (kind, card_melds, card_lowers, stock, gains), one deal each gain, deals
# from 100 on.
TAKES = (
    ("draw", True, 0, 28, (1.0, 1.0, 1.0, 1.0)),  # completes a meld: +1 ± 0, take
    ("draw", False, 6, 20, (-1.0, -1.0, -1.0)),  # lowers by 5 or more: -1 ± 0, draw
    ("draw", False, 2, 20, (0.0, 0.0)),  # lowers by 1 to 4: 0 ± 0, either (0 is no side)
    ("offer", True, 0, 31, (3.0,)),
    ("offer", False, 0, 31, (-3.0,)),  # lowers nothing: one position
)
PAIRED_TAKE_CHANGE = 0.5  # the paired rule set's take gains: these plus 0.5


def _takes(change: float = 0.0) -> list[dict]:
    rows, deal = [], 100
    for kind, melds, lowers, stock, gains in TAKES:
        for gain in gains:
            rows.append(_row(
                deal, 0, kind, card_melds=melds, card_lowers=lowers, stock_left=stock,
                gain=gain + change, played="take", hand_points=5,
                actions=["take", "draw"], values=[2.0, 2.0 - gain],
            ))  # fmt: skip
            deal += 1
    return rows


def _discards() -> list[dict]:
    """Two discard positions; the move made in the first is not among the evaluated
    actions (it has no gap)."""
    return [
        _row(200, 0, "discard", played="discard 7", hand_points=-4,
             actions=["discard 7", "discard 9"], values=[1.0, 0.5]),
        _row(201, 0, "discard", played="discard 3", hand_points=6,
             actions=["discard 7", "discard 9"], values=[1.0, 0.5]),
    ]  # fmt: skip


# play's gain less the search's at the checked positions of each cell, in deal order
PLAY_OFFSET = {
    "knock, deadwood 1 to 5": (1.0, 2.0, 3.0),
    "knock, deadwood 6 to 10": (-1.0, 0.0, 1.0),
    "take or draw, card completes a meld": (1.0, 2.0, 3.0),
    "take or draw, card lowers nothing": (1.0, 2.0, 3.0),
}
CHECK_SIZE = 3


def _basic_knocks() -> pd.DataFrame:
    """basic's knocks: deadwood 3 in the band 19-24 (4, one undercut) and deadwood 9 in the
    band 0-6 (2, none undercut)."""
    return pd.DataFrame(
        {
            "deal": [0, 1, 2, 3, 4, 5],
            "swapped": False,
            "knocker": 0,
            "knocker_deadwood": [3, 3, 3, 3, 9, 9],
            "stock_left": [20, 21, 22, 23, 5, 2],
            "undercut": [True, False, False, False, False, False],
        }
    )


def make_study():
    from gin_sim.reports.advice import AdviceStudy

    positions = pd.DataFrame(_knocks({b: g for b, (_, _, g) in OWN_LINES.items()}) + _takes()
                             + _discards())  # fmt: skip
    positions = positions.sort_values(["deal", "decision"], ignore_index=True)
    paired = pd.DataFrame(_knocks(PAIRED_LINES) + _takes(PAIRED_TAKE_CHANGE))
    own = pd.DataFrame(_knocks({b: g for b, (_, _, g) in OWN_LINES.items()}))  # oklahoma's
    checked = check_rows(positions, CHECK_SIZE)
    place = checked.groupby("cell").cumcount()
    offsets = [PLAY_OFFSET[c][i] for c, i in zip(checked["cell"], place, strict=True)]
    checked = checked.assign(play_gain=checked["gain"] + offsets)
    return AdviceStudy(
        rules="hollywood", players=("alpha", "beta"), deals=321, seed=7,
        evaluation="8 worlds, made up", positions=positions,
        compared={"standard": paired, "oklahoma": own},
        paired={"standard": True, "oklahoma": False}, checked=checked, continuations=2,
        basic_knocks=_basic_knocks(), basic_label="basic against simple (6 decks, made up)",
        rule_sets={n: load_rules(n) for n in ("hollywood", "standard", "oklahoma")},
    )  # fmt: skip


# No fixture shares a study's tables or report between tests: mutmut learns which tests
# call which function from the calls each test makes, and a shared result is made in the
# first test only. Each test below makes its own (half a second).
def make_report(study):
    from gin_sim.reports.advice import advice_report

    return advice_report(study, "gin-sim report advice --made-up")


def _per_decision(values, w, deals) -> tuple[float, float]:
    """The docs' estimator, computed here on its own: the ratio of weighted sums (Hajek)
    and the half width of its 95% interval with the deals as units (delta method,
    n / (n - 1))."""
    frame = pd.DataFrame({"num": np.asarray(w) * np.asarray(values), "den": w, "deal": deals})
    units = frame.groupby("deal")[["num", "den"]].sum()
    mean = units["num"].sum() / units["den"].sum()
    n = len(units)
    if n < 2:
        return mean, math.nan
    squares = ((units["num"] - mean * units["den"]) ** 2).sum()
    return mean, Z95 * math.sqrt(n / (n - 1) * squares / units["den"].sum() ** 2)


def _knock_rows(study) -> pd.DataFrame:
    knocks = study.positions[study.positions["kind"] == "knock"]
    return knocks.assign(band=[_band(s) for s in knocks["stock_left"]])


def _band(stock: int) -> str:
    return next(f"{lo}-{hi}" for lo, hi in STOCK_BANDS if lo <= stock <= hi)


BANDS = [f"{lo}-{hi}" for lo, hi in STOCK_BANDS]


def test_the_tables_hold_the_studys_figures_by_the_keys_the_report_names():
    """One study's tables, each checked below against figures known by hand."""
    from gin_sim.reports.advice import advice_tables

    study = make_study()
    parts = advice_tables(study)
    _check_names(parts)
    _check_knock_cells(study, parts)
    _check_knock_lines(parts)
    _check_take_cells(parts)
    _check_undercut_tables(study, parts)
    _check_check_and_gaps(study, parts)
    _check_paired_rule_set(study, parts)
    _check_rule_sets_side_by_side(parts)


def test_a_study_without_knock_positions_differences_deadwood_0_to_10():
    """No knock position: the paired table still has every deadwood up to the default
    knock limit, 10, each without positions."""
    from dataclasses import replace

    from gin_sim.reports.advice import advice_tables

    study = make_study()
    paired = study.compared["standard"]
    study = replace(
        study, positions=study.positions[study.positions["kind"] != "knock"],
        compared={"standard": paired[paired["kind"] != "knock"]}, paired={"standard": True},
        checked=study.checked[~study.checked["cell"].str.startswith("knock")],
    )  # fmt: skip
    knocks = advice_tables(study)["knock-difference-standard"]
    assert knocks["deadwood"].tolist() == list(range(11))
    assert (knocks["positions"] == 0).all()


def test_the_lines_are_bootstrapped_with_the_studys_seed():
    """With noise on every knock gain the lines' intervals depend on the bootstrap's seed:
    each line table is ``knock_model``'s with the study's seed (not its default, 0), for the
    study's own positions, split by the opponent's pile takes, and for the paired rule set.
    Every knock limit here is 9: the paired table's deadwoods stop there."""
    from dataclasses import replace

    from gin_sim.experiments.advice import knock_model, knock_positions
    from gin_sim.reports.advice import advice_tables

    study = make_study()
    rng = np.random.default_rng(5)

    def noisy(frame):
        knock = frame["kind"] == "knock"
        gains = frame["gain"] + np.where(knock, rng.normal(0.0, 1.0, len(frame)), 0.0)
        return frame.assign(gain=gains, knock_limit=9)

    paired = noisy(study.compared["standard"])
    study = replace(
        study, positions=noisy(study.positions), compared={"standard": paired},
        paired={"standard": True},
    )  # fmt: skip
    parts = advice_tables(study)
    knocks = knock_positions(study.positions)
    by_opponent = ("opponent_took", "stock_band")
    for name, by in (("knock-line", ("stock_band",)), ("knock-line-by-opponent", by_opponent)):
        pd.testing.assert_frame_equal(parts[name], knock_model(knocks, by, seed=7)[0])
        assert not parts[name]["low"].equals(knock_model(knocks, by, seed=0)[0]["low"])
    standard = parts["knock-line-by-rules"].query("rules == 'standard'").drop(columns="rules")
    expected = knock_model(knock_positions(paired), seed=7)[0]
    pd.testing.assert_frame_equal(standard.reset_index(drop=True), expected)
    assert parts["knock-difference-standard"]["deadwood"].tolist() == list(range(10))


def _check_names(parts):
    """Every table the report saves, and for the compared rule sets only the paired one's
    differences (oklahoma plays its own positions)."""
    assert set(parts) == {
        "knock-cells", "knock-cells-by-opponent", "knock-line", "knock-fit",
        "knock-line-by-opponent", "knock-fit-by-opponent", "take-cells", "take-cells-by-stock",
        "undercut-strong-by-deadwood", "undercut-strong-by-stock", "undercut-strong-cells",
        "undercut-basic-by-deadwood", "undercut-basic-by-stock", "undercut-basic-cells",
        "check-against-play", "played-value-gaps", "knock-difference-standard",
        "take-difference-standard", "knock-line-by-rules", "knock-fit-by-rules",
        "knock-cells-by-rules", "take-cells-by-rules",
    }  # fmt: skip


def _check_knock_cells(study, parts):
    knocks = _knock_rows(study)
    for name, keys in (("knock-cells", ["band"]), ("knock-cells-by-opponent", ["took", "band"])):
        cells = parts[name]
        assert len(cells) == 11 * 5 * len(keys)  # deadwood 0 to the knock limit, 10
        assert sorted(set(cells["deadwood"])) == list(range(11))
        by = knocks.assign(took=knocks["opp_takes"] > 0).groupby([*keys, "deadwood"])
        counted = by.size()
        for row in cells.itertuples():
            key = (row.stock_band, row.deadwood)
            if name.endswith("opponent"):
                key = (row.opponent_took, *key)
            assert row.positions == counted.get(key, 0), (name, key)
            if row.positions:
                mean = by.get_group(key)["gain"].mean()  # one gain per cell
                assert row.mean == pytest.approx(mean)
    cell = parts["knock-cells"].set_index(["stock_band", "deadwood"])
    assert cell.loc[("25-31", 0), "mean"] == GIN_GAIN and cell.loc[("25-31", 0), "positions"] == 1
    assert cell.loc[("19-24", 7), "decisions"] == 14.0  # 7 positions of weight 2


def _check_knock_lines(parts):
    """The noise-free lines by band and by whether the opponent took from the pile."""
    line = parts["knock-line"]
    assert list(line["stock_band"].astype(str)) == BANDS
    assert line["line"].iloc[:3].tolist() == pytest.approx([3.0, 5.0, 12.0])
    assert line["direction"].tolist() == ["above", "below", "below", "", ""]
    assert line["positions"].tolist() == [12, 30, 10, 10, 1]  # the gin knock left out
    by = parts["knock-line-by-opponent"].set_index(["opponent_took", "stock_band"])
    assert (by.loc[(False, "19-24"), "positions"], by.loc[(True, "19-24"), "positions"]) == (16, 14)
    assert by.loc[(False, "19-24"), "line"] == pytest.approx(5.0)
    assert by.loc[(True, "19-24"), "line"] == pytest.approx(5.0)
    assert by.loc[(False, "25-31"), "deals"] == 8 and math.isnan(by.loc[(False, "25-31"), "line"])
    fit = parts["knock-fit"]
    assert len(fit) == 50 and list(fit.columns[:2]) == ["stock_band", "deadwood"]
    fitted = fit.set_index(["stock_band", "deadwood"])["fitted"]
    assert fitted[("25-31", 10)] == pytest.approx(7.0)  # no positions there: the line's value
    fit_by = parts["knock-fit-by-opponent"]
    # nine groups: the one deal of the band 0-6 is one the opponent has not taken in
    assert len(fit_by) == 90 and list(fit_by.columns[:3]) == [
        "opponent_took", "stock_band", "deadwood"
    ]  # fmt: skip


def _check_take_cells(parts):
    takes = parts["take-cells"].set_index(["kind", "card_does"])
    assert len(takes) == 2 * len(CARD_DOES)
    assert takes.loc[("draw", CARD_DOES[0]), "positions"] == 4
    assert takes.loc[("draw", CARD_DOES[0]), "mean"] == 1.0
    assert takes.loc[("draw", CARD_DOES[2]), "low"] == 0.0
    assert takes.loc[("draw", CARD_DOES[2]), "high"] == 0.0
    assert takes.loc[("offer", CARD_DOES[3]), "mean"] == -3.0
    assert takes.loc[("draw", CARD_DOES[3]), "positions"] == 0
    by_stock = parts["take-cells-by-stock"].set_index(["stock_band", "card_does"])
    assert len(by_stock) == 5 * len(CARD_DOES)
    # the draws' and the offer's meld cards at 28 and 31 cards: one band
    assert by_stock.loc[("25-31", CARD_DOES[0]), "positions"] == 5
    assert by_stock.loc[("25-31", CARD_DOES[0]), "mean"] == pytest.approx((4 * 1 + 3) / 5)
    assert by_stock.loc[("19-24", CARD_DOES[1]), "positions"] == 3


def _check_undercut_tables(study, parts):
    knocks = _knock_rows(study)
    strong = parts["undercut-strong-by-deadwood"].set_index("knocker_deadwood")
    assert list(strong.index) == list(range(11))
    counts = knocks.groupby("deadwood").size()
    for deadwood in range(11):
        assert strong.loc[deadwood, "knocks"] == counts.get(deadwood, 0)
    assert strong.loc[2, "rate"] == 1.0 and strong.loc[3, "rate"] == 0.0
    assert (strong.loc[2, "low"], strong.loc[2, "high"]) == pytest.approx(wilson_interval(11, 11))
    by_stock = parts["undercut-strong-by-stock"].set_index("stock_band")
    assert list(by_stock.index) == BANDS
    assert by_stock["knocks"].tolist() == [13, 30, 10, 10, 1]
    assert by_stock.loc["25-31", "rate"] == pytest.approx(3 / 13)  # deadwood 2 in 3 of 13
    cells = parts["undercut-strong-cells"].set_index(["knocker_deadwood", "stock_band"])
    assert len(cells) == 55 and cells.loc[(2, "7-12"), "knocks"] == 4
    basic = parts["undercut-basic-by-deadwood"].set_index("knocker_deadwood")
    assert basic.loc[3, "knocks"] == 4 and basic.loc[3, "rate"] == 0.25
    assert basic.loc[9, "knocks"] == 2 and basic.loc[9, "rate"] == 0.0
    basic_stock = parts["undercut-basic-by-stock"].set_index("stock_band")
    assert basic_stock["knocks"].to_dict() == {"19-24": 4, "0-6": 2}
    basic_cells = parts["undercut-basic-cells"].set_index(["knocker_deadwood", "stock_band"])
    assert basic_cells.loc[(3, "19-24"), "knocks"] == 4
    assert basic_cells.loc[(9, "0-6"), "knocks"] == 2


def _check_check_and_gaps(study, parts):
    check = parts["check-against-play"].set_index("cell")
    first = check.loc["knock, deadwood 1 to 5"]
    # deals 0, 1, 2 at deadwood 1, 2, 3: search gains -2, -1, 0, play +1, +2, +3 above them
    assert (first["checked"], first["search_mean"], first["play_mean"]) == (3, -1.0, 1.0)
    assert first["difference_mean"] == 2.0 and bool(first["flagged"])
    assert first["difference_half_width"] == pytest.approx(Z95 * math.sqrt(1 / 3))
    second = check.loc["knock, deadwood 6 to 10"]  # play -1, 0, +1 about the search
    assert second["difference_mean"] == pytest.approx(0.0) and not second["flagged"]
    assert check.loc["take or draw, card lowers nothing", "checked"] == 1
    knocks = _knock_rows(study)
    cell = knocks[knocks["deadwood"].between(1, 5)]
    mean, half = _per_decision(cell["gain"], cell["weight"], cell["deal"])
    assert first["table_mean"] == pytest.approx(mean)
    assert first["table_half_width"] == pytest.approx(half)
    gaps = parts["played-value-gaps"].set_index("kind")
    assert gaps.loc["offer", "gap_mean"] == 3.0 and gaps.loc["draw", "positions"] == 9
    assert gaps.loc["discard", "positions"] == 1 and gaps.loc["discard", "gap_mean"] == -5.0
    made = knocks["played"] == "knock"
    gap, half = _per_decision(
        (knocks["hand_points"] - knocks["gain"])[made], knocks["weight"][made], knocks["deal"][made]
    )
    assert gaps.loc["knock", "gap_mean"] == pytest.approx(gap)
    assert gaps.loc["knock", "gap_half_width"] == pytest.approx(half)


def _check_paired_rule_set(study, parts):
    """The paired rule set differenced position by position."""
    base = _knock_rows(study).set_index(["deal", "decision"], drop=False)
    other = study.compared["standard"]
    other = other[other["kind"] == "knock"].set_index(["deal", "decision"])
    change = base.assign(change=other["gain"] - base["gain"])
    knocks = parts["knock-difference-standard"]
    # every deadwood up to the highest knock limit, 10 (the gin knock's limit is 8)
    assert knocks["deadwood"].tolist() == list(range(11))
    for row in knocks.itertuples():
        rows = change[change["deadwood"] == row.deadwood]
        assert row.positions == len(rows)
        if len(rows):
            mean, half = _per_decision(
                rows["change"].to_numpy(), rows["weight"].to_numpy(), rows["deal"].to_numpy()
            )
            assert row.mean == pytest.approx(mean)
            if len(rows) > 1:
                assert row.half_width == pytest.approx(half)
    takes = parts["take-difference-standard"].set_index("card_does")
    assert list(takes.index) == list(CARD_DOES)
    assert takes["positions"].tolist() == [5, 3, 2, 1]
    assert takes["mean"].tolist() == pytest.approx([PAIRED_TAKE_CHANGE] * 4)


def _check_rule_sets_side_by_side(parts):
    lines = parts["knock-line-by-rules"]
    assert list(lines.index) == list(range(15))
    assert lines["rules"].tolist() == ["hollywood"] * 5 + ["standard"] * 5 + ["oklahoma"] * 5
    assert lines["line"].iloc[[0, 5, 6, 7, 10]].tolist() == pytest.approx([3, 0.5, -1, 12, 3])
    assert lines["direction"].iloc[5:9].tolist() == ["below", "above", "above", ""]
    fits = parts["knock-fit-by-rules"]
    assert list(fits.index) == list(range(150))
    assert fits["rules"].tolist() == ["hollywood"] * 50 + ["standard"] * 50 + ["oklahoma"] * 50


def _section(report, heading: str):
    (section,) = [s for s in report.sections if s.heading == heading]
    return section


# Each band's knock line in the words the section "The knock line" defines, with its
# interval (noise-free: every resample's line is the line) and, under 30 positions, thin.
OWN_WORDS = {
    "25-31": "3.0: knock above it, play on for gin below it (3.0 to 3.0; thin: 12 positions)",
    "19-24": "5.0: knock below it (5.0 to 5.0)",
    "13-18": "12.0: knock at any deadwood you may (the gain would reach 0 near 12.0) "
    "(12.0 to 12.0; thin: 10 positions)",
    "7-12": "no crossing (the fitted gain is flat, above 0) (no crossing of this kind in at "
    "least 97.5% of resamples (∞); thin: 10 positions)",
    "0-6": "no line (1 deal; it needs 10 deals and 3 deadwoods) (thin: 1 positions)",
}
PAIRED_WORDS = {
    "25-31": "0.5: knock only for gin (0.5 to 0.5; thin: 12 positions)",
    "19-24": "-1.0: knock at any deadwood you may (the gain rises with deadwood) (-1.0 to -1.0)",
    "13-18": "12.0: knock only for gin (the gain rises with deadwood) (12.0 to 12.0; thin: 10 "
    "positions)",
    "7-12": "no crossing (the fitted gain is flat, below 0) (no crossing of this kind in at "
    "least 97.5% of resamples (−∞); thin: 10 positions)",
    "0-6": OWN_WORDS["0-6"],
}


def test_the_report_says_each_figure_in_its_findings_sections_and_figures(monkeypatch, tmp_path):
    """One made-up study's report (one test: every mutant of the report reruns it, and the
    report takes half a second), checked below: the findings in the words of their
    sections, each section's cells, the setup, each section's text and the figures drawn."""
    study = make_study()
    report = make_report(study)
    _check_line_findings(report)
    _check_other_findings(study, report)
    _check_check_and_gap_findings(study, report)
    _check_headings(report)
    _check_knock_sections(report)
    _check_take_sections(report)
    _check_undercut_sections(report)
    _check_rule_set_sections(report)
    _check_check_and_gap_sections(report)
    _check_setup(study, report)
    _check_words(report)
    _check_figures(report, monkeypatch, tmp_path)
    # every section names its figures (none: an empty list) and the whole report renders
    assert {s.heading: s.figures for s in report.sections} == {
        heading: FIGURES.get(heading, [])
        for heading in ["The strategy card: hollywood", *_section_texts()]
    }
    text = render_markdown(report)
    assert all(f"## {s.heading}\n" in text for s in report.sections)


FIGURES = {
    "Knock or play on": ["knock-gain-map"],
    "The fitted line (a detail)": ["knock-fit"],
    "Take or draw": ["take-gain-map"],
    "The strategy card: standard": ["card-standard"],
    "The strategy card: oklahoma": ["card-oklahoma"],
}


def _check_line_findings(report):
    rule = (
        "a verdict where the cell's 95% interval, clustered by deal, excludes 0; thin cells "
        f"(fewer than {MIN_CELL_POSITIONS} positions) and those holding 0 are close"
    )
    assert report.findings[0] == (
        "Where knocking pays for alpha against beta under hollywood, by cards left in the "
        f"stock ({rule}): every stock band: no clear cell."
    )
    assert report.findings[1] == (
        "The same when the opponent has taken from the pile: every stock band: no clear cell; "
        "when the opponent has not: every stock band: no clear cell."
    )
    assert report.findings[4] == (
        "Where knocking pays, by rule set: hollywood: every stock band: no clear cell; "
        "standard: every stock band: no clear cell; oklahoma: every stock band: no clear cell."
    )
    # the answer: the card's rules (none: every cell is thin), then the close calls
    assert report.answer == [
        "Against beta under hollywood, 321 deals separate no situation of the card clearly.",
        "This run has 321 deals, so 21 of 21 cells are close calls; the published cards in "
        "docs/cards/ come from 24,000.",
    ]
    assert report.answer_figure == "card-hollywood"


def _check_other_findings(study, report):
    """Take or draw, undercuts and the paired change."""
    assert report.findings[2] == (
        "Take the discard or draw, by what the card does for the hand (gain of taking per "
        "decision, points per hand): completes a meld: +1.00 ± 0.00 (take); lowers deadwood "
        "by 5 or more: -1.00 ± 0.00 (draw); lowers deadwood by 1 to 4: +0.00 ± 0.00 (close)."
    )
    undercut = report.findings[3]
    low, _ = wilson_interval(11, 11)
    assert undercut.startswith("Undercut risk of alpha's own knocks by deadwood (per knock): 0: ")
    assert f", 2: 100.0% ({100 * low:.1f} to 100.0), 3: 0.0% (0.0 to " in undercut
    assert ", 7: 0.0% (0.0 to " in undercut and ", 8:" not in undercut  # no knocks at 8
    assert undercut.endswith("; beside those of basic against simple in the undercut section.")
    base = _knock_rows(study).set_index(["deal", "decision"], drop=False)
    other = study.compared["standard"]
    other = other[other["kind"] == "knock"].set_index(["deal", "decision"])
    change = (other["gain"] - base["gain"]).to_numpy()
    mean, half = _per_decision(change, base["weight"].to_numpy(), base["deal"].to_numpy())
    assert (
        f"Under standard the gain of knocking over playing on changes by {mean:+.2f} ± "
        f"{half:.2f} points per knock decision against hollywood, on the same positions and "
        "worlds (by deadwood in the rule-set section)."
    ) in report.findings
    assert not any(f.startswith("Under oklahoma") for f in report.findings)  # not paired


def _check_check_and_gap_findings(study, report):
    se = math.sqrt(1 / 3)  # differences 1, 2, 3 (or -1, 0, 1) about their mean
    half, detectable = Z95 * se, (Z95 + 0.8416212335729143) * se
    assert report.findings[-2] == (
        "Checked against play (alpha against beta playing the hands out, each from what it "
        "knew at the position; per decision, paired position by position; a difference is "
        "detectable with 80% power at (1.96 + 0.84) standard errors): "
        f"knock, deadwood 1 to 5: search -1.00, play +1.00, flagged: play differs from the "
        f"search by +2.00 ± {half:.2f}; the check could have detected a difference of "
        f"{detectable:.2f} points; "
        f"knock, deadwood 6 to 10: search -1.33, play -1.33, not flagged (play less search "
        f"+0.00 ± {half:.2f}); the check could have detected a difference of {detectable:.2f} "
        "points; "
        f"take or draw, card completes a meld: search +1.00, play +3.00, flagged: play differs "
        f"from the search by +2.00 ± {half:.2f}; the check could have detected a difference of "
        f"{detectable:.2f} points; "
        "take or draw, card lowers nothing: too few positions to check (1)."
    )
    knocks = _knock_rows(study)  # every knock made: its value is the search's knock value
    gap, half = _per_decision(
        knocks["hand_points"] - knocks["gain"], knocks["weight"], knocks["deal"]
    )
    assert report.findings[-1] == (
        "The search's values against real play: the hand's real points less the search's "
        "value of the move alpha and beta made, per decision (points per hand; below 0: the "
        "search's values are above the real outcomes), by kind: offer +3.00 ± 0.00 (2); draw "
        f"+3.00 ± 0.00 (9); discard -5.00 (1); knock {gap:+.2f} ± {half:.2f} (64)."
    )
    assert len(report.findings) == 8  # lines, split, take, undercut, rule sets, change, check, gaps


def test_the_check_against_play_is_split_into_the_policies_and_the_worlds():
    """With the search's own rollouts from the real cards (``rollout_gain``) the check's
    findings and table give each part, tested alike (issue 47): here the rollouts are the
    search's gains plus a third of play's offsets, so the policies are two thirds of the
    difference and the worlds one third, each with the difference's flag where its
    interval excludes 0."""
    study = make_study()
    checked = study.checked
    offsets = checked["play_gain"] - checked["gain"]
    study.checked = checked.assign(rollout_gain=checked["gain"] + offsets / 3)
    report = make_report(study)
    se = math.sqrt(1 / 3)
    line = report.findings[-2]
    first = (
        f"knock, deadwood 1 to 5: search -1.00, play +1.00, flagged: play differs from the "
        f"search by +2.00 ± {Z95 * se:.2f}; the check could have detected a difference of "
        f"{(Z95 + 0.8416212335729143) * se:.2f} points (the policies flagged (+1.33 ± "
        f"{Z95 * se * 2 / 3:.2f}), the worlds flagged (+0.67 ± {Z95 * se / 3:.2f}))"
    )
    assert first in line, line
    assert (
        f"knock, deadwood 6 to 10: search -1.33, play -1.33, not flagged (play less search "
        f"+0.00 ± {Z95 * se:.2f}); the check could have detected a difference of "
        f"{(Z95 + 0.8416212335729143) * se:.2f} points (the policies not flagged (+0.00 ± "
        f"{Z95 * se * 2 / 3:.2f}; {(Z95 + 0.8416212335729143) * se * 2 / 3:.2f} detectable), "
        f"the worlds not flagged (+0.00 ± {Z95 * se / 3:.2f}; "
        f"{(Z95 + 0.8416212335729143) * se / 3:.2f} detectable))"
    ) in line, line
    table = _table(report, "Check against play").set_index("cell")
    row = table.loc["knock, deadwood 1 to 5"]
    assert row["policies: play less search's policies"].startswith("+1.33 ± ")
    assert row["policies tested"].startswith("flagged, detectable ")
    assert row["worlds: real cards less search's worlds"].startswith("+0.67 ± ")
    assert table.loc["knock, deadwood 6 to 10", "worlds tested"].startswith("not flagged")
    assert row["search's policies, real cards"].startswith("-0.33 ± ")


def _table(report, heading: str) -> pd.DataFrame:
    return _section(report, heading).table


def _check_headings(report):
    assert [s.heading for s in report.sections] == [
        "The strategy card: hollywood", "Knock or play on", "The fitted line (a detail)",
        "Does a line fit?", "The fitted line when the opponent has taken from the pile, or not",
        "Take or draw", "Take or draw by cards in the stock", "Undercut risk of strong knockers",
        "Undercut risk by cards in the stock",
        "Undercut risk of strong knockers by deadwood and cards in the stock",
        "Undercut risk of basic against simple by deadwood and cards in the stock",
        "The strategy card: standard", "The strategy card: oklahoma",
        "The fitted line by rule set (a detail)", "standard against hollywood, paired",
        "Check against play", "The search's values against the hands' real outcomes",
        "A distilled strategy",
    ]  # fmt: skip


def _check_knock_sections(report):
    knock = _section(report, "Knock or play on")
    # 63 deals of knocks (64 knock positions with the gin), 11 of takes and 2 of discards
    assert "over 64 knock positions of 76 deals (`knock-cells.csv`" in knock.text
    grid = knock.table.set_index("deadwood")
    assert list(grid.index) == [str(d) for d in range(11)] and list(grid.columns) == BANDS
    assert grid.loc["0", "25-31"] == "+20.00 (1) thin"  # one position: no interval
    assert grid.loc["1", "25-31"] == "-2.00 ± 0.00 (3) thin"
    assert grid.loc["4", "19-24"] == "+1.00 ± 0.00 (8) thin"
    assert grid.loc["2", "0-6"] == "-1.00 (1) thin" and grid.loc["5", "25-31"] == ""
    assert knock.figures == ["knock-gain-map"]
    line = _section(report, "The fitted line (a detail)")
    assert line.figures == ["knock-fit"]
    assert list(line.table.columns) == [
        "cards in the stock", "knock line (deadwood where the fitted gain is 0)",
        "95% interval", "fitted gain at deadwood 1, slope per point", "positions (deals)",
    ]  # fmt: skip
    rows = line.table.set_index("cards in the stock")
    assert rows.loc["25-31"].tolist() == [
        "3.0: knock above it, play on for gin below it", "3.0 to 3.0", "-2.00, +1.00",
        "12 (12) thin",
    ]  # fmt: skip
    assert rows.loc["19-24"].tolist() == [
        "5.0: knock below it", "5.0 to 5.0", "+4.00, -1.00", "30 (30)"
    ]  # fmt: skip
    assert rows.loc["7-12", "95% interval"] == "above 10"  # never an infinite end as a number
    assert rows.loc["0-6"].tolist()[1:] == ["", "n/a", "1 (1) thin"]
    fit = _section(report, "Does a line fit?")
    assert "(`knock-fit.csv`). 0 of 15 cells are marked;" in fit.text
    cells = fit.table.set_index("deadwood")
    assert list(cells.index) == [str(d) for d in range(1, 11)] and list(cells.columns) == BANDS
    assert cells.loc["10", "25-31"] == "+7.00 (+7.00 to +7.00)"  # no positions at 10
    assert cells.loc["4", "19-24"] == (
        "+1.00 (+1.00 to +1.00); cell − fit +0.00 (+0.00 to +0.00) [8]"
    )
    assert cells.loc["1", "0-6"] == ""  # no line, no fit
    opponent = _section(report, "The fitted line when the opponent has taken from the pile, or not")
    assert list(opponent.table.columns[:2]) == ["opponent took", "cards in the stock"]
    row = opponent.table.iloc[1]
    assert row.tolist() == [
        "False", "19-24", "5.0: knock below it", "5.0 to 5.0", "+4.00, -1.00", "16 (16) thin"
    ]  # fmt: skip
    assert opponent.figures == []


def _check_take_sections(report):
    take = _section(report, "Take or draw")
    assert "over 11 offer and draw positions (`take-cells.csv`)" in take.text  # 9 + 2
    grid = take.table.set_index("the card")
    assert list(grid.index) == list(CARD_DOES) and list(grid.columns) == ["draw", "offer"]
    assert grid.loc[CARD_DOES[0], "draw"] == "+1.00 ± 0.00 (4) thin"
    assert grid.loc[CARD_DOES[2], "draw"] == "+0.00 ± 0.00 (2) thin"
    assert grid.loc[CARD_DOES[3], "offer"] == "-3.00 (1) thin"
    assert grid.loc[CARD_DOES[3], "draw"] == ""
    assert take.figures == ["take-gain-map"]
    by_stock = _table(report, "Take or draw by cards in the stock").set_index("the card")
    assert list(by_stock.columns) == BANDS
    # four draws of +1 and an offer of +3 at 28 and 31 cards, one deal each
    mean, half = _per_decision([1.0, 1.0, 1.0, 1.0, 3.0], [1.0] * 5, range(5))
    assert by_stock.loc[CARD_DOES[0], "25-31"] == f"{mean:+.2f} ± {half:.2f} (5) thin"
    assert by_stock.loc[CARD_DOES[1], "19-24"] == "-1.00 ± 0.00 (3) thin"


def _check_undercut_sections(report):
    side = _table(report, "Undercut risk of strong knockers")
    assert list(side.columns) == [
        "deadwood", "strong: undercut rate", "strong: knock positions", "basic: undercut rate",
        "basic: knocks",
    ]  # fmt: skip
    # the deadwoods with a knock on either side only: none at 8 or 10
    assert side["deadwood"].tolist() == ["0", "1", "2", "3", "4", "5", "6", "7", "9"]
    rows = side.set_index("deadwood")
    low, _ = wilson_interval(11, 11)
    assert rows.loc["2"].tolist() == [f"100.0% ({100 * low:.1f} to 100.0)", "11", "n/a", "0"]
    assert rows.loc["9", "strong: undercut rate"] == "n/a"
    assert rows.loc["9", "strong: knock positions"] == "0"
    assert rows.loc["9", "basic: knocks"] == "2"
    assert rows.loc["9", "basic: undercut rate"].startswith("0.0% (0.0 to ")
    assert rows.loc["3", "basic: undercut rate"].startswith("25.0% (")
    by_stock = _table(report, "Undercut risk by cards in the stock")
    assert by_stock["cards in the stock"].tolist() == BANDS  # the hand's order, not sorted
    assert by_stock["strong: knock positions"].tolist() == ["13", "30", "10", "10", "1"]
    assert by_stock["basic: knocks"].tolist() == ["0", "4", "0", "0", "2"]
    strong = _table(report, "Undercut risk of strong knockers by deadwood and cards in the stock")
    grid = strong.set_index("deadwood")
    assert list(grid.index) == [str(d) for d in range(1, 11)] and list(grid.columns) == BANDS
    low, _ = wilson_interval(4, 4)
    assert grid.loc["2", "7-12"] == f"100.0% ({100 * low:.1f} to 100.0) [4] thin"
    assert grid.loc["5", "25-31"] == "" and grid.loc["8", "19-24"] == ""
    basic = _table(
        report, "Undercut risk of basic against simple by deadwood and cards in the stock"
    ).set_index("deadwood")
    assert list(basic.columns) == ["19-24", "0-6"]  # the bands basic knocked in
    assert basic.loc["3", "19-24"].startswith("25.0% (") and basic.loc["3", "19-24"].endswith(
        ") [4] thin"
    )


def _check_rule_set_sections(report):
    rules = _section(report, "The fitted line by rule set (a detail)")
    assert rules.figures == []
    table = rules.table
    assert list(table.columns[:2]) == ["rules", "cards in the stock"]
    assert table.iloc[6, :3].tolist() == ["standard", "19-24", "below 0: knock at any deadwood"]
    for name, how in (
        ("standard", "The same positions valued again under standard's scoring (paired)."),
        ("oklahoma", "Its own positions (its knock limit differs), valued by the same search."),
    ):
        card = _section(report, f"The strategy card: {name}")
        assert card.text == f"{how} No cell is clear enough for a rule of thumb."
        assert card.figures == [f"card-{name}"] and card.table is None
    own = _section(report, "The strategy card: hollywood")
    assert own.text.startswith(
        "Measured for alpha against beta under hollywood: 321 deals (seed 7) of this report, "
        "each position valued by the search under What was run.\n"
    )
    assert "### Knock or play on" in own.text and "### Close calls" in own.text
    assert own.text.endswith(
        "`gin-sim card` prints this card, or writes it for print (PNG, SVG) and as JSON, for "
        "any advice report folder (docs/card.md)."
    )
    paired = _section(report, "standard against hollywood, paired")
    assert paired.text.startswith(
        "The gain of knocking under standard less under hollywood, on the same positions and "
        "worlds, by deadwood, a mean per decision"
    )
    change = paired.table.set_index("deadwood")["change in the gain of knocking"]
    assert list(change.index) == [str(d) for d in range(11)]
    # deadwood 5 to 7 only in the band 19-24: (d + 1) - (5 - d) = 2d - 4, the same everywhere
    assert change["5"] == "+6.00 ± 0.00 (8) thin" and change["7"] == "+10.00 ± 0.00 (7) thin"
    assert change["0"] == "+0.00 (1) thin" and change["8"] == ""


def _check_check_and_gap_sections(report):
    half = f"{Z95 * math.sqrt(1 / 3):.2f}"
    detectable = f"{(Z95 + 0.8416212335729143) * math.sqrt(1 / 3):.2f}"
    check = _section(report, "Check against play")
    assert "alpha and beta play the hand out, 2 times per position" in check.text
    rows = check.table.set_index("cell")
    assert list(rows.columns) == [
        "table (whole cell)", "search (checked positions)", "play (checked positions)",
        "play less search (paired)", "flagged (interval excludes 0)",
        "detectable difference (80% power)",
    ]  # fmt: skip
    first = rows.loc["knock, deadwood 1 to 5"].tolist()
    assert first[1:] == [f"-1.00 ± {half} (3)", f"+1.00 ± {2 * float(half):.2f}",
                         f"+2.00 ± {half}", "yes", detectable]  # fmt: skip
    assert first[0].endswith(" (49)")  # the whole cell: 49 knocks at deadwood 1 to 5
    assert rows.loc["knock, deadwood 6 to 10", "flagged (interval excludes 0)"] == "no"
    assert rows.loc["take or draw, card lowers nothing"].tolist() == [
        "-3.00 (1)", "-3.00 (1)", "-2.00", "+1.00", "no", "n/a"
    ]  # fmt: skip
    gaps = _section(report, "The search's values against the hands' real outcomes")
    assert "rollout policies (8 worlds, made up); the hands were played by alpha and beta" in (
        gaps.text
    )
    assert list(gaps.table.columns) == [
        "kind", "positions", "search's value of the move made", "real points",
        "gap (real less search)",
    ]  # fmt: skip
    table = gaps.table.set_index("kind")
    assert list(table.index) == ["offer", "draw", "discard", "knock"]
    assert table.loc["offer"].tolist() == ["2", "+2.00", "+5.00", "+3.00 ± 0.00"]
    assert table.loc["discard"].tolist() == ["1", "+1.00", "-4.00", "-5.00"]


def _check_setup(study, report):
    from gin_sim.experiments.distill import DISTILLED_BASE, family_base, proposals

    assert report.kind == "advice"
    assert report.title == "Advice from strong play: alpha against beta under hollywood"
    assert report.command == "gin-sim report advice --made-up"
    assert report.setup[0].startswith(
        "Positions: 321 deals of alpha against beta under hollywood, seed 7; "
    )
    assert report.setup[1].startswith("Size: 321 deals, a small run")
    assert report.setup[2:5] == [
        "Evaluation: 8 worlds, made up.",
        "Check against play: 2 continuations per checked position.",
        "Undercut comparison: basic against simple (6 decks, made up).",
    ]
    assert f"with a {LINE_RESAMPLES:,}-resample bootstrap over deals." in report.setup[5]
    # the tables (test_the_tables_hold_the_studys_figures_by_the_keys_the_report_names),
    # then the proposals
    assert list(report.tables)[-5:] == [
        "knock-cells-by-rules", "take-cells-by-rules", "knock-line-by-rules",
        "knock-fit-by-rules", "distill-proposals",
    ]  # fmt: skip
    tables = {k: v for k, v in report.tables.items() if k != "distill-proposals"}
    made = proposals(
        tables, study.rule_sets["hollywood"],
        [study.rule_sets["standard"], study.rule_sets["oklahoma"]], family_base(DISTILLED_BASE),
    )  # fmt: skip
    assert len(made) >= 3  # the made-up lines differ from expert's under every rule set
    distilled = _table(report, "A distilled strategy")
    assert distilled["rule set"].tolist() == [p.rules for p in made]
    assert distilled["proposed change"].tolist() == [p.describe() for p in made]
    saved = report.tables["distill-proposals"]
    assert saved["rules"].tolist() == [p.rules for p in made]
    assert saved["when"].tolist() == [str(dict(p.when)) for p in made]
    assert saved["changes"].tolist() == [str(dict(p.changes)) for p in made]
    assert saved["source"].tolist() == [p.source for p in made]
    assert set(report.figures) == {
        "knock-gain-map", "knock-fit", "take-gain-map", "card-hollywood", "card-standard",
        "card-oklahoma",
    }  # fmt: skip


def _check_figures(report, monkeypatch, tmp_path):
    """The figures' drawing replaced by recorders: each figure gets its table, its
    columns and its words, and the thin mark at MIN_CELL_POSITIONS."""
    import gin_sim.reports.advice as module

    calls = []

    def recorder(name):
        return lambda *args: calls.append((name, args))

    fake = SimpleNamespace(**{n: recorder(n) for n in ("gain_map", "knock_fits")})
    monkeypatch.setattr(module, "figures", fake)  # read when a figure is drawn
    monkeypatch.setattr(module, "draw_card", lambda *args: calls.append(("draw_card", args)))
    parts = report.tables
    drawn = {}
    for name, draw in report.figures.items():
        calls.clear()
        draw(tmp_path / f"{name}.png")
        ((kind, args),) = calls
        if kind == "draw_card":  # the card's page as PNG and SVG
            assert args[1] == [tmp_path / f"{name}.png", tmp_path / f"{name}.svg"]
            assert f"card-{args[0].rules}" == name
            drawn[name] = (kind, args)
            continue
        assert args[0] == tmp_path / f"{name}.png"
        drawn[name] = (kind, args[1:])
    assert {n for n, (k, _) in drawn.items() if k == "draw_card"} == {
        "card-hollywood", "card-standard", "card-oklahoma"
    }  # fmt: skip
    kind, args = drawn["knock-gain-map"]
    assert kind == "gain_map" and args[0] is parts["knock-cells"]
    assert args[1:] == (
        "deadwood", "stock_band",
        "No clear knock rule in these cells\ngain of knocking over playing on, points a hand "
        "(alpha against beta, hollywood)",
        "your deadwood after the discard",
        "cards left in the stock (the hand goes on to the right)", MIN_CELL_POSITIONS,
    )  # fmt: skip
    kind, args = drawn["take-gain-map"]
    assert kind == "gain_map" and args[0] is parts["take-cells"]
    assert args[1:] == (
        "card_does", "kind", "No clear take rule in these cells\ngain of taking over drawing, "
        "points a hand (alpha against beta, hollywood)", "what the card does for your hand",
        "decision (offer: the first upcard)", MIN_CELL_POSITIONS,
    )  # fmt: skip
    kind, args = drawn["knock-fit"]
    assert kind == "knock_fits" and args[0] is parts["knock-fit"] and args[1] is parts["knock-line"]
    assert args[2:] == (
        "stock_band",
        "Gain of knocking by deadwood, the cells and a fitted line (alpha against beta, hollywood)",
        MIN_CELL_POSITIONS,
    )


def test_the_scale_note_names_the_published_run_below_its_size():
    from gin_sim.reports.advice import PUBLISHED_COMMAND, PUBLISHED_RUN, _scale_note

    small = _scale_note(23_999)
    assert small.startswith("Size: 23,999 deals, a small run that shows the method: ")
    assert f"published run of 24,000 deals, {PUBLISHED_RUN}, where every knock" in small
    assert f"it was made by `{PUBLISHED_COMMAND}` (about two and a half hours" in small
    assert _scale_note(24_000) == (
        "Size: 24,000 deals, the published run's size; the cell tables give each cell's count "
        "(tests/test_published_advice.py holds the published run to 100 positions per cell)."
    )
    assert _scale_note(25_000).startswith("Size: 25,000 deals, the published run's size;")


def _line(**fields):
    """A row of ``knock_model``'s line table."""
    base = dict(
        slope=-1.0, intercept=5.0, crossing=True, direction="below", line=5.0, low=4.0,
        high=6.0, deals=40, positions=40,
    )  # fmt: skip
    return SimpleNamespace(**(base | fields))


@pytest.mark.parametrize(
    ("fields", "words"),
    [
        ({}, "5.0: knock below it"),
        ({"line": 10.0}, "10.0: knock below it"),  # 10 is a deadwood: not beyond it
        ({"line": 10.04}, "above 10: knock at any deadwood"),
        ({"line": 1.0}, "1.0: knock below it"),
        ({"line": 0.96}, "1.0: only gin"),
        ({"line": -0.04}, "below 0: only gin"),  # never a deadwood below 0 as a number
        ({"direction": "above", "line": 4.0}, "4.0: knock above it, play on for gin below it"),
        ({"direction": "above", "line": 1.0}, "1.0: knock above it, play on for gin below it"),
        ({"direction": "above", "line": 10.0}, "10.0: knock above it, play on for gin below it"),
        ({"direction": "above", "line": 0.96}, "1.0: knock at any deadwood"),
        ({"direction": "above", "line": -3.0}, "below 0: knock at any deadwood"),
        ({"direction": "above", "line": 10.04}, "above 10: only gin"),
        ({"direction": "above", "line": 368.8}, "above 10: only gin"),
        ({"crossing": False, "slope": 0.0, "intercept": 0.0},
         "no crossing (the fitted gain is flat, below 0)"),  # 0 is not above 0
        ({"crossing": False, "slope": 0.0, "intercept": 0.5},
         "no crossing (the fitted gain is flat, above 0)"),
        ({"slope": math.nan, "deals": 1}, "no line (1 deal; it needs 10 deals and 3 deadwoods)"),
        ({"slope": math.inf, "deals": 0}, "no line (0 deals; it needs 10 deals and 3 deadwoods)"),
        ({"slope": math.nan, "deals": 2}, "no line (2 deals; it needs 10 deals and 3 deadwoods)"),
    ],
)  # fmt: skip
def test_a_line_in_words_at_each_edge(fields, words):
    from gin_sim.reports.advice import _line_value

    assert (MIN_LINE_DEALS, MIN_LINE_DEADWOODS) == (10, 3)
    assert _line_value(_line(**fields)) == words


def test_a_lines_interval_and_thin_mark_in_words():
    from gin_sim.reports.advice import _line_interval, _line_table, _line_text, _line_words

    assert _line_interval(_line()) == "4.0 to 6.0"
    assert _line_interval(_line(low=math.nan)) == ""
    # never a deadwood outside 0 to 10, nor an infinite end, as a number
    assert _line_interval(_line(low=-math.inf, high=3.25)) == "below 0 to 3.2"
    assert _line_interval(_line(low=2.0, high=math.inf)) == "2.0 to above 10"
    assert _line_interval(_line(low=0.0, high=10.0)) == "0.0 to 10.0"
    assert _line_interval(_line(low=-0.01, high=10.01)) == "below 0 to above 10"
    assert _line_interval(_line(low=math.inf, high=math.inf)) == "above 10"
    assert _line_interval(_line(low=-math.inf, high=-math.inf)) == "below 0"
    assert _line_interval(_line(low=11.0, high=40.0)) == "above 10"
    assert _line_words(_line(positions=MIN_CELL_POSITIONS)) == "5.0: knock below it (4.0 to 6.0)"
    assert _line_words(_line(positions=MIN_CELL_POSITIONS - 1)) == (
        "5.0: knock below it (4.0 to 6.0; thin: 29 positions)"
    )
    assert _line_words(_line(low=math.nan, positions=MIN_CELL_POSITIONS)) == "5.0: knock below it"
    thin = _line_words(_line(low=math.nan, positions=3))
    assert thin == "5.0: knock below it (thin: 3 positions)"
    lines = pd.DataFrame(
        [vars(_line(positions=30, deals=12)), vars(_line(positions=29, deals=9, slope=math.nan))]
    ).assign(band=["a", "b"], took=[True, False])
    assert _line_text(lines, ["took", "band"]) == (
        "True, a: 5.0: knock below it (4.0 to 6.0); False, b: no line (9 deals; it needs 10 "
        "deals and 3 deadwoods) (4.0 to 6.0; thin: 29 positions)"
    )
    table = _line_table(lines, ["band", "took"], ["the band", "took?"])
    assert table.to_dict("list") == {
        "the band": ["a", "b"],
        "took?": ["True", "False"],
        "knock line (deadwood where the fitted gain is 0)": [
            "5.0: knock below it", "no line (9 deals; it needs 10 deals and 3 deadwoods)"
        ],
        "95% interval": ["4.0 to 6.0", "4.0 to 6.0"],
        "fitted gain at deadwood 1, slope per point": ["+4.00, -1.00", "n/a"],
        "positions (deals)": ["30 (12)", "29 (9) thin"],
    }  # fmt: skip


def test_numbers_gains_and_cells_in_words():
    from gin_sim.reports.advice import _cell_text, _deadwood, _gain, _rate

    assert _gain(None, 1.0) == "n/a" and _gain(math.nan, 1.0) == "n/a"
    assert _gain(math.inf, 1.0) == "n/a"
    assert _gain(1.5, 0.25) == "+1.50 ± 0.25" and _gain(-0.125, math.nan) == "-0.12"
    assert _gain(2.0, math.inf) == "+2.00"
    assert (_deadwood(math.nan), _deadwood(math.inf), _deadwood(-math.inf)) == (
        "n/a", "above 10", "below 0"
    )  # fmt: skip
    assert (_deadwood(2.36), _deadwood(0.0), _deadwood(10.0)) == ("2.4", "0.0", "10.0")
    assert (_deadwood(-0.01), _deadwood(10.01), _deadwood(-12.0)) == (
        "below 0", "above 10", "below 0"
    )  # fmt: skip
    cell = SimpleNamespace(positions=30, mean=-1.0, half_width=0.5, thin=False)
    assert _cell_text(cell) == "-1.00 ± 0.50 (30)"
    assert _cell_text(SimpleNamespace(positions=2, mean=1.0, half_width=0.5, thin=True)) == (
        "+1.00 ± 0.50 (2) thin"
    )
    assert _cell_text(SimpleNamespace(positions=0, mean=math.nan, half_width=0, thin=True)) == ""
    assert _rate(0.125, 0.05, 0.25) == "12.5% (5.0 to 25.0)"
    assert _rate(math.nan, 0.0, 1.0) == "n/a"


def test_a_fit_grid_marks_the_cells_the_line_misses():
    from gin_sim.reports.advice import _fit_grid, _misfits

    def cell(band, deadwood, positions, low, high, fitted=1.0):
        return {"band": band, "deadwood": deadwood, "positions": positions, "fitted": fitted,
                "fitted_low": fitted - 0.5, "fitted_high": fitted + 0.5,
                "residual": (low + high) / 2, "residual_low": low, "residual_high": high}  # fmt: skip

    fit = pd.DataFrame(
        [
            cell("x", 1, 4, 0.25, 0.75),  # above 0: marked
            cell("x", 2, 5, -0.75, -0.25),  # below 0: marked
            cell("x", 3, 6, -0.25, 0.25),  # holds 0
            cell("x", 4, 7, 0.0, 0.5),  # an end at 0 holds it
            cell("x", 5, 8, -0.5, 0.0),
            cell("x", 6, 0, 0.25, 0.75),  # no positions: no residual, never marked
            cell("x", 7, 1, -0.75, -0.25),  # one position: marked
            cell("y", 1, 3, math.nan, math.nan, fitted=math.nan),  # no line
        ]
    )
    assert _misfits(fit) == 3
    grid = _fit_grid(fit, "band").set_index("deadwood")
    assert list(grid.columns) == ["x", "y"] and list(grid.index) == [str(d) for d in range(1, 8)]
    assert grid.loc["1", "x"] == ("+1.00 (+0.50 to +1.50); cell − fit +0.50 (+0.25 to +0.75) * [4]")
    assert grid.loc["2", "x"].endswith("(-0.75 to -0.25) * [5]")
    assert grid.loc["3", "x"].endswith("(-0.25 to +0.25) [6]")
    assert grid.loc["4", "x"].endswith("(+0.00 to +0.50) [7]")
    assert grid.loc["5", "x"].endswith("(-0.50 to +0.00) [8]")
    assert grid.loc["6", "x"] == "+1.00 (+0.50 to +1.50)"
    assert grid.loc["1", "y"] == "" and grid.loc["2", "y"] == ""


def test_an_undercut_grid_and_the_side_by_side_table():
    from gin_sim.reports.advice import _undercut_side_by_side, undercut_grid

    rates = pd.DataFrame(
        {
            "knocker_deadwood": [0, 1, 1, 2, 3],
            "stock_band": pd.Categorical(["0-6", "0-6", "25-31", "7-12", "7-12"]),
            "knocks": [5, 30, 1234, 29, 0],
            "rate": [0.0, 0.5, 0.25, 1.0, math.nan],
            "low": [0.0, 0.25, 0.2, 0.9, math.nan],
            "high": [0.5, 0.75, 0.3, 1.0, math.nan],
        }
    )
    grid = undercut_grid(rates, "knocks")
    # gin (deadwood 0) is never undercut: no row; the bands in the hand's order
    assert list(grid.columns) == ["deadwood", "25-31", "7-12", "0-6"]
    cells = grid.set_index("deadwood")
    assert list(cells.index) == ["1", "2", "3"]
    assert cells.loc["1", "0-6"] == "50.0% (25.0 to 75.0) [30]"
    assert cells.loc["1", "25-31"] == "25.0% (20.0 to 30.0) [1,234]"
    assert cells.loc["2", "7-12"] == "100.0% (90.0 to 100.0) [29] thin"
    assert cells.loc["3", "7-12"] == "" and cells.loc["2", "0-6"] == ""
    strong = pd.DataFrame(
        {"stock_band": ["7-12", "25-31", "0-6"], "knocks": [3, 0, 2],
         "rate": [0.5, math.nan, 0.0], "low": [0.1, math.nan, 0.0], "high": [0.9, math.nan, 0.5]}
    )  # fmt: skip
    basic = pd.DataFrame(
        {"stock_band": ["0-6", "13-18", "25-31"], "knocks": [4, 1, 0],
         "rate": [0.25, 0.0, math.nan], "low": [0.05, 0.0, math.nan],
         "high": [0.7, 0.9, math.nan]}
    )  # fmt: skip
    side = _undercut_side_by_side(strong, basic, "stock_band", "the stock")
    assert side.to_dict("list") == {
        "the stock": ["13-18", "7-12", "0-6"],  # the hand's order; 25-31 has no knocks
        "strong: undercut rate": ["n/a", "50.0% (10.0 to 90.0)", "0.0% (0.0 to 50.0)"],
        "strong: knock positions": ["0", "3", "2"],
        "basic: undercut rate": ["0.0% (0.0 to 90.0)", "n/a", "25.0% (5.0 to 70.0)"],
        "basic: knocks": ["1", "0", "4"],
    }
    by_deadwood = _undercut_side_by_side(
        strong.assign(d=[10, 9, 2]).drop(columns="stock_band"),
        basic.assign(d=[2, 1, 10]).drop(columns="stock_band"), "d", "deadwood",
    )  # fmt: skip
    assert by_deadwood["deadwood"].tolist() == ["1", "2", "10"]  # merged on the key, sorted


def test_the_gaps_in_words_leave_out_a_kind_without_positions():
    from gin_sim.reports.advice import _gap_findings

    gaps = pd.DataFrame(
        {"kind": ["offer", "draw", "knock"], "positions": [0, 3, 1],
         "gap_mean": [math.nan, -0.5, 2.0], "gap_half_width": [math.nan, 0.25, math.nan]}
    )  # fmt: skip
    study = SimpleNamespace(players=("p", "q"))
    assert _gap_findings(gaps, study) == (
        "The search's values against real play: the hand's real points less the search's "
        "value of the move p and q made, per decision (points per hand; below 0: the "
        "search's values are above the real outcomes), by kind: draw -0.50 ± 0.25 (3); knock "
        "+2.00 (1)."
    )


def test_the_check_table_and_findings_at_their_edges():
    from gin_sim.reports.advice import _check_findings, _check_shown

    def cell(name, checked, detectable, flagged=False):
        return {"cell": name, "cell_positions": 40, "checked": checked, "table_mean": 1.0,
                "table_half_width": 0.5, "search_mean": 1.0, "search_half_width": 0.25,
                "play_mean": 1.5, "play_half_width": math.nan, "difference_mean": 0.5,
                "difference_half_width": 0.75, "flagged": flagged, "detectable": detectable}  # fmt: skip

    check = pd.DataFrame(
        [cell("a", 2, 1.25, True), cell("b", 1, 1.25), cell("c", 5, math.nan),
         cell("d", 5, math.inf)]
    )  # fmt: skip
    shown = _check_shown(check)
    assert shown.iloc[0].tolist() == [
        "a", "+1.00 ± 0.50 (40)", "+1.00 ± 0.25 (2)", "+1.50", "+0.50 ± 0.75", "yes", "1.25"
    ]  # fmt: skip
    assert shown["detectable difference (80% power)"].tolist() == ["1.25", "1.25", "n/a", "n/a"]
    assert shown["flagged (interval excludes 0)"].tolist() == ["yes", "no", "no", "no"]
    words = _check_findings(check, ("p", "q"))
    assert words == (
        "Checked against play (p against q playing the hands out, each from what it knew at "
        "the position; per decision, paired position by position; a difference is detectable "
        "with 80% power at (1.96 + 0.84) standard errors): a: search +1.00, play +1.50, flagged: play differs from the search "
        "by +0.50 ± 0.75; the check could have detected a difference of 1.25 points; b: too "
        "few positions to check (1); c: too few positions to check (5); d: too few positions "
        "to check (5)."
    )


def _section_texts() -> dict[str, str]:
    """What each section of the made-up study's report says, word for word: how to read
    its table (the sign that says knock or take, the thin mark, the interval and the
    estimator, which side of a line knocks, which files hold what), with this study's
    figures (64 knock positions of 76 deals, 11 offer and draw positions, players alpha
    and beta, 2 continuations) and the module's constants put in."""
    from gin_sim.reports.advice import PER_DECISION

    n, resamples = MIN_CELL_POSITIONS, f"{LINE_RESAMPLES:,}"
    basic = "basic against simple (6 decks, made up)"
    return {
        "Knock or play on": (
            "Each cell: the gain of knocking over the best way to play on (points per hand), "
            f"{PER_DECISION}; then the positions behind it; over 64 knock positions of 76 deals "
            "(`knock-cells.csv`, which also has the decisions the cell stands for and its "
            f"deals). Cells of fewer than {n} positions are marked thin (grey in the figure). "
            "Positive: knock."
        ),
        "The fitted line (a detail)": (
            "Per stock band, the gain of knocking is also fitted on the deadwood 1 to 10 (0 is "
            "gin) by weighted least squares, each position weighted by `weight`: gain = a + b × "
            f"deadwood, with a 95% interval from {resamples} bootstrap resamples of the band's "
            "deals (seeded). The table says where the fitted gain crosses 0 and which side of "
            "it knocks; a crossing outside 0 to 10 is given in words (`knock-line.csv` has the "
            "numbers). The verdicts above come from the cells, not from this line, which the "
            "next table shows does not describe every cell."
        ),
        "Does a line fit?": (
            "Per deadwood (rows) and stock band (columns): the fitted gain of knocking with its "
            "95% bootstrap interval, then the cell's mean gain per decision less the fit (the "
            "residual) with its interval, marked * where that interval excludes 0 (the line "
            "does not describe the cell), and the cell's positions in square brackets "
            "(`knock-fit.csv`). 0 of 15 cells are marked; with 95% intervals about 1 in 20 "
            "would be by chance alone."
        ),
        "The fitted line when the opponent has taken from the pile, or not": (
            "The same fit per stock band, the knock positions split by whether the opponent "
            "has taken a card from the discard pile (`knock-fit-by-opponent.csv` has its fit)."
        ),
        "Take or draw": (
            "Each cell: the gain of taking the card on offer over drawing (declining at the "
            "first upcard), by what the card does for the hand, "
            f"{PER_DECISION}; over 11 offer and draw positions (`take-cells.csv`). Positive: "
            "take."
        ),
        "Take or draw by cards in the stock": "The same estimator by stock band.",
        "Undercut risk of strong knockers": (
            "alpha's knocks at its kept knock positions, each weighted by `weight` (the knock "
            "decisions it stands for), so the rates are per knock; clustered by deal, Wilson "
            f"intervals. Beside them {basic}'s knocks (all thresholds pooled, as "
            "`report undercut`). The opponents differ, so the comparison is of the two "
            "settings, not of the knockers alone."
        ),
        "Undercut risk by cards in the stock": "",
        "Undercut risk of strong knockers by deadwood and cards in the stock": (
            "alpha's knocks as above, by deadwood (rows) and cards left in the stock (columns, "
            "from the start of the hand): each cell the rate per knock, its 95% Wilson interval "
            "and, in square brackets, its knock positions; cells of fewer than "
            f"{n} are marked thin (`undercut-strong-cells.csv`)."
        ),
        "Undercut risk of basic against simple by deadwood and cards in the stock": (
            f"The same grid for {basic} (`undercut-basic-cells.csv`; knocks in square brackets)."
        ),
        "The strategy card: standard": (
            "The same positions valued again under standard's scoring (paired). No cell is "
            "clear enough for a rule of thumb."
        ),
        "The strategy card: oklahoma": (
            "Its own positions (its knock limit differs), valued by the same search. No cell is "
            "clear enough for a rule of thumb."
        ),
        "The fitted line by rule set (a detail)": (
            "The fitted line of each rule set, as above (`knock-fit-by-rules.csv` has the fits, "
            "`knock-line-by-rules.csv` the crossings)."
        ),
        "standard against hollywood, paired": (
            "The gain of knocking under standard less under hollywood, on the same positions "
            f"and worlds, by deadwood, {PER_DECISION} (`knock-difference-*.csv`; take or draw "
            "in `take-difference-*.csv`)."
        ),
        "Check against play": (
            "For each cell, its first positions in deal order, up to the check's size (their "
            "number in brackets beside the search's gain): from the position as it was (the "
            "opponent's real hidden cards; the stock reshuffled, since neither player has seen "
            "it), the headline action and its baseline are forced and alpha and beta play the "
            "hand out, 2 times per position on the same stocks for both actions. The search's "
            "gains use rollout policies and worlds drawn from the player's view, not the real "
            "players and cards; this measures what the advice is worth in the players' own "
            f"play. Every figure is {PER_DECISION}. The test is the paired difference, play "
            "less search position by position: 'flagged' when its 95% interval excludes 0. "
            "'Detectable' is the smallest true difference the check would detect with 80% "
            "power in a two-sided test at 5%, (1.96 + 0.84) times the difference's standard "
            "error: a cell not flagged says only that the difference is probably smaller than "
            "that, not that search and play agree. The whole cell's mean (first column) "
            "differs from the checked positions' by which positions were checked. A searcher "
            "plays each continuation from what it knew at the position (its opponent "
            "posterior, replayed from the deal). The difference is split in two, each tested "
            "alike: the policies (play less the search's own rollout policies and opponent "
            "model playing from the same real cards on the same stocks: a wrong opponent "
            "model shows here) and the worlds (those rollouts less the search: the real "
            "hidden cards against the worlds the search draws from the player's view)."
        ),
        "The search's values against the hands' real outcomes": (
            "For every kind: the search's value of the move the player made, the real points "
            "of those hands, and the gap (real less search, per position), each "
            f"{PER_DECISION} (`played-value-gaps.csv`). The search draws the hidden cards from "
            "the player's view and plays the rest of the hand with its rollout policies (8 "
            "worlds, made up); the hands were played by alpha and beta from the real cards. A "
            "gap that is not 0 says the search's values differ from the real outcomes, through "
            "its policies, its worlds or both. Gains are differences between actions' values "
            "on the same worlds, so a gap shared alike by every action leaves them unchanged; "
            "the check against play above tests the gains themselves."
        ),
        "A distilled strategy": (
            "The changes to expert these tables propose (`gin_sim.experiments.distill`): each "
            "rule set's knock line as its knock schedule (the fit's threshold: the line "
            f"rounded down, within 0 and the knock limit; a band of fewer than {n} positions "
            "keeps the band before it) and the take rule of the take-or-draw cells. The tables "
            "measure what a decision is worth in alpha's play, not in a family member's, so "
            "`gin-sim distill OUT --deals N --seed S --out advised.toml` plays each change "
            "against expert and keeps only those that win there; confirm the result on decks "
            'of another seed (docs/advice.md, "The distilled strategy").'
        ),
    }


def _check_words(report):
    """Each section's text and the setup, word for word (``_section_texts``): the words a
    reader goes by to read the figures (which sign says knock, what is thin, which
    interval, which side of a line knocks), with this study's figures put in. A change of
    wording must change this test too."""
    from gin_sim.reports.advice import PUBLISHED_COMMAND, PUBLISHED_DEALS, PUBLISHED_RUN

    texts = {s.heading: s.text for s in report.sections}
    assert texts.pop("The strategy card: hollywood").startswith("Measured for alpha")
    assert texts == _section_texts()
    assert report.setup == [
        "Positions: 321 deals of alpha against beta under hollywood, seed 7; each decision of "
        "a kind kept with its kind's probability and weighted by its inverse (docs/advice.md).",
        "Size: 321 deals, a small run that shows the method: many cells are thin and the knock "
        "lines' intervals are wide. The project's headline figures come from the published "
        f"run of {PUBLISHED_DEALS:,} deals, {PUBLISHED_RUN}, where every knock cell of deadwood "
        "1 to 10 with 7 or more cards in the stock and every take cell holds at least 100 "
        f"positions; it was made by `{PUBLISHED_COMMAND}` (about two and a half hours on two cores, or on a "
        "Dask cluster with --scheduler).",
        "Evaluation: 8 worlds, made up.",
        "Check against play: 2 continuations per checked position.",
        "Undercut comparison: basic against simple (6 decks, made up).",
        "Estimators: every mean over decisions is weighted by `weight` (Hajek), its interval "
        "clustered by deal; the knock line is a weighted least-squares fit per stock band with "
        f"a {LINE_RESAMPLES:,}-resample bootstrap over deals.",
    ]
