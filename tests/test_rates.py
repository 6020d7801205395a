"""Rates carry Wilson intervals (``summary.wilson_interval``, ``rate_interval``): inside
[0, 1] on thin cells, where mean ± 1.96 se is not, and equal to published values."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from gin_sim.experiments.advice import strong_undercut_rates
from gin_sim.experiments.summary import Estimate, rate_interval, wilson_interval


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
            "deal": range(7),
            "stock_band": ["13-18"] * 7,
            "undercut": [True, True, True, False, False, False, False],
            "weight": [4.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0],
        }
    )
    weights = knocks["weight"].to_numpy()
    estimate = Estimate.of(weights * knocks["undercut"].to_numpy(float), weights, knocks["deal"])
    assert estimate.mean + estimate.half_width > 1 or estimate.mean - estimate.half_width < 0
    cell = strong_undercut_rates(knocks, "stock_band").set_index("stock_band").loc["13-18"]
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


def test_the_undercut_grid_has_every_cell_with_counts_and_thin_marks():
    """Strong knocks by deadwood and stock band: all 11 x 5 cells, the knocks behind
    each, Wilson bounds inside [0, 1], and cells of fewer than 30 knocks marked thin."""
    from gin_sim.experiments.advice import MIN_CELL_POSITIONS
    from gin_sim.reports.advice import undercut_grid

    rows = [(10, "13-18", True)] * 3 + [(10, "13-18", False)] * 4 + [(8, "25-31", False)] * 40
    knocks = pd.DataFrame(rows, columns=["knocker_deadwood", "stock_band", "undercut"])
    knocks = knocks.assign(weight=1.0, deal=range(len(knocks)))
    cells = strong_undercut_rates(knocks, ["knocker_deadwood", "stock_band"])
    assert len(cells) == 55 and cells["knocks"].sum() == 47
    cell = cells.set_index(["knocker_deadwood", "stock_band"]).loc[(10, "13-18")]
    assert cell["knocks"] == 7 and cell["rate"] == pytest.approx(3 / 7) and cell["thin"]
    assert cell["low"] >= 0 and cell["high"] <= 1
    firm = cells.set_index(["knocker_deadwood", "stock_band"]).loc[(8, "25-31")]
    assert firm["knocks"] == 40 > MIN_CELL_POSITIONS and not firm["thin"] and firm["low"] == 0
    grid = undercut_grid(cells, "knocks").set_index("deadwood")
    assert list(grid.columns) == ["25-31", "19-24", "13-18", "7-12", "0-6"]
    assert grid.loc["10", "13-18"].endswith("[7] thin") and grid.loc["10", "13-18"].startswith(
        "42.9%"
    )
    assert grid.loc["8", "25-31"].endswith("[40]") and grid.loc["1", "25-31"] == ""
