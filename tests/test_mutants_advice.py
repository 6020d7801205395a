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
    CARD_DOES,
    FIT_COLUMNS,
    LINE_COLUMNS,
    LINE_DEADWOOD,
    _crossing,
    _fit,
    _resample,
    _threshold,
    check_rows,
    check_table,
    highest_deadwood,
    knock_cells,
    knock_model,
    knock_positions,
    paired_change,
    paired_gain_differences,
    played_value_gaps,
    stock_band,
    strong_knocks,
    strong_undercut_rates,
    take_cells,
    take_positions,
)
from gin_sim.experiments.summary import Z95, Estimate, rate_interval, wilson_interval


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


def test_the_check_flags_exactly_when_the_difference_interval_excludes_0(monkeypatch):
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
    # the same difference at every position: a standard error of 0, and no interval to
    # exclude 0 with, so not flagged
    same = check_table(*_hand_checked([1.0] * 4)).set_index("cell").loc["knock, deadwood 1 to 5"]
    assert same["difference_mean"] == 1.0 and same["difference_se"] == 0.0
    assert same["detectable"] == 0.0 and not same["flagged"]
    # detectable with 80% power in a two-sided test at 5%: (1.96 + 0.84) standard errors,
    # the quantiles written out here (not the module's constant), so 50% power (1.96) fails
    first = (
        check_table(*_hand_checked([1.0, 2.0, 3.0, 4.0]))
        .set_index("cell")
        .loc["knock, deadwood 1 to 5"]
    )
    assert first["detectable"] == pytest.approx(
        (1.959963984540054 + 0.8416212335729143) * math.sqrt(4 / 3 * 5 / 16)
    )
    # an interval with an end exactly at 0 holds 0: not flagged (the edge of the rule; the
    # half width made the mean's size, as it can be to the last digit)
    from dataclasses import replace

    from gin_sim.experiments import advice

    real = advice.per_decision

    def touching(rows, values):
        estimate = real(rows, values)
        return replace(estimate, half_width=abs(estimate.mean))

    monkeypatch.setattr(advice, "per_decision", touching)
    edge = check_table(*_hand_checked([1.0, 2.0, 3.0, 4.0])).set_index("cell")
    edge = edge.loc["knock, deadwood 1 to 5"]
    assert edge["difference_low"] == 0.0 and edge["difference_half_width"] > 0
    assert not edge["flagged"]


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
    # the table's figure is over the whole cell, the search's and play's over the checked
    # positions (here the same rows), each a clustered mean per decision
    search_estimate = Estimate.of(w * search, w, groups=positions["deal"].to_numpy())
    play_estimate = Estimate.of(w * play, w, groups=positions["deal"].to_numpy())
    assert row["cell_positions"] == n and row["checked"] == n
    for label, estimate in (("table", search_estimate), ("search", search_estimate),
                            ("play", play_estimate)):  # fmt: skip
        assert row[f"{label}_mean"] == pytest.approx(estimate.mean)
        assert row[f"{label}_half_width"] == pytest.approx(estimate.half_width)
        assert row[f"{label}_low"] == pytest.approx(estimate.mean - estimate.half_width)
        assert f"{label}_n" not in row.index


def test_stock_bands_cover_each_stock_size_once():
    """Known answers at every band edge: 31 and 25 open the hand, 24 starts the next band,
    6 and 0 end it."""
    sizes = pd.Series([31, 25, 24, 19, 18, 13, 12, 7, 6, 0])
    bands = stock_band(sizes)
    assert bands.astype(str).tolist() == [
        "25-31", "25-31", "19-24", "19-24", "13-18", "13-18", "7-12", "7-12", "0-6", "0-6",
    ]  # fmt: skip
    assert bands.cat.ordered and bands.cat.categories[0] == "25-31"


def test_an_exact_line_is_fitted_exactly_and_crosses_where_it_should():
    """Cells on the line 7 - 2 * deadwood (any weights) give intercept 7 and slope -2, and
    the gain crosses 0 at 3.5: threshold 3. Against a falling estimate a rising resample counts
    +inf when the gain at 5.5 is above 0, -inf below; one deadwood alone fits no line."""
    w = np.array([1.0, 0.0, 2.0, 3.0, 0.0, 1.0, 0.5, 0.0, 0.0, 4.0])
    y = w * (7.0 - 2.0 * LINE_DEADWOOD)
    a, b = _fit(w, y)
    assert (a, b) == pytest.approx((7.0, -2.0))
    assert _crossing(np.array([a]), np.array([b]), rising=False)[0] == pytest.approx(3.5)
    assert _threshold(a, b, 10) == 3
    assert _threshold(30.0, -2.0, 10) == 10  # crossing at 15, above the limit
    assert _threshold(-1.0, -2.0, 10) == 0  # crossing below 0
    rising = _crossing(np.array([1.0, -8.0]), np.array([0.5, 0.5]), rising=False)
    assert rising[0] == np.inf and rising[1] == -np.inf
    assert _threshold(1.0, 0.5, 10) == 10 and _threshold(-8.0, 0.5, 10) == 0
    assert _threshold(-3.0, 0.5, 10) == 0  # mean fitted gain over 1..10 is -0.25
    assert _threshold(-2.0, 0.5, 10) == 10  # and here +0.75
    assert _threshold(math.nan, math.nan, 10) == -1
    one = np.zeros(10)
    one[4] = 3.0
    assert all(math.isnan(v) for v in _fit(one, one * 2.0))
    assert np.isnan(_crossing(np.array([math.nan]), np.array([math.nan]), rising=True))[0]


def test_take_positions_sort_the_card_by_what_it_does():
    """Hand-computed: a card that melds is "completes a meld" whatever it lowers; otherwise
    5 or more is the second class, 1 to 4 the third, 0 the last."""
    positions = pd.DataFrame(
        {"deal": range(6), "kind": ["offer", "draw", "draw", "draw", "draw", "knock"],
         "stock_left": [31, 20, 20, 10, 3, 3], "opp_takes": [0, 1, 0, 2, 0, 0],
         "card_melds": [True, False, False, False, False, False],
         "card_lowers": [0, 5, 4, 1, 0, 9], "gain": 0.0, "weight": 1.0}
    )  # fmt: skip
    takes = take_positions(positions)
    assert len(takes) == 5
    assert takes["card_does"].astype(str).tolist() == [
        CARD_DOES[0], CARD_DOES[1], CARD_DOES[2], CARD_DOES[2], CARD_DOES[3],
    ]  # fmt: skip
    assert takes["opponent_took"].tolist() == [False, True, False, True, False]
    assert takes["stock_band"].astype(str).tolist() == ["25-31", "19-24", "19-24", "7-12", "0-6"]
    knocks = knock_positions(positions.assign(deadwood=3, knock_limit=10))
    assert knocks["deal"].tolist() == [5] and highest_deadwood(knocks) == 10
    assert highest_deadwood(knocks.iloc[:0]) == 10
    assert highest_deadwood(knocks.assign(knock_limit=7)) == 7
    with pytest.raises(ValueError, match="not evaluated"):
        take_positions(positions.drop(columns=["gain"]))


def test_the_checked_positions_are_each_cells_first_in_deal_order():
    positions = pd.DataFrame(
        {"deal": [0, 0, 1, 2, 3, 4, 5], "decision": [1, 2, 1, 1, 1, 1, 1],
         "kind": ["knock", "knock", "knock", "draw", "knock", "offer", "draw"],
         "deadwood": [2, 8, 4, 0, 6, 0, 0], "card_melds": [False, False, False, True, False, False, False],
         "card_lowers": [0, 0, 0, 3, 0, 0, 2], "gain": 1.0, "weight": 1.0}
    )  # fmt: skip
    checked = check_rows(positions, per_cell=1)
    assert checked[["cell", "deal", "decision"]].values.tolist() == [
        ["knock, deadwood 1 to 5", 0, 1],
        ["knock, deadwood 6 to 10", 0, 2],
        ["take or draw, card completes a meld", 2, 1],
        ["take or draw, card lowers nothing", 4, 1],
    ]
    assert checked.index.tolist() == [0, 1, 2, 3]  # numbered afresh, one row per position
    assert len(check_rows(positions, per_cell=5)) == 6  # the draw that lowers 2 is in no cell


def _knock_rows() -> pd.DataFrame:
    """Knock positions of 4 deals: deal 0 (weight 2) knocks and is undercut, deal 1 knocks
    and wins 0 points (a tie that scores nothing is no undercut), deal 2 (two rows) knocks
    and wins, deal 3 plays on (not a knock made)."""
    return pd.DataFrame(
        {"deal": [0, 1, 2, 2, 3], "decision": [4, 6, 3, 8, 2], "kind": "knock",
         "deadwood": [7, 7, 7, 4, 7], "stock_left": [20, 20, 5, 5, 20],
         "played": ["knock 7H", "knock 2C", "knock 9D", "knock 4S", "discard 5H"],
         "hand_points": [-18, 0, 12, 9, -5], "weight": [2.0, 1.0, 1.0, 3.0, 1.0],
         "gain": [1.0, 2.0, 3.0, 4.0, 5.0],
         "actions": [["knock 7H", "discard 7H"], ["knock 2C"], ["knock 9D"], ["discard 4S"],
                     ["knock 5H", "discard 5H"]],
         "values": [[-3.0, 1.0], [2.0], [10.0], [1.0], [4.0, 6.0]]}
    )  # fmt: skip


def test_undercut_rates_of_the_knocks_made_by_hand():
    """Only knocks made count; an undercut is a knock that lost points. By deadwood 7:
    weights 2 (undercut), 1, 1 over 3 deals: rate 2/4; the Wilson interval's trials are
    the deals' effective number (Kish): (2 + 1 + 1)^2 / (4 + 1 + 1) = 8/3, so a rate of 0
    or 1 (deadwood 4 here, one deal) uses them."""
    knocks = strong_knocks(_knock_rows())
    assert knocks["deal"].tolist() == [0, 1, 2, 2]
    assert knocks["undercut"].tolist() == [True, False, False, False]
    assert knocks["stock_left"].tolist() == [20, 20, 5, 5]
    assert knocks["stock_band"].astype(str).tolist() == ["19-24", "19-24", "0-6", "0-6"]
    assert knocks["knocker_deadwood"].tolist() == [7, 7, 7, 4]
    rates = strong_undercut_rates(knocks, "knocker_deadwood").set_index("knocker_deadwood")
    assert list(rates.index) == list(range(11))
    seven = rates.loc[7]
    assert seven["rate"] == pytest.approx(0.5) and seven["knocks"] == 3 and seven["thin"]
    estimate = Estimate.of(np.array([2.0, 0.0, 0.0]), np.array([2.0, 1.0, 1.0]))
    low, high = rate_interval(estimate, 16 / 6)
    assert (seven["low"], seven["high"]) == pytest.approx((low, high))
    four = rates.loc[4]
    assert four["rate"] == 0.0 and four["knocks"] == 1
    assert (four["low"], four["high"]) == pytest.approx(wilson_interval(0.0, 1.0))
    assert rates.loc[0, "knocks"] == 0 and np.isnan(rates.loc[0, "rate"])
    by_band = strong_undercut_rates(knocks, "stock_band").set_index("stock_band")
    assert list(by_band.index) == ["25-31", "19-24", "13-18", "7-12", "0-6"]
    assert by_band.loc["19-24", "rate"] == pytest.approx(2 / 3)
    # Kish with unequal deal totals: deal 0 weighs 2, deal 1 weighs 1 -> 9 / 5 trials
    band = Estimate.of(np.array([2.0, 0.0]), np.array([2.0, 1.0]))
    assert (by_band.loc["19-24", "low"], by_band.loc["19-24", "high"]) == pytest.approx(
        rate_interval(band, 9 / 5)
    )


def test_a_change_of_rule_set_is_the_mean_paired_change_per_decision():
    base = _knock_rows()
    other = base.assign(gain=base["gain"] + [1.0, -1.0, 0.0, 2.0, 0.0]).iloc[::-1]
    change = paired_change(base, other)
    w = base["weight"].to_numpy()
    expected = Estimate.of(w * np.array([1.0, -1.0, 0.0, 2.0, 0.0]), w, base["deal"].to_numpy())
    assert change.mean == pytest.approx(expected.mean) and change.n == 4
    assert change.half_width == pytest.approx(expected.half_width)


def test_the_search_values_against_play_by_hand():
    """The move made is among the evaluated actions in 4 of the 5 knock rows (the one of
    deal 2 with decision 8 evaluated only a discard): values -3, 2, 10, 6 against real
    points -18, 0, 12, -5 with weights 2, 1, 1, 1."""
    gaps = played_value_gaps(_knock_rows()).set_index("kind")
    knock = gaps.loc["knock"]
    assert knock["positions"] == 4  # "discard 5H" is made in deal 3: its value 6 counts
    w = np.array([2.0, 1.0, 1.0, 1.0])
    rows = _knock_rows()
    kept = rows[[True, True, True, False, True]]
    value = np.array([-3.0, 2.0, 10.0, 6.0])
    real = np.array([-18.0, 0.0, 12.0, -5.0])
    assert len(kept) == 4
    assert knock["search_value"] == pytest.approx((w * value).sum() / w.sum())
    assert knock["real_points"] == pytest.approx((w * real).sum() / w.sum())
    gap = Estimate.of(w * (real - value), w, kept["deal"].to_numpy())
    assert knock["gap_mean"] == pytest.approx(gap.mean)
    assert knock["gap_half_width"] == pytest.approx(gap.half_width)
    assert gaps.loc["offer", "positions"] == 0


def test_the_bootstraps_sums_are_added_deal_after_deal():
    """Each resample's cell sums are the deals' rows times their counts, added in deal
    order, bit for bit: one order of addition on every machine (BLAS's matrix product
    orders its sums by the CPU and its threads, and a regenerated report differed in its
    intervals' last digits), so a report regenerated anywhere is the same file."""
    from gin_sim.experiments.advice import _in_deal_order

    rng = np.random.default_rng(11)
    counts = rng.integers(0, 4, size=(7, 300)).astype(np.float64)
    cells = rng.normal(size=(300, 10)) * 10.0 ** rng.integers(-6, 6, size=(300, 1))
    expected = np.zeros((7, 10))
    for r in range(7):
        for c in range(10):
            total = 0.0
            for deal in range(300):
                total += counts[r, deal] * cells[deal, c]
            expected[r, c] = total
    assert np.array_equal(_in_deal_order(counts, cells), expected)


# ------------------------------------------------------------ the tables' layout
BANDS = ["25-31", "19-24", "13-18", "7-12", "0-6"]


def _knocks_at(cells: list[tuple[int, int, int, float]]) -> pd.DataFrame:
    """Knock positions, one per deal, weight 1: for each (stock left, deadwood, count,
    gain) ``count`` deals, numbered on from the cells before."""
    rows, deal = [], 0
    for stock, deadwood, count, gain in cells:
        for _ in range(count):
            rows.append(
                {"deal": deal, "decision": 0, "kind": "knock", "deadwood": deadwood,
                 "knock_limit": 10, "stock_left": stock, "opp_takes": 0, "weight": 1.0,
                 "gain": gain}
            )  # fmt: skip
            deal += 1
    return knock_positions(pd.DataFrame(rows))


def test_the_cells_table_has_every_cell_in_the_hands_order_with_counts():
    """By hand: 30 positions (30 deals) at deadwood 3 with 10 cards in the stock (band
    7-12), listed first, and 29 at deadwood 2 with 28 in the stock (25-31). Every band by
    every deadwood 0 to 10 gets a row, the bands as an ordered categorical in the hand's
    order (25-31 first, not as the labels sort), the deadwood as plain integers; a cell
    is thin below MIN_CELL_POSITIONS = 30 positions; an empty cell has 0 positions, 0
    decisions and 0 deals (integers), no gain, and is thin."""
    knocks = _knocks_at([(10, 3, 30, 1.0), (28, 2, 29, 2.0)])
    cells = knock_cells(knocks)
    assert len(cells) == 5 * 11
    assert cells["stock_band"].cat.categories.tolist() == BANDS and cells["stock_band"].cat.ordered
    assert cells["stock_band"].astype(str).tolist() == [b for b in BANDS for _ in range(11)]
    assert not isinstance(cells["deadwood"].dtype, pd.CategoricalDtype)
    assert cells["deadwood"].tolist() == list(range(11)) * 5
    for column in ("positions", "n", "deadwood"):
        assert pd.api.types.is_integer_dtype(cells[column]), column
    cell = cells.set_index(["stock_band", "deadwood"])
    full = cell.loc[("7-12", 3)]
    assert full["positions"] == 30 and full["n"] == 30 and full["decisions"] == 30.0
    assert full["mean"] == 1.0 and full["thin"] is np.False_
    assert cell.loc[("25-31", 2), "positions"] == 29 and cell.loc[("25-31", 2), "thin"]
    empty = cell.loc[("19-24", 5)]
    assert empty["positions"] == 0 and empty["n"] == 0 and empty["decisions"] == 0.0
    assert math.isnan(empty["mean"]) and empty["thin"] is np.True_
    assert cells["thin"].dtype == bool and cells["thin"].sum() == 5 * 11 - 1
    # no knock positions at all: the same grid, every cell empty
    none = knock_cells(knocks.iloc[:0])
    assert len(none) == 5 * 11 and (none["positions"] == 0).all() and none["thin"].all()


def test_the_take_cells_keep_what_the_card_does_in_its_order_and_only_offers_and_draws():
    """A dataset read back has ``kind`` as a categorical of all four decision kinds; the
    take table is of offers and draws only (2 kinds by 4 classes), and what the card does is
    an ordered categorical in CARD_DOES's order (not as the labels sort)."""
    positions = pd.DataFrame(
        {"deal": range(4), "decision": 0,
         "kind": pd.Categorical(["offer", "draw", "knock", "discard"],
                                categories=["offer", "draw", "discard", "knock"]),
         "stock_left": 20, "opp_takes": 0, "card_melds": [True, False, False, False],
         "card_lowers": [0, 6, 0, 0], "gain": [1.0, 2.0, 3.0, 4.0], "weight": 1.0}
    )  # fmt: skip
    takes = take_positions(positions)
    assert takes["card_does"].cat.ordered
    assert takes["card_does"].cat.categories.tolist() == list(CARD_DOES)
    cells = take_cells(takes)
    assert len(cells) == 2 * len(CARD_DOES)
    assert sorted(set(cells["kind"].astype(str))) == ["draw", "offer"]
    assert cells["card_does"].cat.ordered
    assert cells["card_does"].cat.categories.tolist() == list(CARD_DOES)
    assert cells["card_does"].astype(str).tolist()[:4] == list(CARD_DOES)
    offer = cells[(cells["kind"] == "offer") & (cells["card_does"] == CARD_DOES[0])].iloc[0]
    assert offer["positions"] == 1 and offer["mean"] == 1.0


def test_a_paired_difference_table_has_a_row_for_every_level():
    base = pd.DataFrame(
        {"deal": [0, 1], "decision": 0, "kind": "knock", "deadwood": 3, "weight": 1.0,
         "gain": [1.0, 2.0]}
    )  # fmt: skip
    table = paired_gain_differences(base, base.assign(gain=[2.0, 4.0]), "deadwood", range(11))
    assert table["deadwood"].tolist() == list(range(11))
    assert table.set_index("deadwood").loc[3, "mean"] == pytest.approx(1.5)
    assert (table.drop(index=3)["positions"] == 0).all()


# ------------------------------------------------------------- the knock line's edges
def test_the_knock_line_on_exact_lines_and_at_its_minimums():
    """Hand-computed, noise-free gains, one position per deal of weight 1, the bands listed
    out of the hand's order:
    - 0-6: gain = deadwood - 3 at deadwoods 1 to 10 (10 deals): slope exactly 1, a rising
      line crossing at 3 ("above");
    - 19-24: gain 2 at every deadwood (10 deals): slope exactly 0, flat: no crossing, no
      line, no direction; the fitted gain is above 0, so the threshold is the limit and
      every resample (flat too) knocks everywhere: a falling reading, +inf at both ends;
    - 13-18: exactly MIN_LINE_DEALS = 10 deals at exactly MIN_LINE_DEADWOODS = 3
      deadwoods: a line;
    - 7-12: 12 deals at 2 deadwoods only: no line (whatever the number of deals);
    - 25-31: 9 deals: no line.
    ``positions`` and ``deals`` count the rows of deadwood 1 to 10 and their deals (gin,
    deadwood 0, is left out)."""
    cells = [(3, d, 1, d - 3.0) for d in range(1, 11)]
    cells += [(20, d, 1, 2.0) for d in range(1, 11)]
    cells += [(15, d, n, 4.0 - d) for d, n in ((2, 3), (4, 4), (6, 3))]
    cells += [(10, d, 6, 4.0 - d) for d in (2, 6)]
    cells += [(28, d, 1, 5.0 - d) for d in range(1, 10)]
    cells += [(3, 0, 2, 20.0)]  # gin, outside the model
    line, fit = knock_model(_knocks_at(cells), seed=4)
    assert line["stock_band"].astype(str).tolist() == ["25-31", "19-24", "13-18", "7-12", "0-6"]
    assert line["stock_band"].cat.categories.tolist() == BANDS and line["stock_band"].cat.ordered
    assert fit["stock_band"].cat.categories.tolist() == BANDS and fit["stock_band"].cat.ordered
    row = line.set_index(line["stock_band"].astype(str))
    rising = row.loc["0-6"]
    assert rising["slope"] == 1.0 and rising["intercept"] == -3.0 and rising["line"] == 3.0
    assert rising["crossing"] and rising["direction"] == "above"
    assert rising["positions"] == 10 and rising["deals"] == 10  # the gin deals: none
    flat = row.loc["19-24"]
    assert flat["slope"] == 0.0 and flat["intercept"] == 2.0 and math.isnan(flat["line"])
    assert not flat["crossing"] and flat["direction"] == "" and flat["threshold"] == 10
    assert flat["low"] == np.inf and flat["high"] == np.inf
    assert math.isfinite(row.loc["13-18", "slope"])
    assert row.loc["13-18", "direction"] == "below"
    for band in ("7-12", "25-31"):
        assert math.isnan(row.loc[band, "slope"]) and row.loc[band, "threshold"] == -1
        assert math.isnan(row.loc[band, "low"])
    assert row.loc["7-12", "positions"] == 12 and row.loc["7-12", "deals"] == 12


def test_a_band_of_gin_knocks_alone_or_no_knocks_at_all_gives_no_line():
    """A band whose only knocks are gin has no position in the model: no line and fit rows
    with 0 positions and no figure; no knock positions at all give empty tables with the
    tables' columns."""
    knocks = _knocks_at([(3, 0, 12, 20.0)])
    line, fit = knock_model(knocks, seed=1)
    assert len(line) == 1 and math.isnan(line["slope"].iloc[0]) and line["positions"].iloc[0] == 0
    assert len(fit) == 10 and (fit["positions"] == 0).all()
    assert fit[["cell_mean", "fitted", "residual_low", "residual_high"]].isna().all().all()
    line, fit = knock_model(knocks.iloc[:0], seed=1)
    assert len(line) == 0 and line.columns.tolist() == ["stock_band", *LINE_COLUMNS]
    assert len(fit) == 0 and fit.columns.tolist() == ["stock_band", *FIT_COLUMNS]


def test_every_deal_can_be_drawn_by_the_bootstrap():
    """The knock line's bootstrap resamples deals (clusters: a deal's rows go together, each
    row weighted by its ``weight``), and any deal can be drawn. One deal, weight 1, gain 5
    at deadwood 1: every resample is that deal, so its cell
    mean there is 5 in each (a summed weight of exactly 1 is a cell with a position);
    two deals with gains 0 and 10: resamples hold the first alone (mean 0), the second
    alone (10), or both (5)."""
    cell_w, cell_y = np.zeros((1, 10)), np.zeros((1, 10))
    cell_w[0, 0], cell_y[0, 0] = 1.0, 5.0
    _, _, mean = _resample(cell_w, cell_y, np.random.default_rng(0))
    assert (mean[:, 0] == 5.0).all() and np.isnan(mean[:, 1:]).all()
    two_w = np.zeros((2, 10))
    two_w[:, 0] = 1.0
    two_y = two_w * np.array([[0.0], [10.0]])
    _, _, mean = _resample(two_w, two_y, np.random.default_rng(0))
    assert set(mean[:, 0]) == {0.0, 5.0, 10.0}


def test_the_crossing_and_threshold_at_their_edges():
    """By hand (docstrings of ``_crossing`` and ``_threshold``): a falling resample against
    a rising line, 1 - 0.5 d, is below 0 at 5.5 (-1.75): it knocks nowhere, +inf for a
    rising line; -2.75 + 0.5 d is exactly 0 at 5.5, not above: knocks nowhere, -inf for a
    falling line; a flat 0 is not above 0 either: +inf for a rising line (never NaN). The
    threshold: -1 without a line (either figure missing); a flat fit is the limit if its
    gain is above 0, else 0 (never a division by its slope of 0); a rising line's mean
    fitted gain over 1 to 10 is a + 5.5 b: -2.9 + 2.75 < 0 gives 0, and exactly 0 (-2.75)
    is not above 0."""
    assert _crossing(np.array([1.0]), np.array([-0.5]), rising=True)[0] == np.inf
    assert _crossing(np.array([-2.75]), np.array([0.5]), rising=False)[0] == -np.inf
    assert _crossing(np.array([0.0]), np.array([0.0]), rising=True)[0] == np.inf
    assert _threshold(1.0, math.nan, 10) == -1 and _threshold(math.nan, -1.0, 10) == -1
    assert _threshold(2.0, 0.0, 10) == 10 and _threshold(-2.0, 0.0, 10) == 0
    assert _threshold(-2.9, 0.5, 10) == 0 and _threshold(-2.6, 0.5, 10) == 10
    assert _threshold(-2.75, 0.5, 10) == 0


def test_one_deadwood_fits_no_line_whatever_the_rounding():
    """Weights summing to 4074.07 at deadwood 10 alone: s0 * s2 - s1^2 is 0 exactly but
    2.4e-7 in floating point; that rounding is far below the tolerance (1e-9 of s0 * s2),
    so there is no line, as with any one deadwood."""
    w = np.zeros(10)
    w[9] = 3.3 * 1234.567
    s0, s1, s2 = w.sum(), (w * LINE_DEADWOOD).sum(), (w * LINE_DEADWOOD**2).sum()
    assert s0 * s2 - s1 * s1 != 0  # the rounding this test is about
    assert all(math.isnan(v) for v in _fit(w, w * 3.0))


def test_the_undercut_tables_without_knocks_and_at_the_thin_mark():
    """No knock made: every deadwood 0 to 10 has a row with 0 knocks, thin. 30 knocks (30
    deals, none undercut) are not thin, 29 are."""
    rows = _knock_rows().iloc[:0]
    rates = strong_undercut_rates(strong_knocks(rows), "knocker_deadwood")
    assert rates["knocker_deadwood"].tolist() == list(range(11))
    assert (rates["knocks"] == 0).all() and rates["thin"].all()
    many = pd.DataFrame(
        {"deal": range(59), "kind": "knock", "deadwood": [5] * 30 + [6] * 29,
         "stock_left": 20, "played": "knock 5H", "hand_points": 10, "weight": 1.0}
    )  # fmt: skip
    rates = strong_undercut_rates(strong_knocks(many), "knocker_deadwood").set_index(
        "knocker_deadwood"
    )
    assert rates.loc[5, "knocks"] == 30 and not rates.loc[5, "thin"]
    assert rates.loc[6, "knocks"] == 29 and rates.loc[6, "thin"]


def test_the_figures_refuse_unweighted_or_unevaluated_positions_in_one_sentence():
    knocks = _knocks_at([(20, 3, 2, 1.0)])
    with pytest.raises(ValueError) as error:
        knock_cells(knocks.drop(columns=["weight"]))
    assert str(error.value) == (
        "the positions have no weight column: they were sampled before decisions were kept "
        "with a known probability; build the dataset again"
    )
    with pytest.raises(ValueError) as error:
        knock_positions(knocks.drop(columns=["gain"]))
    assert str(error.value) == (
        "the positions were not evaluated: build them without --no-evaluate"
    )


def test_a_determinant_exactly_at_the_tolerance_fits_no_line():
    """``_fit``'s rule: a line needs the determinant s0 s2 - s1^2 above its tolerance, 1e-9
    of s0 s2 (floored at 1e-300); exactly at it there is no line, one unit of rounding
    above it there is. Weights P, Q, R times 2^-537 at deadwoods 1, 2, 3 make every sum an
    exact multiple of 2^-537 and every product an exact multiple of 2^-1074 (below 2^53 of
    them), so the determinant is exactly (P Q + 4 P R + Q R) 2^-1074; s0 s2 is below 1e-300,
    so the tolerance is 1e-9 * 1e-300, which is M 2^-1074 with M = P Q + 4 P R + Q R for the
    integers below (found by a search; the test checks the identity, not a stored result).
    The gains lie on 1 - d: with one more unit of weight at deadwood 1 the line is that."""
    unit = 2.0**-537
    tolerance = 1e-9 * 1e-300
    p, q, r = 7_346_435, 11_041_963, 3_000_002
    assert tolerance == (p * q + 4 * p * r + q * r) * 2.0**-1074  # exactly at the edge
    for extra, line in ((0, False), (1, True)):
        w = np.zeros(10)
        w[:3] = np.array([p + extra, q, r]) * unit
        s0, s1, s2 = w.sum(), (w * LINE_DEADWOOD).sum(), (w * LINE_DEADWOOD**2).sum()
        assert (s0 * s2 - s1 * s1 == tolerance) == (not line) and s0 * s2 < 1e-300
        a, b = _fit(w, w * (1.0 - LINE_DEADWOOD))
        if line:
            assert a == pytest.approx(1.0) and b == pytest.approx(-1.0)
        else:
            assert math.isnan(a) and math.isnan(b)


def test_the_knock_line_bootstrap_is_the_generators_stream_of_deal_draws():
    """An independent computation of ``_resample``: resample r is deals ``draws[r]`` of
    ``rng.integers(0, n, size=(LINE_RESAMPLES, n))`` (each of the n deals drawn with
    replacement, in the generator's order), its cell sums the counts of each deal times
    that deal's sums, and its line the weighted least squares of the cell means on the
    deadwood (numpy's lstsq with square-root weights). The batch of 100 resamples is a
    memory bound, not part of the figures: any batch draws the same resamples (numpy's
    generator keeps a leftover 32-bit half of a 64-bit word in its state from one call to
    the next, so 7 deals, an odd count, in odd batches continue the one stream), and a
    report's intervals follow from its seed alone."""
    rng = np.random.default_rng(41)
    n = 7
    cell_w = rng.choice([0.0, 1.0, 3.0], size=(n, 10))
    cell_y = cell_w * rng.normal(0.0, 5.0, size=(n, 10))
    a, b, mean = _resample(cell_w, cell_y, np.random.default_rng([5, 2]))
    draws = np.random.default_rng([5, 2]).integers(0, n, size=(1000, n))
    assert len(a) == len(draws)
    for batch in (1, 101, 1000):
        again = _resample(cell_w, cell_y, np.random.default_rng([5, 2]), batch=batch)
        assert all(
            np.array_equal(x, y, equal_nan=True) for x, y in zip(again, (a, b, mean), strict=True)
        )
    d = LINE_DEADWOOD.astype(float)
    for r in range(0, 1000, 37):  # every 37th resample, across the batches
        counts = np.bincount(draws[r], minlength=n).astype(float)
        w, y = counts @ cell_w, counts @ cell_y
        has = w > 0
        assert np.allclose(mean[r][has], y[has] / w[has]) and np.isnan(mean[r][~has]).all()
        if has.sum() >= 2:
            root = np.sqrt(w[has])
            design = np.stack([np.ones(has.sum()), d[has]], axis=1) * root[:, None]
            (a_r, b_r), *_ = np.linalg.lstsq(design, (y[has] / w[has]) * root, rcond=None)
            assert a[r] == pytest.approx(a_r) and b[r] == pytest.approx(b_r)


def test_the_check_splits_into_the_policies_and_the_worlds():
    """With ``rollout_gain`` (the search's policies from the real cards), the policies are
    play less rollouts and the worlds rollouts less search, each tested as the whole
    difference is (issue 47): hand-computed on the four positions of
    ``_hand_checked`` (search 0): play 1, 2, 3, 4 and rollouts 1, 1, 1, 1 give policies 0,
    1, 2, 3 (mean 1.5, flagged) and worlds 1, 1, 1, 1 (standard error 0: not flagged,
    detectable 0); rollouts 2, 1, 4, 3 give worlds with mean 2.5 and policies -1, 1, -1, 1
    (mean 0, not flagged). The parts sum to the whole; the columns are absent without
    rollouts."""
    positions, checked = _hand_checked([1.0, 2.0, 3.0, 4.0])
    plain = check_table(positions, checked)
    assert not any(c.startswith(("policies", "worlds", "rollout")) for c in plain.columns)
    se = math.sqrt(4 / 3 * 5 / 16)  # of 1, 2, 3, 4 (or any shift of it)
    detectable = (1.959963984540054 + 0.8416212335729143) * se
    row = check_table(positions, checked.assign(rollout_gain=1.0)).set_index("cell").iloc[0]
    assert row["rollout_mean"] == 1.0
    assert row["policies_mean"] == pytest.approx(1.5)
    assert row["policies_se"] == pytest.approx(se)
    assert row["policies_half_width"] == pytest.approx(Z95 * se)
    assert row["policies_low"] == pytest.approx(1.5 - Z95 * se)
    assert row["policies_detectable"] == pytest.approx(detectable)
    assert row["policies_flagged"]
    assert row["worlds_mean"] == 1.0 and row["worlds_se"] == 0.0
    assert row["worlds_detectable"] == 0.0 and not row["worlds_flagged"]
    assert row["difference_mean"] == pytest.approx(row["policies_mean"] + row["worlds_mean"])
    assert row["flagged"] and row["detectable"] == pytest.approx(detectable)
    other = checked.assign(rollout_gain=[2.0, 1.0, 4.0, 3.0])
    row = check_table(positions, other).set_index("cell").iloc[0]
    assert row["worlds_mean"] == pytest.approx(2.5) and row["worlds_flagged"]
    assert row["worlds_se"] == pytest.approx(se)
    assert row["policies_mean"] == pytest.approx(0.0) and not row["policies_flagged"]
    assert row["policies_se"] == pytest.approx(math.sqrt(4 / 3 * 4 / 16))
    assert row["policies_high"] == pytest.approx(Z95 * math.sqrt(4 / 3 * 4 / 16))
    # exactly these columns: each estimate's mean, half-width and bounds (its deal count
    # once, as ``checked``), the parts' standard errors, detectable sizes and flags
    estimates = ["mean", "half_width", "low", "high"]
    expected = {"cell", "cell_positions", "checked", "difference_se", "detectable", "flagged"}
    for label in ("table", "search", "play", "rollout", "difference", "policies", "worlds"):
        expected |= {f"{label}_{k}" for k in estimates}
    for label in ("policies", "worlds"):
        expected |= {f"{label}_se", f"{label}_detectable", f"{label}_flagged"}
    assert set(check_table(positions, other).columns) == expected
