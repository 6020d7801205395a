"""Strategy reports: every report type rendered on a small run (figures, tables and their
rows), a report's tables against a direct pandas computation on the same records, the
default set against the reports' own commands, and the command line."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from report_checks import check_longer_run
from tiers import FULL, size
from typer.testing import CliRunner

from gin_sim import reports
from gin_sim.experiments import equity
from gin_sim.experiments.simulate import head_to_head, head_to_head_matches
from gin_sim.experiments.summary import Z95
from gin_sim.game.rules import load_rules
from gin_sim.interfaces.cli import app
from gin_sim.players.strategies import load_strategy
from gin_sim.reports.build import FAST_STRATEGIES, DefaultSet
from gin_sim.reports.schedule import canonical, describe, grid, schedule_answer
from gin_sim.reports.sweeps import knock_sweep, threshold_variants
from gin_sim.reports.tables import FIGURES, HAND_FIGURES, SLIM_COLUMNS

EQUITY_MODEL = {
    "STATE_MATCHES": 2_000,
    "HEAT_MATCHES": 4_000,
    "MODEL_REPLICATES": 3,
    "REPLICATE_MATCHES": 500,
    "GAME_REPLICATES": 5,
}
SMALL = DefaultSet(
    deals=1_500,
    matches=40,
    seed=3,
    thresholds=(0, 5, 10),
    screening_deals=400,
    confirm_deals=800,
    finalists=3,
    advice_players=("expert", "expert"),
    advice_compare=("standard",),
    advice_deals=20,
    advice_samples=8,
    advice_check_positions=3,
    cards_advised_decks=2_000,
    advice_continuations=2,
    # The equity report (the set's slowest to write) in the full tier only: the fast tier
    # checks it on its own (tests/test_equity.py), and the whole set would take the fixture
    # over 30 s (issue 28).
    equity_rules="hollywood" if FULL else None,
    equity_players=("basic", "simple"),
    equity_deals=400,
    equity_games=30,
    equity_matches=20,
    # The tournament of four strategies in the fast tier (6 pairings, not 28): the same
    # report, tables and figures, about 4 CPU s less.
    tournament_players=FAST_STRATEGIES if FULL else FAST_STRATEGIES[:4],
)
EXPECTED_FIGURES = {
    "knock-hollywood": ["figures-by-threshold", "difference-from-best"],
    "knock-hollywood-gin20": ["figures-by-threshold", "difference-from-best"],
    "undercut-hollywood": ["undercut-heat-map", "undercut-by-deadwood", "undercut-by-stock"],
    "variants": [
        "net-points-by-rules",
        "matches-won-by-rules",
        "difference-from-hollywood",
        "play-by-rules",
    ],
    "schedule-hollywood": ["confirmation", "screening"],
    "tournament": [
        "cross-table-hollywood",
        "cross-table-standard",
        "ranking-hollywood",
        "ranking-standard",
    ],
    "advice-hollywood": [
        "card-hollywood",
        "card-standard",
        "knock-gain-map",
        "knock-fit",
        "take-gain-map",
    ],
    "cards": ["card-hollywood", "card-hollywood-gin20", "card-standard", "card-oklahoma"],
    "equity-hollywood": [
        "game-equity",
        "match-equity-game1",
        "match-equity-game2-won-game1",
        "match-equity-game2-lost-game1",
    ],
}


@pytest.fixture(scope="module")
def default_set(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("reports")
    with pytest.MonkeyPatch.context() as patch:  # the equity model's matches, kept small
        for name, value in EQUITY_MODEL.items():
            patch.setattr(equity, name, value)
        reports.default_set(root, SMALL, PROGRESS.append)
    return root


# The steps the default set reported to its progress bar (``on_run``), in order.
PROGRESS: list[int] = []


@pytest.mark.full
def test_the_default_sets_progress_counts_every_step(default_set):
    """The bar's total (``DefaultSet.runs``) is what the set reports, the advice report's
    dataset chunks included, so it ends full."""
    from gin_sim.reports.build import advice_chunks

    assert sum(PROGRESS) == SMALL.runs()
    without_advice = dataclasses.replace(SMALL, advice_rules=None).runs()
    assert SMALL.runs() == without_advice + 1  # 20 deals: one chunk
    assert advice_chunks("hollywood", SMALL.advice_compare, SMALL.advice_deals) == 1
    assert advice_chunks("hollywood", ("oklahoma", "standard"), 250) == 6


def test_every_report_type_renders_its_figures_and_tables(default_set):
    index = (default_set / "index.md").read_text()
    written = [*SMALL.folders(), "tournament"]  # equity's in the full tier only
    expected = {
        folder: figures for folder, figures in EXPECTED_FIGURES.items() if folder in written
    }
    assert len(expected) == len(written)
    for folder, figures in expected.items():
        directory = default_set / folder
        markdown = (directory / "report.md").read_text()
        assert f"({folder}/report.md)" in index
        # the cards only read the published run's tables: they save none of their own
        sections = ("## What was run", "## Findings", "Reproduce with:")
        for section in sections + (() if folder == "cards" else ("## Data",)):
            assert section in markdown, (folder, section)
        embedded = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", markdown)
        # the answer's figure is shown twice: under the opening and in its own section
        assert sorted(set(embedded)) == sorted(f"{name}.png" for name in figures), folder
        for name in figures:
            png = directory / f"{name}.png"
            assert png.stat().st_size > 1000 and png.read_bytes()[:4] == b"\x89PNG", png
        for csv in directory.glob("*.csv"):
            from_csv = pd.read_csv(csv)
            from_parquet = pd.read_parquet(csv.with_suffix(".parquet"))
            assert len(from_csv) == len(from_parquet) > 0, csv
            assert list(from_csv.columns) == list(from_parquet.columns)


def test_every_report_opens_with_its_answer(default_set):
    """Issue 43: each report.md opens, between its title and "## What was run", with at most
    5 sentences of at most 40 words (then at most its answer's figure), and index.md gives
    each report the first of them."""
    index = (default_set / "index.md").read_text()
    folders = [*SMALL.folders(), "tournament"]
    assert "cards" in folders and "advice-hollywood" in folders
    for folder in folders:
        markdown = (default_set / folder / "report.md").read_text()
        title, _, rest = markdown.partition("\n")
        opening, marker, _ = rest.partition("## What was run")
        assert title.startswith("# ") and marker, folder
        paragraphs = [p for p in opening.strip().split("\n\n") if p]
        assert 1 <= len(paragraphs) <= 2, (folder, paragraphs)
        answer = paragraphs[0]
        if len(paragraphs) == 2:
            assert re.fullmatch(r"!\[[^\]]+\]\([^)]+\.png\)", paragraphs[1]), folder
        sentences = re.split(r"(?<=[.!?])\s+(?=[A-Z`])", answer)
        assert 1 <= len(sentences) <= 5, (folder, sentences)
        for sentence in sentences:
            assert len(sentence.split()) <= 40, (folder, sentence)
        assert f"({folder}/report.md): {sentences[0]}" in index, folder
        # no negative or infinite threshold or deadwood in the opening
        assert "∞" not in answer and not re.search(r"(threshold|deadwood) -", answer), folder


def test_the_schedule_reports_answer_says_the_schedule_once():
    """The schedule report's opening (issue 43) names its schedule once in words: a
    significant gain makes the words the answer, and the next sentence only gives the
    schedule as the tables write it (it once said the same words twice)."""
    rules, opponent = load_rules("hollywood"), load_strategy("simple")
    for significant in (True, False):
        search = SimpleNamespace(
            verification=SimpleNamespace(rules=rules, opponent=opponent, deals=50_000),
            best_schedule=lambda: "20:10,0:0",
            best_single=lambda: "0:10",
            gain=lambda s=significant: {"mean": 0.043, "half_width": 0.036, "significant": s},
        )
        opening = " ".join(schedule_answer(search))
        words = describe("20:10,0:0")
        assert opening.count(words) == 1, opening
        assert "20:10,0:0" in opening and "50,000 fresh decks" in opening
        assert ("change your knock threshold" in opening) == significant, opening


def _rows(folder: Path, name: str) -> pd.DataFrame:
    return pd.read_parquet(folder / f"{name}.parquet")


def test_tables_have_the_expected_rows(default_set):
    thresholds = list(range(11))
    for rules in ("hollywood", "hollywood-gin20"):
        folder = default_set / f"knock-{rules}"
        figures = _rows(folder, "figures")
        assert len(figures) == len(thresholds) * len(FIGURES)
        assert sorted(figures["threshold"].unique()) == thresholds
        assert list(dict.fromkeys(figures["figure"])) == list(FIGURES)
        assert _rows(folder, "differences")["threshold"].tolist() == thresholds

    folder = default_set / "undercut-hollywood"
    cells = _rows(folder, "undercut-cells")
    stocks = cells["stock_left"].unique()
    assert (
        len(cells) == 11 * len(stocks) and sorted(cells["knocker_deadwood"].unique()) == thresholds
    )
    assert _rows(folder, "undercut-by-deadwood")["knocker_deadwood"].tolist() == thresholds
    by_stock = _rows(folder, "undercut-by-stock")
    assert sorted(by_stock["stock_left"]) == sorted(stocks)
    assert by_stock["knocks"].sum() == cells["knocks"].sum()
    assert _rows(folder, "undercut-by-stock-band")["stock_band"].tolist() == [
        "25-31", "19-24", "13-18", "7-12", "0-6",
    ]  # fmt: skip

    folder = default_set / "variants"
    rules = list(SMALL.variant_rules)
    assert len(_rows(folder, "figures")) == len(rules) * len(thresholds) * len(FIGURES)
    assert _rows(folder, "best-thresholds")["rules"].tolist() == rules
    differences = _rows(folder, "differences-from-hollywood")
    assert len(differences) == (len(rules) - 1) * len(thresholds)

    folder = default_set / "schedule-hollywood"
    screened = set(grid(SMALL.phases, SMALL.thresholds)) | {((0, t),) for t in thresholds}
    screening = _rows(folder, "screening")
    assert len(screening) == len(screened) and screening["rank"].tolist() == list(
        range(1, len(screened) + 1)
    )
    confirmed = SMALL.finalists + len(thresholds)
    assert len(_rows(folder, "holdout")) == confirmed * len(HAND_FIGURES)
    assert len(_rows(folder, "holdout-differences")) == confirmed
    # the picked schedule and the reference, again on the third stream
    assert len(_rows(folder, "confirmation")) == 2 * len(HAND_FIGURES)
    assert len(_rows(folder, "confirmation-difference")) == 2


def _direct(hands: pd.DataFrame, matches: pd.DataFrame) -> dict[str, tuple[float, float]]:
    """Player 0's figures straight from the records with pandas: (mean, 95% half-width)."""
    seat = np.where(hands["swapped"], 1, 0)
    won = hands["winner"] == seat
    lost = hands["winner"] == 1 - seat
    knocked = hands["knocker"] == seat
    per_hand = pd.DataFrame(
        {
            "deal": hands["deal"],
            "net points per hand": np.where(won, hands["points"], 0)
            - np.where(lost, hands["points"], 0),
            "hands won": won,
            "knock rate": knocked,
            "gin rate": knocked & hands["gin"],
            "turns per hand": hands["turns"],
        }
    )
    by_deck = per_hand.groupby("deal").mean()  # two hands per deck: the deck is the unit
    out = {
        name: (column.mean(), Z95 * column.std(ddof=1) / np.sqrt(len(column)))
        for name, column in by_deck.items()
    }
    knocks = hands[knocked]
    out["undercut rate (per knock)"] = (knocks["undercut"].mean(), np.nan)
    out["deadwood when knocking"] = (knocks["knocker_deadwood"].mean(), np.nan)
    match_seat = np.where(matches["swapped"], 1, 0)
    won_match = (matches["winner"] == match_seat).groupby(matches["match"]).mean()
    out["matches won"] = (won_match.mean(), Z95 * won_match.std(ddof=1) / np.sqrt(len(won_match)))
    return out


def test_report_tables_equal_a_direct_pandas_computation(tmp_path):
    rules, strategy, opponent = (
        load_rules("hollywood"),
        load_strategy("basic"),
        load_strategy("simple"),
    )
    deals, matches, seed = size(fast=400, full=1_200), size(fast=12, full=30), 11
    sweep = knock_sweep(rules, strategy, opponent, deals, matches, seed)
    reports.knock("hollywood", "basic", "simple", deals, matches, seed, tmp_path / "knock", sweep=sweep)  # fmt: skip
    reports.undercut("hollywood", "basic", "simple", deals, seed, tmp_path / "undercut", sweep=sweep)  # fmt: skip
    table = pd.read_parquet(tmp_path / "knock" / "figures.parquet").set_index(
        ["threshold", "figure"]
    )
    knocks = []
    for threshold, player in sweep.variants.items():
        hands = head_to_head(rules, (player, opponent), deals, seed)
        # the same records as the report's
        pd.testing.assert_frame_equal(hands[SLIM_COLUMNS], sweep.runs[threshold])
        match_records, _ = head_to_head_matches(rules, (player, opponent), matches, seed)
        for figure, (mean, half_width) in _direct(hands, match_records).items():
            row = table.loc[(threshold, figure)]
            assert row["mean"] == pytest.approx(mean, rel=1e-12, abs=1e-12), (threshold, figure)
            if not np.isnan(half_width):
                assert row["half_width"] == pytest.approx(half_width, rel=1e-9), (threshold, figure)
        seat = np.where(hands["swapped"], 1, 0)
        knocks.append(hands[hands["knocker"] == seat])
    # undercut cells: every knock of every threshold, grouped by deadwood and stock left
    pooled = pd.concat(knocks)
    direct = pooled.groupby(["knocker_deadwood", "stock_left"])["undercut"].agg(
        ["size", "sum", "mean"]
    )
    cells = pd.read_csv(tmp_path / "undercut" / "undercut-cells.csv")
    cells = cells[cells["knocks"] > 0].set_index(["knocker_deadwood", "stock_left"])
    assert cells.index.sort_values().equals(direct.index.sort_values())
    cells = cells.loc[direct.index]
    assert (cells["knocks"] == direct["size"]).all() and (cells["undercuts"] == direct["sum"]).all()
    np.testing.assert_allclose(cells["rate"], direct["mean"], rtol=1e-12)
    # Wilson intervals: inside [0, 1] even on cells of a few knocks, around the rate
    assert ((cells["low"] >= 0) & (cells["low"] <= cells["rate"])).all()
    assert ((cells["high"] <= 1) & (cells["high"] >= cells["rate"])).all()
    # the best threshold named in the report is the one with the most net points
    net = table.xs("net points per hand", level="figure")["mean"]
    markdown = (tmp_path / "knock" / "report.md").read_text()
    assert f"under `hollywood`: **{net.idxmax()}**" in markdown


@pytest.mark.full  # two reports written again, about 7 CPU s: the fast tier writes each report by its own
# command in the other tests, and the set and the commands share one writer (reports.build)
def test_the_default_set_equals_each_reports_own_command(default_set, tmp_path):
    """A report of the default set is exactly what its own command writes."""
    s = SMALL
    reports.knock("hollywood-gin20", s.strategy, s.opponent, s.deals, s.matches, s.seed,
                  tmp_path / "knock-hollywood-gin20")  # fmt: skip
    reports.undercut("hollywood", s.strategy, s.opponent, s.deals, s.seed, tmp_path / "undercut-hollywood")  # fmt: skip
    for folder in ("knock-hollywood-gin20", "undercut-hollywood"):
        alone = (tmp_path / folder / "report.md").read_text().replace(str(tmp_path), "ROOT")
        shared = (default_set / folder / "report.md").read_text().replace(str(default_set), "ROOT")
        assert alone == shared
        for csv in (default_set / folder).glob("*.csv"):
            assert csv.read_text() == (tmp_path / folder / csv.name).read_text()


def test_variants_keep_the_swept_knocking_over_adaptations():
    """expert adapts its knocking to undercut bonuses of 20 or more; a sweep must not lose it."""
    expert, standard = load_strategy("expert"), load_rules("standard")
    assert expert.for_rules(standard).knock_schedule  # the adaptation sets a schedule
    variants = threshold_variants(expert, standard)
    assert [v.knock_threshold for v in variants.values()] == list(range(11))
    assert all(v.knock_schedule == () and v.adapt == () for v in variants.values())
    # The rest of the adapted strategy stays (standard has its own weights).
    assert variants[4].safety_weight == expert.for_rules(standard).safety_weight == 2.0


def test_schedule_grid_is_canonical():
    schedules = grid((20, 10), (0, 10))
    assert len(schedules) == 2**3 and ((0, 10),) in schedules and ((20, 10), (0, 0)) in schedules
    assert all(canonical(s) == s for s in schedules)


runner = CliRunner()


def test_cli_writes_a_report_and_the_index(tmp_path):
    out = tmp_path / "reports" / "knock"
    args = ["report", "knock", "--deals", "300", "--matches", "0", "--seed", "2", "--quiet"]
    result = runner.invoke(app, [*args, "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert f"report: {out / 'report.md'}" in result.output
    assert (out / "figures-by-threshold.png").exists()
    assert "(knock/report.md)" in (tmp_path / "reports" / "index.md").read_text()
    figures = pd.read_csv(out / "figures.csv")
    assert "matches won" not in set(figures["figure"])  # --matches 0: no match runs


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["variants", "--rules", "hollywood"], "two or more different rule sets"),
        (["knock", "--deals", "1"], "deals = 1"),
        (["knock", "--rules", "nope"], "unknown rule set 'nope'"),
        (["knock", "--opponent", "nope"], "unknown strategy 'nope'"),
        (["schedule", "--thresholds", "0,11"], "thresholds [0, 11]"),
        (["schedule", "--phases", "10,20"], "must fall strictly"),
        (["schedule", "--phases", "x"], "expected whole numbers"),
        (["schedule", "--thresholds", "4"], "two or more different thresholds"),
        (["knock", "--rules", "tests/data/knock-limit-0.toml"], "two or more variants"),
    ],
)
def test_bad_input_is_one_line_exit_2(tmp_path, args, message):
    result = runner.invoke(app, ["report", *args, "--out", str(tmp_path / "r"), "--quiet"])
    assert result.exit_code == 2, result.output
    assert message in result.output and "Traceback" not in result.output
    assert not (tmp_path / "r").exists()


def _cells_table() -> pd.DataFrame:
    """A small undercut-cells table: rates by deadwood (rows) and stock left (columns)."""
    rows = [
        (1, 20, 5_000, 0.02),
        (1, 10, 200, 0.05),  # exactly the minimum: coloured
        (1, 5, 199, 0.10),
        (2, 20, 5, 0.40),  # a handful of knocks: a firm-looking 40% if coloured
        (2, 10, 0, np.nan),
        (2, 5, 1_000, 0.15),
    ]
    return pd.DataFrame(rows, columns=["knocker_deadwood", "stock_left", "knocks", "rate"])


def test_heat_map_greys_out_cells_with_few_knocks(tmp_path, monkeypatch):
    """Cells below the minimum count are not coloured: grey, hatched, with their count."""
    from gin_sim.reports import figures

    cells = figures.heat_map_cells(
        _cells_table(), "knocker_deadwood", "stock_left", "rate", "knocks", 200,
        descending_columns=True,
    )  # fmt: skip
    style = cells.set_index(["knocker_deadwood", "stock_left"])["style"]
    assert style.to_dict() == {
        (1, 20): "solid", (1, 10): "solid", (1, 5): "thin",
        (2, 20): "thin", (2, 10): "blank", (2, 5): "solid",
    }  # fmt: skip
    assert cells[cells["style"] != "blank"].set_index(["knocker_deadwood", "stock_left"])[
        "value"
    ].loc[(2, 20)] == pytest.approx(40.0)

    drawn = {}
    monkeypatch.setattr(figures, "_save", lambda fig, path: drawn.setdefault("fig", fig))
    figures.heat_map(
        tmp_path / "map.png", _cells_table(), "knocker_deadwood", "stock_left", "rate",
        "knocks", "title", "deadwood", "stock", min_count=200, count_label="knocks",
        descending_columns=True,
    )  # fmt: skip
    ax = drawn["fig"].axes[0]
    coloured = ax.images[0].get_array()
    # columns descending (20, 10, 5), rows ascending (1, 2); only solid cells are coloured
    assert coloured.mask.tolist() == [[False, False, True], [True, True, False]]
    assert coloured[0, 0] == pytest.approx(2.0) and coloured[1, 2] == pytest.approx(15.0)
    texts = sorted(t.get_text() for t in ax.texts)
    assert texts == sorted(["2", "5", "15", "10\n(199)", "40\n(5)"])
    grey = [p for p in ax.patches if p.get_hatch()]
    assert sorted((p.get_x() + 0.5, p.get_y() + 0.5) for p in grey) == [(0.0, 1.0), (2.0, 0.0)]
    assert "fewer than 200 knocks" in ax.get_title()


def test_a_laid_out_figure_is_drawn_once_and_saved_as_the_same_bytes(tmp_path, monkeypatch):
    """figures._save drops the placeholder engine that fig.tight_layout() leaves, so savefig
    does not draw the figure a second time before printing it; the PNG is unchanged."""
    from matplotlib.figure import Figure

    from gin_sim.reports import figures

    table = pd.DataFrame({
        "threshold": [0, 5, 10] * 2, "figure": ["net_points"] * 6,
        "rules": ["standard"] * 3 + ["hollywood"] * 3,
        "mean": [1.0, 2.5, 1.5, 0.5, 1.0, 2.0], "low": [0.5, 2.0, 1.0, 0.0, 0.5, 1.5],
        "high": [1.5, 3.0, 2.0, 1.0, 1.5, 2.5],
    })  # fmt: skip
    draws = []
    draw = Figure.draw
    monkeypatch.setattr(Figure, "draw", lambda self, renderer: draws.append(1) or draw(self, renderer))  # fmt: skip

    def plain(fig, path):  # matplotlib's own savefig, the placeholder kept
        fig.savefig(path, dpi=figures.DPI, metadata=figures.METADATA)

    args = (table, "threshold", ["net_points"])
    figures.lines_with_bands(tmp_path / "once.png", *args, hue="rules")
    once = len(draws)
    monkeypatch.setattr(figures, "_save", plain)
    figures.lines_with_bands(tmp_path / "twice.png", *args, hue="rules")
    assert (once, len(draws) - once) == (1, 2)
    assert (tmp_path / "once.png").read_bytes() == (tmp_path / "twice.png").read_bytes()


def test_undercut_report_says_which_cells_are_thin(default_set):
    from gin_sim.reports.undercut import MIN_CELL_KNOCKS

    folder = default_set / "undercut-hollywood"
    cells = _rows(folder, "undercut-cells")
    with_knocks = cells[cells["knocks"] > 0]
    thin = with_knocks[with_knocks["knocks"] < MIN_CELL_KNOCKS]
    assert MIN_CELL_KNOCKS == 200 and len(thin) > 0  # the small run has few knocks per cell
    markdown = (folder / "report.md").read_text()
    assert (
        f"{len(thin)} of the {len(with_knocks)} cells with knocks have fewer than 200 knocks "
        f"({thin['knocks'].sum():,} knocks in all, from {thin['knocks'].min():,} to "
        f"{thin['knocks'].max():,} per cell)"
    ) in markdown


def test_thin_cells_text():
    from gin_sim.reports.undercut import thin_cells_text

    cells = _cells_table()
    cells = cells.assign(low=cells["rate"] - 0.01, high=cells["rate"] + 0.02)
    text = thin_cells_text(cells)
    assert text.startswith("2 of the 5 cells with knocks have fewer than 200 knocks")
    assert "(204 knocks in all, from 5 to 199 per cell)" in text
    assert (
        "the highest, 40.00% (39.00 to 42.00) at deadwood 2 with 20 cards left, rests on 5 knocks"
        in text
    )
    firm = cells[(cells["knocks"] >= 200) | (cells["knocks"] == 0)]
    assert thin_cells_text(firm) == "Every cell with knocks has at least 200 of them."


@pytest.mark.full
def test_a_report_deleted_from_a_finished_set_is_written_again(default_set, tmp_path):
    """A finished set with one report gone: running the set again writes that report and
    leaves every other file as it was (each finished report keeps its folder)."""
    import shutil

    root = tmp_path / "set"
    shutil.copytree(default_set, root)
    shutil.rmtree(root / "variants")
    kept = {p: p.read_bytes() for p in root.rglob("*") if p.is_file() and "variants" not in p.parts}
    assert reports.build.missing_parts(root, SMALL) == ["variants"]
    with pytest.MonkeyPatch.context() as patch:
        for name, value in EQUITY_MODEL.items():
            patch.setattr(equity, name, value)
        reports.default_set(root, SMALL)
    written = (root / "variants" / "report.md").read_text().replace(str(root), str(default_set))
    assert written == (default_set / "variants" / "report.md").read_text()  # its --out aside
    for path, data in kept.items():
        if path.name not in ("index.md", ".gin-sim.json"):
            assert path.read_bytes() == data, path
    assert reports.build.missing_parts(root, SMALL) == []


def test_every_report_says_what_a_longer_run_adds_with_its_command(default_set):
    """Issue 28: each report says what a run LONGER times as long adds and the exact
    command (report_checks.check_longer_run)."""
    folders = sorted(path.parent for path in default_set.glob("*/report.md"))
    # every kind of report (two knock reports), advice included; equity's in the full
    # tier (the fast tier checks it in tests/test_equity.py); the cards play nothing (they
    # read the published run), so a longer run adds nothing to them
    assert len(folders) == len(SMALL.folders()) + 1 == (9 if FULL else 8)
    for folder in [f for f in folders if f.name != "cards"]:
        check_longer_run(folder)


def test_same_play_names_the_rule_sets_whose_play_figures_are_equal():
    """The variants report says rule sets play alike only when every play figure is equal
    (``same_play``); a points figure may differ, one play figure's last digit may not."""
    from types import SimpleNamespace

    from gin_sim.reports.variants import PLAY_FIGURES, same_play

    def sweep(play, points):
        rows = [
            {"figure": f, "threshold": 10, "mean": m}
            for f, m in zip(PLAY_FIGURES, play, strict=True)
        ]
        rows.append({"figure": "net points per hand", "threshold": 10, "mean": points})
        return SimpleNamespace(figures=pd.DataFrame(rows))

    play = [0.5 + i / 10 for i in range(len(PLAY_FIGURES))]
    nudged = [*play[:-1], play[-1] + 1e-12]
    sweeps = {"a": sweep(play, 0.5), "b": sweep(play, 0.3), "c": sweep(nudged, 0.5)}
    assert same_play(sweeps) == ["a", "b"]
