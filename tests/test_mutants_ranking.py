"""Ratings and holdout adjustments pinned by properties (issue 27, part 1; docs/testing.md):
known answers, hand-computed cases and independent computations of the same figure."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pandas as pd
import pytest

from gin_sim.experiments.holdout import (
    adjust_differences,
    adjusted,
    bonferroni_factor,
    confirmation_seed,
    holdout_seed,
)
from gin_sim.experiments.ranking import Ratings, bootstrap_ratings, cycles, design, fit_ratings
from gin_sim.experiments.summary import Z95, Estimate


def test_the_seed_streams_are_the_published_splitmix64_outputs():
    """Known answer: splitmix64 started at 0 gives 0xE220A8397B1DCDAF, then
    0x6E789E6AA1B965F4 (Vigna's reference implementation)."""
    assert holdout_seed(0) == 0xE220A8397B1DCDAF
    assert confirmation_seed(0) == 0x6E789E6AA1B965F4


def test_bonferroni_widening_is_the_normal_quantile_ratio():
    quantile = NormalDist().inv_cdf
    for m in (1, 2, 7, 40):
        assert bonferroni_factor(m) == pytest.approx(quantile(1 - 0.025 / m) / quantile(0.975))
    assert bonferroni_factor(3, level=0.9) == pytest.approx(quantile(1 - 0.1 / 6) / Z95)
    with pytest.raises(ValueError, match="allowed 1 or more"):
        bonferroni_factor(0)
    estimate = adjusted(Estimate(2.0, 1.0, 10, 0.26), 4)
    assert (estimate.mean, estimate.n, estimate.variance) == (2.0, 10, 0.26)
    assert estimate.half_width == pytest.approx(bonferroni_factor(4))


def test_adjusted_differences_are_widened_and_judged_again():
    """Hand-computed: with 3 comparisons the half widths grow by 2.394 / 1.960 = 1.2215;
    a mean of 1.1 with 0.9 becomes 1.1 ± 1.099 (still above 0), one of 1.0 with 0.9 becomes
    1.0 ± 1.099 (no longer significant); a reference row (0 ± 0) and a row without an
    interval are never significant; a difference with no spread at all (1 ± 0) is; an
    interval that touches 0 at either end does not exclude it."""
    edge = bonferroni_factor(3)  # a mean of this ± 1 reaches exactly 0 once widened
    table = pd.DataFrame(
        {"mean": [1.1, 1.0, -3.0, 0.0, 1.0, edge, -edge, 0.2, 2.0],
         "half_width": [0.9, 0.9, 1.0, 0.0, 0.0, 1.0, 1.0, 0.5, math.nan],
         "low": 0.0, "high": 0.0, "significant": True}
    )  # fmt: skip
    out = adjust_differences(table, 3)
    factor = NormalDist().inv_cdf(1 - 0.05 / 6) / NormalDist().inv_cdf(0.975)
    widened = np.array([0.9, 0.9, 1.0, 0.0, 0.0, 1.0, 1.0, 0.5, math.nan]) * factor
    assert out["half_width"].to_numpy() == pytest.approx(widened, nan_ok=True)
    assert out["low"].to_numpy() == pytest.approx(table["mean"] - widened, nan_ok=True)
    assert out["high"].to_numpy() == pytest.approx(table["mean"] + widened, nan_ok=True)
    assert (out.loc[5, "low"], out.loc[6, "high"]) == (0.0, 0.0)
    assert out["significant"].tolist() == [
        True,
        False,
        True,
        False,
        True,
        False,
        False,
        False,
        False,
    ]
    assert table["half_width"].tolist()[:8] == [
        0.9,
        0.9,
        1.0,
        0.0,
        0.0,
        1.0,
        1.0,
        0.5,
    ]  # input kept


def test_ratings_are_the_least_squares_fit_summing_to_0():
    """An independent computation: the constrained least-squares solution of
    ``c_ab = r_a - r_b`` (with a row forcing the sum to 0), pairs given in any orientation."""
    rng = np.random.default_rng(3)
    players = 5
    pairs = [
        (a, b) if (a + b) % 2 else (b, a) for a in range(players) for b in range(a + 1, players)
    ]
    values = rng.integers(-40, 40, len(pairs)).astype(float)
    constrained = np.vstack([design(pairs, players), np.ones(players)])
    expected = np.linalg.lstsq(constrained, np.append(values, 0.0), rcond=None)[0]
    assert fit_ratings(pairs, values, players) == pytest.approx(expected)
    assert fit_ratings(pairs, values, players, scale=4.0) == pytest.approx(expected / 4)
    assert design([(2, 0)], 3).tolist() == [[-1.0, 0.0, 1.0]]
    with pytest.raises(ValueError, match="complete round robin"):
        fit_ratings(pairs[:-1], values[:-1], players)
    with pytest.raises(ValueError, match="complete round robin"):
        fit_ratings([*pairs[:-1], pairs[0]], values, players)


def test_one_resample_of_decks_serves_every_pairing():
    """Players 1 and 2 each lose ``x`` (a deck's luck) to player 0 and draw with each other,
    so their ratings are equal on every resample of the decks, as long as one resample is
    applied to every pairing (common random numbers); player 0's rating is 2x/3 per hand."""
    rng = np.random.default_rng(5)
    x = rng.integers(-30, 60, 200).astype(float)
    per_deck = np.stack([x, x, np.zeros_like(x)])
    ratings = bootstrap_ratings(["a", "b", "c"], [(0, 1), (0, 2), (1, 2)], per_deck, 2.0, 9, 300)
    assert ratings.rating == pytest.approx(
        [2 * x.sum() / (3 * 400), -x.sum() / 1200, -x.sum() / 1200]
    )
    assert ratings.draws.shape == (300, 3)
    assert np.array_equal(ratings.draws[:, 1], ratings.draws[:, 2])
    assert ratings.draws.sum(axis=1) == pytest.approx(np.zeros(300), abs=1e-12)
    # the spread of player 0's rating is the bootstrap standard error of 2 * mean(x) / 3 / 2
    se = 2 / 3 / 2 * x.std(ddof=1) / math.sqrt(len(x))
    assert ratings.draws[:, 0].std(ddof=1) == pytest.approx(se, rel=0.15)
    again = bootstrap_ratings(["a", "b", "c"], [(0, 1), (0, 2), (1, 2)], per_deck, 2.0, 9, 300)
    assert np.array_equal(again.draws, ratings.draws)  # seeded
    assert ratings.names == ["a", "b", "c"]


def test_every_deck_can_be_drawn_and_every_replicate_is_made():
    """Deck 0 alone has points: a resample holds it as often as any deck (once on average),
    so the draws average to the rating; 120 replicates (batches of 50, 50 and 20) are 120."""
    per_deck = np.zeros((1, 10))
    per_deck[0, 0] = 100.0
    ratings = bootstrap_ratings(["a", "b"], [(0, 1)], per_deck, 1.0, 4, 120)
    assert ratings.draws.shape == (120, 2)
    assert ratings.rating[0] == 5.0  # 100 points over 10 decks of 1 hand, 2 players
    assert ratings.draws[:, 0].mean() == pytest.approx(5.0, rel=0.2)
    assert (ratings.draws[:, 0] > 0).mean() == pytest.approx(1 - 0.9**10, abs=0.1)


def test_a_difference_interval_uses_the_resamples_spread_and_the_adjustment():
    """Hand-computed: resampled differences 1, 3 (sd sqrt(2)) around a difference of 2."""
    ratings = Ratings(["a", "b"], np.array([1.0, -1.0]), np.array([[0.5, -0.5], [1.5, -1.5]]))
    difference, low, high = ratings.difference(0, 1, comparisons=3)
    half = Z95 * bonferroni_factor(3) * math.sqrt(2)
    assert (difference, low, high) == pytest.approx((2.0, 2.0 - half, 2.0 + half))
    plain = Z95 * math.sqrt(2)  # one difference stated: a plain 95% interval
    assert ratings.difference(0, 1) == pytest.approx((2.0, 2.0 - plain, 2.0 + plain))
    assert ratings.difference(1, 0) == pytest.approx((-2.0, -2.0 - plain, -2.0 + plain))


def test_the_table_ranks_best_first_with_rank_intervals():
    """Three players; in every resample a > b > c except one where b and c swap: b's and
    c's rank intervals then span 2 to 3 (the 2.5 and 97.5 percentiles over 3 resamples)."""
    draws = np.array([[3.0, 2.0, 1.0], [3.0, 1.0, 2.0], [3.0, 2.0, 1.0]])
    table = Ratings(["c", "a", "b"], np.array([1.0, 3.0, 2.0]), draws[:, [2, 0, 1]]).table()
    assert table["player"].tolist() == ["a", "b", "c"] and table["rank"].tolist() == [1, 2, 3]
    assert table["rating"].tolist() == [3.0, 2.0, 1.0]
    assert table[["rank_low", "rank_high"]].values.tolist() == [[1, 1], [2, 3], [2, 3]]
    low, high = np.percentile([2.0, 1.0, 2.0], [2.5, 97.5])
    assert (table.loc[1, "low"], table.loc[1, "high"]) == pytest.approx((low, high))
    # equal ratings keep the players' order (a stable sort): 20 players rated 0, -1, -2,
    # 0, -1, ... are listed by rating, and within a rating by their place in the field
    names = [f"p{i}" for i in range(20)]
    rating = -(np.arange(20) % 3).astype(float)
    tied = Ratings(names, rating, np.tile(rating, (5, 1))).table()
    expected = [f"p{i}" for level in (0, 1, 2) for i in range(20) if i % 3 == level]
    assert tied["player"].tolist() == expected
    assert tied["rank_low"].tolist() == [1] * 7 + [8] * 7 + [15] * 6  # ties share the best rank


def test_cycles_are_found_once_each():
    transitive = np.triu(np.ones((4, 4), bool), 1)
    assert cycles(list("abcd"), transitive) == []
    beats = transitive.copy()
    beats[0, 2], beats[2, 0] = False, True  # c beats a: a > b > c > a
    beats[1, 3], beats[3, 1] = False, True  # d beats b: b > c > d > b
    assert cycles(list("abcd"), beats) == [("a", "b", "c"), ("b", "c", "d")]


def test_rating_and_rank_intervals_are_the_central_95_percent_of_the_resamples():
    """1,000 resamples. Rating draws 0 .. 999 give the interval of the 2.5th and 97.5th
    percentiles, 24.975 and 974.025. a and b swap places in 20 resamples (2%), b and
    c in 30 others (3%): a's rank interval is 1 to 1 (2% is inside the upper 2.5%), c's is
    2 to 3 (3% is more than the lower 2.5%)."""
    draws = np.tile([3000.0, 2000.0, 1000.0], (1000, 1))
    draws[:20, [0, 1]] = [2000.0, 3000.0]
    draws[20:50, [1, 2]] = [1000.0, 2000.0]
    ratings = Ratings(["a", "b", "c"], np.array([3000.0, 2000.0, 1000.0]), draws)
    table = ratings.table().set_index("player")
    assert (table.loc["a", "rank_low"], table.loc["a", "rank_high"]) == (1, 1)
    assert (table.loc["c", "rank_low"], table.loc["c", "rank_high"]) == (2, 3)
    plain = Ratings(["a"], np.array([500.0]), np.arange(1000.0)[:, None]).table()
    assert (plain.loc[0, "low"], plain.loc[0, "high"]) == pytest.approx((24.975, 974.025))


def test_per_deck_points_must_be_whole_and_their_sums_exact():
    with pytest.raises(ValueError, match=r"^per_deck: expected whole net points per deck$"):
        bootstrap_ratings(["a", "b"], [(0, 1)], np.array([[0.5, 1.0]]), 1.0, 1, 10)
    # 2 decks of 2**52 points: a resampled sum can reach 2**53, where float64 stops
    # holding every whole number
    edge = np.array([[2.0**52, 0.0]])
    with pytest.raises(ValueError, match=r"^per_deck: too many points for exact sums$"):
        bootstrap_ratings(["a", "b"], [(0, 1)], edge, 1.0, 1, 10)
    below = bootstrap_ratings(["a", "b"], [(0, 1)], edge / 2, 1.0, 1, 10)
    assert below.rating.tolist() == [2.0**49, -(2.0**49)]  # 2**51 over 2 players, 2 hands
