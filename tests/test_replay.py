"""``gin-sim replay``: the story of a deal ends where the kernel's record does."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gin_sim.cli import app
from gin_sim.records import record_to_dict
from gin_sim.reference.rng import deck_for_deal
from gin_sim.rules import load_rules
from gin_sim.simulate import simulate_deals
from gin_sim.strategies import parse_players

runner = CliRunner()


@pytest.mark.parametrize(
    ("rule_set", "players"), [("hollywood", "expert,simple"), ("oklahoma", "gin-hunter,defensive")]
)
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
    from gin_sim.cards import format_cards

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
