"""``gin-sim report advice`` (issue 16, parts 3 and 5): the check against play forces an
action at a stored position and lets the real players play the hand out; the kernel is
the reference engine's play number for number (family players, so the reference's
deterministic play-out applies). The command writes a report with counts and intervals,
resumes, and refuses bad settings in one line."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from typer.testing import CliRunner

from gin_sim.experiments.positions import (
    DEFAULT_KEEP,
    keep_rates,
    load_positions,
    play_headline,
    sample_positions,
)
from gin_sim.game.rng import Stream, bounded, splitmix64
from gin_sim.game.rules import load_rules
from gin_sim.interfaces.cli import app
from gin_sim.kernels.advice import MAX_ACTIONS, evaluation_actions_nb, play_forced_nb
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
                play_forced_nb(
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
    for heading in ("Knock or play on", "The knock line", "Take or draw", "Undercut risk",
                    "Across rule sets", "standard against hollywood, paired", "Check against play"):  # fmt: skip
        assert f"## {heading}" in text
    cells = pd.read_csv(folder / "knock-cells.csv")
    positions = load_positions(folder / "positions")
    assert cells["positions"].sum() == (positions["kind"] == "knock").sum()
    assert {"positions", "mean", "low", "high", "thin"} <= set(cells.columns)
    check = pd.read_csv(folder / "check-against-play.csv")
    assert len(check) == 4 and (check["checked"] <= 3).all()
    assert (folder / "positions" / "manifest.json").exists()
    assert (folder / "positions-oklahoma" / "manifest.json").exists()
    for figure in ("knock-gain-map", "knock-line", "take-gain-map", "knock-line-by-rules"):
        assert (folder / f"{figure}.png").stat().st_size > 1000
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


def test_an_interrupted_advice_report_resumes_from_its_positions(tmp_path, monkeypatch):
    """Interrupted after its datasets, the report keeps them; the same call again reads
    them back (nothing replayed) and writes the tables of an uninterrupted report."""
    import gin_sim.experiments.positions as positions_module
    from gin_sim.reports.build import write_advice

    settings = ("hollywood", ["standard"], ["expert", "expert"], 10, 8, 3, 2, 4)
    write_advice(*settings, tmp_path / "whole")

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(positions_module, "play_headline", interrupted)
    with pytest.raises(KeyboardInterrupt):
        write_advice(*settings, tmp_path / "cut")
    chunks = sorted((tmp_path / "cut" / "positions").glob("positions-*.parquet"))
    assert chunks and not (tmp_path / "cut" / "report.md").exists()
    stamps = [c.stat().st_mtime_ns for c in chunks]
    monkeypatch.undo()
    write_advice(*settings, tmp_path / "cut")
    assert [c.stat().st_mtime_ns for c in chunks] == stamps  # read back, not replayed
    for name in ("knock-cells", "take-cells", "check-against-play", "knock-difference-standard"):
        whole = (tmp_path / "whole" / f"{name}.csv").read_text()
        assert (tmp_path / "cut" / f"{name}.csv").read_text() == whole, name
