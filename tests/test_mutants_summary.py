"""Summary figures pinned by hand-computed cases (issue 27, part 1; docs/testing.md): the
ratio estimator and its variance, and a player's figures from a duplicate pair of decks."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from gin_sim.experiments.summary import (
    Z95,
    Estimate,
    Moments,
    estimate_row,
    player_summary,
    rate_interval,
    rate_row,
    seat_of,
    wilson_interval,
)


def test_a_ratio_of_sums_with_its_delta_method_variance_by_hand():
    """Units (num, den) = (2, 1), (1, 2), (6, 3): ratio 9 / 6 = 1.5; residuals
    num - 1.5 den = 0.5, -2, 1.5, squares 6.5; variance 3/2 * 6.5 / 36."""
    estimate = Estimate.of([2.0, 1.0, 6.0], [1.0, 2.0, 3.0])
    variance = 1.5 * 6.5 / 36
    assert estimate.mean == 1.5 and estimate.n == 3
    assert estimate.variance == pytest.approx(variance)
    assert estimate.half_width == pytest.approx(Z95 * math.sqrt(variance))
    # the same units split into rows and grouped give the same estimate
    grouped = Estimate.of([2.0, 0.5, 0.5, 6.0], [1.0, 1.0, 1.0, 3.0], groups=[7, 3, 3, 9])
    assert grouped.mean == 1.5
    assert grouped.variance == pytest.approx(variance) and grouped.n == 3
    # moments add up chunk by chunk
    total = Moments.of([2.0, 1.0], [1.0, 2.0]) + Moments.of([6.0], [3.0])
    assert total == Moments.of([2.0, 1.0, 6.0], [1.0, 2.0, 3.0])
    # a plain mean: denominators 1
    plain = Estimate.of([1.0, 2.0, 3.0, 4.0])
    assert plain.mean == 2.5 and plain.variance == pytest.approx(4 / 3 * 5 / 16)


def test_too_few_units_have_no_interval():
    one = Estimate.of([4.0], [2.0])
    assert one.mean == 2.0 and math.isnan(one.half_width) and math.isnan(one.variance)
    none = Estimate.of([], [])
    assert math.isnan(none.mean) and none.n == 0
    zero = Estimate.of([1.0, 2.0], [0.0, 0.0])
    assert math.isnan(zero.mean)


def test_estimates_print_and_tabulate():
    estimate = Estimate(0.1234, 0.0456, 10, 0.001)
    assert estimate.format() == "0.12 ± 0.05"
    assert estimate.format(scale=100, digits=1, suffix="%") == "12.3% ± 4.6"
    assert Estimate(1.0, math.nan, 1, math.nan).format() == "1.00"
    assert Estimate(math.nan, math.nan, 0, math.nan).format() == "n/a"
    row = estimate_row(Estimate(2.0, 0.5, 7, 0.06))
    assert row == {"mean": 2.0, "half_width": 0.5, "low": 1.5, "high": 2.5, "n": 7}


def test_a_rate_interval_uses_the_effective_trials():
    """A rate of 0.2 with variance 0.0016 is as precise as 0.2 of 100 plain trials:
    its Wilson interval is that of 20 of 100; a rate of 0 uses the trials given."""
    low, high = rate_interval(Estimate(0.2, 0.0784, 50, 0.0016), trials=7)
    assert (low, high) == pytest.approx(wilson_interval(20, 100))
    assert rate_interval(Estimate(0.0, 0.0, 5, 0.0), trials=12) == pytest.approx(
        wilson_interval(0, 12)
    )
    assert all(math.isnan(v) for v in rate_interval(Estimate(math.nan, 0, 0, 0), 3))
    row = rate_row(Estimate(0.2, 0.0784, 50, 0.0016), 7)
    assert row["mean"] == 0.2 and row["n"] == 50 and row["low"] == pytest.approx(low)
    # Wilson's interval stays inside [0, 1] and holds the rate
    for successes, trials in ((0, 5), (5, 5), (3, 7)):
        low, high = wilson_interval(successes, trials)
        assert 0.0 <= low <= successes / trials <= high <= 1.0
    assert wilson_interval(0, 5)[0] == 0.0 and wilson_interval(5, 5)[1] == 1.0


def _duplicate_hands() -> pd.DataFrame:
    """Two decks, each played twice with the seats swapped. Deck 0: seat 0 knocks and wins
    12, then (swapped) seat 1 gins for 31. Deck 1: seat 1 undercuts seat 0's knock for 14,
    then (swapped) a drawn hand."""
    return pd.DataFrame(
        {"deal": [0, 0, 1, 1], "swapped": [False, True, False, True],
         "winner": [0, 1, 1, -1], "knocker": [0, 1, 0, -1], "points": [12, 31, 14, 0],
         "gin": [False, True, False, False], "undercut": [False, False, True, False],
         "first_upcard_taker": [0, -1, 1, 0]}
    )  # fmt: skip


def test_a_players_figures_follow_its_seat_by_hand():
    """Player 0 sits in seat 0, then seat 1 in the swapped replay: it wins the hands of rows
    0 and 1 (12 and a 31-point gin), loses row 2's undercut (14): net (12 + 31 - 14) / 4."""
    hands = _duplicate_hands()
    assert seat_of(hands, 0).tolist() == [0, 1, 0, 1]
    assert seat_of(hands.drop(columns=["swapped"]), 1).tolist() == [1, 1, 1, 1]
    mine = player_summary(hands, 0)
    assert mine["hands won"].mean == 0.5
    assert mine["knock rate"].mean == 0.75
    assert mine["gin rate"].mean == 0.25
    assert mine["undercut rate (per knock)"].mean == pytest.approx(1 / 3)
    assert mine["undercuts made"].mean == 0.0
    assert mine["points per hand"].mean == pytest.approx(43 / 4)
    assert mine["net points per hand"].mean == pytest.approx(29 / 4)
    assert mine["upcard taken on offer"].mean == 0.25
    theirs = player_summary(hands, 1)
    assert theirs["net points per hand"].mean == pytest.approx(-29 / 4)
    assert theirs["undercuts made"].mean == 0.25
    # paired: the decks are the units (2); unpaired: the hands (4)
    assert mine["net points per hand"].n == 2
    assert player_summary(hands, 0, paired=False)["net points per hand"].n == 4
    per_deck = np.array([12 + 31, -14]) / 2.0
    expected = Estimate.of(per_deck * 2, [2.0, 2.0])
    assert mine["net points per hand"].variance == pytest.approx(expected.variance)
