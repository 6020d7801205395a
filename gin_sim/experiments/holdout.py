"""Honest confirmation of a search's winners: fresh decks and intervals adjusted for the
number of candidates compared, then the winner alone on decks no choice has seen.

A search (the tuner, the knock-schedule search) picks its best candidates on some decks;
their scores there are biased upwards by the picking. They are therefore measured again
on holdout decks from another seed stream, which the search never saw, and the best of
them is picked there. Every holdout interval is widened by Bonferroni's correction for the
number of candidates compared (all of them cover at once with 95% probability, so the
picked one's is covered too), but the picked one's point estimate is still the largest of
several and so optimistic. The winner's gain is therefore reported from a third stream of
decks (``confirmation_seed``), used by nothing else: one comparison fixed in advance, with
a plain 95% interval and an unbiased point estimate.

The three streams are the first three outputs of one splitmix64 sequence started at the
search's seed: the seed itself for the search, then ``holdout_seed``, then
``confirmation_seed``.

>>> seed = 1
>>> len({seed, holdout_seed(seed), confirmation_seed(seed)})
3
>>> round(bonferroni_factor(1), 6), round(bonferroni_factor(5), 3)
(1.0, 1.314)
"""

from __future__ import annotations

from dataclasses import replace
from statistics import NormalDist

import pandas as pd

from gin_sim.experiments.summary import Z95, Estimate

_MASK = (1 << 64) - 1


def _splitmix64(seed: int, step: int) -> int:
    """Output ``step`` (1, 2, ...) of the splitmix64 sequence started at ``seed`` (a fixed,
    documented hash)."""
    z = (seed + step * 0x9E3779B97F4A7C15) & _MASK
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return z ^ (z >> 31)


def holdout_seed(seed: int) -> int:
    """The seed of the holdout decks of a search run with ``seed``, on which its finalists
    are compared and the winner picked: a stream of its own."""
    return _splitmix64(seed, 1)


def confirmation_seed(seed: int) -> int:
    """The seed of the decks on which the winner of a search run with ``seed`` is confirmed
    after it is picked on the holdout decks: a third stream, used for nothing else."""
    return _splitmix64(seed, 2)


def bonferroni_factor(comparisons: int, level: float = 0.95) -> float:
    """How much wider a 95% interval becomes when ``comparisons`` intervals must cover at once."""
    if comparisons < 1:
        raise ValueError(f"comparisons = {comparisons}: allowed 1 or more")
    z = NormalDist().inv_cdf(1 - (1 - level) / (2 * comparisons))
    return z / Z95


def adjusted(estimate: Estimate, comparisons: int) -> Estimate:
    """``estimate`` with its half-width widened for ``comparisons`` simultaneous intervals."""
    return replace(estimate, half_width=estimate.half_width * bonferroni_factor(comparisons))


def adjust_differences(table: pd.DataFrame, comparisons: int) -> pd.DataFrame:
    """A table of paired differences (``mean``, ``half_width``, ``low``, ``high``,
    ``significant``; ``reports.tables.paired_differences``) with Bonferroni-adjusted
    intervals for ``comparisons`` simultaneous comparisons; ``significant`` is redone."""
    out = table.copy()
    out["half_width"] = out["half_width"] * bonferroni_factor(comparisons)
    out["low"] = out["mean"] - out["half_width"]
    out["high"] = out["mean"] + out["half_width"]
    reference = out["half_width"].isna() | (out["half_width"] == 0) & (out["mean"] == 0)
    out["significant"] = ~reference & ((out["low"] > 0) | (out["high"] < 0))
    return out
