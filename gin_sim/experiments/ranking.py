"""A paired-comparison model for tournaments: ratings from pairwise net points.

Each pairing (a, b) of a round robin gives the net points per hand ``c_ab`` of ``a``
against ``b``. The model is Elo-like and linear: ``c_ab = r_a - r_b`` plus noise, fitted by
least squares with the ratings summing to 0. In a complete round robin of ``n`` players
the fit is simply ``r_a = (1/n) * sum over b of c_ab`` (with ``c_aa = 0``): a rating is
the net points per hand against the average member of the field, and ``r_a - r_b`` the
model's prediction for ``a`` against ``b``. Where the prediction and the head-to-head
result disagree in sign, the pairwise results are not transitive.

The fit is computed in that closed form and exactly: net points are whole numbers, so their
sums over decks (and over resampled decks) are exact in float64 whatever order a BLAS
library adds them in, and each rating is one division of such a sum. A least-squares solver
(a pseudo-inverse) gave ratings that differed in the last digits from one CPU's BLAS kernels
to another's, so regenerated reports were not byte-identical.

Intervals come from a bootstrap over decks: every pairing plays the same decks (common
random numbers), so one resample of deck numbers is applied to every pairing at once,
which keeps their correlation; the ratings are refitted on each resample. The resamples
depend only on ``seed``.

>>> import numpy as np
>>> fit_ratings([(0, 1), (0, 2), (1, 2)], np.array([1.0, 2.0, 1.0]), 3).round(3).tolist()
[1.0, 0.0, -1.0]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

from gin_sim.experiments.holdout import bonferroni_factor
from gin_sim.experiments.summary import Z95

BOOTSTRAP_REPLICATES = 1000
_BATCH = 50  # resamples drawn at once (memory: batch x decks weights)


def design(pairs: Sequence[tuple[int, int]], players: int) -> np.ndarray:
    """The pairings as a float64[pairs, players] matrix: +1 for ``a``, -1 for ``b``."""
    matrix = np.zeros((len(pairs), players))
    for row, (a, b) in enumerate(pairs):
        matrix[row, a], matrix[row, b] = 1.0, -1.0
    return matrix


def fit_ratings(
    pairs: Sequence[tuple[int, int]], values: np.ndarray, players: int, scale: float = 1.0
) -> np.ndarray:
    """Least-squares ratings (summing to 0) of ``values[p] / scale ~ r[a] - r[b]`` in a
    complete round robin (every pair of the ``players`` once).

    ``values`` may be float64[pairs] or float64[pairs, k] (k fits at once). The fit is the
    closed form ``r_a = (1/n) * sum over b of c_ab``; with whole-number ``values`` the sums
    are exact and each rating is one correctly rounded division, the same on every machine.
    """
    wanted = {(a, b) for a in range(players) for b in range(a + 1, players)}
    ordered = {(min(a, b), max(a, b)) for a, b in pairs}
    if len(pairs) != len(wanted) or ordered != wanted:
        raise ValueError(
            f"pairs: expected every pair of {players} players once (a complete round robin)"
        )
    return (design(pairs, players).T @ values) / (players * scale)


@dataclass
class Ratings:
    """The fitted ratings, their bootstrap resamples and what follows from them."""

    names: list[str]
    rating: np.ndarray  # float64[players]
    draws: np.ndarray  # float64[replicates, players]

    def table(self) -> pd.DataFrame:
        """One row per player, best first: rating with its 95% percentile interval, and the
        95% interval of its rank (1 = best) over the resamples."""
        order = np.argsort(-self.rating, kind="stable")
        ranks = _ranks(self.draws)
        rows = []
        for position, player in enumerate(order, 1):
            low, high = np.percentile(self.draws[:, player], [2.5, 97.5])
            rank_low, rank_high = np.percentile(ranks[:, player], [2.5, 97.5])
            rows.append(
                {
                    "rank": position,
                    "player": self.names[player],
                    "rating": float(self.rating[player]),
                    "low": float(low),
                    "high": float(high),
                    "rank_low": int(np.floor(rank_low)),
                    "rank_high": int(np.ceil(rank_high)),
                }
            )
        return pd.DataFrame.from_records(rows)

    def difference(
        self, first: int, second: int, comparisons: int = 1
    ) -> tuple[float, float, float]:
        """Rating of ``first`` minus ``second`` with its 95% interval, Bonferroni-adjusted for
        ``comparisons`` differences stated at once: the difference plus or minus the normal
        quantile times its bootstrap standard error (the far tails that an adjusted
        percentile interval would need hold too few of the resamples)."""
        difference = float(self.rating[first] - self.rating[second])
        spread = float(np.std(self.draws[:, first] - self.draws[:, second], ddof=1))
        half_width = Z95 * bonferroni_factor(comparisons) * spread
        return difference, difference - half_width, difference + half_width


def _ranks(draws: np.ndarray) -> np.ndarray:
    """Rank of each player (1 = highest rating) in each resample; ties share the best rank."""
    return (draws[:, None, :] > draws[:, :, None]).sum(axis=2) + 1


def bootstrap_ratings(
    names: Sequence[str],
    pairs: Sequence[tuple[int, int]],
    per_deck: np.ndarray,
    hands_per_deck: float,
    seed: int,
    replicates: int = BOOTSTRAP_REPLICATES,
) -> Ratings:
    """Ratings from ``per_deck`` (whole numbers[pairs, decks]: the net points of ``a``
    against ``b`` over the hands of each deck, the same decks in every row), resampling decks
    ``replicates`` times with the generator seeded by ``seed``."""
    per_deck = np.asarray(per_deck, dtype=np.float64)
    decks = per_deck.shape[1]
    # Whole numbers keep every sum below exact (module docstring); 2**53 bounds float64's
    # whole numbers, and a resampled sum is at most decks times the largest deck.
    if not np.array_equal(per_deck, np.round(per_deck)):
        raise ValueError("per_deck: expected whole net points per deck")
    if decks * float(np.abs(per_deck).max(initial=0)) >= 2.0**53:
        raise ValueError("per_deck: too many points for exact sums")
    units = hands_per_deck * decks
    rating = fit_ratings(pairs, per_deck.sum(axis=1), len(names), units)
    generator = np.random.default_rng(seed)
    draws = []
    for start in range(0, replicates, _BATCH):
        size = min(_BATCH, replicates - start)
        weights = np.stack(
            [np.bincount(generator.integers(0, decks, decks), minlength=decks) for _ in range(size)]
        ).astype(np.float64)  # float64[size, decks]: how often each deck is drawn
        resampled = per_deck @ weights.T  # [pairs, size], whole numbers: exact
        draws.append(fit_ratings(pairs, resampled, len(names), units).T)
    return Ratings(list(names), rating, np.concatenate(draws))


def cycles(names: Sequence[str], beats: np.ndarray) -> list[tuple[str, str, str]]:
    """Every 3-cycle of a "beats" relation (``beats[a, b]`` true when ``a`` beats ``b``):
    ``a`` beats ``b``, ``b`` beats ``c`` and ``c`` beats ``a``, each cycle once.

    >>> import numpy as np
    >>> rps = np.array([[0, 1, 0], [0, 0, 1], [1, 0, 0]], dtype=bool)
    >>> cycles(["rock", "scissors", "paper"], rps)
    [('rock', 'scissors', 'paper')]
    """
    found = []
    n = len(names)
    for a in range(n):
        for b in range(n):
            for c in range(n):
                if a < b and a < c and beats[a, b] and beats[b, c] and beats[c, a]:
                    found.append((names[a], names[b], names[c]))
    return found
