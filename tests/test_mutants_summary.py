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
    assert math.isnan(none.half_width) and math.isnan(none.variance) and one.n == 1
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
    # every figure, rates included, is paired the same way
    assert {e.n for e in mine.values()} == {2}
    assert {e.n for e in player_summary(hands, 0, paired=False).values()} == {4}
    per_deck = np.array([12 + 31, -14]) / 2.0
    expected = Estimate.of(per_deck * 2, [2.0, 2.0])
    assert mine["net points per hand"].variance == pytest.approx(expected.variance)


# Six hands from three decks, each deck twice with the seats swapped. Deck 0 and deck 1 as
# in ``_duplicate_hands`` but deck 1's replay is a wall draw (R18); deck 2: a knock that
# ties and scores nothing (R17 without undercut_on_tie: a knocker, no winner, no draw),
# then an upcard-cap draw (R18a).
def _hands_with_draws() -> pd.DataFrame:
    return pd.DataFrame(
        {"deal": [0, 0, 1, 1, 2, 2], "swapped": [False, True] * 3,
         "winner": [0, 1, 1, -1, -1, -1], "knocker": [0, 1, 0, -1, 0, -1],
         "points": [12, 31, 14, 0, 0, 0],
         "gin": [False, True, False, False, False, False],
         "undercut": [False, False, True, False, False, False],
         "first_upcard_taker": [0, -1, 1, 0, -1, 1],
         "draw": [False, False, False, True, False, True],
         "draw_reason": [0, 0, 0, 1, 0, 2],
         "turns": [10, 8, 12, 30, 14, 100], "stock_left": [20, 22, 16, 2, 10, 25]}
    )  # fmt: skip


def _ratio_variance(num, den) -> float:
    """The delta-method variance of sum(num) / sum(den) over independent units, written
    out: n / (n - 1) * sum((num - ratio den)^2) / sum(den)^2."""
    num, den = np.asarray(num, float), np.asarray(den, float)
    ratio = num.sum() / den.sum()
    return len(num) / (len(num) - 1) * ((num - ratio * den) ** 2).sum() / den.sum() ** 2


def test_hand_figures_count_each_kind_of_draw_by_hand():
    """Of the six hands: 2 draws (one wall, R18; one upcard cap, R18a), 1 scoreless tie
    (knocker 0, no winner, R17), turns 174 / 6 = 29, stock left 95 / 6; paired by deck the
    units are the 3 decks, unpaired the 6 hands."""
    from gin_sim.experiments.summary import hand_summary

    hands = _hands_with_draws()
    figures = hand_summary(hands)
    assert figures["draws"].mean == pytest.approx(2 / 6)
    assert figures["wall draws (R18)"].mean == pytest.approx(1 / 6)
    assert figures["upcard-cap draws (R18a)"].mean == pytest.approx(1 / 6)
    assert figures["scoreless ties (R17)"].mean == pytest.approx(1 / 6)
    assert figures["turns"].mean == pytest.approx(29.0)
    assert figures["stock left"].mean == pytest.approx(95 / 6)
    assert {e.n for e in figures.values()} == {3}
    # two wall draws and no upcard-cap draw: the kinds are told apart by draw_reason
    walls = hand_summary(hands.assign(draw_reason=[0, 0, 0, 1, 0, 1]))
    assert walls["wall draws (R18)"].mean == pytest.approx(2 / 6)
    assert walls["upcard-cap draws (R18a)"].mean == 0.0
    assert {e.n for e in hand_summary(hands, paired=False).values()} == {6}
    # paired: the deck's two hands are one unit (turns per deck 18, 42, 114 over 2 hands)
    assert figures["turns"].variance == pytest.approx(_ratio_variance([18, 42, 114], [2, 2, 2]))


def test_a_head_to_head_summary_adds_up_chunk_by_chunk_to_the_whole():
    """``HeadToHead`` holds sums: a summary of the first deck plus one of the other two (and
    an empty summary, where the command starts) has every figure of the summary of all
    six hands, and those are ``player_summary``'s and ``hand_summary``'s."""
    from gin_sim.experiments.summary import HeadToHead, hand_summary

    hands = _hands_with_draws()
    whole = HeadToHead.of(hands)
    chunks = HeadToHead() + HeadToHead.of(hands.iloc[:2]) + HeadToHead.of(hands.iloc[2:])
    assert (whole.hands, whole.decks, whole.duplicate) == (6, 3, True)
    assert (chunks.hands, chunks.decks, chunks.duplicate) == (6, 3, True)
    assert not HeadToHead().duplicate
    for player in (0, 1):
        expected = player_summary(hands, player)
        for summary in (whole, chunks):
            got = summary.player(player)
            assert list(got) == list(expected)
            for name, estimate in expected.items():
                # player 1 never knocks: its undercut rate per knock is NaN
                assert got[name].mean == pytest.approx(estimate.mean, nan_ok=True), name
                assert got[name].variance == pytest.approx(estimate.variance, nan_ok=True)
                assert got[name].n == estimate.n
    for summary in (whole, chunks):
        overall = summary.overall()
        for name, estimate in hand_summary(hands).items():
            assert overall[name].mean == pytest.approx(estimate.mean), name
            assert overall[name].n == estimate.n
    assert chunks.variance_reduction() == pytest.approx(whole.variance_reduction())
    # an empty summary adds nothing on either side
    for summary in (whole + HeadToHead(), HeadToHead() + whole):
        assert (summary.hands, summary.decks, summary.duplicate) == (6, 3, True)
        assert summary.players == whole.players and summary.all_hands == whole.all_hands


def test_the_variance_reduction_compares_decks_with_hands_as_units():
    """Player 0's net points by hand are 12, 31, -14, 0, 0, 0 (its seat swaps with the
    replay); by deck 43, -14, 0 over 2 hands each. The reduction is 1 - paired variance /
    unpaired variance, both written out by hand; with no spread (all draws) it is NaN."""
    from gin_sim.experiments.summary import HeadToHead

    hands = _hands_with_draws()
    paired = _ratio_variance([43, -14, 0], [2, 2, 2])
    unpaired = _ratio_variance([12, 31, -14, 0, 0, 0], [1] * 6)
    summary = HeadToHead.of(hands)
    assert summary.variance_reduction() == pytest.approx(1 - paired / unpaired)
    assert summary.players[0]["net points per hand"].estimate().mean == pytest.approx(29 / 6)
    # a variance under 1 (as every large run's is) still gives a reduction: points of 1
    small = hands.assign(points=[1, 1, 1, 0, 0, 0])
    paired = _ratio_variance([2, -1, 0], [2, 2, 2])
    unpaired = _ratio_variance([1, 1, -1, 0, 0, 0], [1] * 6)
    assert unpaired < 1
    assert HeadToHead.of(small).variance_reduction() == pytest.approx(1 - paired / unpaired)
    drawn = hands.assign(winner=-1, knocker=-1, points=0, draw=True)
    assert math.isnan(HeadToHead.of(drawn).variance_reduction())


def test_the_head_to_head_json_names_each_player_and_reports_pairing_only_when_paired():
    from gin_sim.experiments.summary import HeadToHead, is_duplicate

    hands = _hands_with_draws()
    document = HeadToHead.of(hands).to_json(("first", "second"))
    assert (document["hands"], document["decks"], document["duplicate"]) == (6, 3, True)
    assert [p["player"] for p in document["players"]] == [0, 1]
    assert [p["strategy"] for p in document["players"]] == ["first", "second"]
    # player 0 won rows 0 and 1, player 1 row 2
    assert document["players"][0]["hands won"]["mean"] == pytest.approx(2 / 6)
    assert document["players"][1]["hands won"]["mean"] == pytest.approx(1 / 6)
    assert document["all hands"]["draws"]["mean"] == pytest.approx(2 / 6)
    assert document["variance_reduction"] == pytest.approx(
        HeadToHead.of(hands).variance_reduction()
    )
    # played once per deck (no replay with the seats swapped): nothing to pair
    single = hands.drop(columns=["swapped"]).assign(deal=range(6))
    assert not is_duplicate(single) and not is_duplicate(single.assign(swapped=False))
    assert is_duplicate(hands)
    plain = HeadToHead.of(single).to_json(("first", "second"))
    assert plain["duplicate"] is False and "variance_reduction" not in plain
    assert plain["decks"] == 6
    # each player's figures are its own when unpaired too: without the replay player 0
    # sits in seat 0 throughout and won row 0, player 1 rows 1 and 2
    assert [p["hands won"]["mean"] for p in plain["players"]] == pytest.approx([1 / 6, 2 / 6])


def test_a_paired_difference_is_the_net_change_deck_by_deck():
    """The second run differs in three hands: player 0 won 20 instead of 12 (deck 0), its
    opponent won 25 instead of 31 after the seats swapped (player 0 is in seat 1 there and
    won them: -6), and player 0 lost 10 instead of 14 (deck 1). First minus second by deck:
    (12 - 20) + (31 - 25) = -2, -14 + 10 = -4, 0, over 2 hands each: mean -1."""
    from gin_sim.experiments.summary import paired_difference

    first = _hands_with_draws()
    second = first.assign(points=[20, 25, 10, 0, 0, 0])
    difference = paired_difference(first, second)
    assert difference.mean == pytest.approx(-1.0) and difference.n == 3
    assert difference.variance == pytest.approx(_ratio_variance([-2, -4, 0], [2, 2, 2]))
    # antisymmetric in the runs and in the players; a run against itself changes nothing
    assert paired_difference(second, first).mean == pytest.approx(1.0)
    assert paired_difference(first, second, player=1).mean == pytest.approx(1.0)
    same = paired_difference(first, first)
    assert same.mean == 0.0 and same.variance == 0.0
    message = "^paired comparison needs two runs over the same decks with the same play mode$"
    with pytest.raises(ValueError, match=message):
        paired_difference(first, second.iloc[:4])  # deck 2 missing
    with pytest.raises(ValueError, match=message):
        paired_difference(first, second.drop(index=5))  # deck 2 played once


def test_a_paired_difference_counts_a_hand_nobody_won_as_0():
    """Outcomes change between the runs: player 0's lost hand (-14, deck 1) becomes a draw
    (0), and deck 2's scoreless tie (0) a win of 5. First minus second: 0, -14, -5 by
    deck, mean -19 / 6; a hand that is neither won nor lost counts 0 in either run."""
    from gin_sim.experiments.summary import paired_difference

    first = _hands_with_draws()
    second = first.copy()
    second.loc[2, ["winner", "knocker", "points", "undercut", "draw"]] = [-1, -1, 0, False, True]
    second.loc[4, ["winner", "points"]] = [0, 5]
    difference = paired_difference(first, second)
    assert difference.mean == pytest.approx(-19 / 6)
    assert difference.variance == pytest.approx(_ratio_variance([0, -14, -5], [2, 2, 2]))


def test_rates_print_as_percentages_and_other_figures_as_numbers():
    """The rows that are shares of hands (or of knocks) print in percent with 2 decimals;
    means of points, turns and cards print with 3 decimals."""
    from gin_sim.experiments.summary import format_estimate

    estimate = Estimate(0.1234, 0.0456, 10, 0.001)
    rates = [
        "hands won", "knock rate", "gin rate", "undercut rate (per knock)", "undercuts made",
        "upcard taken on offer", "draws", "wall draws (R18)", "upcard-cap draws (R18a)",
        "scoreless ties (R17)",
    ]  # fmt: skip
    for name in rates:
        assert format_estimate(name, estimate) == "12.34% ± 4.56", name
    for name in ("points per hand", "net points per hand", "turns", "stock left"):
        assert format_estimate(name, estimate) == "0.123 ± 0.046", name


# Four match records: matches 0 and 1, each played twice with the seats swapped. Seat by
# seat: game winners, games won, running points and final tallies (R23 bonuses in some).
def _matches() -> pd.DataFrame:
    rows = [
        # match, swapped, winner, game winners, games won, points0, points1, tally0, tally1, hands, draws
        (0, False, 0, (0, 0, 1), (2, 1), (100, 110, 40), (0, 50, 105), (150, 160, 40), (0, 50, 155), 20, 1),
        (0, True, 1, (1, 1, -1), (0, 2), (30, 0, 20), (104, 100, 60), (30, 0, 20), (154, 150, 60), 15, 0),
        (1, False, -1, (1, -1, -1), (0, 1), (60, 70, 10), (101, 80, 90), (60, 70, 10), (101, 80, 90), 500, 3),
        (1, True, 1, (0, 1, 1), (1, 2), (100, 0, 0), (0, 100, 105), (200, 0, 0), (0, 150, 155), 25, 2),
    ]  # fmt: skip
    records = []
    for match, swapped, winner, games, won, p0, p1, t0, t1, hands, draws in rows:
        record = {"match": match, "swapped": swapped, "winner": winner,
                  "games_won0": won[0], "games_won1": won[1], "hands": hands, "draws": draws}  # fmt: skip
        for g in (1, 2, 3):
            record |= {f"game{g}_winner": games[g - 1], f"points0_game{g}": p0[g - 1],
                       f"points1_game{g}": p1[g - 1], f"tally0_game{g}": t0[g - 1],
                       f"tally1_game{g}": t1[g - 1]}  # fmt: skip
        records.append(record)
    return pd.DataFrame.from_records(records)


def test_match_figures_follow_the_players_seat_by_hand():
    """Player 0 sits in seat 0, then seat 1 in each replay. It wins matches 0 (seat 0),
    0 again (seat 1) and 1's replay (seat 1): 3 of 4; games 1: 2 of 4, 2: 3 of 4, 3: 1 of
    4; games won 2 + 2 + 0 + 2 = 6; shutouts (a game won with the opponent on 0 points):
    game 1 of the first record, game 2 of the second, games 2 and 3 of the fourth: 4 in
    4 records (a game won against some points is none: the first record's game 2, the
    second's game 1); margins (own final tally minus the opponent's) game 1: 150, 124,
    -41, -200; game 2: 110, 150, -10, 150; game 3: -115, 40, -80, 155."""
    from gin_sim.experiments.summary import match_summary

    matches = _matches()
    mine = match_summary(matches, 0)
    assert mine["matches won"].mean == 0.75
    assert [mine[f"game {g} won"].mean for g in (1, 2, 3)] == [0.5, 0.75, 0.25]
    assert mine["games won per match"].mean == 1.5
    assert mine["shutouts per match"].mean == 1.0
    margins = {1: [150, 124, -41, -200], 2: [110, 150, -10, 150], 3: [-115, 40, -80, 155]}
    for g, values in margins.items():
        assert mine[f"game {g} margin"].mean == pytest.approx(np.mean(values))
    # the two plays of a match are one unit when paired
    assert {e.n for e in mine.values()} == {2}
    assert {e.n for e in match_summary(matches, 0, paired=False).values()} == {4}
    paired = _ratio_variance([150 + 124, -41 - 200], [2, 2])
    assert mine["game 1 margin"].variance == pytest.approx(paired)
    # player 1 wins no match (one is unfinished); its margins are player 0's negated
    theirs = match_summary(matches, 1)
    assert theirs["matches won"].mean == 0.0
    assert [theirs[f"game {g} won"].mean for g in (1, 2, 3)] == [0.5, 0.0, 0.25]
    assert theirs["games won per match"].mean == pytest.approx((1 + 0 + 1 + 1) / 4)
    assert theirs["shutouts per match"].mean == 0.25  # game 1 of the fourth record
    for g in (1, 2, 3):
        assert theirs[f"game {g} margin"].mean == pytest.approx(-mine[f"game {g} margin"].mean)


def test_margin_quantiles_and_match_length_by_hand():
    """Quantiles of the margins listed above (numpy's default interpolation) per game;
    hands per match (20 + 15 + 500 + 25) / 4 = 140, drawn or scoreless hands 6 / 4, one
    unfinished match of 4; the JSON keeps the old key with the same figure."""
    from gin_sim.experiments.summary import margin_quantiles, match_length, match_summary_json

    matches = _matches()
    table = margin_quantiles(matches, 0)
    assert list(table.index) == ["game 1", "game 2", "game 3"]
    assert list(table.columns) == ["10%", "25%", "50%", "75%", "90%"]
    assert table.loc["game 1", "50%"] == pytest.approx((124 - 41) / 2)
    assert table.loc["game 3"].tolist() == pytest.approx(
        np.quantile([-115, 40, -80, 155], [0.1, 0.25, 0.5, 0.75, 0.9]).tolist()
    )
    assert margin_quantiles(matches, 1).loc["game 2", "50%"] == pytest.approx(-130.0)
    length = match_length(matches)
    assert length["hands per match"].mean == 140.0
    assert length["drawn or scoreless hands per match"].mean == 1.5
    assert length["unfinished matches"].mean == 0.25
    assert {e.n for e in length.values()} == {2}
    assert {e.n for e in match_length(matches, paired=False).values()} == {4}
    document = match_summary_json(matches, ("first", "second"))
    assert (document["matches"], document["played"], document["duplicate"]) == (2, 4, True)
    assert [p["strategy"] for p in document["players"]] == ["first", "second"]
    assert [p["player"] for p in document["players"]] == [0, 1]
    assert document["players"][0]["matches won"]["mean"] == 0.75
    assert document["players"][1]["game 3 won"]["mean"] == 0.25
    assert document["players"][0]["margin quantiles"]["game 1"]["50%"] == pytest.approx(41.5)
    assert document["length"]["hands per match"]["mean"] == 140.0
    assert (
        document["length"]["drawn hands per match"]
        == document["length"]["drawn or scoreless hands per match"]
    )
    assert document["length"]["drawn hands per match"]["mean"] == 1.5


def test_figures_of_narrow_integer_record_columns_are_computed_in_floats():
    """The record stores ``stock_left`` as int8 and ``turns`` and ``points`` as int16
    (``HAND_RECORD``): their squares (31² = 961, 300² = 90,000) do not fit those types, so
    the sums behind a variance must be taken in floats. Unpaired (each hand a unit), the
    variance of stock left, turns and points is the plain one, written out; and the
    moments of any integer arrays are those of the same numbers as floats."""
    from gin_sim.experiments.summary import hand_summary
    from gin_sim.game.records import HAND_RECORD

    hands = _hands_with_draws().assign(
        stock_left=[31, 30, 2, 29, 0, 25], turns=[300, 8, 250, 30, 14, 100],
        points=[120, 200, 14, 0, 0, 0],
    )  # fmt: skip
    hands = hands.astype(
        {name: HAND_RECORD[name] for name in hands.columns if name in HAND_RECORD.names}
    )
    assert hands["stock_left"].dtype == np.int8 and hands["turns"].dtype == np.int16
    figures = hand_summary(hands, paired=False)
    for name, column in (("stock left", "stock_left"), ("turns", "turns")):
        values = hands[column].to_numpy(float)
        assert figures[name].variance == pytest.approx(_ratio_variance(values, np.ones(6)))
    won = player_summary(hands, 0, paired=False)["points per hand"]
    assert won.variance == pytest.approx(_ratio_variance([120, 200, 0, 0, 0, 0], np.ones(6)))
    num, den = np.array([100, 120, -90], np.int8), np.array([110, 127, 100], np.int8)
    assert Moments.of(num, den) == Moments.of(num.astype(float), den.astype(float))


def test_wilson_ends_are_exact_at_0_and_1_and_inside_0_1_near_them():
    """At a rate of 0 the lower end is 0, at 1 the upper end is 1, exactly (the formula
    gives 0 and 1 up to rounding: 0 of 3 computes to 5.5e-17, 10 of 10 to 1 - 1.1e-16);
    a rate a rounding error away from 0 or 1 still has its interval inside [0, 1] (7 of 7
    less 1e-9 computes to just over 1); more successes than trials (a weighted count
    rounded up) count as a rate of 1; no trials, no interval."""
    for trials in (3, 6, 7, 12):
        assert wilson_interval(0, trials)[0] == 0.0
    for trials in (10, 13, 25, 27):
        assert wilson_interval(trials, trials)[1] == 1.0
    for successes, trials in ((6.999999999, 7), (11.999999999999988, 12), (5e-15, 5)):
        low, high = wilson_interval(successes, trials)
        assert 0.0 <= low <= successes / trials <= high <= 1.0
    assert wilson_interval(5.000001, 5) == wilson_interval(5, 5)
    assert all(math.isnan(end) for end in wilson_interval(0, 0))
    assert all(math.isnan(end) for end in wilson_interval(0.0, 0.0))


def test_a_rate_without_spread_uses_the_trials_it_is_given():
    """The effective trials ``p(1 - p) / variance`` say nothing at a rate of 0 or 1 or
    at no variance (every deck with the same rate: 2 undercuts in 4 knocks, deck by
    deck 1 of 2): then the interval is Wilson's at the trials given, whatever the
    variance of the estimate."""
    assert rate_interval(Estimate(1.0, 0.1, 5, 0.01), trials=5) == wilson_interval(5, 5)
    assert rate_interval(Estimate(0.0, 0.1, 5, 0.01), trials=5) == wilson_interval(0, 5)
    same = Estimate.of([1.0, 1.0], [2.0, 2.0])
    assert same.mean == 0.5 and same.variance == 0.0
    assert rate_interval(same, trials=4) == pytest.approx(wilson_interval(2, 4))
