"""Equity figures pinned by properties, not by today's output (issue 27, part 1; docs/testing.md).

Each test states a property that a plausible wrong change breaks: the hand outcomes read
from seats whose players are known by construction (who won, who dealt); the match model's
interval holds the uncertainty of the measured decks, not only the Monte Carlo error.
"""

from __future__ import annotations

import math
from dataclasses import replace

import numpy as np
import pandas as pd
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


def _played(rows: list[tuple[int, bool, int, int, int]]) -> pd.DataFrame:
    """A head-to-head frame as ``simulate.head_to_head`` gives it: (deal, swapped, dealer
    seat, winner seat or -1, points) per hand."""
    return pd.DataFrame(rows, columns=["deal", "swapped", "dealer", "winner", "points"])


@pytest.mark.parametrize(
    ("rows", "win_points", "codes"),
    [
        # Worked by hand. Deck 0: "me" (players[0]) in seat 0 deals, seat 1 (the opponent)
        # wins 25; swapped, "me" in seat 1 and seat 0 (the opponent) deals: drawn (R18,
        # nobody scores). Deck 1: seat 1 (the opponent) deals, seat 0 ("me") wins 25;
        # swapped, "me" in seat 1 deals and wins 10. The winning scores are 10 and 25, so
        # a code is winner * 2 + (0 for 10, 1 for 25), -1 for the drawn hand.
        (
            [(0, False, 0, 1, 25), (0, True, 0, -1, 0), (1, False, 1, 0, 25), (1, True, 1, 1, 10)],
            [10, 25],
            [[1 * 2 + 1, -1], [0 * 2 + 0, 0 * 2 + 1]],
        ),
        # A single winning score: codes are the winner alone (K = 1), the drawn hand -1.
        # Deck 0: seat 1 (the opponent) deals and wins; swapped, seat 1 is "me", deals and
        # wins. Deck 1: "me" in seat 0 deals, drawn; swapped, seat 0 (the opponent) deals
        # and wins.
        (
            [(0, False, 1, 1, 25), (0, True, 1, 1, 25), (1, False, 0, -1, 0), (1, True, 0, 0, 25)],
            [25],
            [[0, 1], [-1, 1]],
        ),
        # Every hand drawn: nobody ever scores, one placeholder score of 0, every code -1.
        (
            [(0, False, 0, -1, 0), (0, True, 0, -1, 0)],
            [0],
            [[-1, -1]],
        ),
    ],
)
def test_outcome_codes_of_hands_worked_by_hand_drawn_hands_included(
    monkeypatch, rows, win_points, codes
):
    """``measure_outcomes`` on a made-up head-to-head frame: who won (by player, not seat),
    who dealt, the points as an index into the winning scores, and a drawn hand (R18) as
    -1 whatever the seats. No test deck of real play holds a drawn hand."""
    from gin_sim.experiments import equity

    monkeypatch.setattr(equity, "head_to_head", lambda *args, **kwargs: _played(rows))
    players = parse_players("expert,simple")
    outcomes = measure_outcomes(RULES, players, len(codes), 0)
    assert outcomes.players == players  # the outcomes say whose they are, "me" first
    assert outcomes.win_points.tolist() == win_points
    assert outcomes.win_points.dtype == np.int64 and outcomes.codes.dtype == np.int64
    assert outcomes.codes.tolist() == codes


def test_a_deck_without_a_hand_for_each_dealer_is_refused(monkeypatch):
    """Both hands of a deck dealt by the same player would leave the other dealer's cell
    unfilled: refused rather than read as an outcome."""
    from gin_sim.experiments import equity

    rows = [(0, False, 0, 0, 25), (0, True, 1, 0, 25)]  # "me" deals both times
    monkeypatch.setattr(equity, "head_to_head", lambda *args, **kwargs: _played(rows))
    with pytest.raises(AssertionError, match=r"^a duplicate deck without a hand for each dealer$"):
        measure_outcomes(RULES, parse_players("expert,simple"), 1, 0)


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
    # the test is two-sided: direct play as far below the model (0.40, a difference of
    # -0.10) does not agree either, and 0.42 (-0.08) does
    below = _agreement(start, "me", model, (0.40, 0.32, 0.48), 500)
    assert below["difference"] == pytest.approx(-0.10) and not below["agrees"]
    assert _agreement(start, "me", model, (0.42, 0.34, 0.50), 500)["agrees"]
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
    # a phase no match reached: every cell without a figure, as a number (NaN), not None
    assert heat_table(run, 0, 100)["equity"].dtype == np.float64
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


class _Parts:
    """The parts ``equity_study`` assembles, replaced by made-up ones that remember how they
    were called and answer with figures that tell each call apart (so a row read from the
    wrong cell, call or dealer shows)."""

    def __init__(self, monkeypatch, outcomes: HandOutcomes):
        from gin_sim.experiments import equity

        self.outcomes = outcomes
        self.measured: list[tuple] = []
        self.tables: list[tuple] = []
        self.direct: dict[tuple, tuple[float, float, float]] = {}
        self.runs: dict[tuple, ModelRun] = {}
        self.model_calls = 0
        self.vectors: list[tuple] = []
        self.joint: dict[tuple, float] = {}
        for name in ("measure_outcomes", "game_equity", "direct_games", "model_matches",
                     "value_vector", "joint_equity"):  # fmt: skip
            monkeypatch.setattr(equity, name, getattr(self, name))

    def measure_outcomes(self, rules, players, deals, seed):
        self.measured.append((rules, players, deals, seed))
        return self.outcomes

    def game_equity(self, outcomes, replicates, seed):
        """Equity me / T + opponent / T² (+ 0.5 when the opponent deals): every cell its own;
        the interval lopsided (-0.01, +0.02) so that its two ends cannot be swapped."""
        self.tables.append((outcomes, replicates, seed))
        target = outcomes.rules.game_target
        me, opponent, dealer = np.meshgrid(
            np.arange(target), np.arange(target), np.arange(2), indexing="ij"
        )
        equity = me / target + opponent / target**2 + 0.5 * dealer
        return pd.DataFrame(
            {"me": me.ravel(), "opponent": opponent.ravel(),
             "dealer": np.array(["me", "opponent"])[dealer.ravel()],
             "equity": equity.ravel(), "low": equity.ravel() - 0.01,
             "high": equity.ravel() + 0.02}
        )  # fmt: skip

    def direct_games(self, rules, players, start, count, seed, first_match):
        key = (start, count, seed, first_match)
        assert (rules, players) == self.measured[0][:2] and key not in self.direct
        share = 0.001 * (len(self.direct) + 1)
        self.direct[key] = (share, share - 0.003, share + 0.005)
        return self.direct[key]

    def model_matches(self, outcomes, start, matches, seed, replicates, replicate_matches):
        assert outcomes is self.outcomes
        key = (start, matches, seed, replicates, replicate_matches)
        self.model_calls += 1
        if key in self.runs:  # a state that a tiny target makes equal to another
            return self.runs[key]
        k = len(self.runs) + 1
        won = np.array([0.01 * k, 0.01 * k + 0.002, 0.01 * k - 0.001])
        net = np.array([[k, 4.0 * k], [k + 0.5, 1.0], [k - 0.25, 1.0]])
        visits = np.zeros((3, 3, 2, HEAT_CELLS, HEAT_CELLS), np.int64)
        visits[:, :, 0, 0, k % HEAT_CELLS] = 5 + k  # the heat run: a reached cell per phase
        visits[:, :, 1, 0, k % HEAT_CELLS] = 2
        self.runs[key] = ModelRun(start, matches, won, net, visits)
        return self.runs[key]

    def value_vector(self, target, step, win_points, win_prob, game):
        self.vectors.append((target, step, win_points, win_prob, game))
        return np.array([float(len(self.vectors))])

    def joint_equity(self, vector, start, dealer):
        assert vector[0] == len(self.vectors) == 1  # the one table, built once
        key = (start, dealer)
        self.joint.setdefault(key, 0.5 + 0.001 * len(self.joint))
        return self.joint[key]


def _outcomes_for(rules) -> HandOutcomes:
    codes = np.array([[1, -1], [2, 2], [0, 3]], np.int64)
    return HandOutcomes(rules, parse_players("simple,simple"), np.array([10, 25]), codes)


def test_the_study_reads_each_part_at_its_own_cell_dealer_and_games(monkeypatch):
    """``equity_study`` with its parts replaced by made-up ones (fast; the parts have tests
    of their own): the hands are measured once, on the study's decks and seed; each game
    cell's row holds that cell of the game table under that dealer beside direct play
    from that cell on its own range of games (cell i: games i * n to (i + 1) * n - 1);
    each named state is the model run from that state with each dealer beside the joint
    table's figure for that dealer; the heat map is ``heat_table`` of the run from the
    start of the match, each phase under its name; each validated state is played with
    player 1 dealing, on the range after the game cells', beside its own model row; and
    the steps sum to ``study_steps``."""
    from gin_sim.experiments import equity
    from gin_sim.players.search_value import lattice_step

    players = parse_players("basic,simple")
    games, matches, deals, seed = 7, 5, 123, 31
    parts = _Parts(monkeypatch, _outcomes_for(RULES))
    steps = []
    study = equity.equity_study(RULES, players, deals, games, matches, seed, steps.append)
    assert parts.measured == [(RULES, players, deals, seed)]
    assert study.outcomes is parts.outcomes
    assert parts.tables == [(parts.outcomes, equity.GAME_REPLICATES, seed)]
    assert study.game.equals(parts.game_equity(parts.outcomes, 0, 0))
    assert (study.deals, study.games, study.matches, study.seed) == (deals, games, matches, seed)
    assert study.rules == RULES and study.players == players
    assert sum(steps) == equity.study_steps(games, matches) and set(steps) == {1}

    # the game cells: the table's own cell under its dealer, played from that cell
    cells = study.game_validation
    assert len(cells) == len(equity.GAME_CELLS)
    for index, (me, opponent, dealer) in enumerate(equity.GAME_CELLS):
        row = cells.iloc[index]
        start = scaled_start(f"{me}:{opponent}", "game", equity.DEALERS.index(dealer) + 1, RULES)
        assert start.first_dealer == equity.DEALERS.index(dealer)
        model = me / 100 + opponent / 100**2 + 0.5 * (dealer == "opponent")
        direct = parts.direct[(start, games, seed, index * games)]
        assert row["start"] == f"{me}:{opponent}" and row["dealer"] == dealer
        assert (row["model"], row["model low"], row["model high"]) == pytest.approx(
            (model, model - 0.01, model + 0.02)
        )
        assert (row["direct"], row["direct low"], row["direct high"]) == direct
        assert row["played"] == games

    # the joint table: built once, from the measured outcomes and their game table
    ((target, step, win_points, win_prob, grid),) = parts.vectors
    assert (target, step) == (100, lattice_step(100))
    assert np.array_equal(win_points, parts.outcomes.win_points)
    assert np.array_equal(win_prob, parts.outcomes.win_prob())
    expected_grid = np.empty((100, 100, 2))
    from gin_sim.kernels.equity import game_equity_nb

    game_equity_nb(100, parts.outcomes.win_points, parts.outcomes.win_prob(), expected_grid)
    assert np.array_equal(grid, expected_grid)

    # the named states, each with each dealer
    states = study.match_states
    assert len(states) == 2 * len(equity.MATCH_STATES)
    for number, (name, text) in enumerate(equity.MATCH_STATES):
        for dealer in (1, 2):
            row = states.iloc[2 * number + dealer - 1]
            start = scaled_start(text, "hollywood", dealer, RULES)
            run = parts.runs[(start, equity.STATE_MATCHES, seed, equity.MODEL_REPLICATES,
                              equity.REPLICATE_MATCHES)]  # fmt: skip
            assert (row["state"], row["start"]) == (name, _columns(start))
            assert row["dealer"] == equity.DEALERS[dealer - 1]
            assert (row["equity"], row["low"], row["high"]) == pytest.approx(run.equity())
            assert (row["net tally"], row["net low"], row["net high"]) == pytest.approx(
                run.net_tally()
            )
            assert row["joint table"] == parts.joint[(start, dealer - 1)]
    assert len(parts.joint) == 2 * len(equity.MATCH_STATES)

    # the heat map: the run from the start of the match, with more matches per replicate
    heat_key = (MatchStart(), equity.HEAT_MATCHES, seed, equity.MODEL_REPLICATES,
                5 * equity.REPLICATE_MATCHES)  # fmt: skip
    heat_run = parts.runs[heat_key]
    assert len(parts.runs) == parts.model_calls == 2 * len(equity.MATCH_STATES) + 1
    for phase, name in enumerate(equity.HEAT_PHASES):
        rows = study.match_heat[study.match_heat["phase"] == name].drop(columns="phase")
        expected = heat_table(heat_run, phase, 100)
        assert rows.reset_index(drop=True).equals(expected)
    assert len(study.match_heat) == len(equity.HEAT_PHASES) * HEAT_CELLS**2
    assert study.match_heat.index.tolist() == list(range(len(study.match_heat)))

    # the validated states: player 1 deals, games after the game cells' ranges
    base = len(equity.GAME_CELLS) * games
    validated = study.match_validation
    assert validated["state"].tolist() == [
        equity.MATCH_STATES[i][0] for i in equity.VALIDATED_STATES
    ]
    for number, index in enumerate(equity.VALIDATED_STATES):
        start = scaled_start(equity.MATCH_STATES[index][1], "hollywood", 1, RULES)
        model = states.iloc[2 * index]  # dealer 1: player 1 ("me") deals
        direct = parts.direct[(start, matches, seed, base + index * matches)]
        expected = {"state": equity.MATCH_STATES[index][0]} | _agreement(
            start, "me", model, direct, matches
        )
        assert validated.iloc[number].to_dict() == expected
    assert len(parts.direct) == len(equity.GAME_CELLS) + len(equity.VALIDATED_STATES)


@pytest.mark.parametrize(("games", "matches"), [(0, 0), (0, 4), (3, 0)])
def test_a_study_without_checks_plays_none_and_counts_its_steps(monkeypatch, games, matches):
    """No games: no game cell is played and there is no game check; no matches: no state
    is played with cards. The steps made sum to ``study_steps`` either way (the progress
    bar's length: hands, game table, match model, one per check)."""
    from gin_sim.experiments import equity

    parts = _Parts(monkeypatch, _outcomes_for(RULES))
    steps = []
    study = equity.equity_study(RULES, parse_players("basic,simple"), 50, games, matches, 2,
                                steps.append)  # fmt: skip
    assert len(study.game_validation) == (len(equity.GAME_CELLS) if games else 0)
    assert len(study.match_validation) == (len(equity.VALIDATED_STATES) if matches else 0)
    assert len(parts.direct) == len(study.game_validation) + len(study.match_validation)
    assert sum(steps) == equity.study_steps(games, matches) == 3 + len(parts.direct)


def test_a_study_skips_the_states_its_target_cannot_hold_and_refuses_what_it_cannot_model(
    monkeypatch,
):
    """Under a target of 3 the state written as 90:90,55:50,20:25 scales to 3:3,2:2,1:1,
    which no match reaches (scaled_start refuses it): the study leaves out exactly the
    states scaled_start refuses, with both dealers. A target above MAX_TARGET, or a player
    who plays by the score (the model's independent hands would not hold), is refused
    before any hand is played; MAX_TARGET itself is taken."""
    from gin_sim.experiments import equity
    from gin_sim.game.config import ConfigError

    small = replace(RULES, game_target=3)
    parts = _Parts(monkeypatch, _outcomes_for(small))
    study = equity.equity_study(small, parse_players("basic,simple"), 20, 0, 2, 1)
    kept = []
    for name, text in equity.MATCH_STATES:
        for dealer in (1, 2):
            try:
                kept.append((name, _columns(scaled_start(text, "hollywood", dealer, small))))
            except ConfigError:
                continue
    assert 0 < len(kept) < 2 * len(equity.MATCH_STATES)
    assert list(zip(study.match_states["state"], study.match_states["start"], strict=True)) == kept
    assert len(study.match_validation) == len(equity.VALIDATED_STATES)
    for rules, players in ((replace(RULES, game_target=equity.MAX_TARGET + 1), "basic,simple"),
                           (RULES, "mc-match,expert")):  # fmt: skip
        parts.measured.clear()
        with pytest.raises(ConfigError):
            equity.equity_study(rules, parse_players(players), 20, 0, 0, 1)
        assert parts.measured == []
    top = replace(RULES, game_target=equity.MAX_TARGET)
    parts = _Parts(monkeypatch, _outcomes_for(top))
    assert equity.equity_study(top, parse_players("basic,simple"), 20, 0, 0, 1).game is not None


def test_direct_play_is_the_share_of_games_won_by_player_1_from_the_state():
    """Known answers: from a plain game at 95 to 0 (R20: 5 points from the target) player 1
    wins nearly every game, from 0 to 95 nearly none, and ``expert`` against ``random``
    from 0 to 0 nearly every one, whichever order the two are named in for player 1 (a
    whole match from 0, or the other player's wins, would be near a half or reversed).
    The share is counted independently from the games ``simulate_matches`` plays on the
    range ``first_match`` to ``first_match + count - 1``: two halves add up to the whole,
    and the interval is the Wilson interval of the wins."""
    from gin_sim.experiments.equity import direct_games
    from gin_sim.experiments.simulate import simulate_matches
    from gin_sim.experiments.summary import wilson_interval
    from gin_sim.game.match_start import parse_start

    basic = parse_players("basic,basic")
    ahead = parse_start("95:0", "game", 1, RULES)
    behind = parse_start("0:95", "game", 1, RULES)
    count, seed = 40, 5
    assert direct_games(RULES, basic, ahead, count, seed, 0)[0] > 0.85
    assert direct_games(RULES, basic, behind, count, seed, 0)[0] < 0.15
    level = parse_start("0:0", "game", 1, RULES)
    assert direct_games(RULES, parse_players("expert,random"), level, count, seed, 0)[0] > 0.8
    assert direct_games(RULES, parse_players("random,expert"), level, count, seed, 0)[0] < 0.2

    players = parse_players("expert,simple")
    share, low, high = direct_games(RULES, players, level, count, seed, 60)
    records, _ = simulate_matches(RULES, players, count, seed, 60, start=level)
    won = int((records["winner"] == 0).sum())
    assert len(records) == count and 0 < won < count
    assert share == won / count
    assert (low, high) == wilson_interval(won, count)
    first = direct_games(RULES, players, level, count // 2, seed, 60)[0]
    second = direct_games(RULES, players, level, count // 2, seed, 60 + count // 2)[0]
    assert (first + second) / 2 == pytest.approx(share)
    assert first != second or won in (0, count)  # the halves are different games


def _joint_vector(target: int = 15):
    """The joint table on a lattice of 1 point for a made-up hand distribution (that of
    tests/test_equity.py's lattice test): ``value_vector`` reads it exactly at whole scores."""
    from gin_sim.kernels.equity import game_equity_nb
    from gin_sim.kernels.match_value import value_vector

    win_points = np.array([0, 2, 3, 5, 8])
    prob = np.array(
        [[[0.02, 0.1, 0.1, 0.08, 0.1], [0.03, 0.12, 0.08, 0.1, 0.05]],
         [[0.01, 0.05, 0.1, 0.1, 0.05], [0.04, 0.2, 0.1, 0.1, 0.1]]]
    )  # fmt: skip
    game = np.empty((target, target, 2))
    game_equity_nb(target, win_points, prob, game)
    return value_vector(target, 1, win_points, prob, game)


def test_the_joint_table_is_read_at_the_states_points_and_entries():
    """``joint_equity`` reads the table at the state's score laid out as the match kernel
    keeps it (``match_equity_nb``: player 0's three columns, player 1's, then whether each
    has entered each game, R19), written out here by hand for states where the entries
    differ by player and by game; with ``dealer`` 0 when player 1 ("me") deals next."""
    from gin_sim.experiments.equity import joint_equity
    from gin_sim.game.match_start import parse_start
    from gin_sim.kernels.match_value import match_equity_nb

    rules = replace(RULES, game_target=15)
    vector = _joint_vector()
    cases = [  # (--start, dealer 1 or 2, points then entries by hand)
        ("9:4,4:0", 1, [9, 4, 0, 4, 0, 0, 1, 1, 0, 1, 0, 0]),
        ("9:4,4:0", 2, [9, 4, 0, 4, 0, 0, 1, 1, 0, 1, 0, 0]),
        ("4:9,0:4", 1, [4, 0, 0, 9, 4, 0, 1, 0, 0, 1, 1, 0]),
        ("12:12,7:9,3:2", 2, [12, 7, 3, 12, 9, 2, 1, 1, 1, 1, 1, 1]),
        ("4:15,4:9,0:3", 1, [4, 4, 0, 15, 9, 3, 1, 1, 0, 1, 1, 1]),
        ("5:3,2:0", 2, [5, 2, 0, 3, 0, 0, 1, 1, 0, 1, 0, 0]),
    ]
    seen = set()
    for text, dealer, score in cases:
        start = parse_start(text, "hollywood", dealer, rules)
        expected = match_equity_nb(vector, np.array(score, np.int64), 0, dealer - 1)
        assert 0.0 < expected < 1.0
        assert joint_equity(vector, start, dealer - 1) == expected
        seen.add(round(float(expected), 12))
    assert len(seen) == len(cases)  # every case its own figure: a slot misread shows


def test_the_joint_table_knows_a_decided_match_and_refuses_a_state_it_cannot_hold():
    """Two games won by player 1 ("me"): the match is won, 1.0; two by the opponent: 0.0,
    exactly (R21). A column entered after one not entered (game 2 scored, game 1 never
    entered: R19 forbids it) has no figure: NaN, not the kernel's -1 flag."""
    from gin_sim.experiments.equity import joint_equity

    vector = _joint_vector()
    won = MatchStart(points=((15, 16, 3), (2, 1, 0)), boxes=((3, 2, 1), (1, 1, 0)))
    lost = MatchStart(points=((2, 1, 0), (15, 16, 3)), boxes=((1, 1, 0), (3, 2, 1)))
    assert joint_equity(vector, won, 0) == 1.0 and joint_equity(vector, won, 1) == 1.0
    assert joint_equity(vector, lost, 0) == 0.0 and joint_equity(vector, lost, 1) == 0.0
    broken = MatchStart(points=((0, 4, 0), (0, 0, 0)), boxes=((0, 1, 0), (0, 0, 0)))
    assert math.isnan(joint_equity(vector, broken, 0))


def test_a_heat_cell_a_lone_resample_misses_has_no_interval():
    """With one bootstrap resample (no spread to measure: the Monte Carlo error alone), a
    cell the resample never reaches still has no interval, whatever the measured run says:
    the resample cannot say how far the cell's equity moves. A cell both reach has the
    Monte Carlo interval of its share (3 of 4: 0.75 ± 1.96 * sqrt(0.75 * 0.25 / 4))."""
    visits = np.zeros((2, 3, 2, HEAT_CELLS, HEAT_CELLS), np.int64)
    visits[:, 0, 0, 1, 1] = [5, 0]
    visits[:, 0, 1, 1, 1] = [2, 0]
    visits[:, 0, 0, 2, 2] = [4, 6]
    visits[:, 0, 1, 2, 2] = [3, 1]
    run = ModelRun(MatchStart(), 100, np.zeros(2), np.zeros((2, 2)), visits)
    table = heat_table(run, 0, 100).set_index(["me", "opponent"])
    missed = table.loc[(10, 10)]
    assert missed["equity"] == 0.4 and missed["matches"] == 5
    assert np.isnan(missed["low"]) and np.isnan(missed["high"])
    both = table.loc[(20, 20)]
    half = Z95 * math.sqrt(0.75 * 0.25 / 4)
    assert (both["low"], both["high"]) == pytest.approx((0.75 - half, 0.75 + half))


def test_a_player_refused_for_reading_the_score_is_told_every_reading():
    """A searcher valued by the match whose opponent panel also learns across hands is
    refused with both readings named, one after the other; a target above the report's
    limit is refused naming the target."""
    from gin_sim.experiments import equity
    from gin_sim.game.config import ConfigError
    from gin_sim.players.strategies import load_strategy

    both = replace(load_strategy("mc"), value="match")
    assert both.score_readings(RULES) == ["value = 'match'", 'panel_memory = "match"']
    with pytest.raises(ConfigError) as refused:
        equity.check_hand_by_hand((load_strategy("expert"), both), RULES)
    assert """(value = 'match'; panel_memory = "match")""" in str(refused.value)
    assert f"strategy {both.name!r} plays by the score" in str(refused.value)
    big = replace(RULES, game_target=equity.MAX_TARGET + 1)
    with pytest.raises(ConfigError, match=f"game_target = {equity.MAX_TARGET + 1}: report equity"):
        equity.equity_study(big, parse_players("basic,simple"), 10, 0, 0, 1)


def test_a_validated_state_the_target_cannot_hold_is_skipped_alone(monkeypatch):
    """Under a target of 2 the second validated state (written as 90:60,60:30,30:0) scales
    to a state no match reaches, while the third (110:50,40:40,10:10) scales to one that
    it does: the study plays every validated state that scaled_start takes, the ones after
    a refused one included."""
    from gin_sim.experiments import equity
    from gin_sim.game.config import ConfigError

    tiny = replace(RULES, game_target=2)
    _Parts(monkeypatch, _outcomes_for(tiny))
    study = equity.equity_study(tiny, parse_players("basic,simple"), 20, 0, 2, 1)
    taken = []
    for index in equity.VALIDATED_STATES:
        name, text = equity.MATCH_STATES[index]
        try:
            scaled_start(text, "hollywood", 1, tiny)
        except ConfigError:
            continue
        taken.append(name)
    assert len(taken) == len(equity.VALIDATED_STATES) - 1
    assert taken[-1] == equity.MATCH_STATES[equity.VALIDATED_STATES[-1]][0]
    assert study.match_validation["state"].tolist() == taken


@pytest.mark.parametrize(
    ("target", "points", "cells"), [(100, 25, (0, 2, 5, 7)), (10, 3, (0, 3, 6, 9))]
)
def test_the_match_heat_counts_each_cell_a_match_passes_through(target, points, cells):
    """Hand-computed: when player 1 ("me") wins every hand for ``points``, every match
    passes through game 1 at 0, p, 2p, 3p (R19: each win credits game 1) before game 1
    ends at 4p >= target (R20), the opponent at 0; a heat cell is a tenth of the target
    (at least 1 point), so game 1's cells are ``cells``; game 2 then stands at 3p, in
    cell 3p // step, for its one visit in the phase "game 2 open, I won game 1"; and "I
    lost game 1" is never reached. Every match is won. The run holds the measured figure
    and one per resample, each resample playing the first ``replicate_matches``; the
    net tally is hand-computed too, with and without R23's bonuses."""
    codes = np.zeros((4, 2), np.int64)  # every deck, either dealer: me, win_points[0]
    outcomes = HandOutcomes(
        replace(RULES, game_target=target), parse_players("simple,simple"),
        np.array([points]), codes,
    )  # fmt: skip
    step = max(1, -(-target // HEAT_CELLS))
    # the resamples play all 30 matches, then only their first 12 (replicate_matches)
    for replicate_matches, played in ((None, 30), (12, 12)):
        run = model_matches(outcomes, MatchStart(), 30, 2, 2, replicate_matches)
        assert run.won.shape == (3,) and run.net.shape == (3, 2) and (run.won == 1.0).all()
        assert run.visits.shape == (3, 3, 2, HEAT_CELLS, HEAT_CELLS)
        assert (run.start, run.matches) == (MatchStart(), 30)
        for r in range(3):
            count = 30 if r == 0 else played
            expected = np.zeros((3, 2, HEAT_CELLS, HEAT_CELLS), np.int64)
            expected[0, :, list(cells), 0] = count
            expected[1, :, 3 * points // step, 0] = count
            assert np.array_equal(run.visits[r], expected)
    # the net tally: each of the three games is won in 4 hands of ``points`` (R21: the
    # match goes on until the third ends), the opponent scoring nothing; with R23's
    # bonuses each game is worth 4 * points + 4 * 25 (boxes) + 100 (the game), doubled
    # for the shutout
    assert (run.net[:, 0] == 3 * 4 * points).all() and (run.net[:, 1] == 0).all()
    bonuses = replace(outcomes, rules=replace(outcomes.rules, hollywood_bonuses=True))
    net = model_matches(bonuses, MatchStart(), 30, 2, 2).net
    assert (net[:, 0] == 3 * 2 * (4 * points + 4 * 25 + 100)).all()


def test_the_game_table_interval_is_a_bootstrap_over_the_decks():
    """Three measured decks say little: resampling them moves the chance of winning a
    game to 10 (where the first hand that scores decides it, R20) between far apart
    values, so every start cell's 95% interval has width and holds the estimate; the
    estimate itself is the share of the first scoring hands I win (deck 0: me 25 when I
    deal; deck 1: the opponent; deck 2: me when I deal, the opponent when it deals)."""
    from gin_sim.experiments.equity import game_equity

    outcomes = _tiny_outcomes()
    outcomes = replace(outcomes, rules=replace(RULES, game_target=10))
    table = game_equity(outcomes, replicates=60, seed=3).set_index(["me", "opponent", "dealer"])
    for dealer, mine in (("me", 2 / 3), ("opponent", 0.0)):
        cell = table.loc[(0, 0, dealer)]
        assert cell["equity"] == pytest.approx(mine)
        assert cell["low"] <= cell["equity"] <= cell["high"]
    assert table.loc[(0, 0, "me"), "high"] - table.loc[(0, 0, "me"), "low"] > 0.3


def test_the_game_table_interval_holds_95_percent_of_the_resampled_tables():
    """Every cell's interval is the 2.5 and 97.5 percentiles of the tables of the seeded
    deck resamples, recomputed here from the same resamples of 40 made-up decks (each
    dealer's hand won by either player for 10 or 25, or by nobody); a 90% interval (5 and
    95) is another one on these draws, so the test tells them apart."""
    from gin_sim.experiments import equity

    codes = np.random.default_rng(4).integers(-1, 4, size=(40, 2))
    outcomes = HandOutcomes(
        replace(RULES, game_target=10), parse_players("simple,simple"), np.array([10, 25]), codes
    )
    table = equity.game_equity(outcomes, replicates=50, seed=6)
    rng = np.random.default_rng([6, 17])
    draws = np.array(
        [
            equity._equity_grid(outcomes, outcomes.win_prob(outcomes.resample(rng)))
            for _ in range(50)
        ]
    )
    low, high = np.nanquantile(draws, [0.025, 0.975], axis=0)
    np.testing.assert_allclose(table["low"], low.ravel())
    np.testing.assert_allclose(table["high"], high.ravel())
    low90, high90 = np.nanquantile(draws, [0.05, 0.95], axis=0)
    assert np.nanmax(np.abs(low90 - low)) > 0.01 and np.nanmax(np.abs(high90 - high)) > 0.01
