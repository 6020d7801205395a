"""Equity figures pinned by properties, not by today's output (issue 27, part 1; docs/testing.md).

Each test states a property that a plausible wrong change breaks: the hand outcomes read
from seats whose players are known by construction (who won, who dealt); the match model's
interval holds the uncertainty of the measured decks, not only the Monte Carlo error.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pytest

from gin_sim.experiments.equity import (
    HEAT_CELLS,
    Z95,
    HandOutcomes,
    ModelRun,
    _agreement,
    _columns,
    heat_table,
    measure_outcomes,
    model_interval,
    model_matches,
    scaled_start,
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
    # the net tally: the variance of one match's tally over the matches, plus the spread
    net, net_low, net_high = run.net_tally()
    net_spread = float(np.var(run.net[1:, 0], ddof=1))
    assert net == run.net[0, 0]
    assert (net_high - net_low) / 2 == pytest.approx(
        Z95 * math.sqrt(run.net[0, 1] / run.matches + net_spread)
    )


def _tiny_outcomes() -> HandOutcomes:
    """Three decks, win points (10, 25): deck 0 is won by me for 25 when I deal and nobody
    scores when the opponent deals; deck 1 the opponent wins 10 under either dealer; deck
    2 I win 10 when I deal, the opponent 25 when it deals."""
    codes = np.array([[1, -1], [2, 2], [0, 3]], np.int64)  # winner * 2 + k
    return HandOutcomes(RULES, parse_players("simple,simple"), np.array([10, 25]), codes)


def test_hand_probabilities_and_summary_by_hand():
    outcomes = _tiny_outcomes()
    prob = outcomes.win_prob()
    assert prob[0] == pytest.approx(np.array([[1 / 3, 1 / 3], [1 / 3, 0.0]]))
    assert prob[1] == pytest.approx(np.array([[0.0, 0.0], [1 / 3, 1 / 3]]))
    # deck 0 drawn twice, deck 1 never, deck 2 once
    weighted = outcomes.win_prob(np.array([2.0, 0.0, 1.0]))
    assert weighted[0] == pytest.approx(np.array([[1 / 3, 2 / 3], [0.0, 0.0]]))
    assert weighted[1] == pytest.approx(np.array([[0.0, 0.0], [0.0, 1 / 3]]))
    summary = outcomes.summary().set_index("dealer")
    assert summary.loc["me", "me wins"] == pytest.approx(2 / 3)
    assert summary.loc["me", "me mean points"] == pytest.approx(17.5)
    assert summary.loc["me", "opponent mean points"] == pytest.approx(10.0)
    assert summary.loc["opponent", "nobody scores"] == pytest.approx(1 / 3)
    assert np.isnan(summary.loc["opponent", "me mean points"])
    assert summary.loc["opponent", "opponent wins"] == pytest.approx(2 / 3)


def test_a_resample_draws_as_many_decks_as_there_are():
    outcomes = _tiny_outcomes()
    rng = np.random.default_rng(1)
    for _ in range(20):
        weights = outcomes.resample(rng)
        assert weights.shape == (3,) and weights.sum() == 3 and (weights >= 0).all()
    draws = np.array([outcomes.resample(rng) for _ in range(3000)])
    assert draws.mean(axis=0) == pytest.approx([1.0, 1.0, 1.0], abs=0.06)


def test_a_model_cell_agrees_with_direct_play_when_the_difference_is_inside_both_errors():
    """Hand-computed: model 0.50 (0.45 to 0.55), direct 0.58 (0.50 to 0.66): the half
    widths 0.05 and 0.08 add to hypot = 0.0943, so a difference of 0.08 agrees; direct 0.60
    (0.52 to 0.68) differs by 0.10 and does not."""
    start = MatchStart(format="game", points=((40, 0, 0), (80, 0, 0)))
    model = {"equity": 0.5, "low": 0.45, "high": 0.55}
    near = _agreement(start, "me", model, (0.58, 0.50, 0.66), 500)
    assert near["difference"] == pytest.approx(0.08)
    assert near["difference half width"] == pytest.approx(math.hypot(0.05, 0.08))
    assert near["agrees"] and near["start"] == "40:80" and near["played"] == 500
    far = _agreement(start, "opponent", model, (0.60, 0.52, 0.68), 500)
    assert not far["agrees"] and far["dealer"] == "opponent"
    # a difference exactly at the combined half width agrees (the interval's ends are in
    # it): 3/32 and 4/32 make 5/32, all exact in binary
    model = {"equity": 0.5, "low": 0.40625, "high": 0.59375}
    edge = _agreement(start, "me", model, (0.65625, 0.53125, 0.78125), 500)
    assert edge["difference"] == edge["difference half width"] == 0.15625 and edge["agrees"]
    assert (edge["model"], edge["model low"], edge["model high"]) == (0.5, 0.40625, 0.59375)
    assert (edge["direct"], edge["direct low"], edge["direct high"]) == (0.65625, 0.53125, 0.78125)


def test_states_written_for_100_scale_to_the_target():
    rules = load_rules("hollywood")
    big = replace(rules, game_target=250)
    start = scaled_start("90:60,60:30,30:0", "hollywood", 1, big)
    assert start.points == ((225, 150, 75), (150, 75, 0)) and start.first_dealer == 0
    assert _columns(start) == "225:150,150:75,75:0"
    assert scaled_start("50:95", "game", 2, rules).points[1][0] == 95


def test_the_heat_table_reads_each_cell_of_the_visits():
    """One cell reached by 10 matches under the measured distribution (6 won) and by 8 and
    12 under two resamples (4 and 9 won): equity 0.6, interval from the Monte Carlo variance
    0.6 * 0.4 / 10 plus the spread of 0.5 and 0.75; a cell a resample never reaches has no
    interval; the cells are a tenth of the target apart."""
    visits = np.zeros((3, 3, 2, HEAT_CELLS, HEAT_CELLS), np.int64)
    visits[:, 1, 0, 2, 3] = [10, 8, 12]
    visits[:, 1, 1, 2, 3] = [6, 4, 9]
    visits[:, 1, 0, 4, 4] = [5, 0, 3]
    visits[:, 1, 1, 4, 4] = [5, 0, 3]
    run = ModelRun(MatchStart(), 100, np.zeros(3), np.zeros((3, 2)), visits)
    table = heat_table(run, 1, 100).set_index(["me", "opponent"])
    cell = table.loc[(20, 30)]
    half = Z95 * math.sqrt(0.6 * 0.4 / 10 + np.var([0.5, 0.75], ddof=1))
    assert cell["equity"] == pytest.approx(0.6) and cell["matches"] == 10
    assert (cell["low"], cell["high"]) == pytest.approx((0.6 - half, 0.6 + half))
    unreached = table.loc[(40, 40)]
    assert unreached["equity"] == 1.0 and np.isnan(unreached["low"]) and np.isnan(unreached["high"])
    assert np.isnan(table.loc[(0, 0), "equity"]) and table.loc[(0, 0), "matches"] == 0
    assert len(table) == HEAT_CELLS * HEAT_CELLS
    assert heat_table(run, 0, 100)["matches"].sum() == 0
    # a cell reached once under the measured distribution and once by a resample still has
    # its share and an interval: won 1 of 1, then 1 of 2 and 0 of 1
    visits[:, 1, 0, 5, 6] = [1, 2, 1]
    visits[:, 1, 1, 5, 6] = [1, 1, 0]
    once = heat_table(run, 1, 100).set_index(["me", "opponent"]).loc[(50, 60)]
    half = Z95 * math.sqrt(0.0 + np.var([0.5, 0.0], ddof=1))
    assert once["equity"] == 1.0 and once["matches"] == 1
    assert (once["low"], once["high"]) == pytest.approx((1.0 - half, 1.0 + half))
    # the cells are a tenth of the target apart, rounded up, and at least 1 point
    assert heat_table(run, 1, 105).set_index(["me", "opponent"]).loc[(22, 33), "matches"] == 10
    assert heat_table(run, 1, 10).set_index(["me", "opponent"]).loc[(2, 3), "matches"] == 10


def test_the_study_is_its_parts_from_the_same_outcomes_and_streams(monkeypatch):
    """``equity_study`` only assembles: its game table is ``game_equity`` of its outcomes,
    each validated game cell is ``direct_games`` from that cell's start on its own range of
    games, each match state is ``model_matches`` from that state with each dealer, and each
    validated state is played on the range after the game cells'. Recomputed here from the
    public parts, with small counts."""
    from gin_sim.experiments import equity

    for name, value in (("STATE_MATCHES", 300), ("HEAT_MATCHES", 600), ("MODEL_REPLICATES", 2),
                        ("REPLICATE_MATCHES", 100), ("GAME_REPLICATES", 3)):  # fmt: skip
        monkeypatch.setattr(equity, name, value)
    players = parse_players("basic,simple")
    steps = []
    study = equity.equity_study(RULES, players, 150, 4, 3, 8, on_step=steps.append)
    assert sum(steps) == equity.study_steps(4, 3) == 3 + len(equity.GAME_CELLS) + 3
    assert study.outcomes.decks == 150
    assert np.array_equal(study.outcomes.codes, measure_outcomes(RULES, players, 150, 8).codes)
    game = equity.game_equity(study.outcomes, 3, 8)
    assert study.game.equals(game)
    table = game.set_index(["me", "opponent", "dealer"])
    assert len(study.game_validation) == len(equity.GAME_CELLS)
    for index, (me, opponent, dealer) in enumerate(equity.GAME_CELLS):
        row = study.game_validation.iloc[index]
        start = scaled_start(f"{me}:{opponent}", "game", equity.DEALERS.index(dealer) + 1, RULES)
        direct = equity.direct_games(RULES, players, start, 4, 8, index * 4)
        cell = table.loc[(me, opponent, dealer)]
        assert (row["start"], row["dealer"], row["played"]) == (f"{me}:{opponent}", dealer, 4)
        assert (row["direct"], row["direct low"], row["direct high"]) == pytest.approx(direct)
        assert (row["model"], row["model low"], row["model high"]) == pytest.approx(
            (cell["equity"], cell["low"], cell["high"])
        )
    states = study.match_states
    assert len(states) == 2 * len(equity.MATCH_STATES)
    for (name, text), dealer in ((equity.MATCH_STATES[0], 1), (equity.MATCH_STATES[4], 2)):
        start = scaled_start(text, "hollywood", dealer, RULES)
        row = states[(states["state"] == name) & (states["dealer"] == equity.DEALERS[dealer - 1])]
        run = model_matches(study.outcomes, start, 300, 8, 2, 100)
        assert row[["equity", "low", "high"]].iloc[0].tolist() == pytest.approx(run.equity())
        assert row[["net tally", "net low", "net high"]].iloc[0].tolist() == pytest.approx(
            run.net_tally()
        )
        assert row["start"].iloc[0] == _columns(start)
        # the joint table answers the same question from the same outcomes, by dynamic
        # programming: within the model matches' sampling error (300 matches)
        p = run.equity()[0]
        assert abs(row["joint table"].iloc[0] - p) < 4 * math.sqrt(p * (1 - p) / 300) + 0.02
    assert study.match_validation["state"].tolist() == [
        equity.MATCH_STATES[i][0] for i in equity.VALIDATED_STATES
    ]
    base = len(equity.GAME_CELLS) * 4
    for index, row in zip(
        equity.VALIDATED_STATES, study.match_validation.itertuples(), strict=True
    ):
        start = scaled_start(equity.MATCH_STATES[index][1], "hollywood", 1, RULES)
        direct = equity.direct_games(RULES, players, start, 3, 8, base + index * 3)
        assert row.direct == pytest.approx(direct[0]) and row.played == 3
    heat = study.match_heat
    assert set(heat["phase"]) == set(equity.HEAT_PHASES)
    assert len(heat) == len(equity.HEAT_PHASES) * HEAT_CELLS * HEAT_CELLS
    start_cell = heat[
        (heat["phase"] == equity.HEAT_PHASES[0]) & (heat["me"] == 0) & (heat["opponent"] == 0)
    ]
    assert start_cell["matches"].iloc[0] == 600  # every match starts in the first cell
