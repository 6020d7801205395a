"""Ctrl-C and SIGTERM for the ``gin-sim`` command: one handler for both, installed by
``main``, which raises ``KeyboardInterrupt`` (Ctrl-C) or ``Terminated`` (SIGTERM) where the
command is, so that a run finishes writing its chunk and says what is saved.

Why the handler does not always raise at once: Python runs a signal handler at the next
bytecode of the main thread, wherever that is. While numba compiles a kernel, that is often
inside llvmlite's ctypes callbacks (its object cache's ``_raw_object_cache_notify``), and an
exception raised in a ctypes callback (or in a finalizer, ``__del__``) is printed as
"Exception ignored ..." and lost: the stop was lost with it, and a command signalled during
its first compile ran to its end and exited 0 (seen on clean clones, whose numba cache is
cold). So a stop that lands there waits, and a timer (SIGALRM) raises it at the first
bytecode outside them, a few milliseconds later.
"""

from __future__ import annotations

import os
import signal
import sys
from types import FrameType

from gin_sim.interfaces.cli.common import Terminated

# How often a stop that waits looks again (seconds).
RECHECK = 0.02

_pending: list[type[KeyboardInterrupt]] = []  # the stop waiting to be raised


def _llvmlite_folder() -> str | None:
    module = sys.modules.get("llvmlite")
    return None if module is None else os.path.dirname(module.__file__) + os.sep


def raise_here_is_lost(frame: FrameType | None) -> bool:
    """Whether an exception raised at ``frame`` would be printed and lost: the frame or one
    that called it is llvmlite's (whose callbacks from C run during numba's compiles) or
    a finalizer."""
    llvmlite = _llvmlite_folder()
    while frame is not None:
        code = frame.f_code
        if code.co_name == "__del__" or (llvmlite and code.co_filename.startswith(llvmlite)):
            return True
        frame = frame.f_back
    return False


def _stop_for(signum: int) -> type[KeyboardInterrupt]:
    # SIGTERM (kill, a batch system's time limit) stops a run as Ctrl-C does: the chunks
    # being written are finished, the user is told what is saved, exit code 143.
    return Terminated if signum == signal.SIGTERM else KeyboardInterrupt


def _raise_when_safe(stop: type[KeyboardInterrupt], frame: FrameType | None) -> None:
    if raise_here_is_lost(frame):
        _pending[:] = [stop]
        signal.setitimer(signal.ITIMER_REAL, RECHECK)
        return
    _pending.clear()
    raise stop()


def _stop(signum: int, frame: FrameType | None) -> None:
    _raise_when_safe(_stop_for(signum), frame)


def _raise_pending(signum: int, frame: FrameType | None) -> None:
    if _pending:
        _raise_when_safe(_pending[0], frame)


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
