"""The tuner's figures pinned by hand-computed cases (issue 27, part 1; docs/testing.md):
net points and match wins from hand-made records, the blocks of the tuning decks, a
trial's running value, and the holdout confirmation's paired, Bonferroni-adjusted gains,
with the play replaced by made-up per-deck figures so that every number is known and the
tests take well under a second of play."""

from __future__ import annotations

from statistics import NormalDist

import numpy as np
import pandas as pd
import pytest

import gin_sim.experiments.tuner as tuner
from gin_sim.experiments.holdout import confirmation_seed, holdout_seed
from gin_sim.experiments.summary import Z95
from gin_sim.experiments.tuner import (
    block_values,
    confirm,
    net_by_deck,
    settings_from,
    wins_by_match,
)
from gin_sim.game.rules import load_rules
from gin_sim.players.strategies import load_strategy


def test_net_points_and_match_wins_follow_player_0s_seat_by_hand():
    """Deck 0: player 0 (seat 0) wins 12, then in the replay (seats swapped, it sits in
    seat 1) seat 1 wins 31: +43. Deck 1: seat 1 wins 14 (player 1), then a drawn hand
    (winner -1, points 0): -14. Matches: player 0 wins match 0's first play (seat 0) and
    loses its replay (seat 1 wins, but player 0 is seat 1 there: a win), so 2; loses
    both plays of match 1: 0. Points stored as int16 (the record's type) sum without
    overflow: 200 + 200 in one deck."""
    hands = pd.DataFrame(
        {"deal": [0, 0, 1, 1], "swapped": [False, True, False, True],
         "winner": [0, 1, 1, -1], "points": np.array([12, 31, 14, 0], np.int16)}
    )  # fmt: skip
    assert net_by_deck(hands).tolist() == [43, -14]
    big = hands.assign(points=np.array([200, 200, 14, 0], np.int16), winner=[0, 1, 1, -1])
    assert net_by_deck(big).tolist() == [400, -14]
    # a run without the replay: player 0 is always seat 0
    plain = pd.DataFrame({"deal": [0, 1, 2], "winner": [0, 1, -1], "points": [5, 7, 9]})
    assert net_by_deck(plain).tolist() == [5, -7, 0]
    matches = pd.DataFrame(
        {"match": [0, 0, 1, 1], "swapped": [False, True, False, True], "winner": [0, 1, 1, 0]}
    )
    assert wins_by_match(matches).tolist() == [2, 0]


def _settings(blocks=3, deals=10, opponents=("simple", "defensive")):
    return settings_from(
        load_strategy("basic"), "knock_threshold=0:10",
        [load_strategy(o) for o in opponents], load_rules("hollywood"),
        deals=deals, blocks=blocks, seed=9,
    )  # fmt: skip


def test_the_blocks_split_the_tuning_decks_into_consecutive_near_equal_parts():
    settings = _settings(blocks=3, deals=10)
    ranges = [settings.block_range(b) for b in range(3)]
    assert ranges == [(0, 3), (3, 6), (6, 10)]
    assert settings.units == 10


def _made_up(strategy, opponent, count, stream, first):
    """Per-deck net points of ``strategy`` (by its knock threshold) against ``opponent`` on
    decks ``first`` to ``first + count - 1`` of ``stream``: a figure known in advance."""
    decks = np.arange(first, first + count)
    threshold = 1 if strategy.knock_threshold is None else strategy.knock_threshold  # the start
    offset = {"simple": 0, "defensive": 3}[opponent.name]
    wobble = (decks * 7 + stream % 11 + offset) % 5 - 2  # the same for every strategy
    if threshold == 5:  # as good as the start on average, better or worse deck by deck
        return 3 + offset + wobble + ((decks % 2) * 2 - 1) * 6
    return threshold * 2 + offset + wobble + (decks % 3) * threshold


def test_a_trials_value_after_each_block_is_the_mean_per_hand_of_the_decks_so_far(monkeypatch):
    """Blocks of 3, 3 and 4 decks; after each block the value is the mean over the two
    opponents of the net points over the decks played so far, per hand (two per deck)."""
    settings = _settings(blocks=3, deals=10)
    monkeypatch.setattr(
        tuner, "play_units",
        lambda rules, s, o, objective, count, seed, first: _made_up(s, o, count, seed, first),
    )  # fmt: skip
    strategy = settings.candidate({"knock_threshold": 4})
    got = list(block_values(settings, strategy))
    for stop, value in zip((3, 6, 10), got, strict=True):
        per_opponent = [_made_up(strategy, o, stop, 9, 0).sum() for o in settings.opponents]
        assert value == pytest.approx(np.mean(per_opponent) / (2 * stop), abs=1e-12)
    assert len(got) == 3


def test_the_confirmation_pairs_gains_by_deck_and_widens_them_for_every_candidate(monkeypatch):
    """Three candidates (thresholds 2, 7, 5) against the start (basic's own threshold, 1
    in the made-up figures) on made-up holdout decks: each gain is the mean per hand of
    the per-deck difference (the opponents weighted equally), its half width the paired
    one widened by the normal quantile ratio for 3 comparisons; the best holdout figure
    wins (7), and its final gain is paired on the third stream, not widened."""
    settings = _settings(deals=20, blocks=2)
    count = 30
    monkeypatch.setattr(
        tuner, "play_units",
        lambda rules, s, o, objective, n, seed, first: _made_up(s, o, n, seed, first),
    )  # fmt: skip
    candidates = [(4, {"knock_threshold": 2}, 1.0), (8, {"knock_threshold": 7}, 0.5)]
    candidates.append((11, {"knock_threshold": 5}, 0.2))
    result = confirm(settings, candidates, count)
    start_strategy = settings.strategy.for_rules(settings.rules)
    holdout, final = holdout_seed(9), confirmation_seed(9)
    assert (result.seed, result.final_seed, result.count) == (holdout, final, count)

    def pooled(strategy, stream):
        return np.mean([_made_up(strategy, o, count, stream, 0) for o in settings.opponents], 0)

    factor = NormalDist().inv_cdf(1 - 0.05 / (2 * 3)) / Z95
    start = pooled(start_strategy, holdout)
    assert result.start.mean == pytest.approx(start.mean() / 2)
    table = result.candidates.set_index("trial")
    assert list(result.candidates["trial"]) == [8, 4, 11]  # best holdout figure first
    # threshold 5 gains nothing on average (+6 and -6 on alternate decks): not significant
    assert table["significant"].to_dict() == {8: True, 4: True, 11: False}
    for trial, values, tuning_value in candidates:
        units = pooled(settings.candidate(values), holdout)
        difference = (units - start) / 2  # per hand
        half = Z95 * difference.std(ddof=1) / np.sqrt(count) * factor
        row = table.loc[trial]
        assert row["tuning_value"] == tuning_value
        assert row["holdout"] == pytest.approx(units.mean() / 2, abs=1e-12)
        assert row["holdout_half_width"] == pytest.approx(
            Z95 * (units / 2).std(ddof=1) / np.sqrt(count)
        )
        assert row["gain"] == pytest.approx(difference.mean(), abs=1e-12)
        assert row["gain_half_width"] == pytest.approx(half, rel=1e-9)
        assert row["gain_low"] == pytest.approx(difference.mean() - half)
        assert row["gain_high"] == pytest.approx(difference.mean() + half)
        assert row["significant"] == (abs(difference.mean()) > half)
        assert row["n"] == count and row["knock_threshold"] == values["knock_threshold"]
        assert not row["same_as_start"]
    assert result.winner == settings.candidate({"knock_threshold": 7})
    assert result.winner_parameters == {"knock_threshold": 7}
    winner_final, start_final = pooled(result.winner, final), pooled(start_strategy, final)
    assert result.final_start.mean == pytest.approx(start_final.mean() / 2)
    assert result.final_winner.mean == pytest.approx(winner_final.mean() / 2)
    difference = (winner_final - start_final) / 2
    assert result.final_gain.mean == pytest.approx(difference.mean(), abs=1e-12)
    assert result.final_gain.half_width == pytest.approx(
        Z95 * difference.std(ddof=1) / np.sqrt(count), rel=1e-9
    )
    # the paired difference is far narrower than the two figures' intervals would say
    assert result.final_gain.half_width < result.final_winner.half_width
