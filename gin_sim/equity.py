"""Game and Hollywood match equity tables from measured hand outcomes (issue 17, part 2).

1. ``measure_outcomes`` plays duplicate deals between two players: every deck once with
   each of them dealing, so each deck gives one hand per dealer.
2. ``game_equity``: the probability that player 1 ("me") wins a game to the target from
   every score pair and dealer, by exact dynamic programming over the scores
   (``kernels.equity.game_equity_nb``), with 95% percentile intervals from a bootstrap
   over the decks (each replicate resamples decks, so both dealers' hands of a deck stay
   together, and reruns the dynamic programme).
3. ``model_matches``: Hollywood match equity from any start state by Monte Carlo under
   the same model (hands drawn from the measured distribution, scored by the match
   kernel's own crediting), in replicates, each under its own bootstrap resample of the
   decks: the interval holds both the Monte Carlo error and the uncertainty of the
   measured distribution (``replicate_interval``).

The assumption behind 2 and 3: hands are independent given the dealer, and nobody plays
differently by the score. Every gin-sim player today plays each hand for its points, so
it holds for them; ``validate_*`` checks cells against direct simulation, where the
cards are played from the state (``match --start``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from gin_sim.config import ConfigError
from gin_sim.kernels.equity import game_equity_nb, model_matches_nb
from gin_sim.match_start import MatchStart
from gin_sim.rules import Rules
from gin_sim.simulate import head_to_head, simulate_matches
from gin_sim.strategies import Strategy

DEALERS = ("me", "opponent")  # dealer index 0: player 1 ("me") deals
Z95 = 1.959963984540054
HEAT_CELLS = 10  # match heat maps: scores in tenths of the target


@dataclass(frozen=True)
class HandOutcomes:
    """Each deck's outcome with each dealer, as codes ``winner * K + k`` (``win_points[k]``
    points to ``winner``: 0 me, 1 the opponent) or -1 when the hand scores nothing."""

    rules: Rules
    players: tuple[Strategy, Strategy]
    win_points: np.ndarray  # int64[K], ascending
    codes: np.ndarray  # int64[decks, 2]: [deck, dealer]

    @property
    def decks(self) -> int:
        return int(self.codes.shape[0])

    def win_prob(self, weights: np.ndarray | None = None) -> np.ndarray:
        """float64[2, 2, K]: [dealer, winner, k], from the decks weighted by ``weights``
        (how often each deck is drawn; None: each once)."""
        size = 2 * len(self.win_points)
        weights = np.ones(self.decks) if weights is None else weights
        prob = np.zeros((2, 2, len(self.win_points)))
        for dealer in (0, 1):
            codes = self.codes[:, dealer]
            counts = np.bincount(codes + 1, weights=weights, minlength=size + 1)
            prob[dealer] = (counts[1:] / weights.sum()).reshape(2, -1)
        return prob

    def resample(self, rng: np.random.Generator) -> np.ndarray:
        """Bootstrap weights: how often each deck is drawn in a resample of the decks."""
        return np.bincount(rng.integers(0, self.decks, self.decks), minlength=self.decks)

    def summary(self) -> pd.DataFrame:
        """Per dealer: how often each player wins a hand, nobody scores, and mean points."""
        prob = self.win_prob()
        rows = []
        for dealer, name in enumerate(DEALERS):
            row = {"dealer": name}
            for winner, who in enumerate(("me", "opponent")):
                row[f"{who} wins"] = prob[dealer, winner].sum()
                row[f"{who} mean points"] = (
                    (prob[dealer, winner] * self.win_points).sum() / prob[dealer, winner].sum()
                    if prob[dealer, winner].sum() > 0
                    else np.nan
                )
            row["nobody scores"] = 1.0 - prob[dealer].sum()
            rows.append(row)
        return pd.DataFrame(rows)


def measure_outcomes(
    rules: Rules, players: tuple[Strategy, Strategy], deals: int, seed: int
) -> HandOutcomes:
    """Play ``deals`` duplicate decks: deck i keeps its dealer seat and the players swap, so
    each deck is played once with each of them dealing (``simulate.head_to_head``)."""
    frame = head_to_head(rules, players, deals, seed, duplicate=True)
    me_seat = frame["swapped"].to_numpy().astype(np.int64)  # "me" plays players[0]
    dealer = np.where(frame["dealer"].to_numpy() == me_seat, 0, 1)
    seat_winner = frame["winner"].to_numpy().astype(np.int64)
    winner = np.where(seat_winner < 0, -1, np.where(seat_winner == me_seat, 0, 1))
    points = frame["points"].to_numpy().astype(np.int64)
    win_points = np.unique(points[winner >= 0])
    if win_points.size == 0:
        win_points = np.zeros(1, np.int64)
    k = np.searchsorted(win_points, points)
    code = np.where(winner < 0, -1, winner * len(win_points) + k)
    codes = np.full((deals, 2), -2, np.int64)
    codes[frame["deal"].to_numpy(), dealer] = code
    if (codes == -2).any():  # each deck must give one hand per dealer
        raise AssertionError("a duplicate deck without a hand for each dealer")
    return HandOutcomes(rules, players, win_points.astype(np.int64), codes)


def _equity_grid(outcomes: HandOutcomes, prob: np.ndarray) -> np.ndarray:
    target = outcomes.rules.game_target
    grid = np.empty((target, target, 2))
    game_equity_nb(target, outcomes.win_points, prob, grid)
    return grid


def game_equity(outcomes: HandOutcomes, replicates: int = 200, seed: int = 0) -> pd.DataFrame:
    """``me, opponent, dealer, equity, low, high``: every score pair below the target,
    each dealer; ``low``/``high`` the 95% percentile bootstrap interval over the decks."""
    target = outcomes.rules.game_target
    if target > 1000:
        raise ConfigError(
            f"game_target = {target}: the game equity table is for targets up to 1,000 (it has a row per score pair)"
        )
    estimate = _equity_grid(outcomes, outcomes.win_prob())
    rng = np.random.default_rng([seed, 17])
    draws = np.empty((replicates, target, target, 2))
    for r in range(replicates):
        draws[r] = _equity_grid(outcomes, outcomes.win_prob(outcomes.resample(rng)))
    low, high = np.nanquantile(draws, [0.025, 0.975], axis=0)
    me, opponent, dealer = np.meshgrid(
        np.arange(target), np.arange(target), np.arange(2), indexing="ij"
    )
    return pd.DataFrame(
        {
            "me": me.ravel(),
            "opponent": opponent.ravel(),
            "dealer": np.array(DEALERS)[dealer.ravel()],
            "equity": estimate.ravel(),
            "low": low.ravel(),
            "high": high.ravel(),
        }
    )


@dataclass(frozen=True)
class ModelRun:
    """Matches under the model from one start, in replicates (each its own resample)."""

    start: MatchStart
    wins: np.ndarray  # int64[R]: matches won by me
    played: np.ndarray  # int64[R]
    net: np.ndarray  # float64[R, 2]: sum and sum of squares of my net final tally
    visits: np.ndarray  # int64[R, 3, 2, G, G] (model_matches_nb)

    def equity(self) -> tuple[float, float, float]:
        return replicate_interval(self.wins, self.wins, self.played)

    def net_tally(self) -> tuple[float, float, float]:
        return replicate_interval(self.net[:, 0], self.net[:, 1], self.played)


def replicate_interval(
    sums: np.ndarray, squares: np.ndarray, counts: np.ndarray
) -> tuple[float, float, float]:
    """Mean and 95% interval of a quantity simulated in replicates, each under its own
    bootstrap resample of the measured hands: the spread between replicates, less what the
    Monte Carlo error within each explains, estimates the model's uncertainty; the pooled
    Monte Carlo error is added to it. (For a win indicator the squares equal the sums.)"""
    counts = np.asarray(counts, float)
    sums, squares = np.asarray(sums, float), np.asarray(squares, float)
    used = counts > 0
    total = counts[used].sum()
    if total < 2:
        return float("nan"), float("nan"), float("nan")
    mean = sums[used].sum() / total
    within = max(squares[used].sum() / total - mean**2, 0.0) * total / (total - 1)
    variance = within / total
    means = sums[used] / counts[used]
    if used.sum() >= 2:
        between = means.var(ddof=1) - np.mean(within / counts[used])
        variance += max(between, 0.0)
    half = Z95 * np.sqrt(variance)
    return float(mean), float(mean - half), float(mean + half)


def model_matches(
    outcomes: HandOutcomes,
    start: MatchStart,
    matches: int,
    seed: int,
    replicates: int = 40,
) -> ModelRun:
    """``matches`` matches (or games, by ``start.format``) under the hand-outcome model,
    split over ``replicates`` bootstrap resamples of the decks; deterministic in ``seed``."""
    rules = outcomes.rules
    start.validate(rules)
    per = max(1, matches // replicates)
    rng = np.random.default_rng([seed, 29])
    cells = HEAT_CELLS
    step = max(1, -(-rules.game_target // cells))
    wins = np.zeros(replicates, np.int64)
    net = np.zeros((replicates, 2))
    visits = np.zeros((replicates, 3, 2, cells, cells), np.int64)
    vector = start.to_kernel()
    for r in range(replicates):
        prob = outcomes.win_prob(outcomes.resample(rng)).reshape(2, -1)
        cumulative = np.cumsum(prob, axis=1)
        out = np.zeros((per, 3), np.int64)
        model_matches_nb(
            np.uint64(seed), r * per, vector, rules.game_target, rules.hollywood_bonuses,
            outcomes.win_points, cumulative, step, out, visits[r],
        )  # fmt: skip
        wins[r] = (out[:, 0] == 0).sum()
        margin = (out[:, 1] - out[:, 2]).astype(float)
        net[r] = margin.sum(), (margin**2).sum()
    return ModelRun(start, wins, np.full(replicates, per), net, visits)


def heat_table(run: ModelRun, phase: int, target: int) -> pd.DataFrame:
    """The match equity in each cell of scores a match reaches, as met in play (``visits``
    of ``model_matches_nb``): ``me``, ``opponent`` (the cell's lowest scores), ``equity``,
    ``low``, ``high``, ``matches`` (that reached the cell)."""
    step = max(1, -(-target // HEAT_CELLS))
    rows = []
    for i in range(HEAT_CELLS):
        for j in range(HEAT_CELLS):
            reached = run.visits[:, phase, 0, i, j]
            won = run.visits[:, phase, 1, i, j]
            equity, low, high = replicate_interval(won, won, reached)
            rows.append(
                {"me": i * step, "opponent": j * step, "equity": equity, "low": low,
                 "high": high, "matches": int(reached.sum())}
            )  # fmt: skip
    return pd.DataFrame(rows)


def direct_games(
    rules: Rules,
    players: tuple[Strategy, Strategy],
    start: MatchStart,
    count: int,
    seed: int,
    first_match: int,
) -> tuple[float, float, float]:
    """The share of ``count`` games or matches won by player 1, cards played from
    ``start`` (``simulate_matches``), with its 95% (normal) interval."""
    records, _ = simulate_matches(rules, players, count, seed, first_match, start=start)
    won = records["winner"] == 0
    mean = float(won.mean())
    half = Z95 * np.sqrt(max(mean * (1 - mean), 1e-12) / count)
    return mean, mean - half, mean + half
