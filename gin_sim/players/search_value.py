"""Game and match tables for score-aware search players (``value = "game"`` or ``"match"``).

A score-aware searcher values a rollout's end by the change in its game or match equity
(``kernels.search.score_equity_nb``; docs/strategies.md, "Search players"). Its game
table is the probability of winning a game to the target from every score pair and
dealer, by the exact dynamic programme of ``gin_sim.experiments.equity``
(``kernels.equity.game_equity_nb``) under that module's model (hands independent given
the dealer), from the hand outcomes of ``VALUE_DEALS`` deals of the searcher's rollout
policy ("me") against its opponent model under the rule set, on seed ``VALUE_SEED``.
With ``value = "match"`` its Hollywood match table comes from the same model by dynamic
programming over the joint state of the three columns (``kernels/match_value.py``, scores
on a lattice of ``lattice_step`` points). Both travel in one value vector. So the tables
are deterministic, depend only on (rules, rollout, opponent model), take about a second
(family players only), and are computed once per process; the reference search reads
the same vector.

>>> from gin_sim.game.rules import load_rules
>>> table = game_table(load_rules("standard"), "simple", "simple")
>>> table.shape, bool(0.0 < table[0, 0, 0] < 1.0), bool(table[99, 0, 0] > table[0, 99, 0])
((100, 100, 2), True, True)
"""

from __future__ import annotations

import functools

import numpy as np

from gin_sim.game.config import ConfigError
from gin_sim.game.limits import MAX_SCORE_TABLE_TARGET
from gin_sim.game.records import HAND_RECORD
from gin_sim.game.rules import Rules
from gin_sim.kernels.equity import game_equity_nb
from gin_sim.kernels.match_value import VALUE_HEADER, value_vector
from gin_sim.kernels.playout import play_deals_parallel
from gin_sim.players.calibration import load_undercut_table
from gin_sim.players.strategies import Strategy, load_strategy

VALUE_DEALS = 100_000  # the table's cells move by less than 0.01 between seeds at this count
VALUE_SEED = 1_700_017  # used for nothing else
NO_TABLES = np.zeros((2, VALUE_HEADER))  # the kernels' equity argument when nobody reads it
LATTICE_POINTS = 20  # the match table's lattice: 20 points per column (5 apart for 100)


def lattice_step(target: int) -> int:
    """The match table's lattice step for a game target: about ``LATTICE_POINTS`` points
    per column (``bench/match_value_check.py`` measures the error it costs)."""
    return max(1, -(-target // LATTICE_POINTS))


def hand_outcome_probabilities(
    rules: Rules, rollout: str, opponent_model: str
) -> tuple[np.ndarray, np.ndarray]:
    """(win_points int64[K], win_prob float64[2, 2, K]) as ``kernels/equity.py`` takes them:
    [dealer, winner, k] from ``VALUE_DEALS`` deals, dealer ``deal % 2``, player 0 playing
    ``rollout`` and player 1 ``opponent_model``."""
    pair = [load_strategy(name).for_rules(rules).to_kernel() for name in (rollout, opponent_model)]
    out = np.zeros(VALUE_DEALS, dtype=HAND_RECORD)
    with np.errstate(over="ignore"):  # uint64 wrap-around, as in gin_sim.experiments.simulate
        play_deals_parallel(
            np.uint64(VALUE_SEED), 0, rules.to_kernel(), np.stack(pair), load_undercut_table(), out
        )
    winner = out["winner"].astype(np.int64)
    points = out["points"].astype(np.int64)
    win_points = np.unique(points[winner >= 0])
    if win_points.size == 0:
        win_points = np.zeros(1, np.int64)
    prob = np.zeros((2, 2, win_points.size))
    dealer = out["dealer"].astype(np.int64)
    k = np.searchsorted(win_points, points)
    for d in (0, 1):
        hands = dealer == d
        for w in (0, 1):
            won = hands & (winner == w)
            prob[d, w] = np.bincount(k[won], minlength=win_points.size) / hands.sum()
    return win_points.astype(np.int64), prob


@functools.lru_cache(maxsize=16)
def game_table(rules: Rules, rollout: str, opponent_model: str) -> np.ndarray:
    """float64[T, T, 2] (T the game target): [my points, the opponent's, 0 when I deal
    next] the probability that I win the game, I playing ``rollout`` and the opponent
    ``opponent_model``. Read only."""
    target = rules.game_target
    if target > MAX_SCORE_TABLE_TARGET:  # T * T * 2 values: 149 GiB at 100,000
        raise ConfigError(
            f"game_target = {target:,} of rules {rules.name!r}: a game table has a row per score pair: allowed targets up to {MAX_SCORE_TABLE_TARGET:,}"
        )
    win_points, prob = hand_outcome_probabilities(rules, rollout, opponent_model)
    table = np.empty((target, target, 2))
    game_equity_nb(target, win_points, prob, table)
    if np.isnan(table).any():
        raise ValueError(f"no hand ever scores between {rollout} and {opponent_model}")
    table.setflags(write=False)
    return table


@functools.lru_cache(maxsize=8)
def value_table(rules: Rules, rollout: str, opponent_model: str, match: bool) -> np.ndarray:
    """The value vector a score-aware searcher reads (``kernels/match_value.py``): its game
    table, and with ``match`` its Hollywood match table (without, the match part is a
    one-point lattice of no hands that nothing reads: ``value = "game"`` reads only the game
    table). Read only."""
    target = rules.game_target
    game = game_table(rules, rollout, opponent_model)
    if match:
        win_points, prob = hand_outcome_probabilities(rules, rollout, opponent_model)
        vector = value_vector(target, lattice_step(target), win_points, prob, game)
    else:
        vector = value_vector(target, target, np.zeros(1, np.int64), np.zeros((2, 2, 1)), game)
    vector.setflags(write=False)
    return vector


def searcher_table(strategy: Strategy, rules: Rules) -> np.ndarray | None:
    """The value vector a search player reads, or None when it plays every hand for its
    points (``value = "hand"``, or not a search player)."""
    if strategy.kind != "mc" or strategy.value == "hand":
        return None
    return value_table(rules, strategy.rollout, strategy.opponent_model, strategy.value == "match")


def equity_tables(players: tuple[Strategy, Strategy], rules: Rules) -> np.ndarray:
    """The kernels' ``equity`` argument: float64[2, N], seat p's value vector from its side
    (zeros for a seat that reads none), or ``NO_TABLES`` when neither seat reads one."""
    tables = [searcher_table(player, rules) for player in players]
    if all(table is None for table in tables):
        return NO_TABLES
    size = max(table.size for table in tables if table is not None)
    out = np.zeros((2, size))
    for seat, table in enumerate(tables):
        if table is not None:
            out[seat, : table.size] = table
    return out
