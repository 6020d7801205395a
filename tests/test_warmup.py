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


def test_the_default_sets_groups_are_known_and_wait_for_the_hand_kernel():
    """A background warm-up's output is discarded, so an unknown group name would only
    waste its time, silently."""
    import dataclasses

    from gin_sim.reports.build import DefaultSet

    full = warmup.default_set_groups(DefaultSet())
    assert full == ["equity", "after-deals", "matches", "advice"]
    assert set(full) <= set(warmup.GROUPS)
    bare = dataclasses.replace(DefaultSet(), matches=0, advice_rules=None, equity_rules=None)
    assert warmup.default_set_groups(bare) == []  # nothing to wait for


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


SMALL_SET = """
import sys
from pathlib import Path
from gin_sim import reports
from gin_sim.experiments import equity
from gin_sim.reports.build import DefaultSet
for name, value in {"STATE_MATCHES": 200, "HEAT_MATCHES": 400, "MODEL_REPLICATES": 2,
                    "REPLICATE_MATCHES": 100, "GAME_REPLICATES": 2}.items():
    setattr(equity, name, value)
settings = DefaultSet(deals=200, matches=10, seed=5, thresholds=(0, 10), screening_deals=100,
                      confirm_deals=100, finalists=2, advice_deals=4, advice_samples=4,
                      advice_check_positions=2, advice_continuations=2, equity_deals=100,
                      equity_games=4, equity_matches=4)
reports.default_set(Path(sys.argv[1]), settings)
"""


@pytest.mark.full
def test_after_the_warmup_the_default_set_compiles_nothing(tmp_path):
    """Every kernel the default set (make run) calls, for the argument types it calls it
    with, is compiled by the warm-up groups that `report default` starts: a kernel they
    missed would be compiled by the set itself, on its one core, with no error to say so."""
    import os

    env = dict(os.environ, NUMBA_CACHE_DIR=str(tmp_path / "cache"), GIN_SIM_WARMUP="0")
    groups = ["equity", "deals", "after-deals", "matches", "advice"]  # as report default
    warm = [sys.executable, "-m", "gin_sim.reports.warmup", *groups]
    done = subprocess.run(warm, env=env, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-2000:]
    compiled = set((tmp_path / "cache").rglob("*.nbc"))
    assert len(compiled) > 50  # the cache is where this test looks
    played = subprocess.run([sys.executable, "-c", SMALL_SET, str(tmp_path / "set")], env=env,
                            capture_output=True, text=True, timeout=1800)  # fmt: skip
    assert played.returncode == 0, played.stderr[-2000:]
    assert (tmp_path / "set" / "index.md").exists()
    assert set((tmp_path / "cache").rglob("*.nbc")) == compiled
