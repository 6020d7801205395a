"""``gin-sim report advice`` (issue 16, parts 3 and 5; issue 25): the check against play
forces an action at a stored position and lets the real players play the hand out; the
kernel is the reference engine's play number for number (family players, so the
reference's deterministic play-out applies). The command writes a report with counts and
intervals, resumes, and refuses bad settings in one line.

The figures (``gin_sim.experiments.advice``): every mean over decisions is weighted by
``weight`` with its interval clustered by deal; the knock line is where a weighted
least-squares line of the gain on the deadwood crosses 0, with a cluster bootstrap over
deals whose intervals are never degenerate; the check's ``flagged`` and ``detectable``."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from gin_sim.experiments.advice import (
    DETECTABLE_SES,
    LINE_DEADWOOD,
    check_table,
    knock_cells,
    knock_line,
    knock_model,
    knock_positions,
    paired_gain_differences,
    played_value_gaps,
    strong_knocks,
    strong_undercut_rates,
    take_cells,
    take_positions,
)
from gin_sim.experiments.positions import (
    DEFAULT_KEEP,
    keep_rates,
    load_positions,
    play_headline,
    sample_positions,
)
from gin_sim.experiments.summary import Estimate
from gin_sim.game.rng import Stream, bounded, splitmix64
from gin_sim.game.rules import load_rules
from gin_sim.interfaces.cli import app
from gin_sim.kernels.advice import MAX_ACTIONS, evaluation_actions_nb, play_forced_parallel
from gin_sim.kernels.enums import PositionMask, PositionSlot
from gin_sim.players.calibration import load_undercut_table
from gin_sim.players.search_value import NO_TABLES
from gin_sim.players.strategies import load_strategy, strategies_to_kernel
from gin_sim.reference import advice as reference
from gin_sim.reference.search import rollout_value

DEFAULT_RATES = tuple(int(r) for r in keep_rates(DEFAULT_KEEP))
GOLDEN = 0x9E3779B97F4A7C15
MASK64 = (1 << 64) - 1


def _reference_values(situation, masks, state, action, players, key, continuations):
    """docs/advice.md's check against play, in plain Python: the real opponent hand, the
    stock reshuffled from the stream of (key, r), the action applied, the hand played out."""
    player = int(state[PositionSlot.PLAYER])
    opponent_hand = int(masks[PositionMask.HAND + 1 - player])
    first = int(state[PositionSlot.STOCK_POS])
    stock = [int(c) for c in state[PositionSlot.DECK + first : PositionSlot.DECK + 52]]
    values = []
    for r in range(continuations):
        stream = Stream(splitmix64((key + r) & MASK64))
        shuffled = list(stock)
        for i in range(len(shuffled) - 1, 0, -1):
            k = bounded(stream.next(), i + 1)
            shuffled[i], shuffled[k] = shuffled[k], shuffled[i]
        values.append(float(rollout_value(situation, opponent_hand, shuffled, action, players)))
    return values


def test_forced_play_is_the_reference_play():
    rules = load_rules("hollywood")
    players = (load_strategy("expert"), load_strategy("simple"))
    seed, first, deals, continuations = 5, 20, 3, 3
    masks, states, _ = sample_positions(rules, players, seed, first, deals)
    policies = tuple(p.for_rules(rules) for p in players)
    codes = np.full(MAX_ACTIONS, -1, np.int64)
    compared, row = 0, 0
    for i in range(deals):
        seen = set()
        for sampled in reference.sample_deal(seed, first + i, rules, players, DEFAULT_RATES):
            row += 1
            if sampled.kind in seen:  # the first position of each kind (the reference is slow)
                continue
            seen.add(sampled.kind)
            position_masks, position_state = masks[row - 1], states[row - 1]
            n = evaluation_actions_nb(position_masks, position_state, codes)
            twins = reference.evaluation_actions(sampled.situation)
            assert len(twins) == n
            key = 1000 * i + sampled.kind
            values = np.zeros((n, continuations))
            with np.errstate(over="ignore"):
                play_forced_parallel(
                    rules.to_kernel(), strategies_to_kernel(players, rules),
                    load_undercut_table(), NO_TABLES, np.repeat(position_masks[None], n, 0),
                    np.repeat(position_state[None], n, 0), codes[:n].copy(),
                    np.full(n, key, np.uint64), values,
                )  # fmt: skip
            for c in range(n):
                expected = _reference_values(
                    sampled.situation, position_masks, position_state, twins[c], policies, key,
                    continuations,
                )  # fmt: skip
                assert values[c].tolist() == expected
                compared += 1
    assert row == len(masks)
    assert compared > 12


def _report(tmp_path, *extra):
    return CliRunner().invoke(
        app,
        [
            "report", "advice", "--out", str(tmp_path / "advice"), "--players", "expert,expert",
            "--deals", "12", "--samples", "8", "--check-positions", "3", "--continuations", "2",
            "--seed", "3", "--quiet", *extra,
        ],
    )  # fmt: skip


def test_the_advice_report_is_written_resumed_and_refused(tmp_path):
    result = _report(tmp_path, "--compare", "standard,oklahoma")
    assert result.exit_code == 0, result.output
    folder = tmp_path / "advice"
    text = (folder / "report.md").read_text()
    for heading in ("The strategy card: hollywood", "Knock or play on", "The fitted line",
                    "Take or draw", "Undercut risk", "The strategy card: standard",
                    "The strategy card: oklahoma", "standard against hollywood, paired",
                    "Check against play"):  # fmt: skip
        assert f"## {heading}" in text
    # the report opens with its answer and the card, method and tables after
    assert text.index("![card-hollywood](card-hollywood.png)") < text.index("## What was run")
    cards = pd.read_csv(folder / "knock-cells-by-rules.csv")
    assert list(dict.fromkeys(cards["rules"])) == ["hollywood", "standard", "oklahoma"]
    cells = pd.read_csv(folder / "knock-cells.csv")
    positions = load_positions(folder / "positions")
    assert cells["positions"].sum() == (positions["kind"] == "knock").sum()
    assert {"positions", "mean", "low", "high", "thin"} <= set(cells.columns)
    # the card's knock cells by play (issue 47): every knock position played, the hand's
    # band order in the report's grid, play's cells on the hollywood card only
    by_play = pd.read_csv(folder / "knock-cells-by-play.csv")
    assert by_play["positions"].sum() == cells["positions"].sum()
    assert by_play["search_mean"].dropna().tolist() == pytest.approx(
        cells["mean"].dropna().tolist()
    )
    section = text.split("## Knock or play on, by play")[1].split("\n## ")[0]
    assert "| deadwood | 25-31 | 19-24 | 13-18 | 7-12 | 0-6 |" in section
    assert len(list((folder / "knock-play").glob("part-*.parquet"))) >= 1
    assert "The knock cells are valued by expert's own play" in text
    check = pd.read_csv(folder / "check-against-play.csv")
    assert len(check) == 4 and (check["checked"] <= 3).all()
    assert {"flagged", "detectable", "difference_se"} <= set(check.columns)
    assert "within" not in check.columns
    assert check["detectable"].dropna().tolist() == pytest.approx(
        (DETECTABLE_SES * check["difference_se"]).dropna().tolist()
    )
    assert "could have detected a difference of" in text and "gains agree" not in text
    fit = pd.read_csv(folder / "knock-fit.csv")
    assert set(fit["deadwood"]) <= set(LINE_DEADWOOD) and len(fit) % 10 == 0
    line = pd.read_csv(folder / "knock-line.csv")
    assert {"line", "low", "high", "crossing", "threshold", "positions", "deals"} <= set(
        line.columns
    )
    assert (folder / "positions" / "manifest.json").exists()
    assert (folder / "positions-oklahoma" / "manifest.json").exists()
    for figure in ("knock-gain-map", "knock-fit", "take-gain-map", "card-hollywood",
                   "card-standard", "card-oklahoma"):  # fmt: skip
        assert (folder / f"{figure}.png").stat().st_size > 1000
    assert (folder / "card-oklahoma.svg").stat().st_size > 1000
    gaps = pd.read_csv(folder / "played-value-gaps.csv").set_index("kind")
    for kind, rows in positions.groupby(positions["kind"].astype(str)):
        made = [(list(a).index(p), v, h) for a, v, p, h in zip(
            rows["actions"], rows["values"], rows["played"], rows["hand_points"], strict=True
        ) if p in list(a)]  # fmt: skip
        gap = np.mean([h - v[i] for i, v, h in made])
        assert gaps.loc[kind, "positions"] == len(made)
        assert gaps.loc[kind, "gap_mean"] == pytest.approx(gap)
    assert "## A distilled strategy" in text
    assert "## Undercut risk of strong knockers by deadwood and cards in the stock" in text
    grid = pd.read_csv(folder / "undercut-strong-cells.csv")
    assert (
        len(grid) == 55
        and grid["knocks"].sum()
        == pd.read_csv(folder / "undercut-strong-by-deadwood.csv")["knocks"].sum()
    )
    assert (folder / "distill-proposals.csv").exists()
    # The report's tables distil into a strategy file that loads (gin-sim distill).
    distilled = CliRunner().invoke(
        app,
        ["distill", str(folder), "--deals", "50", "--seed", "5", "--out",
         str(tmp_path / "advised.toml"), "--quiet"],
    )  # fmt: skip
    assert distilled.exit_code == 0, distilled.output
    assert load_strategy(tmp_path / "advised.toml").name == "advised"
    again = _report(tmp_path, "--compare", "standard,oklahoma")
    assert again.exit_code == 0 and "already written" in again.output
    other = _report(tmp_path, "--compare", "standard")
    assert other.exit_code == 2 and "error:" in other.output


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--compare", "hollywood"], "compare hollywood: allowed rule sets other than --rules"),
        (["--players", "mc"], "expected two strategies"),
        (["--continuations", "1"], "continuations"),
        (["--samples", "2"], "samples"),
        (["--keep", "knock=0"], "keep knock = 0: allowed"),
        (["--keep", "turn=1"], "unknown kind 'turn'"),
    ],
)
def test_bad_advice_settings_are_one_line_errors(tmp_path, extra, message):
    result = _report(tmp_path, *extra)
    assert result.exit_code == 2
    assert message in result.output and "Traceback" not in result.output
    assert not (tmp_path / "advice").exists()


def test_play_headline_is_paired_and_thread_free():
    """Forcing the same action as headline and baseline gains exactly 0 (the same stocks
    and player streams); any threads give the same gains."""
    from gin_sim.experiments.positions import Evaluation, PositionsConfig, execute
    from gin_sim.players.strategies import parse_players

    rules = load_rules("hollywood")
    config = PositionsConfig(rules, parse_players("expert,expert"), 9, 8, 8, Evaluation(8, 2))
    frame = pd.concat(execute(config), ignore_index=True)
    rows = frame[frame["kind"].isin(["offer", "knock"])].copy()
    pair = config.players
    one = play_headline(rows, rules, pair, 3, 1, threads=1)
    two = play_headline(rows, rules, pair, 3, 1, threads=2)
    pd.testing.assert_frame_equal(one, two)
    same = rows.assign(
        baseline=[
            a[1] if k != "knock" else a[0]
            for k, a in zip(rows["kind"], rows["actions"], strict=True)
        ]
    )
    assert (play_headline(same, rules, pair, 3, 1)["play_gain"] == 0).all()


@pytest.mark.parametrize(
    ("compare", "module", "interrupt", "kept", "tables"),
    [
        # Interrupted after its datasets (before the check plays), it keeps them.
        pytest.param(
            ["standard"], "gin_sim.experiments.positions", "play_headline",
            "positions/positions-*",
            ("knock-cells", "take-cells", "check-against-play", "knock-difference-standard"),
            id="after-its-positions", marks=pytest.mark.full,
        ),
        # Interrupted after the knock positions were played out: knock-play/ is the
        # report's own folder, not a foreign file, so the same call takes the folder back.
        pytest.param(
            [], "gin_sim.reports.build", "knock_sweep", "knock-play/part-*",
            ("knock-cells", "knock-cells-by-play", "check-against-play"),
            id="after-its-knock-play",
        ),
    ],
)  # fmt: skip
def test_an_interrupted_advice_report_resumes(
    tmp_path, monkeypatch, compare, module, interrupt, kept, tables
):
    """Interrupted, the report keeps what it played; the same call again reads it back
    (nothing replayed) and writes the tables of an uninterrupted report."""
    import importlib

    from gin_sim.reports.build import write_advice

    settings = ("hollywood", compare, ["expert", "expert"], 10, 8, 3, 2, 4)
    write_advice(*settings, tmp_path / "whole")

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(importlib.import_module(module), interrupt, interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_advice(*settings, tmp_path / "cut")
    files = sorted((tmp_path / "cut").glob(f"{kept}.parquet"))
    assert files and not (tmp_path / "cut" / "report.md").exists()
    stamps = [f.stat().st_mtime_ns for f in files]
    monkeypatch.undo()
    write_advice(*settings, tmp_path / "cut")
    assert [f.stat().st_mtime_ns for f in files] == stamps  # read back, not replayed
    for name in tables:
        whole = (tmp_path / "whole" / f"{name}.csv").read_text()
        assert (tmp_path / "cut" / f"{name}.csv").read_text() == whole, name


# ------------------------------------------------------------------ the figures
BANDS = ["25-31", "19-24", "13-18", "7-12", "0-6"]


def _synthetic_knocks(truth, deals=400, seed=1, stock_left=(28, 10), spread=5.0):
    """Knock positions of ``deals`` deals, two to four per deal (several decisions of a
    hand kept), each with a weight of 1 to 3 and a gain of ``truth(deadwood)`` plus a
    deal's own offset (rows of a deal are correlated) and noise."""
    rng = np.random.default_rng(seed)
    rows = []
    for deal in range(deals):
        offset = rng.normal(0, 2)
        for decision in range(2 + deal % 3):
            deadwood = int(rng.integers(0, 11))
            rows.append(
                {
                    "deal": deal, "decision": decision, "kind": "knock", "deadwood": deadwood,
                    "knock_limit": 10, "stock_left": stock_left[decision % len(stock_left)],
                    "opp_takes": decision % 2, "weight": float(1 + (deal + decision) % 3),
                    "gain": truth(deadwood) + offset + rng.normal(0, spread),
                }
            )  # fmt: skip
    return knock_positions(pd.DataFrame(rows))


def test_cells_are_means_per_decision_clustered_by_deal():
    """A cell's gain is sum(w * gain) / sum(w) with the interval of the ratio clustered by
    deal: a deal's rows counted twice over change neither the mean nor the interval
    (they are one unit), while treating rows as independent would narrow it."""
    knocks = _synthetic_knocks(lambda d: 4.0 - d)
    cells = knock_cells(knocks)
    assert len(cells) == 5 * 11  # every stock band by every deadwood 0..10
    some = knocks[(knocks["stock_band"] == "25-31") & (knocks["deadwood"] == 3)]
    w = some["weight"].to_numpy()
    cell = cells[(cells["stock_band"] == "25-31") & (cells["deadwood"] == 3)].iloc[0]
    clustered = Estimate.of(w * some["gain"].to_numpy(), w, some["deal"].to_numpy())
    assert cell["mean"] == pytest.approx((w * some["gain"]).sum() / w.sum())
    assert cell["half_width"] == pytest.approx(clustered.half_width)
    assert cell["positions"] == len(some) and cell["decisions"] == pytest.approx(w.sum())
    assert cell["n"] == some["deal"].nunique()
    assert cell["low"] < 1.0 < cell["high"]
    empty = cells[cells["stock_band"] == "19-24"]
    assert (empty["positions"] == 0).all() and empty["mean"].isna().all() and empty["thin"].all()
    doubled = knock_cells(pd.concat([knocks, knocks], ignore_index=True))
    pd.testing.assert_series_equal(doubled["mean"], cells["mean"])
    pd.testing.assert_series_equal(doubled["half_width"], cells["half_width"])
    naive = Estimate.of(np.tile(w * some["gain"].to_numpy(), 2), np.tile(w, 2))
    assert naive.half_width < 0.8 * cell["half_width"]


def test_the_figures_refuse_positions_without_weights():
    knocks = _synthetic_knocks(lambda d: 1.0, deals=5).drop(columns=["weight"])
    with pytest.raises(ValueError, match="no weight column"):
        knock_cells(knocks)


def test_the_knock_line_is_where_the_fitted_gain_crosses_0():
    """Gain 6 - deadwood: the line is near 6, inside its interval, which has width; the fit
    is the truth within its intervals; the threshold is the line rounded down; the same seed
    gives the same table."""
    knocks = _synthetic_knocks(lambda d: 6.0 - d, deals=600)
    line, fit = knock_model(knocks, seed=3)
    assert list(line["stock_band"].astype(str)) == ["25-31", "7-12"]
    for row in line.itertuples():
        assert row.crossing and row.low < row.line < row.high and row.low < 6 < row.high
        assert row.high - row.low > 0.05  # a continuous statistic: never "6 to 6"
        assert row.threshold == int(np.floor(row.line))
        assert row.slope == pytest.approx(-1.0, abs=0.2)
    for row in fit.itertuples():
        assert row.fitted_low < 6.0 - row.deadwood < row.fitted_high
        assert row.residual == pytest.approx(row.cell_mean - row.fitted)
        assert row.residual_low < row.residual < row.residual_high
    assert len(fit) == 2 * len(LINE_DEADWOOD) and (fit["positions"] > 0).all()
    pd.testing.assert_frame_equal(line, knock_line(knocks, seed=3))  # seeded: reproducible
    assert not line["low"].equals(knock_line(knocks, seed=4)["low"])


def test_the_line_does_not_read_gin():
    """Deadwood 0 (gin) is outside the model: a huge gain there moves nothing."""
    knocks = _synthetic_knocks(lambda d: 30.0 if d == 0 else 6.0 - d)
    plain = _synthetic_knocks(lambda d: 6.0 - d)
    pd.testing.assert_frame_equal(knock_line(knocks), knock_line(plain))


def test_a_line_above_10_is_not_clipped_and_a_rising_one_says_knock_above_it():
    line = knock_line(_synthetic_knocks(lambda d: 14.0 - d, deals=600))
    assert (line["line"] > 11).all() and (line["high"] > line["low"]).all()
    assert (line["threshold"] == 10).all() and (line["direction"] == "below").all()
    # gain -3 + 0.5 d: play on for gin below deadwood 6, knock above it
    rising = knock_line(_synthetic_knocks(lambda d: -3.0 + 0.5 * d, deals=600), seed=2)
    assert (rising["direction"] == "above").all() and rising["crossing"].all()
    assert rising["line"].to_numpy() == pytest.approx(6.0, abs=1.0)  # the noise is wide
    assert ((rising["low"] < 6.0) & (rising["high"] > 6.0)).all()
    assert (rising["high"] - rising["low"] > 0.05).all()  # never a point
    # a threshold cannot say "knock only above": the mean gain over 1 to 10 is -0.25 < 0
    assert (rising["threshold"] == 0).all()
    everywhere = knock_line(_synthetic_knocks(lambda d: 2.0 + 0.5 * d, deals=600))
    assert (everywhere["line"] < 1).all() and (everywhere["threshold"] == 10).all()
    losing = knock_line(_synthetic_knocks(lambda d: -4.0 + 0.2 * d, deals=600))
    assert (losing["line"] > 10).all() and (losing["threshold"] == 0).all()


def test_a_resample_whose_line_turns_the_other_way_counts_at_the_end_it_advises():
    """A rising estimate's resample that falls, or is flat, has no crossing of the rising
    kind: if it knocks at mid-range it advises knocking at every deadwood (−∞ for a
    rising line, +∞ for a falling one), else at none."""
    from gin_sim.experiments.advice import _crossing

    a = np.array([-3.0, 1.0, -1.0, 2.0, np.nan])
    b = np.array([0.5, -0.1, -0.1, 0.0, np.nan])  # rises; falls, knocks at 5.5; falls, not
    rising = _crossing(a, b, rising=True)
    assert rising[0] == pytest.approx(6.0) and np.isnan(rising[4])
    assert list(rising[1:4]) == [-np.inf, np.inf, -np.inf]
    falling = _crossing(a, b, rising=False)
    assert falling[1] == pytest.approx(10.0) and falling[2] == pytest.approx(-10.0)
    assert falling[0] == -np.inf  # rises, and at 5.5 it does not knock: knocks nowhere
    assert falling[3] == np.inf  # flat above 0: knocks everywhere


def test_the_report_says_which_side_of_a_line_knocks():
    from types import SimpleNamespace

    from gin_sim.reports.advice import _line_value

    def row(a, b):
        return SimpleNamespace(
            slope=b, intercept=a, crossing=b != 0, line=-a / b if b else np.nan,
            direction="below" if b < 0 else "above" if b > 0 else "", deals=100,
        )  # fmt: skip

    assert _line_value(row(6.0, -1.0)) == "6.0: knock below it"
    assert _line_value(row(-3.0, 0.5)) == "6.0: knock above it, play on for gin below it"
    assert _line_value(row(-6.0, 0.5)) == "above 10: only gin"
    assert _line_value(row(2.0, 0.5)) == "below 0: knock at any deadwood"
    assert _line_value(row(-1.0, -1.0)) == "below 0: only gin"
    assert _line_value(row(1.0, 0.0)).startswith("no crossing")


def test_the_line_bootstrap_draws_deals():
    """A deal's rows counted twice over are one deal still: the cluster bootstrap gives
    the same line and interval (a bootstrap of rows would narrow it)."""
    knocks = _synthetic_knocks(lambda d: 6.0 - d)
    doubled = pd.concat([knocks, knocks], ignore_index=True)
    once, twice = knock_line(knocks, seed=5), knock_line(doubled, seed=5)
    pd.testing.assert_frame_equal(
        once.drop(columns=["positions"]), twice.drop(columns=["positions"]), atol=1e-9
    )


def test_knock_lines_of_a_real_dataset_have_intervals_with_width():
    """On a small real dataset no interval is a point: a band whose fitted gain crosses 0
    has an interval of nonzero width around its line, a band whose gain does not fall
    may have an end at infinity (resamples without a crossing), and every fitted gain has
    an interval of nonzero width."""
    from gin_sim.experiments.positions import Evaluation, PositionsConfig, execute
    from gin_sim.players.strategies import parse_players

    config = PositionsConfig(
        rules=load_rules("hollywood"), players=parse_players("expert,expert"), seed=41,
        deals=200, chunk_size=200, evaluation=Evaluation(8, 2),
    )  # fmt: skip
    frame = pd.concat(execute(config), ignore_index=True)
    knocks = knock_positions(frame)
    line, fit = knock_model(knocks, seed=1)
    by_opponent = knock_line(knocks, ("opponent_took", "stock_band"), seed=1)
    crossings = 0
    for table in (line, by_opponent):
        fitted = table[np.isfinite(table["slope"])]
        assert len(fitted) >= 3 and (fitted["deals"] >= 10).all()
        assert not ((fitted["low"] == fitted["high"]) & np.isfinite(fitted["low"])).any()
        crossing = fitted[fitted["crossing"] & (fitted["direction"] == "below")]
        assert (crossing["low"] < crossing["line"]).all()
        assert (crossing["line"] < crossing["high"]).all()
        crossings += len(crossing)
    assert crossings  # the seed's data have a band whose fitted gain crosses 0
    has_line = fit.merge(line[["stock_band", "slope"]], on="stock_band")["slope"].notna()
    assert has_line.any() and (fit["fitted_low"] < fit["fitted_high"])[has_line.to_numpy()].all()
    assert fit.loc[~has_line.to_numpy(), "fitted"].isna().all()  # a band without a line


def test_rule_sets_are_paired_by_deal_and_decision():
    """Two knock rows of one deal are matched to their own re-evaluation, not to each
    other's; the change is a mean per decision."""
    base = pd.DataFrame(
        {
            "deal": [0, 0, 1], "decision": [5, 9, 4], "kind": "knock", "deadwood": [3, 3, 3],
            "weight": [1.0, 3.0, 1.0], "gain": [1.0, 2.0, 3.0],
        }
    )  # fmt: skip
    other = base.assign(gain=[2.0, 6.0, 3.0]).iloc[::-1]
    cell = paired_gain_differences(base, other, "deadwood", range(11)).set_index("deadwood")
    assert cell.loc[3, "mean"] == pytest.approx((1 * 1 + 3 * 4 + 1 * 0) / 5)
    assert cell.loc[3, "positions"] == 3 and cell.loc[3, "n"] == 2


def test_undercut_rates_and_value_gaps_are_per_decision():
    positions = pd.DataFrame(
        {
            "deal": [0, 1, 2, 3], "kind": "knock", "deadwood": [8, 8, 8, 8],
            "stock_left": [20, 20, 20, 20], "played": ["knock 7H"] * 4,
            "hand_points": [-30, 10, 12, 9], "weight": [3.0, 1.0, 1.0, 1.0],
            "gain": 0.0, "actions": [["knock 7H", "discard 7H"]] * 4,
            "values": [[0.0, 1.0], [10.0, 1.0], [10.0, 1.0], [10.0, 1.0]],
        }
    )  # fmt: skip
    rates = strong_undercut_rates(strong_knocks(positions), "knocker_deadwood")
    assert rates.set_index("knocker_deadwood").loc[8, "rate"] == pytest.approx(3 / 6)
    gaps = played_value_gaps(positions).set_index("kind")
    assert gaps.loc["knock", "positions"] == 4
    assert gaps.loc["knock", "gap_mean"] == pytest.approx((3 * -30 + 0 + 2 - 1) / 6)
    assert gaps.loc["knock", "search_value"] == pytest.approx(30 / 6)


def test_the_check_flags_a_difference_and_says_what_it_could_detect():
    """``flagged``: the paired difference's interval excludes 0; ``detectable``:
    (1.96 + 0.84) standard errors of it, whatever its mean."""
    rng = np.random.default_rng(8)
    n = 400
    positions = pd.DataFrame(
        {
            "deal": np.arange(n) // 2, "decision": np.arange(n) % 2 * 7 + 3,
            "kind": "knock", "deadwood": rng.integers(1, 11, n), "card_melds": False,
            "card_lowers": 0, "weight": rng.choice([1.0, 2.0], n),
            "gain": rng.normal(1.0, 4.0, n),
        }
    )  # fmt: skip
    low = positions["deadwood"] <= 5
    checked = positions.assign(
        cell=np.where(low, "knock, deadwood 1 to 5", "knock, deadwood 6 to 10"),
        play_gain=positions["gain"] + np.where(low, 2.0, 0.0) + rng.normal(0, 3.0, n),
    )
    table = check_table(positions, checked).set_index("cell")
    shifted, same = table.loc["knock, deadwood 1 to 5"], table.loc["knock, deadwood 6 to 10"]
    assert shifted["flagged"] and shifted["difference_low"] > 0
    assert not same["flagged"] and same["difference_low"] < 0 < same["difference_high"]
    for row in (shifted, same):
        assert row["detectable"] == pytest.approx(DETECTABLE_SES * row["difference_se"])
        assert row["detectable"] == pytest.approx(
            row["difference_half_width"] * DETECTABLE_SES / 1.959963984540054
        )
    part = checked[checked["cell"] == "knock, deadwood 6 to 10"]
    w = part["weight"].to_numpy()
    expected = Estimate.of(w * (part["play_gain"] - part["gain"]), w, part["deal"])
    assert same["difference_mean"] == pytest.approx(expected.mean)
    empty = table.loc["take or draw, card completes a meld"]
    assert empty["checked"] == 0 and not empty["flagged"] and np.isnan(empty["detectable"])


def test_take_cells_sort_cards_by_what_they_do():
    from gin_sim.experiments.advice import CARD_DOES
    from gin_sim.experiments.positions import Evaluation, PositionsConfig, execute
    from gin_sim.players.strategies import parse_players

    config = PositionsConfig(
        rules=load_rules("hollywood"), players=parse_players("expert,expert"), seed=7,
        deals=12, chunk_size=12, evaluation=Evaluation(6, 2),
    )  # fmt: skip
    frame = pd.concat(execute(config), ignore_index=True)
    takes = take_positions(frame)
    assert set(takes["kind"]) == {"offer", "draw"}
    melds = takes["card_does"] == CARD_DOES[0]
    assert (takes.loc[melds, "card_melds"]).all()
    lowers = takes.loc[~melds, "card_lowers"]
    big = takes.loc[~melds, "card_does"] == CARD_DOES[1]
    assert (lowers[big] >= 5).all() and (lowers[~big] < 5).all()
    cells = take_cells(takes)
    assert len(cells) == 2 * len(CARD_DOES) and cells["positions"].sum() == len(takes)
    with pytest.raises(ValueError, match="not evaluated"):
        knock_positions(frame.drop(columns=["gain"]))


def test_a_paired_re_evaluation_is_kept_and_read_back_only_for_the_same_rows(tmp_path, monkeypatch):
    """report advice keeps each paired re-evaluation: a rerun reads it back (no second
    evaluation) for the same rows, rule set, depth and seed, and evaluates anew otherwise."""
    import gin_sim.experiments.positions as positions_module
    from gin_sim.experiments.positions import Evaluation
    from gin_sim.game.rules import load_rules
    from gin_sim.reports.build import _paired_evaluation

    calls = []

    def evaluate(rows, rules, evaluation, seed):
        calls.append((len(rows), rules.name, seed))
        return rows.assign(gain=rows["deal"] * 0.5 + seed)

    monkeypatch.setattr(positions_module, "evaluate_frame", evaluate)
    rows = pd.DataFrame({"deal": [3, 3, 5, 8], "decision": [1, 2, 1, 4]}, index=[10, 11, 20, 31])
    standard, evaluation = load_rules("standard"), Evaluation(samples=8, select=2)
    folder = tmp_path / "positions-standard"
    first = _paired_evaluation(rows, standard, evaluation, 7, folder)
    again = _paired_evaluation(rows, standard, evaluation, 7, folder)
    assert calls == [(4, "standard", 7)]  # read back, not evaluated again
    pd.testing.assert_frame_equal(first, again)
    assert list(again.index) == [10, 11, 20, 31]
    _paired_evaluation(rows, standard, evaluation, 8, folder)  # another seed
    _paired_evaluation(rows.iloc[:3], standard, evaluation, 8, folder)  # other rows
    _paired_evaluation(rows, load_rules("hollywood-gin20"), evaluation, 8, folder)
    assert [c[:2] for c in calls[1:]] == [(4, "standard"), (3, "standard"), (4, "hollywood-gin20")]
    (folder / "evaluated.json").write_text("{not json")  # damaged: evaluated again
    _paired_evaluation(rows, standard, evaluation, 7, folder)
    assert len(calls) == 5
