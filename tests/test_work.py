"""Workers that claim items as they free up (kernels/work.py): every item once, and the
results of the kernels that use them never depend on which thread played what."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from numba import njit, prange

from gin_sim.experiments.simulate import simulate_deals, simulate_matches
from gin_sim.game.rules import load_rules
from gin_sim.kernels.work import MAX_WORKERS, block_size_nb, claim_nb, workers_nb
from gin_sim.players.strategies import load_strategy


@njit(parallel=True)
def _claims(n, largest, seen):
    """``seen[i]`` counts the workers that played item ``i``."""
    counter = np.zeros(1, np.int64)
    block = block_size_nb(n, largest)
    for _ in prange(workers_nb(n)):
        while True:
            first = claim_nb(counter, block, n)
            if first == n:
                break
            for i in range(first, min(n, first + block)):
                seen[i] += 1


@pytest.mark.parametrize("n", [0, 1, 2, 7, 60, MAX_WORKERS * 3 + 5, 100_003])
@pytest.mark.parametrize("largest", [1, 16, 64])
def test_every_item_is_claimed_once(n, largest):
    seen = np.zeros(max(n, 1), np.int64)
    _claims(n, largest, seen)
    assert (seen[:n] == 1).all() and seen[n:].sum() == 0


def test_small_runs_claim_one_item_at_a_time():
    assert block_size_nb(60, 16) == 1  # 60 matches: any worker may take any match
    assert block_size_nb(10**7, 64) == 64
    assert workers_nb(0) == 1 and workers_nb(5) == 5 and workers_nb(10**6) == MAX_WORKERS


SEARCH_PAIR = (load_strategy("mc-fast", ["samples=4"]), load_strategy("expert"))


def test_search_matches_and_deals_do_not_depend_on_threads():
    """The kernels that play search players, whose items take very different times: on
    one thread, on all, and started elsewhere (other workers play other items first)."""
    rules = load_rules("standard")
    whole, _ = simulate_matches(
        rules, SEARCH_PAIR, 6, seed=5, threads=numba.config.NUMBA_NUM_THREADS
    )
    alone, _ = simulate_matches(rules, SEARCH_PAIR, 6, seed=5, threads=1)
    tail, _ = simulate_matches(rules, SEARCH_PAIR, 3, seed=5, first_match=3)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert np.array_equal(whole, alone) and np.array_equal(whole[3:], tail)
    deals = simulate_deals(rules, SEARCH_PAIR, 40, seed=5)
    one = simulate_deals(rules, SEARCH_PAIR, 40, seed=5, threads=1)
    later = simulate_deals(rules, SEARCH_PAIR, 25, seed=5, first_deal=15)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert np.array_equal(deals, one) and np.array_equal(deals[15:], later)
