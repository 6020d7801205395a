"""Workers that claim items as they free up (kernels/work.py): every item once, and the
results of the kernels that use them never depend on which thread played what."""

from __future__ import annotations

import numba
import numpy as np
import pytest
from numba import njit

from gin_sim.experiments.simulate import simulate_deals, simulate_matches
from gin_sim.game.rules import load_rules
from gin_sim.kernels.work import BLOCKS_PER_RUN, block_size, claimed_nb, run_workers
from gin_sim.players.strategies import load_strategy


@njit(nogil=True)
def _claims(seen, counter, block):
    """A worker that counts in ``seen[i]`` the workers that played item ``i``."""
    n = seen.shape[0]
    for i in claimed_nb(counter, block, n):
        seen[i] += 1


@pytest.mark.parametrize("n", [0, 1, 2, 7, 60, BLOCKS_PER_RUN * 3 + 5, 100_003])
@pytest.mark.parametrize("largest", [1, 16, 64])
def test_every_item_is_claimed_once(n, largest):
    seen = np.zeros(n, np.int64)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    run_workers(_claims, n, largest, seen)
    assert (seen == 1).all()


def test_small_runs_claim_one_item_at_a_time():
    assert block_size(60, 16) == 1  # 60 matches: any worker may take any match
    assert block_size(10**7, 64) == 64
    assert block_size(0, 64) == 1


@njit(nogil=True)
def _fails_at(bad, seen, counter, block):
    """A worker that raises at item ``bad`` and counts the items it played."""
    n = seen.shape[0]
    for i in claimed_nb(counter, block, n):
        if i == bad:
            raise ValueError("item failed")
        seen[i] += 1


def test_a_failing_worker_raises_and_no_item_is_played_twice():
    seen = np.zeros(10_000, np.int64)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    with pytest.raises(ValueError, match="item failed"):
        run_workers(_fails_at, seen.shape[0], 1, 17, seen)
    assert seen.max() <= 1 and seen[17] == 0


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
