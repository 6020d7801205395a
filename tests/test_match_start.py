"""Matches and plain games from any score state (issue 17, part 1; R17 to R23)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
from typer.testing import CliRunner

from gin_sim.experiments.runs import RunConfig
from gin_sim.experiments.simulate import head_to_head_matches, simulate_matches
from gin_sim.game.config import ConfigError
from gin_sim.game.match_start import MatchStart, parse_start
from gin_sim.game.records import MATCH_FIELDS
from gin_sim.game.rules import load_rules
from gin_sim.interfaces.cli import app
from gin_sim.players.strategies import parse_players
from gin_sim.reference.match import play_match_reference

runner = CliRunner()


def test_columns_give_entries_ended_games_and_fewest_hands():
    start = parse_start("120:40,60:0,20:0", "hollywood", first_dealer=1)
    assert start.ended(0, 100) == 0 and start.ended(1, 100) == -1  # R20
    # game 1 has ended, so game 2 need not be behind it; games 2 and 3 are open (R19)
    assert start.boxes == ((1, 2, 1), (1, 0, 0)) and start.first_dealer == 0
    # a win can score 0 only where a gin bonus of 0 meets a defender with no deadwood (R17)
    no_bonus = load_rules("hollywood", ["gin_bonus=0"])
    assert parse_start("0/1:0", "game", rules=no_bonus).boxes == ((1, 0, 0), (0, 0, 0))
    with pytest.raises(ConfigError, match="every hand scores at least 1"):
        parse_start("0/1:0", "game")
    swapped = parse_start("80:40", "game", first_dealer=2).swapped()
    assert swapped.points == ((40, 0, 0), (80, 0, 0)) and swapped.first_dealer == 0


@pytest.mark.parametrize(
    ("text", "game_format", "message"),
    [
        ("100:40", "game", "at or above the target 100: the game would be over (R20)"),
        ("99:100", "game", "player 2 has 100 in the game"),
        ("80:40,1:1", "game", "expected one column"),
        ("80:40:3", "hollywood", "is not P1:P2"),
        ("80:x", "game", "is not P1:P2"),
        ("100:120", "hollywood", "both players have 100 or more in game 1"),
        ("50:60,100:0", "hollywood", "game 2 has ended but game 1 is open"),
        ("0:10,20:0", "hollywood", "entered game 2 but not game 1, which is open"),
        ("40:10,40:0", "hollywood", "while game 1 is open it gets every hand of game 2"),
        ("40/1:10,30/1:0", "hollywood", "while game 1 is open"),
        ("120:40,100:20,100:0", "hollywood", "all three games have ended"),
        ("5/6:0", "game", "5 points in 6 hands"),
        ("5/0:0", "game", "5 points in 0 hands"),
        ("400:0", "hollywood", "allowed 0 to 222"),
    ],
)
def test_states_no_match_can_reach_are_refused(text, game_format, message):
    with pytest.raises(ConfigError, match="--start") as error:
        parse_start(text, game_format)
    assert message in str(error.value)


def test_a_zero_start_with_the_drawn_dealer_plays_the_same_matches():
    """The decks depend only on (seed, match): a start state changes nothing else."""
    rules, pair = load_rules("hollywood"), parse_players("simple,basic")
    plain, _ = simulate_matches(rules, pair, 60, seed=4)
    for dealer in (0, 1):
        fixed, _ = simulate_matches(rules, pair, 60, seed=4, start=MatchStart(first_dealer=dealer))
        same = plain["first_dealer"] == dealer
        assert np.array_equal(plain[same], fixed[same]) and same.any()


STATES = [
    ("game", "80:40", 2, "hollywood", []),
    ("game", "95:0", None, "standard", ["hollywood_bonuses=true"]),
    ("hollywood", "60:75/2,30:20,5:0", None, "hollywood", []),
    ("hollywood", "120:40,60:0,20:0", 1, "standard", ["hollywood_bonuses=true"]),
    ("hollywood", "0:160,30:20,0/1:0", 2, "hollywood", ["game_target=150", "gin_bonus=0"]),
]


@pytest.mark.parametrize(("game_format", "text", "dealer", "rule_set", "overrides"), STATES)
@pytest.mark.first_case
def test_kernel_equals_reference_from_a_state(game_format, text, dealer, rule_set, overrides):
    rules = load_rules(rule_set, overrides)
    start = parse_start(text, game_format, dealer, rules)
    kernel, _ = simulate_matches(rules, parse_players("expert,simple"), 12, seed=21, start=start)
    for m in range(12):
        reference = play_match_reference(21, m, rules, ("expert", "simple"), start=start)
        got = {f: int(kernel[m][f]) for f in MATCH_FIELDS}
        assert got == reference, {f: (got[f], reference[f]) for f in got if got[f] != reference[f]}
        assert got["winner"] >= 0
        if game_format == "game":  # a plain game: game 1 decides, the other columns stay 0
            assert got["winner"] == got["game1_winner"] and got["game2_winner"] == -1
            assert got["points0_game2"] == got["points1_game3"] == 0
        else:  # R21
            assert max(got["games_won0"], got["games_won1"]) >= 2
        for g, (p1, p2) in enumerate(zip(*start.points, strict=True), start=1):
            assert got[f"points0_game{g}"] >= p1 and got[f"points1_game{g}"] >= p2


def test_duplicate_replay_keeps_each_score_with_its_player():
    rules = load_rules("hollywood")
    start = parse_start("80:40", "game", rules=rules)
    df, _ = head_to_head_matches(rules, parse_players("expert,simple"), 30, 8, start=start)
    straight, swapped = df[~df["swapped"]], df[df["swapped"]]
    # at the end every player has at least their start; expert is player 0, then seat 1
    assert (straight["points0_game1"] >= 80).all() and (straight["points1_game1"] >= 40).all()
    assert (swapped["points1_game1"] >= 80).all() and (swapped["points0_game1"] >= 40).all()


def test_run_manifests_keep_their_identity_and_carry_the_start():
    rules = load_rules("hollywood")
    pair = parse_players("simple,simple")
    plain = RunConfig("matches", rules, pair, 1, 10, True, 10)
    assert "start" not in plain.to_json()  # older runs' identities are unchanged
    start = parse_start("80:40", "game", 2, rules)
    config = RunConfig("matches", rules, pair, 1, 10, False, 10, start=start)
    assert RunConfig.from_json(config.to_json(), "manifest") == config
    with pytest.raises(ConfigError, match="matches runs only"):
        RunConfig("hands", rules, pair, 1, 10, True, 10, start=start)


def test_match_cli_plays_games_from_a_state():
    result = runner.invoke(
        app,
        ["match", "--format", "game", "--start", "80:40", "--first-dealer", "2",
         "--players", "expert,simple", "--matches", "200", "--seed", "3", "--json"],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert document["duplicate"] is False and document["start"]["first_dealer"] == 1
    won = [document["players"][p]["game 1 won"]["mean"] for p in (0, 1)]
    assert won[0] + won[1] == pytest.approx(1.0) and won[0] > 0.6  # 80:40 and the better player
    assert document["players"][0]["matches won"]["mean"] == won[0]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--format", "game", "--start", "100:40"], "the game would be over (R20)"),
        (["--start", "0:10,20:0"], "a player enters the games in order (R19)"),
        (["--first-dealer", "1", "--duplicate"], "--duplicate with --first-dealer"),
        (["--first-dealer", "3"], "--first-dealer 3: allowed 1 or 2"),
    ],
)
@pytest.mark.first_case
def test_bad_states_are_one_line_errors(args, message):
    result = subprocess.run(
        [sys.executable, "-m", "gin_sim", "match", "--matches", "10", *args],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and result.stderr.startswith("error: ")
    assert message in result.stderr and result.stderr.count("\n") == 1
