"""Game and match equity (issue 17, part 2): the dynamic programme, the model matches,
symmetric players, and ``report equity`` end to end on tiny counts."""

from __future__ import annotations

import subprocess
import sys
from dataclasses import replace

import numpy as np
import pandas as pd
import pytest
from report_checks import check_longer_run
from typer.testing import CliRunner

from gin_sim.experiments import equity
from gin_sim.experiments.equity import (
    DEALERS,
    HandOutcomes,
    game_equity,
    measure_outcomes,
    model_matches,
)
from gin_sim.game.config import ConfigError
from gin_sim.game.match_start import MatchStart, parse_start
from gin_sim.game.rules import load_rules
from gin_sim.interfaces.cli import app
from gin_sim.kernels.equity import game_equity_nb
from gin_sim.players import strategies
from gin_sim.players.strategies import load_strategy, parse_players
from gin_sim.reports.document import render_markdown
from gin_sim.reports.equity import equity_report

runner = CliRunner()


def _outcomes(rules, win_points, prob) -> HandOutcomes:
    """Synthetic outcomes: 20,000 decks whose codes follow ``prob`` [dealer, winner, k]
    exactly in proportion (the rest score nothing)."""
    decks = 20_000
    codes = np.full((decks, 2), -1, np.int64)
    for dealer in (0, 1):
        flat = prob[dealer].ravel()
        counts = np.round(flat * decks).astype(int)
        codes[: counts.sum(), dealer] = np.repeat(np.arange(flat.size), counts)
    return HandOutcomes(rules, parse_players("simple,simple"), np.asarray(win_points), codes)


def test_a_game_to_one_point_is_won_by_the_first_hand_that_scores():
    # target 1: whoever wins a hand wins the game; scoreless hands are dealt again (R5, R18)
    prob = np.array([[[0.3], [0.5]], [[0.45], [0.45]]])  # [dealer][winner][k]
    out = np.empty((1, 1, 2))
    game_equity_nb(1, np.array([5]), prob, out)
    assert out[0, 0, 0] == pytest.approx(0.3 / 0.8) and out[0, 0, 1] == pytest.approx(0.5)


def _symmetric(prob_dealer_wins: float, points: list[int]) -> np.ndarray:
    """A distribution where the dealer and the non-dealer have fixed chances, the same
    for both players: symmetric players."""
    k = len(points)
    prob = np.zeros((2, 2, k))
    for dealer in (0, 1):
        prob[dealer, dealer] = prob_dealer_wins / k
        prob[dealer, 1 - dealer] = (0.98 - prob_dealer_wins) / k
    return prob


def test_symmetric_players_have_complementary_game_equities():
    points = np.array([0, 7, 15, 30, 61])  # 0-point wins too: they only pass the deal
    out = np.empty((100, 100, 2))
    game_equity_nb(100, points, _symmetric(0.45, list(points)), out)
    assert np.allclose(out[:, :, 0] + out[:, :, 1].T, 1.0)  # V(a, b, I deal) = 1 - V(b, a, ...)
    assert out[0, 0, 1] > out[0, 0, 0]  # the non-dealer wins more hands here, so deal second


def test_symmetric_measured_players_give_complementary_tables_and_intervals():
    """The same strategy on both sides of duplicate decks: deck i dealt by each of them
    plays identically, mirrored, so the measured table is exactly complementary."""
    outcomes = measure_outcomes(load_rules("hollywood"), parse_players("basic,basic"), 3000, 5)
    table = game_equity(outcomes, replicates=20, seed=5)
    mine = table[table["dealer"] == "me"].set_index(["me", "opponent"])
    theirs = table[table["dealer"] == "opponent"].set_index(["opponent", "me"])
    theirs.index.names = ["me", "opponent"]
    theirs = theirs.reindex(mine.index)
    assert np.allclose(mine["equity"] + theirs["equity"], 1.0)
    assert np.allclose(mine["low"] + theirs["high"], 1.0)
    assert list(table.columns) == ["me", "opponent", "dealer", "equity", "low", "high"]
    assert ((table["low"] <= table["equity"]) & (table["equity"] <= table["high"])).all()


def test_the_dynamic_programme_agrees_with_model_games():
    """Two independent ways to the same number: exact recursion and games played out
    by the match kernel's crediting under the same distribution."""
    rules = load_rules("hollywood")
    prob = np.zeros((2, 2, 4))
    prob[0, 0] = [0.10, 0.15, 0.10, 0.05]
    prob[0, 1] = [0.0, 0.20, 0.20, 0.18]
    prob[1, 0] = [0.05, 0.25, 0.10, 0.10]
    prob[1, 1] = [0.10, 0.15, 0.15, 0.08]
    outcomes = _outcomes(rules, [0, 10, 25, 60], prob)
    table = game_equity(outcomes, replicates=10).set_index(["me", "opponent", "dealer"])
    for text, dealer, name in (("0:0", 1, "me"), ("70:85", 2, "opponent"), ("95:40", 1, "me")):
        start = parse_start(text, "game", dealer, rules)
        estimate, low, high = model_matches(outcomes, start, 40_000, seed=3, replicates=0).equity()
        exact = table.loc[(start.points[0][0], start.points[1][0], name), "equity"]
        assert abs(estimate - exact) < 0.01 and low <= exact <= high


def test_match_model_from_a_won_game_and_its_interval():
    rules = load_rules("hollywood")
    outcomes = _outcomes(rules, [20], _symmetric(0.45, [20]))
    start_run = model_matches(outcomes, MatchStart(), 20_000, seed=1, replicates=4)
    _, low, high = start_run.equity()
    assert low < 0.5 < high and high - low < 0.06  # symmetric players
    won = model_matches(outcomes, parse_start("100:20,40:20,20:0", rules=rules), 20_000, 1, 4)
    assert won.equity()[1] > 0.6  # a game up
    assert won.net_tally()[0] > start_run.net_tally()[0]


def test_report_equity_end_to_end(tmp_path, monkeypatch):
    monkeypatch.setattr(equity, "STATE_MATCHES", 2_000)
    monkeypatch.setattr(equity, "HEAT_MATCHES", 4_000)
    monkeypatch.setattr(equity, "MODEL_REPLICATES", 3)
    monkeypatch.setattr(equity, "REPLICATE_MATCHES", 500)
    monkeypatch.setattr(equity, "GAME_REPLICATES", 5)
    out = tmp_path / "equity"
    args = ["report", "equity", "--players", "basic,simple", "--deals", "400", "--games", "30",
            "--matches", "20", "--seed", "9", "--quiet", "--out", str(out)]  # fmt: skip
    result = runner.invoke(app, args)
    assert result.exit_code == 0, result.output
    game = pd.read_csv(out / "game-equity.csv")
    assert list(game.columns) == ["me", "opponent", "dealer", "equity", "low", "high"]
    assert len(game) == 100 * 100 * 2 and set(game["dealer"]) == {"me", "opponent"}
    validation = pd.read_csv(out / "game-validation.csv")
    assert len(validation) == len(equity.GAME_CELLS) and (validation["played"] == 30).all()
    report = (out / "report.md").read_text()
    assert "Checked against play" in report and "independent given the dealer" in report
    assert "gin-sim report equity --players basic,simple" in report
    # The joint table beside the model matches: the same hand outcomes, two methods; with
    # 2,000 model matches a state they differ by their sampling error, a few points.
    states = pd.read_csv(out / "match-states.csv")
    gap = (states["joint table"] - states["equity"]).abs()
    assert states["joint table"].notna().all() and gap.max() < 0.05, gap.max()
    assert "**The joint table**" in report
    for figure in ("game-equity", "match-equity-game1", "match-equity-game2-won-game1"):
        assert (out / f"{figure}.png").stat().st_size > 0
    check_longer_run(out)  # its sections, and what a longer run adds with its command
    again = runner.invoke(app, args)  # a finished report is neither played nor rewritten
    assert again.exit_code == 0 and "nothing played or rewritten" in again.output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--players", "expert"], "expected two strategies"),
        (["--games", "1"], "games = 1: allowed 0 (no check) or 2 or more"),
        (["--deals", "1"], "deals = 1"),
    ],
)
@pytest.mark.first_case
def test_bad_equity_options_are_one_line_errors(tmp_path, args, message):
    result = subprocess.run(
        [sys.executable, "-m", "gin_sim", "report", "equity", "--out", str(tmp_path / "e"), *args],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and message in result.stderr
    assert result.stderr.count("\n") == 1 and not (tmp_path / "e").exists()


@pytest.mark.parametrize(
    "text", ["0:0", "9:4,4:0", "12:12,7:9,3:2", "15:6,5:6,0:2", "4:15,4:9,0:3", "16:3,14:0"]
)
@pytest.mark.first_case
def test_the_joint_match_table_equals_the_model_matches_on_a_lattice_of_one_point(text):
    """On a lattice of 1 point the dynamic programme over the three columns
    (``kernels/match_value.py``) makes no approximation: its chance of winning the match
    must equal the Monte Carlo match model's, which credits hands by the match kernel's
    own R19 to R21 (both dealers, phases A, B and C, 0-point wins)."""
    from dataclasses import replace

    from gin_sim.kernels.equity import model_matches_nb
    from gin_sim.kernels.match_value import match_equity_nb, value_vector

    target = 15
    rules = replace(load_rules("hollywood"), game_target=target)
    win_points = np.array([0, 2, 3, 5, 8])
    prob = np.array(
        [[[0.02, 0.1, 0.1, 0.08, 0.1], [0.03, 0.12, 0.08, 0.1, 0.05]],
         [[0.01, 0.05, 0.1, 0.1, 0.05], [0.04, 0.2, 0.1, 0.1, 0.1]]]
    )  # fmt: skip
    game = np.empty((target, target, 2))
    game_equity_nb(target, win_points, prob, game)
    vector = value_vector(target, 1, win_points, prob, game)
    cumulative = np.cumsum(prob.reshape(2, -1), axis=1)
    matches = 40_000
    for dealer in (1, 2):
        start = parse_start(text, "hollywood", dealer, rules)
        score = np.array(
            [start.points[p][g] for p in (0, 1) for g in range(3)]
            + [int(start.boxes[p][g] > 0) for p in (0, 1) for g in range(3)]
        )
        out = np.zeros((matches, 3), np.int64)
        visits = np.zeros((3, 2, 10, 10), np.int64)
        model_matches_nb(
            np.uint64(17), 0, start.to_kernel(), target, False, win_points, cumulative, 2,
            out, visits,
        )  # fmt: skip
        won = (out[:, 0] == 0).mean()
        table = match_equity_nb(vector, score, 0, dealer - 1)
        assert abs(table - won) < 4.5 * np.sqrt(won * (1 - won) / matches) + 1e-9, (table, won)


# ------------------------------------------------ players the model does not describe
CLOSER = 'name = "closer"\nkind = "family"\nclosing_distance = 30\n'


@pytest.mark.parametrize(
    ("players", "reading"),
    [
        ("mc-match,expert", "value = 'match'"),
        ("expert,mc", 'panel_memory = "match"'),
        ("CLOSER,expert", "closing_distance = 30"),
    ],
)
@pytest.mark.first_case
def test_report_equity_refuses_players_that_play_by_the_score(tmp_path, players, reading):
    """A player that knocks by the score, searches for the game or the match, or learns
    from hand to hand breaks the report's model (hands independent given the dealer): a
    one-line refusal that says so, exit 2, before anything is played or written."""
    (tmp_path / "closer.toml").write_text(CLOSER)
    players = players.replace("CLOSER", str(tmp_path / "closer.toml"))
    result = subprocess.run(
        [sys.executable, "-m", "gin_sim", "report", "equity", "--players", players,
         "--deals", "10", "--games", "0", "--matches", "0", "--out", str(tmp_path / "e")],
        capture_output=True, text=True,
    )  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert reading in result.stderr and "independent given the dealer" in result.stderr
    assert result.stderr.count("\n") == 1 and not (tmp_path / "e").exists()
    with pytest.raises(ConfigError, match="plays by the score or by earlier hands"):
        equity.equity_study(load_rules("hollywood"), parse_players(players), 10, 0, 0, 1)


def test_score_readings_name_what_reads_the_score():
    """Players for a hand's points read nothing; each reading is named, a rollout or an
    opponent model that knocks by the score included (through ``for_rules``)."""
    rules = load_rules("hollywood")
    for name in ("simple", "expert", "mc-fast", "mc-fixed", "random"):
        assert load_strategy(name).score_readings(rules) == [], name
    assert load_strategy("expert", ["closing_distance=12"]).score_readings(rules) == [
        "closing_distance = 12"
    ]
    assert load_strategy("mc-match").score_readings(rules) == ["value = 'match'"]
    closer = load_strategy("expert", ["closing_distance=20"])
    real = strategies.load_strategy

    def with_a_closer(name, overrides=None):
        return closer if name == "expert" else real(name, overrides)

    searcher = load_strategy("mc-fast", ["rollout=expert"])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(strategies, "load_strategy", with_a_closer)
        assert searcher.score_readings(rules) == ["rollout 'expert' (closing_distance = 20)"]


def _study_with_checks(agrees):
    """A tiny study whose game check has two cells, agreeing with play as ``agrees`` says."""
    rules = load_rules("hollywood")
    study = equity.equity_study(rules, parse_players("basic,simple"), 200, 0, 0, 3)
    rows = []
    table = study.game.set_index(["me", "opponent", "dealer"])
    for index, (me, opponent, dealer) in enumerate(equity.GAME_CELLS[:2]):
        start = equity.scaled_start(f"{me}:{opponent}", "game", DEALERS.index(dealer) + 1, rules)
        model = table.loc[(start.points[0][0], start.points[1][0], dealer)]
        shift = 0.0 if agrees[index] else 0.3  # far beyond both intervals
        direct = (model["equity"] + shift, model["low"] + shift, model["high"] + shift)
        rows.append(equity._agreement(start, dealer, model, direct, 100))
    return replace(study, game_validation=pd.DataFrame(rows))


@pytest.mark.full
def test_a_check_that_disagrees_with_play_is_the_first_finding(monkeypatch):
    monkeypatch.setattr(equity, "STATE_MATCHES", 500)
    monkeypatch.setattr(equity, "HEAT_MATCHES", 500)
    monkeypatch.setattr(equity, "MODEL_REPLICATES", 2)
    monkeypatch.setattr(equity, "REPLICATE_MATCHES", 100)
    monkeypatch.setattr(equity, "GAME_REPLICATES", 3)
    study = _study_with_checks((True, False))
    (start, dealer), (other_start, other_dealer) = study.game_validation[["start", "dealer"]].values
    words = {"me": "me", "opponent": "the opponent"}
    disagreeing = equity_report(study, "gin-sim report equity")
    assert disagreeing.findings[0].startswith("**The model disagrees with play at 1 of 2")
    assert f"game {other_start} with {words[other_dealer]} to deal" in disagreeing.findings[0]
    assert f"game {start} with {words[dealer]} to deal" not in disagreeing.findings[0]
    assert "+30.0 ±" in disagreeing.findings[0]
    markdown = render_markdown(disagreeing)
    assert markdown.index("The model disagrees with play") < markdown.index("**The deal**")
    agreeing = equity_report(_study_with_checks((True, True)), "gin-sim report equity")
    assert not any("disagrees" in finding for finding in agreeing.findings)
