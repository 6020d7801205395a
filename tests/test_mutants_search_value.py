"""A score-aware searcher's tables pinned by properties (issue 27, part 1; docs/testing.md):
the hand outcome distribution equals an independent count of the same deals, and each seat
reads its own table."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from gin_sim.experiments.simulate import simulate_deals
from gin_sim.game.config import ConfigError
from gin_sim.game.limits import MAX_SCORE_TABLE_TARGET
from gin_sim.game.rules import load_rules
from gin_sim.kernels.equity import game_equity_nb
from gin_sim.kernels.match_value import value_vector
from gin_sim.players.search_value import (
    NO_TABLES,
    VALUE_DEALS,
    VALUE_SEED,
    equity_tables,
    game_table,
    hand_outcome_probabilities,
    lattice_step,
    searcher_table,
    value_table,
)
from gin_sim.players.strategies import load_strategy

STANDARD = load_rules("standard")


def test_the_lattice_step_gives_about_twenty_points_per_column():
    assert [lattice_step(t) for t in (1, 19, 20, 21, 100, 250, 1000)] == [1, 1, 1, 2, 5, 13, 50]


def test_hand_outcomes_are_the_deals_counted_by_dealer_and_winner():
    """An independent count over the same deals played by ``simulate_deals`` (player 0
    ``expert``, player 1 ``simple``): the share of each dealer's hands that each player wins
    with each number of points."""
    win_points, prob = hand_outcome_probabilities(STANDARD, "expert", "simple")
    records = simulate_deals(
        STANDARD, (load_strategy("expert"), load_strategy("simple")), VALUE_DEALS, VALUE_SEED
    )
    scored = records[records["winner"] >= 0]
    assert win_points.tolist() == sorted(set(scored["points"].tolist()))
    # the kernels' argument types: int64[K] and float64[dealer, winner, K]
    assert win_points.dtype == np.int64 and prob.shape == (2, 2, len(win_points))
    for dealer in (0, 1):
        hands = (records["dealer"] == dealer).sum()
        for winner in (0, 1):
            mine = scored[(scored["dealer"] == dealer) & (scored["winner"] == winner)]
            for k, points in enumerate(win_points):
                expected = (mine["points"] == points).sum() / hands
                assert prob[dealer, winner, k] == pytest.approx(expected, abs=1e-15)
    assert prob.sum(axis=(1, 2)) == pytest.approx(
        (records["winner"] >= 0).sum() / VALUE_DEALS, abs=0.01
    )


def test_the_game_table_is_the_dynamic_programme_of_those_outcomes():
    table = game_table(STANDARD, "expert", "simple")
    win_points, prob = hand_outcome_probabilities(STANDARD, "expert", "simple")
    expected = np.empty_like(table)
    game_equity_nb(STANDARD.game_target, win_points, prob, expected)
    assert np.array_equal(table, expected) and not table.flags.writeable
    assert table[0, 0, 0] > 0.5  # the stronger player is favoured from 0:0


def test_each_seat_reads_its_own_value_table():
    """A game searcher in seat 1 only: row 1 holds its table, row 0 zeros; no searcher: the
    kernels' empty argument; a hand searcher reads nothing."""
    hand_searcher = load_strategy("mc-fixed")
    assert hand_searcher.value == "hand"
    game_searcher = replace(hand_searcher, value="game", name="mc-game")
    simple = load_strategy("simple")
    assert searcher_table(simple, STANDARD) is None
    assert searcher_table(hand_searcher, STANDARD) is None
    own = searcher_table(game_searcher, STANDARD)
    expected = value_table(STANDARD, game_searcher.rollout, game_searcher.opponent_model, False)
    assert np.array_equal(own, expected, equal_nan=True)
    tables = equity_tables((simple, game_searcher), STANDARD)
    assert tables.shape == (2, own.size)
    assert not tables[0].any() and np.array_equal(tables[1], own, equal_nan=True)
    assert equity_tables((simple, simple), STANDARD) is NO_TABLES


def test_a_match_searchers_table_holds_the_game_table_and_the_match_lattice():
    """``value = "match"``: the value vector of the game table and the hand outcomes on
    the lattice of ``lattice_step`` points (an independent call of ``value_vector``); beside
    a game searcher, whose shorter vector is padded with zeros, each seat reads its own."""
    match = load_strategy("mc-match")
    assert match.value == "match"
    win_points, prob = hand_outcome_probabilities(STANDARD, match.rollout, match.opponent_model)
    game = game_table(STANDARD, match.rollout, match.opponent_model)
    expected = value_vector(STANDARD.game_target, lattice_step(100), win_points, prob, game)
    own = value_table(STANDARD, match.rollout, match.opponent_model, True)
    assert np.array_equal(own, expected, equal_nan=True) and not own.flags.writeable
    game_only = value_table(STANDARD, match.rollout, match.opponent_model, False)
    assert game_only.size < own.size
    tables = equity_tables((match, replace(match, value="game", name="mc-game")), STANDARD)
    assert tables.shape == (2, own.size)
    assert np.array_equal(tables[0], own, equal_nan=True)
    assert np.array_equal(tables[1, : game_only.size], game_only, equal_nan=True)
    assert not tables[1, game_only.size :].any()


def test_a_game_table_too_large_to_hold_is_refused():
    rules = replace(STANDARD, game_target=MAX_SCORE_TABLE_TARGET + 1)
    message = (
        rf"^game_target = {MAX_SCORE_TABLE_TARGET + 1:,} of rules 'standard': a game table has a "
        rf"row per score pair: allowed targets up to {MAX_SCORE_TABLE_TARGET:,}$"
    )
    with pytest.raises(ConfigError, match=message):
        game_table(rules, "simple", "simple")
    assert game_table(STANDARD, "simple", "simple") is game_table(STANDARD, "simple", "simple")
