"""Rates carry Wilson intervals (``summary.wilson_interval``, ``rate_interval``): inside
[0, 1] on thin cells, where mean ± 1.96 se is not, and equal to published values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from gin_sim.reports.advice import strong_undercut_rates
from gin_sim.summary import Estimate, rate_interval, wilson_interval


@pytest.mark.parametrize(
    ("successes", "trials", "low", "high"),
    [(81, 263, 0.2553, 0.3662), (15, 148, 0.0624, 0.1605), (0, 20, 0.0, 0.1611), (1, 29, 0.0061, 0.1718)],
)  # fmt: skip
def test_wilson_matches_newcombes_table(successes, trials, low, high):
    """Newcombe (1998), Statistics in Medicine 17:857, Table I, method 3 (score, no
    continuity correction)."""
    assert wilson_interval(successes, trials) == pytest.approx((low, high), abs=5e-5)


def test_a_thin_cells_rate_interval_stays_inside_0_1():
    """3 undercuts in 7 knocks, one knock weighing as much as four: Wald's interval
    (mean ± 1.96 se) leaves [0, 1]; the cell's Wilson interval does not, and it is the
    Wilson interval at the estimate's effective trials."""
    knocks = pd.DataFrame(
        {
            "stock_band": ["13-18"] * 7,
            "undercut": [True, True, True, False, False, False, False],
            "weight": [4.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
        }
    )
    weights = knocks["weight"].to_numpy()
    estimate = Estimate.of(weights * knocks["undercut"].to_numpy(float), weights)
    assert estimate.mean + estimate.half_width > 1 or estimate.mean - estimate.half_width < 0
    cell = strong_undercut_rates(knocks, "stock_band").iloc[0]
    assert 0 <= cell["low"] < cell["rate"] < cell["high"] <= 1
    effective = estimate.mean * (1 - estimate.mean) / estimate.variance
    expected = wilson_interval(estimate.mean * effective, effective)
    assert (cell["low"], cell["high"]) == pytest.approx(expected)


def test_a_rate_of_0_or_1_uses_the_trials_it_is_given():
    """A cell where every knock (or none) was undercut has no spread: its interval comes
    from the count of trials, e.g. 1 of 1: [1 / (1 + 1.96²), 1]."""
    one = Estimate.of(np.array([1.0]))
    low, high = rate_interval(one, 1)
    assert low == pytest.approx(1 / (1 + 1.959963984540054**2)) and high == 1.0
    none = Estimate.of(np.zeros(20))
    assert rate_interval(none, 20) == pytest.approx((0.0, 0.1611), abs=5e-5)
