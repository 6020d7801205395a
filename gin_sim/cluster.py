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
import math
import os
import socket
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any
from urllib.parse import urlsplit

from gin_sim.config import ConfigError
from gin_sim.limits import MAX_WORKERS, check_count

TASK_RETRIES = 3  # a chunk whose worker died is played again, up to this many times
# Seconds allowed to reach a scheduler and hear it answer, handshake included; a peer that
# accepts the connection and stays silent would otherwise hold the command for ever.
SCHEDULER_TIMEOUT = 15.0
TIMEOUT_VARIABLE = "GIN_SIM_SCHEDULER_TIMEOUT"
MIN_TASKS_AHEAD = 64  # tasks submitted ahead of the chunk being collected (at least)
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
        with client, _activated(client):
            yield client
        return
    with (
        LocalCluster(
            n_workers=workers, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


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
