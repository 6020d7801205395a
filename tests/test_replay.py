"""``gin-sim replay``: the story of a deal ends where the kernel's record does."""

from __future__ import annotations

import json
from dataclasses import replace

import numpy as np
import pytest
from typer.testing import CliRunner

from gin_sim.experiments.simulate import simulate_deals, simulate_matches
from gin_sim.game.match_start import parse_start
from gin_sim.game.records import record_to_dict
from gin_sim.game.rng import deck_for_deal
from gin_sim.game.rules import load_rules
from gin_sim.interfaces.cli import app
from gin_sim.players.strategies import parse_players
from gin_sim.reference.match import match_key, starting_score

runner = CliRunner()


@pytest.mark.parametrize(
    ("rule_set", "players"), [("hollywood", "expert,simple"), ("oklahoma", "gin-hunter,defensive")]
)
@pytest.mark.first_case
def test_replay_ends_with_the_kernels_record(rule_set, players):
    rules = load_rules(rule_set)
    kernel = simulate_deals(rules, parse_players(players), 60, seed=7)
    for deal in range(60):
        result = runner.invoke(
            app,
            [
                "replay",
                "--seed",
                "7",
                "--deal",
                str(deal),
                "--rules",
                rule_set,
                "--players",
                players,
                "--json",
            ],
        )
        assert result.exit_code == 0, result.output
        document = json.loads(result.output)
        assert document["record"] == record_to_dict(kernel[deal])
        text = "\n".join(document["lines"])
        assert "upcard" in text and ("Result:" in text or "draw" in text)


def test_replay_text_shows_the_hand():
    result = runner.invoke(
        app, ["replay", "--seed", "7", "--deal", "42", "--players", "expert,simple"]
    )
    assert result.exit_code == 0
    for words in (
        "Dealer: player 1 (expert)",
        "draws from the stock",
        "discards",
        "Showdown:",
        "(R17)",
    ):
        assert words in result.output


def test_replay_of_an_explicit_deck_with_layoffs():
    from gin_sim.game.cards import format_cards

    deck = deck_for_deal(7, 5)
    text = " ".join(format_cards([c]) for c in deck)
    by_deck = runner.invoke(app, ["replay", "--deck", text, "--dealer", "2", "--json"])
    by_seed = runner.invoke(app, ["replay", "--seed", "7", "--deal", "5", "--json"])
    assert (
        json.loads(by_deck.output)["record"] | {"deal": 5} == json.loads(by_seed.output)["record"]
    )
    # a deal whose showdown has layoffs shows each one
    kernel = simulate_deals(load_rules("hollywood"), parse_players("simple,simple"), 300, seed=3)
    deal = int(next(i for i, r in enumerate(kernel) if r["laid_off_points"] > 0))
    output = runner.invoke(app, ["replay", "--seed", "3", "--deal", str(deal)]).output
    assert "lays off" in output and "(R15)" in output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["replay", "--deal", "3"], "needs --seed and --deal"),
        (["replay", "--deck", "AS 2S"], "a deck needs all 52 cards"),
        (
            ["replay", "--seed", "1", "--deal", "1", "--deck", "AS"],
            "--deck replaces --seed and --deal",
        ),
        (
            ["replay", "--seed", "1", "--deal", "1", "--players", "simple,nope"],
            "unknown strategy 'nope'",
        ),
        (["replay", "--seed", "1", "--deal", "1", "--dealer", "2"], "--dealer goes with --deck"),
        (["replay", "--deck", " ".join(["AS"] * 52), "--dealer", "3"], "--dealer 3"),
    ],
)
def test_bad_replay_input(args, message):
    result = runner.invoke(app, args)
    assert result.exit_code == 2 and message in result.output


@pytest.mark.parametrize(
    ("game_format", "text"), [("game", "95:92"), ("hollywood", "30:95,0:90,0:0")]
)
def test_replay_from_a_score_is_the_first_hand_of_the_kernels_match(game_format, text):
    """``replay --score``: the players read the score (here ``closing_distance``, R12 by the
    score), so the hand is the first hand of the kernel's match from that start (hand h of
    match m is deal h of the match's key, player 1 dealing first: dealer 0 = deal 0 % 2),
    and the score after it is the match's credit (R19, R20)."""
    rules = load_rules("standard")
    param = ["--param1", "closing_distance=20", "--param2", "closing_distance=20"]
    pair = parse_players("expert,expert")
    closers = tuple(replace(p, closing_distance=20) for p in pair)
    start = parse_start(text, game_format, first_dealer=1, rules=rules)
    matches, hands = simulate_matches(rules, closers, 6, seed=5, with_hands=True, start=start)
    first = np.concatenate([[0], np.cumsum(matches["hands"])])[:-1]
    differ = 0
    for match in range(6):
        key = match_key(5, match)
        common = ["replay", "--seed", str(key), "--deal", "0", "--rules", "standard"]
        common += ["--players", "expert,expert", *param, "--json"]
        scored = runner.invoke(app, [*common, "--score", text, "--score-format", game_format])
        assert scored.exit_code == 0, scored.output
        document = json.loads(scored.output)
        assert document["record"] == record_to_dict(hands[first[match]])
        score = starting_score(start, rules.game_target)
        record = document["record"]
        if record["winner"] >= 0:
            score.credit(record["winner"], record["points"])
        assert document["score"]["after"][0].replace("*", "") == (
            f"{score.totals[0][0]}:{score.totals[1][0]}"
        )
        plain = json.loads(runner.invoke(app, common).output)
        differ += plain["record"] != document["record"]
    assert differ > 0  # without the score some hands are played otherwise


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--score", "95:92,10:0"], "expected one column"),
        (["--score", "95-92"], "is not P1:P2"),
        (["--score-format", "hollywood"], "give --score too"),
        (["--score", "1:2", "--score-format", "set"], "--score-format 'set'"),
    ],
)
def test_bad_replay_score(args, message):
    result = runner.invoke(app, ["replay", "--seed", "1", "--deal", "1", *args])
    assert result.exit_code == 2 and message in result.output, result.output
    assert "Traceback" not in result.output
