"""Sharing a kernel's independent work items out among threads as they free up.

A kernel that plays many independent items (deals, matches, positions) is a serial
``nogil`` kernel that takes a shared ``counter`` and a ``block`` size as its last two
arguments and loops over ``claimed_nb(counter, block, n)``: claim the next block of items
(``claim_nb``, an atomic add on the counter), play them, until none is left.
``run_workers`` runs one copy of it on each of numba's threads (``numba.get_num_threads()``,
which ``use_threads`` sets), as Python threads that release the GIL inside the kernel. Where items take very different times (a Hollywood
match of search players takes from tens of milliseconds to seconds), a thread that finishes
early claims more, instead of waiting as with a split decided before the loop starts.

Why threads of our own rather than numba's ``prange``: a ``parallel=True`` kernel is
compiled three more times (the loop body as a gufunc, its wrapper and the driver, each
with everything it calls linked in and generated again), which on a fresh clone cost
about 15 to 30 CPU seconds per parallel kernel, a fifth of all compile time, for the same
machine code in the loop (issue 28, measured in docs/reports.md).

Which thread plays an item, and in what order, depends on timing. So every kernel that
uses this must make each item depend only on its own index and inputs (the deal or match
key), never on what its thread's scratch played before: results stay the same for any
thread count or timing (tests/test_work.py and the kernels' thread tests check that).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import numba
import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

# Blocks are sized so that a run has at least this many when its items allow: threads then
# finish within a block of each other, and the counter's cost stays negligible.
BLOCKS_PER_RUN = 256


@intrinsic
def _fetch_add(typingctx, counter, amount):
    """``counter[0] += amount`` as one atomic step; returns the value before."""
    if not (isinstance(counter, types.Array) and counter.dtype == types.int64):
        return None
    signature = types.int64(counter, types.int64)

    def codegen(context, builder, sig, args):
        array_type = sig.args[0]
        array = context.make_array(array_type)(context, builder, args[0])
        zero = context.get_constant(types.intp, 0)
        pointer = cgutils.get_item_pointer(context, builder, array_type, array, [zero])
        return builder.atomic_rmw("add", pointer, args[1], "seq_cst")

    return signature, codegen


if numba.config.DISABLE_JIT:  # plain Python: run_workers uses one thread, so no race

    def _fetch_add(counter, amount):  # the interpreted twin of the intrinsic
        before = counter[0]
        counter[0] += amount
        return before


@njit(cache=True)
def claim_nb(counter, block, n):
    """The first item of the next unclaimed block of ``block`` items, or ``n`` when all
    ``n`` items are claimed."""
    return min(_fetch_add(counter, np.int64(block)), n)


# Not cached (cache=False): numba 0.6x cannot load a cached generator (KeyError at the second
# start). The workers that iterate over it are cached, its code inside theirs.
@njit(nogil=True)
def claimed_nb(counter, block, n):
    """The items ``0 .. n - 1`` that this worker claims, a block at a time, from the shared
    ``counter`` (``for i in claimed_nb(counter, block, n):`` is a worker's loop)."""
    while True:
        first = claim_nb(counter, block, n)
        if first == n:
            return
        for i in range(first, min(n, first + block)):  # noqa: UP028 (numba has no yield from)
            yield i


def block_size(n: int, largest: int) -> int:
    """Items per claimed block: 1 for a small run (its items are few, maybe slow: the
    last one to finish keeps the others waiting least), up to ``largest`` for a large one
    (its items are many: the counter's cost stays negligible)."""
    return max(1, min(largest, n // BLOCKS_PER_RUN))


def run_workers(kernel: Callable[..., object], n: int, largest: int, *args: object) -> None:
    """Play ``n`` items with ``kernel(*args, counter, block)`` on numba's threads: one call
    per thread (no more threads than items), all sharing one counter, blocks of
    ``block_size(n, largest)`` items. Returns when every item is played. If a call raises
    (or a stop arrives while waiting), no item is claimed after it: the other calls end
    after the block they hold, and the exception is raised here."""
    counter = np.zeros(1, np.int64)
    block = block_size(n, largest)
    # Interpreted kernels (NUMBA_DISABLE_JIT) hold the GIL and the counter's add is not
    # atomic there: one thread, this one (interpreted, a stop reaches it between lines).
    if numba.config.DISABLE_JIT:
        kernel(*args, counter, block)
        return
    # Compiled, even one call runs on a thread of its own: Python runs a signal's handler
    # in this thread only between bytecodes, so a kernel called here would keep a Ctrl-C or
    # SIGTERM waiting until it had played every item (minutes, with --threads 1).
    threads = max(1, min(numba.get_num_threads(), n))
    with ThreadPoolExecutor(threads, thread_name_prefix="gin-sim-kernel") as pool:
        calls = [pool.submit(kernel, *args, counter, block) for _ in range(threads)]
        try:
            for call in calls:
                call.result()
        except BaseException:
            counter[0] = n  # every later claim finds nothing left: the threads stop soon
            raise
