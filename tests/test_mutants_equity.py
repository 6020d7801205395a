"""Equity figures pinned by properties, not by today's output (issue 27, part 1; docs/testing.md).

Each test states a property that a plausible wrong change breaks: the hand outcomes read
from seats whose players are known by construction (who won, who dealt); the match model's
interval holds the uncertainty of the measured decks, not only the Monte Carlo error.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from gin_sim.experiments.equity import (
    Z95,
    HandOutcomes,
    measure_outcomes,
    model_interval,
    model_matches,
)
from gin_sim.experiments.simulate import simulate_deals
from gin_sim.game.match_start import MatchStart
from gin_sim.game.rules import load_rules
from gin_sim.players.strategies import parse_players

RULES = load_rules("hollywood")


def _decode(outcomes: HandOutcomes, code: int) -> tuple[int, int]:
    """(winner, points) of an outcome code; (-1, 0) for a hand that scores nothing."""
    if code < 0:
        return -1, 0
    size = len(outcomes.win_points)
    return code // size, int(outcomes.win_points[code % size])


def test_outcomes_name_the_winner_and_the_dealer_by_player_not_by_seat():
    """Deck i played by ``simulate_deals`` with ``players`` in their order has player 1
    ("me") in seat 0; played with the order reversed, in seat 1. Each hand must land in the
    row of its deck under the dealer who dealt it, with the winner who won it: read here
    from the seats, independently of ``measure_outcomes``'s own bookkeeping."""
    players = parse_players("expert,simple")
    deals, seed = 300, 12
    outcomes = measure_outcomes(RULES, players, deals, seed)
    straight = simulate_deals(RULES, players, deals, seed)
    reverse = simulate_deals(RULES, (players[1], players[0]), deals, seed)
    for records, me_seat in ((straight, 0), (reverse, 1)):
        for record in records:
            dealer = 0 if record["dealer"] == me_seat else 1  # 0: "me" dealt
            expected_winner = (
                -1 if record["winner"] < 0 else (0 if record["winner"] == me_seat else 1)
            )
            winner, points = _decode(outcomes, outcomes.codes[record["deal"], dealer])
            assert winner == expected_winner
            if winner >= 0:
                assert points == record["points"]


def test_the_stronger_player_wins_more_hands_with_either_dealer():
    """A known answer: ``expert`` as player 1 against ``random`` (uniformly random legal
    choices) wins most hands whoever deals, and the table says so for "me"; with the order
    reversed it says so for the opponent."""
    strong_first = measure_outcomes(RULES, parse_players("expert,random"), 400, 3).summary()
    strong_second = measure_outcomes(RULES, parse_players("random,expert"), 400, 3).summary()
    assert (strong_first["me wins"] > 0.8).all() and (strong_first["opponent wins"] < 0.2).all()
    assert (strong_second["opponent wins"] > 0.8).all() and (strong_second["me wins"] < 0.2).all()


def test_a_deck_played_with_each_dealer_is_one_hand_per_dealer_column():
    """The same strategy in both seats of a duplicate deck plays the deck identically,
    mirrored: the hand "me" deals is the hand the opponent deals with the winner swapped.
    So with symmetric players the dealer columns are mirror images, deck by deck."""
    outcomes = measure_outcomes(RULES, parse_players("basic,basic"), 300, 9)
    size = len(outcomes.win_points)
    for deck in range(outcomes.decks):
        mine, theirs = outcomes.codes[deck]
        if mine < 0:
            assert theirs == mine
        else:
            assert theirs == (1 - mine // size) * size + mine % size


def test_the_model_interval_adds_the_deck_spread_to_the_monte_carlo_variance():
    """A hand-computed case: the replicates 0.4, 0.6, 0.5 have sample variance 0.01; with a
    Monte Carlo variance of 0.0044 the half width is 1.96 * sqrt(0.0144) = 1.96 * 0.12."""
    estimate, low, high = model_interval(np.array([0.55, 0.4, 0.6, 0.5]), 0.0044)
    assert estimate == 0.55
    assert high - estimate == pytest.approx(Z95 * 0.12)
    assert estimate - low == pytest.approx(Z95 * 0.12)
    # no replicates to spread: the Monte Carlo error alone
    assert model_interval(np.array([0.3]), 0.0025)[2] == pytest.approx(0.3 + Z95 * 0.05)


def test_few_measured_decks_widen_the_match_interval_beyond_monte_carlo():
    """Outcomes measured on 40 decks say little about the true hand distribution: resampling
    the decks moves the match equity by far more than the Monte Carlo error of 20,000
    matches, and the interval must hold that spread (an independent computation from the
    run's own replicates)."""
    outcomes = measure_outcomes(RULES, parse_players("expert,simple"), 40, 21)
    run = model_matches(outcomes, MatchStart(), 20_000, seed=4, replicates=12)
    p, low, high = run.equity()
    monte_carlo = p * (1 - p) / run.matches
    spread = float(np.var(run.won[1:], ddof=1))
    assert spread > 10 * monte_carlo  # the decks' uncertainty dominates here
    assert (high - low) / 2 == pytest.approx(Z95 * math.sqrt(monte_carlo + spread))
    assert low < p < high
