"""Shared by every test module: the test tiers (tests/tiers.py, issue 28)."""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest
from tiers import FULL, TIER, TIERS

# The kernels' warm-up groups, split in two processes of about equal compile time
# (gin_sim.reports.warmup): the second compiles the equity model's kernels, which call no
# player, while the first compiles the hand kernel, then waits for it rather than compile
# it too.
WARMUP_SPLIT = (["deals", "advice"], ["equity", "after-deals", "matches", "decide"])
# A kernel of each group: all in numba's cache means the cache is warm (no warm-up).
CACHED_KERNELS = ("playout.play_deals_nb", "match.play_matches_nb", "advice.play_forced_nb",
                  "equity.game_equity_nb", "playout.decide_nb")  # fmt: skip


def pytest_configure(config: pytest.Config) -> None:
    if TIER not in TIERS:
        raise pytest.UsageError(
            f"GIN_SIM_TEST_TIER={TIER!r}: allowed {' or '.join(TIERS)} (unset: fast)"
        )
    if not hasattr(config, "workerinput") and config.getoption("dist", "no") != "no":
        _compile_kernels_once()


def _compile_kernels_once() -> None:
    """Before pytest-xdist starts its workers: on a fresh clone numba's cache is empty and
    every worker would compile every kernel for itself (the same 190 or so CPU seconds
    each), and the first test of a worker to reach a kernel would bear its compile (over
    a minute). Compiled once here, in two processes (gin_sim.reports.warmup), the workers
    load them from the cache. Skipped when the cache holds them, or GIN_SIM_WARMUP=0."""
    from pathlib import Path

    from gin_sim.reports import warmup  # gin_sim's import sets NUMBA_CACHE_DIR

    folder = Path(os.environ.get("NUMBA_CACHE_DIR", "."))
    if all(any(folder.rglob(f"{name}-*.nbi")) for name in CACHED_KERNELS):
        return
    started = time.perf_counter()
    first, second = (warmup.start(groups, nice=0) for groups in WARMUP_SPLIT)
    if first is None:  # GIN_SIM_WARMUP=0
        return
    codes = [second.wait()]  # the shorter of the two
    # Then, with the hand kernel in the cache, the kernels only the tests call.
    harness = subprocess.Popen([sys.executable, str(Path(__file__).with_name("simulated_hands.py"))],
                               stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL)  # fmt: skip
    codes += [harness.wait(), first.wait()]
    took = time.perf_counter() - started
    failed = " (a warm-up failed: the workers compile what it left)" * any(codes)
    print(f"numba's kernels compiled once for every worker: {took:.0f} s{failed}",
          file=sys.stderr)  # fmt: skip


def pytest_report_header(config: pytest.Config) -> str:
    if FULL:
        return "test tier: full (make test-all): every test at full size"
    return "test tier: fast (make test): tests marked full left out, oracles on smaller samples; make test-all runs everything"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The fast tier leaves out the tests marked ``full``, and the cases but the first of
    a parametrized test marked ``first_case`` (deselected and counted, not skipped one by
    one). The full tier runs everything."""
    if FULL:
        return
    first_cases = _first_cases(items)
    left_out = [item for item in items if not _in_fast_tier(item, first_cases)]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        kept = set(map(id, left_out))
        items[:] = [item for item in items if id(item) not in kept]


def _first_cases(items: list[pytest.Item]) -> set[int]:
    """The first collected case of each parametrized test (by its node id less the case),
    as ids of the items."""
    first: dict[str, int] = {}
    for item in items:
        if getattr(item, "callspec", None) is not None:
            first.setdefault(item.nodeid.split("[", 1)[0], id(item))
    return set(first.values())


def _in_fast_tier(item: pytest.Item, first_cases: set[int]) -> bool:
    if item.get_closest_marker("full"):
        return False
    return not item.get_closest_marker("first_case") or id(item) in first_cases
