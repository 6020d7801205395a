"""Workers that claim items as they free up (kernels/work.py): every item once, and the
results of the kernels that use them never depend on which thread played what."""

from __future__ import annotations

import os
import signal
import threading
import time

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


UNENDING = 1 << 62  # items: a run that only a stop ends


@njit(nogil=True)
def _until_stopped(flags, counter, block):
    """A worker that claims items until the run is stopped (flags[0]: it started; flags[1]:
    the test's own way out, for a stop that never comes)."""
    flags[0] = 1
    for _ in claimed_nb(counter, block, UNENDING):
        if flags[1]:  # read after each atomic claim, which keeps it in the loop
            return


class _Stopped(Exception):
    pass


def test_a_stop_reaches_a_run_on_one_thread_while_its_kernel_plays():
    """With one thread (--threads 1) the kernel still runs beside the calling thread, so a
    signal's handler (which Python runs in the main thread, between bytecodes) stops the
    run at once, not after the kernel has played every item. The worker here never ends on
    its own: a handler that waited for it would see flags[1], set 20 s later."""
    flags = np.zeros(2, np.int64)

    def send_the_stop() -> None:
        while not flags[0]:
            time.sleep(0.01)
        os.kill(os.getpid(), signal.SIGUSR1)

    def stop(number, frame):
        raise _Stopped(f"stopped with flags {flags.tolist()}")

    previous = signal.signal(signal.SIGUSR1, stop)
    threading.Thread(target=send_the_stop, daemon=True).start()
    way_out = threading.Timer(20.0, flags.__setitem__, (1, 1))
    way_out.start()
    try:
        numba.set_num_threads(1)
        with pytest.raises(_Stopped, match=r"flags \[1, 0\]"):
            run_workers(_until_stopped, UNENDING, 1, flags)
    finally:
        way_out.cancel()
        flags[1] = 1
        signal.signal(signal.SIGUSR1, previous)
        numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)


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
