"""The warm-up that compiles numba's kernels ahead of a job (gin_sim.reports.warmup). It
cannot change a result (a kernel loaded from numba's cache is the kernel compiled; the
default set written with and without it was compared file by file, docs/reports.md), so
what is tested here is that it runs, stops and can be turned off."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gin_sim.reports import warmup


def test_an_unknown_group_is_refused():
    with pytest.raises(ValueError, match=r"warm-up groups \['kernels'\]: allowed deals"):
        warmup.warm(["kernels"])


def test_a_warmup_can_be_turned_off(monkeypatch):
    monkeypatch.setenv("GIN_SIM_WARMUP", "0")
    assert warmup.start(["deals"]) is None
    monkeypatch.delenv("GIN_SIM_WARMUP")
    assert warmup.start([]) is None


def test_a_warmup_still_running_when_the_job_ends_is_stopped(monkeypatch):
    started = []

    def slow(groups):
        started.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"]))
        return started[0]

    monkeypatch.setattr(warmup, "start", slow)
    with warmup.warming(["deals"]):
        assert started[0].poll() is None
    assert started[0].poll() is not None  # killed and reaped, not left behind


@pytest.mark.full
def test_every_group_runs_to_its_end():
    """The warm-up's output is discarded, so a group broken by a change to the functions
    it calls would only stop saving time, silently: each must run without an error."""
    done = subprocess.run(
        [sys.executable, "-m", "gin_sim.reports.warmup", *warmup.GROUPS],
        capture_output=True, text=True, timeout=1800,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
