"""Scale-out on a Dask cluster: chunks of a run become Dask tasks.

``--scheduler ADDRESS`` connects to a running ``dask.distributed`` scheduler;
``--workers N`` starts a local cluster of N worker processes. Each task plays one chunk
with the numba kernels on its worker and returns the chunk's records, which the client
writes to the run folder: the workers need the package installed, not the folder. A
chunk depends only on the run's configuration and its index, so results are identical
to an in-process run, and a task lost with its worker is simply played again.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from typing import Any

from gin_sim.config import ConfigError

TASK_RETRIES = 3  # a chunk whose worker died is played again, up to this many times
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
    if workers is not None and workers < 1:
        raise ConfigError(f"workers = {workers}: allowed 1 or more")
    try:
        from distributed import Client, LocalCluster
    except ImportError:  # pragma: no cover - a dependency of the package
        raise ConfigError(
            "--scheduler and --workers need dask.distributed: pip install distributed"
        ) from None
    if scheduler is not None:
        try:
            client = Client(scheduler, timeout="5s")
        except OSError as error:
            raise ConfigError(f"cannot reach the Dask scheduler at {scheduler}: {error}") from None
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
