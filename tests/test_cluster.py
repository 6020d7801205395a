"""Runs on a Dask cluster: identical to in-process runs, resumable, and robust to a lost worker."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import warnings

import pandas as pd
import pytest
from distributed import Client, LocalCluster

import gin_sim
from gin_sim.experiments.runs import RunConfig, execute
from gin_sim.game.rules import load_rules
from gin_sim.players.strategies import parse_players


def config(kind: str = "hands", count: int = 24_000, chunk_size: int = 3_000) -> RunConfig:
    return RunConfig(
        kind, load_rules("hollywood"), parse_players("expert,simple"), 11, count, True, chunk_size
    )


@pytest.fixture(scope="module")
def client():
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        yield client


@pytest.mark.parametrize("kind", ["hands", "matches"])
@pytest.mark.first_case
def test_cluster_run_equals_in_process_run(tmp_path, client, kind):
    run = config(
        kind,
        count=8_000 if kind == "hands" else 1_200,
        chunk_size=1_000 if kind == "hands" else 150,
    )
    local = pd.concat(execute(run, tmp_path / "local"), ignore_index=True)
    remote = pd.concat(execute(run, tmp_path / "remote", client=client), ignore_index=True)
    pd.testing.assert_frame_equal(local, remote)
    level = "hand" if kind == "hands" else "match"
    pd.testing.assert_frame_equal(
        gin_sim.load_run(tmp_path / "local", level=level),
        gin_sim.load_run(tmp_path / "remote", level=level),
    )


def test_workers_write_to_a_shared_folder(tmp_path, client):
    run = config(count=6_000, chunk_size=1_000)
    local = pd.concat(execute(run, tmp_path / "local"), ignore_index=True)
    shared = pd.concat(
        execute(run, tmp_path / "shared", client=client, workers_write=True), ignore_index=True
    )
    pd.testing.assert_frame_equal(local, shared)
    for path in sorted((tmp_path / "local").glob("*.parquet")):
        assert path.read_bytes() == (tmp_path / "shared" / path.name).read_bytes()


def test_cluster_resumes_only_missing_chunks(tmp_path, client):
    run = config()
    partial = execute(run, tmp_path / "run")
    next(partial)
    partial.close()
    before = {p.name: p.stat().st_mtime_ns for p in (tmp_path / "run").glob("*.parquet")}
    resumed_flags = []
    resumed = pd.concat(
        execute(run, tmp_path / "run", client=client, on_chunk=lambda n, r: resumed_flags.append(r))
    )
    assert resumed_flags[: len(before)] == [True] * len(before) and not any(
        resumed_flags[len(before) :]
    )
    assert {
        p.name: p.stat().st_mtime_ns for p in (tmp_path / "run").glob("*.parquet")
    } | before == {p.name: p.stat().st_mtime_ns for p in (tmp_path / "run").glob("*.parquet")}
    whole = pd.concat(execute(run), ignore_index=True)
    pd.testing.assert_frame_equal(whole, resumed.reset_index(drop=True))


@pytest.mark.full  # a worker killed and replaced: about 10 s of CPU; the fast tier plays runs on local clusters in the other tests
def test_a_killed_worker_is_replaced_and_the_run_completes_identically(tmp_path):
    run = config(count=60_000, chunk_size=2_000)
    expected = pd.concat(execute(run), ignore_index=True)
    with (
        LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        Client(cluster) as client,
    ):
        frames = execute(run, tmp_path / "run", client=client)
        got = [next(frames)]  # the run is under way on both workers
        victim = next(iter(client.run(os.getpid).values()))
        os.kill(victim, signal.SIGKILL)
        got.extend(frames)
    pd.testing.assert_frame_equal(expected, pd.concat(got, ignore_index=True))
    assert len(gin_sim.load_run(tmp_path / "run")) == len(expected)


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--workers", "0"], "workers = 0"),
        (["--workers", "2", "--scheduler", "tcp://127.0.0.1:9"], "exclude each other"),
        (["--scheduler", "tcp://127.0.0.1:9"], "cannot reach the Dask scheduler"),
    ],
)
@pytest.mark.first_case
def test_bad_cluster_options(args, message):
    result = subprocess.run(
        [sys.executable, "-m", "gin_sim", "simulate", "--deals", "100", *args],
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and message in result.stderr and result.stderr.count("\n") == 1


@pytest.mark.full  # a whole report on a Dask cluster: about 13 s of CPU; the fast tier plays runs on local clusters in the other tests
def test_report_on_workers_equals_report_in_process(tmp_path):
    from typer.testing import CliRunner

    from gin_sim.interfaces.cli import app

    args = ["report", "knock", "--deals", "2000", "--matches", "100", "--quiet"]
    runner = CliRunner()
    assert (
        runner.invoke(
            app, [*args, "--out", str(tmp_path / "a" / "knock"), "--workers", "2"]
        ).exit_code
        == 0
    )
    assert runner.invoke(app, [*args, "--out", str(tmp_path / "b" / "knock")]).exit_code == 0
    for name in ("figures.csv", "differences.csv"):
        assert (tmp_path / "a" / "knock" / name).read_bytes() == (
            tmp_path / "b" / "knock" / name
        ).read_bytes()


def test_a_running_scheduler_passes_the_bounded_handshake(client):
    """--scheduler ADDRESS: the handshake check (a timeout, the scheduler's identity) lets a
    real scheduler through, and the run equals an in-process one."""
    from typer.testing import CliRunner

    from gin_sim.interfaces.cli import app

    address = client.scheduler.address
    assert address.startswith("tcp://")
    args = ["simulate", "--deals", "2000", "--chunk-size", "500", "--json"]
    runner = CliRunner()
    remote = runner.invoke(app, [*args, "--scheduler", address])
    assert remote.exit_code == 0, remote.output
    assert remote.stdout == runner.invoke(app, args).stdout


def _one_core() -> None:
    os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})


@pytest.mark.parametrize(
    ("cores", "memory", "asked", "started", "reason"),
    [
        (2, 64 << 30, 16, 2, "has 2 cores"),
        (1, 64 << 30, 64, 1, "has 1 core"),
        (8, 3 << 30, 8, 3, "memory for 3 (3.0 GiB available, 1 GiB a worker)"),
        (8, 512 << 20, 4, 1, "memory for 1"),
        (4, 64 << 30, 4, 4, None),
        (4, None, 3, 3, None),
    ],
)
def test_local_workers_are_capped_by_cores_and_memory(
    monkeypatch, cores, memory, asked, started, reason
):
    from gin_sim.experiments import cluster

    monkeypatch.setattr(cluster, "cores", lambda: cores)
    monkeypatch.setattr(cluster, "available_memory", lambda: memory)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert cluster.local_workers(asked) == started
    said = [str(w.message) for w in caught]
    if reason is None:
        assert said == []
    else:
        assert len(said) == 1 and reason in said[0], said
        assert said[0].startswith(f"--workers {asked} is capped at {started}: this machine has")


def test_a_local_cluster_is_the_active_one_with_threads_shared(monkeypatch):
    """Reports find the cluster of --workers (they ask ``active_client``), and each worker's
    kernels get its share of the cores."""
    from gin_sim.experiments import cluster

    monkeypatch.setattr(cluster, "cores", lambda: 1)
    with (
        pytest.warns(gin_sim.game.config.GinSimWarning, match="--workers 3 is capped at 1"),
        cluster.dask_client(None, 3) as client,
    ):
        assert cluster.active_client() is client
        assert len(client.nthreads()) == 1
        threads = client.run(lambda: os.environ.get("NUMBA_NUM_THREADS"))
        assert list(threads.values()) == ["1"]
    assert cluster.active_client() is None


@pytest.mark.full  # many Dask workers started: about 23 s of CPU; the fast tier plays runs on local clusters in the other tests
def test_many_workers_on_a_small_job_say_one_line_and_nothing_of_dask():
    """--workers 16 on one core: one worker, one warning line, Dask's start-up and shutdown
    messages kept out (also while another cluster holds Dask's default port: the module's
    ``client`` may), and the same figures as in-process."""
    from typer.testing import CliRunner

    from gin_sim.interfaces.cli import app

    args = ["simulate", "--deals", "300", "--json"]
    spread = subprocess.run(
        [sys.executable, "-m", "gin_sim", *args, "--workers", "16"],
        capture_output=True,
        text=True,
        timeout=300,
        preexec_fn=_one_core,
    )
    assert spread.returncode == 0, spread.stderr
    assert spread.stderr == "warning: --workers 16 is capped at 1: this machine has 1 core\n"
    assert spread.stdout == CliRunner().invoke(app, args).stdout
