"""Advice figures pinned by properties, not by today's output (issue 27, part 1; docs/testing.md).

- The knock line's intervals are a cluster bootstrap over deals: on a large synthetic
  dataset they agree with an independent computation, the cluster-robust (sandwich)
  standard errors of the weighted least-squares line.
- The check against play compares play with the search position by position: the
  difference's interval is the interval of the per-position differences (paired), and
  ``flagged`` says whether it excludes 0, on hand-computed cases both ways.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from gin_sim.experiments.advice import (
    LINE_DEADWOOD,
    check_table,
    knock_model,
    knock_positions,
)
from gin_sim.experiments.summary import Z95, Estimate


def _clustered_knocks(deals: int, seed: int) -> pd.DataFrame:
    """Knock positions with a true gain of 6 - deadwood, 1 to 4 rows per deal, weights 1 to
    3, and a deal's own offset (sd 4) much larger than the rows' noise (sd 2): the rows of
    a deal move together, so only a bootstrap of deals gets the interval right."""
    rng = np.random.default_rng(seed)
    rows = []
    for deal in range(deals):
        offset = rng.normal(0.0, 4.0)
        for decision in range(1 + deal % 4):
            deadwood = int(rng.integers(1, 11))
            rows.append(
                {"deal": deal, "decision": decision, "kind": "knock", "deadwood": deadwood,
                 "knock_limit": 10, "stock_left": 28, "opp_takes": 0,
                 "weight": float(1 + (deal * 7 + decision) % 3),
                 "gain": 6.0 - deadwood + offset + rng.normal(0.0, 2.0)}
            )  # fmt: skip
    return knock_positions(pd.DataFrame(rows))


def _sandwich(knocks: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The weighted least-squares line of gain on deadwood, and its cluster-robust
    covariance by deal (the textbook sandwich, with the n / (n - 1) small-sample factor)."""
    x = np.column_stack([np.ones(len(knocks)), knocks["deadwood"].to_numpy(np.float64)])
    w = knocks["weight"].to_numpy(np.float64)
    y = knocks["gain"].to_numpy(np.float64)
    bread = np.linalg.inv(x.T @ (w[:, None] * x))
    coef = bread @ (x.T @ (w * y))
    scores = x * (w * (y - x @ coef))[:, None]
    by_deal = pd.DataFrame(scores).groupby(knocks["deal"].to_numpy()).sum().to_numpy()
    n = len(by_deal)
    meat = by_deal.T @ by_deal * n / (n - 1)
    return coef, bread @ meat @ bread


def test_the_knock_line_intervals_are_a_bootstrap_over_deals():
    knocks = _clustered_knocks(deals=1500, seed=27)
    line, fit = knock_model(knocks, seed=2)
    (a, b), cov = _sandwich(knocks)
    row = line.iloc[0]
    assert row["intercept"] == pytest.approx(a) and row["slope"] == pytest.approx(b)
    design = np.column_stack([np.ones(len(LINE_DEADWOOD)), LINE_DEADWOOD])
    fitted_se = np.sqrt(np.einsum("ij,jk,ik->i", design, cov, design))
    half = (fit["fitted_high"] - fit["fitted_low"]).to_numpy() / 2
    assert half == pytest.approx(Z95 * fitted_se, rel=0.15)
    # the line -a / b by the delta method
    crossing = -a / b
    gradient = np.array([-1 / b, a / b**2])
    line_se = math.sqrt(gradient @ cov @ gradient)
    assert (row["high"] - row["low"]) / 2 == pytest.approx(Z95 * line_se, rel=0.2)
    assert row["low"] < crossing < row["high"]


def _hand_checked(differences: list[float]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One knock position per deal at deadwood 3, weight 1, search gain 0, play gain the
    given difference: the table's positions and the checked ones."""
    n = len(differences)
    positions = pd.DataFrame(
        {"deal": range(n), "decision": 0, "kind": "knock", "deadwood": 3, "card_melds": False,
         "card_lowers": 0, "weight": 1.0, "gain": 0.0}
    )  # fmt: skip
    checked = positions.assign(cell="knock, deadwood 1 to 5", play_gain=differences)
    return positions, checked


def test_the_check_flags_exactly_when_the_difference_interval_excludes_0():
    """Hand-computed: differences 1, 2, 3, 4 have mean 2.5 and sum of squared deviations 5,
    so the variance of the mean is 4/3 * 5 / 16 and the half width 1.96 * 0.6455 = 1.265:
    the interval 1.235 to 3.765 excludes 0 (flagged). Differences -1, 1, -2, 2 have mean 0
    (not flagged); 0.2, 1.2, -0.2, 0.8 have mean 0.5 and half width 1.96 * 0.3109: the
    interval -0.109 to 1.109 holds 0 (not flagged)."""
    expectations = (
        ([1.0, 2.0, 3.0, 4.0], 2.5, math.sqrt(4 / 3 * 5 / 16), True),
        ([-1.0, 1.0, -2.0, 2.0], 0.0, math.sqrt(4 / 3 * 10 / 16), False),
        ([0.2, 1.2, -0.2, 0.8], 0.5, math.sqrt(4 / 3 * 1.16 / 16), False),
    )
    for differences, mean, se, flagged in expectations:
        row = (
            check_table(*_hand_checked(differences)).set_index("cell").loc["knock, deadwood 1 to 5"]
        )
        assert row["difference_mean"] == pytest.approx(mean)
        assert row["difference_se"] == pytest.approx(se)
        assert row["difference_half_width"] == pytest.approx(Z95 * se)
        assert row["flagged"] == flagged, differences


def test_the_check_against_play_is_paired_position_by_position():
    """The search's gains vary a lot from position to position (sd 10) and play follows
    them closely (play = search + 1 + noise of sd 0.5). Paired, the difference is 1 with a
    narrow interval, flagged; compared as two independent means it could not be told from
    0. The half width is that of the per-position differences, clustered by deal."""
    rng = np.random.default_rng(31)
    n = 300
    search = rng.normal(0.0, 10.0, n)
    positions = pd.DataFrame(
        {"deal": np.arange(n) // 2, "decision": np.arange(n) % 2, "kind": "knock",
         "deadwood": 2, "card_melds": False, "card_lowers": 0,
         "weight": rng.choice([1.0, 3.0], n), "gain": search}
    )  # fmt: skip
    play = search + 1.0 + rng.normal(0.0, 0.5, n)
    checked = positions.assign(cell="knock, deadwood 1 to 5", play_gain=play)
    row = check_table(positions, checked).set_index("cell").loc["knock, deadwood 1 to 5"]
    w = positions["weight"].to_numpy()
    paired = Estimate.of(w * (play - search), w, groups=positions["deal"].to_numpy())
    assert row["difference_mean"] == pytest.approx(paired.mean)
    assert row["difference_half_width"] == pytest.approx(paired.half_width)
    assert row["difference_half_width"] < 0.2
    assert row["difference_half_width"] < row["play_half_width"] / 5
    assert row["flagged"]
