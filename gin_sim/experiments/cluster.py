"""Scale-out on a Dask cluster: chunks of a run become Dask tasks.

``--scheduler ADDRESS`` connects to a running ``dask.distributed`` scheduler;
``--workers N`` starts a local cluster of N worker processes. Each task plays one chunk
with the numba kernels on its worker and returns the chunk's records, which the client
writes to the run folder: the workers need the package installed, not the folder. A
chunk depends only on the run's configuration and its index, so results are identical
to an in-process run, and a task lost with its worker is simply played again.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import math
import os
import socket
import warnings
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any
from urllib.parse import urlsplit

from gin_sim.game.config import ConfigError, GinSimWarning
from gin_sim.game.environment import cores
from gin_sim.game.limits import MAX_WORKERS, check_count

TASK_RETRIES = 3  # a chunk whose worker died is played again, up to this many times
# Seconds allowed to reach a scheduler and hear it answer, handshake included; a peer that
# accepts the connection and stays silent would otherwise hold the command for ever.
SCHEDULER_TIMEOUT = 15.0
TIMEOUT_VARIABLE = "GIN_SIM_SCHEDULER_TIMEOUT"
MIN_TASKS_AHEAD = 64  # tasks submitted ahead of the chunk being collected (at least)
# Memory set aside for one local worker process: measured at about 0.4 GiB (numba, the
# compiled kernels and a chunk of 100,000 duplicate decks); the rest is room for larger
# chunks and the search players.
WORKER_MEMORY = 1 << 30
# Dask's own logging is quiet below this level: its warnings about workers that are slow to
# start or to stop, and the tracebacks of connections closed at shutdown, are not ours to
# show. A task that fails for good still reaches the command as an error.
DASK_LOG_LEVEL = logging.CRITICAL
_ACTIVE: ContextVar[Any] = ContextVar("gin_sim_dask_client", default=None)


def active_client() -> Any:
    """The client of the enclosing ``dask_client`` block, or None (work stays in-process).

    Reports, which run many sweeps, ask for it instead of passing it through every call.
    """
    return _ACTIVE.get()


@contextlib.contextmanager
def _activated(client: Any) -> Iterator[Any]:
    token = _ACTIVE.set(client)
    try:
        yield client
    finally:
        _ACTIVE.reset(token)


@contextlib.contextmanager
def dask_client(scheduler: str | None, workers: int | None) -> Iterator[Any]:
    """A ``distributed.Client`` for the options given, or None to stay in-process."""
    if scheduler is None and workers is None:
        yield None
        return
    if scheduler is not None and workers is not None:
        raise ConfigError("--scheduler and --workers exclude each other: give one")
    if workers is not None:
        check_count(workers, "workers", 1, MAX_WORKERS)
    try:
        from distributed import Client, LocalCluster
    except ImportError:  # pragma: no cover - a dependency of the package
        raise ConfigError(
            "--scheduler and --workers need dask.distributed: pip install distributed"
        ) from None
    if scheduler is not None:
        timeout = scheduler_timeout()
        _probe(scheduler, timeout)
        try:
            client = Client(scheduler, timeout=f"{timeout}s")
        except Exception as error:
            raise ConfigError(
                f"cannot reach the Dask scheduler at {scheduler}: {_reason(error)}"
            ) from None
        with _quiet_dask(), client, _activated(client):
            yield client
        return
    workers = local_workers(workers)
    with (
        _quiet_dask(),
        LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            # Without a dashboard the scheduler still serves its health routes, by default
            # on port 8787, with a warning when another cluster holds it: any free local port
            scheduler_kwargs={"dashboard_address": "127.0.0.1:0"},
            silence_logs=DASK_LOG_LEVEL,
            # each worker's kernels use its share of the threads (the cores, or fewer when
            # NUMBA_NUM_THREADS says so), not all of them
            env={"NUMBA_NUM_THREADS": str(max(1, min(numba_threads(), cores()) // workers))},
        ) as cluster,
        Client(cluster) as client,
        _activated(client),
    ):
        yield client


def numba_threads() -> int:
    """The threads numba may use in this process (``NUMBA_NUM_THREADS``, else the cores)."""
    import numba

    return int(numba.config.NUMBA_NUM_THREADS)


def available_memory() -> int | None:
    """Bytes of memory available to new processes (Linux's MemAvailable), or None."""
    try:
        with open("/proc/meminfo", encoding="ascii") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def local_workers(asked: int) -> int:
    """The worker processes a local cluster starts for ``--workers asked``: at most one per
    core (a worker plays one chunk at a time on the kernels; more only compete for the cores)
    and at most as many as the available memory holds (WORKER_MEMORY each). A cap is said
    in one warning line."""
    available_cores = cores()
    memory = available_memory()
    by_memory = max(1, memory // WORKER_MEMORY) if memory is not None else asked
    allowed = min(available_cores, by_memory)
    if asked <= allowed:
        return asked
    reason = (
        f"{available_cores} core{'s' if available_cores > 1 else ''}"
        if allowed == available_cores
        else f"memory for {by_memory} ({memory / 2**30:.1f} GiB available, {WORKER_MEMORY / 2**30:g} GiB a worker)"
    )
    warnings.warn(
        f"--workers {asked} is capped at {allowed}: this machine has {reason}",
        GinSimWarning,
        stacklevel=3,
    )
    return allowed


@contextlib.contextmanager
def _quiet_dask() -> Iterator[None]:
    """Raise the level of Dask's loggers in this process while the cluster runs and stops
    (its shutdown is where the noise is), and restore them after."""
    names = ("distributed", "tornado", "asyncio")
    loggers = [logging.getLogger(name) for name in names]
    levels = [logger.level for logger in loggers]
    for logger in loggers:
        logger.setLevel(DASK_LOG_LEVEL)
    try:
        yield
    finally:
        for logger, level in zip(loggers, levels, strict=True):
            logger.setLevel(level)


def scheduler_timeout() -> float:
    """Seconds to reach a scheduler: ``$GIN_SIM_SCHEDULER_TIMEOUT``, else 15."""
    text = os.environ.get(TIMEOUT_VARIABLE, "").strip()
    if not text:
        return SCHEDULER_TIMEOUT
    try:
        seconds = float(text)
    except ValueError:
        seconds = math.nan
    if not 0 < seconds <= 3600:
        raise ConfigError(
            f"{TIMEOUT_VARIABLE}={text!r}: allowed a number of seconds, above 0 to 3600"
        )
    return seconds


def _reason(error: BaseException) -> str:
    text = " ".join(str(error).split())[:200]
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def _probe(address: str, timeout: float) -> None:
    """Connect, shake hands and ask the scheduler who it is, all within ``timeout`` seconds.

    ``distributed.Client`` bounds the connection but not every read of its handshake: a
    peer that accepts and never answers hangs it, and one that answers with something
    else than Dask's protocol makes it try to allocate whatever length the bytes spell.
    """
    from distributed.comm import connect

    _refused_at_once(address, timeout)

    async def identify() -> Any:
        comm = await connect(address, timeout=timeout)
        try:
            await comm.write({"op": "identity"})
            return await comm.read()
        finally:
            comm.abort()

    async def bounded() -> Any:
        return await asyncio.wait_for(identify(), timeout)

    try:
        reply = asyncio.run(bounded())
    except TimeoutError:
        raise ConfigError(
            f"cannot reach the Dask scheduler at {address}: no answer within {timeout:g} s (set {TIMEOUT_VARIABLE} to wait longer)"
        ) from None
    except Exception as error:  # refused, unresolvable, or not speaking Dask's protocol
        raise ConfigError(
            f"cannot reach the Dask scheduler at {address}: {_reason(error)}"
        ) from None
    if not isinstance(reply, dict) or reply.get("type") != "Scheduler":
        raise ConfigError(
            f"cannot use {address} as a Dask scheduler: it answered, but not as a scheduler ({str(reply)[:80]!r})"
        )


def _refused_at_once(address: str, timeout: float) -> None:
    """A TCP address where nothing listens is an error at once (Dask's own connect would
    retry it until the timeout)."""
    parts = urlsplit(address)
    if parts.scheme != "tcp":
        return
    try:
        port = parts.port
    except ValueError as error:
        raise ConfigError(f"--scheduler {address!r}: expected tcp://HOST:PORT ({error})") from None
    if not parts.hostname or port is None:
        raise ConfigError(f"--scheduler {address!r}: expected tcp://HOST:PORT")
    try:
        socket.create_connection((parts.hostname, port), timeout=timeout).close()
    except TimeoutError:
        raise ConfigError(
            f"cannot reach the Dask scheduler at {address}: no answer within {timeout:g} s (set {TIMEOUT_VARIABLE} to wait longer)"
        ) from None
    except OSError as error:
        raise ConfigError(
            f"cannot reach the Dask scheduler at {address}: {error.strerror or error}"
        ) from None


def tasks_ahead(client: Any) -> int:
    """How many chunks to keep submitted at once: enough to keep every worker thread busy
    twice over, never all the chunks of a long run (their futures and results would pile up)."""
    try:
        threads = sum(client.nthreads().values())
    except Exception:  # pragma: no cover - a client that cannot say
        threads = 0
    return max(MIN_TASKS_AHEAD, 2 * threads)
