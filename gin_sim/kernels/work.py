"""Sharing a parallel kernel's independent work items out among its threads as they free up.

numba's ``prange`` splits its range into one contiguous, equal share per thread, decided
before the loop starts (with the OpenMP and workqueue layers; ``set_parallel_chunksize``
does not change that there). Where items take very different times (a Hollywood match of
search players takes from tens of milliseconds to seconds), one thread may finish long
before the other and sit idle: 60 matches of ``mc`` on 2 threads used 1.75 cores. So a
kernel runs workers (``prange(workers_nb(n))``), each of which claims the next block of
items from a shared counter (``claim_nb``, an atomic add) until none is left. There are
more workers than threads (the thread count is not known inside a cached kernel): a
thread's first worker plays until the counter runs out and the thread's other workers
find nothing left.

Which thread plays an item, and in what order, then depends on timing. So every kernel
that uses this must make each item depend only on its own index and inputs (the deal or
match key), never on what its worker's scratch played before: results stay the same for
any thread count or timing (tests/test_work.py and the kernels' thread tests check that).

Contract: ``counter`` is an int64[1] array set to 0 before the loop, shared by the workers.
"""

from __future__ import annotations

import numba
import numpy as np
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic

MAX_WORKERS = 256  # more than the threads of any machine this runs on


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


if numba.config.DISABLE_JIT:  # plain Python: prange is range, one thread, no race

    def _fetch_add(counter, amount):  # the interpreted twin of the intrinsic
        before = counter[0]
        counter[0] += amount
        return before


@njit(cache=True)
def claim_nb(counter, block, n):
    """The first item of the next unclaimed block of ``block`` items, or ``n`` when all
    ``n`` items are claimed."""
    return min(_fetch_add(counter, np.int64(block)), n)


@njit(cache=True)
def workers_nb(n):
    """The workers for ``n`` items: MAX_WORKERS, no more than there are items (at least 1)."""
    return max(1, min(n, MAX_WORKERS))


@njit(cache=True)
def block_size_nb(n, largest):
    """Items per claimed block: 1 for a small run (its items are few, maybe slow: the
    last one to finish keeps the others waiting least), up to ``largest`` for a large one
    (its items are many: the counter's cost stays negligible)."""
    return max(1, min(largest, n // MAX_WORKERS))
