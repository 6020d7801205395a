"""Ctrl-C and SIGTERM for the ``gin-sim`` command: one handler for both, installed by
``main``, which raises ``KeyboardInterrupt`` (Ctrl-C) or ``Terminated`` (SIGTERM) where the
command is, so that a run finishes writing its chunk and says what is saved.

Why the handler does not always raise at once: Python runs a signal handler at the next
bytecode of the main thread, wherever that is. While numba compiles a kernel (or loads it
from its cache), that is often inside llvmlite's ctypes callbacks (the object cache's
``_raw_object_cache_notify``), and an exception raised in a ctypes callback is printed as
"Exception ignored on calling ctypes callback function" and lost: the stop was lost with
it, and a command signalled during its first compile ran to its end and exited 0 (seen on
clean clones, whose numba cache is cold). So while numba's compiler lock is held the stop
waits, and a timer (SIGALRM) raises it as soon as the compile is over.
"""

from __future__ import annotations

import signal
import sys

from gin_sim.interfaces.cli.common import Terminated

# How often a stop that waits for a compile looks again (seconds): a compile takes seconds,
# so a stop comes at most this late after it.
RECHECK = 0.02

_pending: list[type[KeyboardInterrupt]] = []  # the stop waiting for a compile to end


def numba_compiling() -> bool:
    """Whether this thread holds numba's global compiler lock (compiling a kernel or
    loading one from the cache). numba not yet imported: nothing is compiling."""
    lock_module = sys.modules.get("numba.core.compiler_lock")
    return lock_module is not None and lock_module.global_compiler_lock.is_locked()


def _stop_for(signum: int) -> type[KeyboardInterrupt]:
    # SIGTERM (kill, a batch system's time limit) stops a run as Ctrl-C does: the chunks
    # being written are finished, the user is told what is saved, exit code 143.
    return Terminated if signum == signal.SIGTERM else KeyboardInterrupt


def _stop(signum: int, frame: object) -> None:
    stop = _stop_for(signum)
    if numba_compiling():
        _pending[:] = [stop]
        signal.setitimer(signal.ITIMER_REAL, RECHECK)
        return
    raise stop()


def _raise_pending(signum: int, frame: object) -> None:
    if not _pending:
        return
    if numba_compiling():
        signal.setitimer(signal.ITIMER_REAL, RECHECK)
        return
    raise _pending.pop()()


def listen(ctrl_c: bool) -> None:
    """Stop the command on SIGTERM, and on Ctrl-C when ``ctrl_c`` (False: SIGINT keeps the
    handler it has, e.g. ignored in a background job)."""
    _pending.clear()
    signal.signal(signal.SIGALRM, _raise_pending)
    signal.signal(signal.SIGTERM, _stop)
    if ctrl_c:
        signal.signal(signal.SIGINT, _stop)


def stop_listening() -> None:
    """A second Ctrl-C or SIGTERM while the first is being reported must not cut the one
    line short with a traceback; a stop still waiting for a compile is dropped."""
    for number in (signal.SIGINT, signal.SIGTERM):
        signal.signal(number, signal.SIG_IGN)
    signal.setitimer(signal.ITIMER_REAL, 0)
    _pending.clear()
