"""Shared by every test module: the test tiers (tests/tiers.py, issue 28)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

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
# The file that exists once the warm-up is over (a variable the workers inherit).
KERNELS_READY = "GIN_SIM_TEST_KERNELS_READY"
# Test modules that call no numba kernel, or only in a few tests, and start no command
# that plays (found on 2026-12-03 by tools/kernel_free_tests.py: each module alone on a
# warm cache, numba's Dispatcher._compile_for_args and subprocess.Popen watched; a
# hypothesis test here that calls a kernel needs deadline=None). On a fresh clone they
# run first, in this order, beside the warm-up, without waiting for it: they fill the core
# the warm-up leaves idle while the hand kernel compiles. Their few tests that call a
# kernel wait for the warm-up before they start (KERNEL_CALLS). A module missing here
# waits for the warm-up before its first test (pytest_runtest_protocol); none is compiled
# twice either way.
KERNEL_FREE = (
    # no kernel at all
    "test_tiers", "test_layers", "test_outputs", "test_melds", "test_ignored_settings",
    "test_hostile_paths", "test_mutants_advice", "test_cards", "test_configs",
    "test_mutants_summary", "test_mutants_ranking", "test_mutants_tuner",
    "test_published_advice", "test_rates", "test_streams", "test_advice_check",
    # one to five tests that call a kernel, the largest last: a worker that reaches such a
    # test waits there for the warm-up, and what comes after it in the list waits too
    "test_hostile_messages", "test_hostile_reads", "test_hostile_results", "test_docs",
    "test_hostile_nonsense", "test_hostile_api", "test_mutants_distill", "test_cli",
    "test_hostile_tracebacks", "test_reference_rules", "test_hostile_input",
)  # fmt: skip
# The tests of KERNEL_FREE modules that call a kernel first in their module (by function
# name, every case of a parametrized one), from the same tool: on a fresh clone each waits
# for the warm-up before it starts (pytest_runtest_protocol), as a module not in
# KERNEL_FREE waits before its first test, so that the wait is not counted in the test's
# own time (--durations; no test of the fast tier takes 30 s: issue 28). A test missing
# here that calls a kernel still waits, inside its call (_gate_compiles).
KERNEL_CALLS = {
    "test_hostile_messages": ("test_the_phase_is_read_in_any_case",),
    "test_hostile_reads": ("test_every_file_read_is_refused_at_once_when_it_is_a_fifo_or_huge",),
    "test_hostile_results": ("test_a_finished_game_is_never_replaced",
                             "test_overwrite_still_replaces_gin_sims_own_run"),
    "test_docs": ("test_the_readme_python_example_runs",),
    "test_hostile_nonsense": ("test_replay_record_refuses_every_option_it_would_ignore",),
    "test_hostile_api": ("test_a_memory_of_another_decider",),
    "test_mutants_distill": ("test_a_checked_gain_is_the_paired_gain_with_a_bonferroni_interval",),
    "test_cli": ("test_simulate_prints_a_table_and_json",),
    "test_hostile_tracebacks": ("test_replay_names_the_record_for_every_damaged_field",
                                "test_the_view_used_here_is_good"),
    "test_reference_rules": ("test_rule_case",),
    "test_hostile_input": ("test_deadwood_refuses_hands_beyond_the_limit_at_once",
                           "test_json_is_strict_when_a_figure_is_undefined",
                           "test_report_writes_no_index_in_a_folder_gin_sim_does_not_own"),
}  # fmt: skip


def pytest_configure(config: pytest.Config) -> None:
    if TIER not in TIERS:
        raise pytest.UsageError(
            f"GIN_SIM_TEST_TIER={TIER!r}: allowed {' or '.join(TIERS)} (unset: fast)"
        )
    if hasattr(config, "workerinput"):
        if os.environ.get(KERNELS_READY):
            os.nice(5)  # the warm-up's compile first: the workers fill the idle core
            _gate_compiles(Path(os.environ[KERNELS_READY]))
    elif config.getoption("dist", "no") != "no":
        # the order of pytest_collection_modifyitems, not the largest module first: the
        # modules in KERNEL_FREE run while the kernels compile
        config.option.loadscopereorder = False
        config.stash[_warmup_key] = _compile_kernels_once()


def _compile_kernels_once() -> _Warmup | None:
    """Before pytest-xdist starts its workers: on a fresh clone numba's cache is empty and
    every worker would compile every kernel for itself (the same 130 or so CPU seconds
    each), and the first test of a worker to reach a kernel would bear its compile (over
    a minute). Compiled once, in two processes (gin_sim.reports.warmup), the workers load
    them from the cache. The workers start at once: the modules in KERNEL_FREE run beside
    the warm-up, the others wait for it (pytest_runtest_protocol). None when the cache
    holds the kernels, or GIN_SIM_WARMUP=0."""
    from gin_sim.reports import warmup  # gin_sim's import sets NUMBA_CACHE_DIR

    folder = Path(os.environ.get("NUMBA_CACHE_DIR", "."))
    if all(any(folder.rglob(f"{name}-*.nbi")) for name in CACHED_KERNELS):
        return None
    started = time.perf_counter()
    first, second = (warmup.start(groups, nice=0) for groups in WARMUP_SPLIT)
    if first is None:  # GIN_SIM_WARMUP=0
        return None
    flag = Path(tempfile.mkdtemp(prefix="gin-sim-test-warmup-")) / "ready"
    os.environ[KERNELS_READY] = str(flag)
    run = _Warmup(flag, [first, second])

    def wait() -> None:
        codes = [second.wait()]  # the shorter of the two
        # Then, with the hand kernel in the cache, the kernels only the tests call (not
        # once the session is over: pytest_unconfigure stops what it finds under the lock).
        with run.lock:
            if run.stopped:
                return
            harness = warmup.background([sys.executable, str(Path(__file__).with_name("simulated_hands.py"))], nice=0)  # fmt: skip
            run.processes.append(harness)
        codes += [harness.wait(), first.wait()]
        run.took, run.failed = time.perf_counter() - started, any(codes)
        flag.touch()

    run.thread = threading.Thread(target=wait, daemon=True)
    run.thread.start()
    return run


@dataclass
class _Warmup:
    flag: Path
    processes: list[subprocess.Popen]
    thread: threading.Thread | None = None
    took: float = 0.0
    failed: bool = False
    stopped: bool = False  # the session is over: start nothing more
    lock: threading.Lock = field(default_factory=threading.Lock)


_warmup_key = pytest.StashKey[_Warmup | None]()


def _wait_for(flag: Path) -> None:
    deadline = time.monotonic() + WARMUP_WAIT
    while not flag.exists() and time.monotonic() < deadline:
        time.sleep(0.2)


# The longest a worker waits for the warm-up (which itself gives up waiting for the hand
# kernel after warmup.STORED_WAIT): past it, the worker compiles what it needs itself.
WARMUP_WAIT = 900.0


def _gate_compiles(flag: Path) -> None:
    """In a worker, until the warm-up is over: a kernel's first call in this process
    (numba's Dispatcher._compile_for_args, which loads from the cache or compiles) waits
    for it, so a test in a KERNEL_FREE module that does call a kernel never compiles it a
    second time beside the warm-up."""
    from numba.core.dispatcher import Dispatcher

    compile_for_args = Dispatcher._compile_for_args

    def after_the_warmup(self, *args, **kwargs):
        _wait_for(flag)
        Dispatcher._compile_for_args = compile_for_args
        return compile_for_args(self, *args, **kwargs)

    Dispatcher._compile_for_args = after_the_warmup


def _needs_kernels(item: pytest.Item) -> bool:
    stem = Path(item.path).stem
    if stem not in KERNEL_FREE:  # its tests may start commands that play, which would
        return True  # compile the kernels again for themselves
    name = getattr(item, "originalname", item.name)
    return name in KERNEL_CALLS.get(stem, ())


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem: pytest.Item | None):
    """In a worker, until the warm-up is over: a test that calls a kernel (any test of a
    module not in KERNEL_FREE, and KERNEL_CALLS) starts once it is over. The wait is
    before the test's setup, so it is not counted in the test's time: it is the warm-up's,
    which the session's summary reports."""
    flag = os.environ.get(KERNELS_READY)
    if flag and hasattr(item.config, "workerinput") and _needs_kernels(item):
        _wait_for(Path(flag))
    yield


def pytest_terminal_summary(terminalreporter, exitstatus, config: pytest.Config) -> None:
    run = config.stash.get(_warmup_key, None)
    if run is not None and run.thread is not None and not run.thread.is_alive():
        failed = " (a warm-up failed: the workers compiled what it left)" * run.failed
        terminalreporter.write_line(
            f"numba's kernels compiled once for every worker: {run.took:.0f} s, "
            f"the modules that call none running beside it (the tests that call one waited "
            f"for it before they started: their times above leave the wait out){failed}"
        )


def pytest_unconfigure(config: pytest.Config) -> None:
    run = config.stash.get(_warmup_key, None)
    if run is None:
        return
    with run.lock:  # an interrupted session leaves no compiler running
        run.stopped = True
        for process in run.processes:
            if process.poll() is None:
                process.kill()
                process.wait()
    if run.thread is not None:  # it ends once its processes have
        run.thread.join(timeout=30)
    shutil.rmtree(run.flag.parent, ignore_errors=True)


def pytest_report_header(config: pytest.Config) -> str:
    if FULL:
        return "test tier: full (make test-all): every test at full size"
    return "test tier: fast (make test): tests marked full left out, oracles on smaller samples; make test-all runs everything"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The fast tier leaves out the tests marked ``full``, and the cases but the first of
    a parametrized test marked ``first_case`` (deselected and counted, not skipped one by
    one). The full tier runs everything. In either, the modules in KERNEL_FREE come first
    (in its order), then the others, the largest first (the order within a module is
    kept). pytest-xdist's ``loadscope`` would put the largest modules first whatever their
    kind, so it is told to keep this order (pytest_configure)."""
    if not FULL:
        first_cases = _first_cases(items)
        left_out = [item for item in items if not _in_fast_tier(item, first_cases)]
        if left_out:
            config.hook.pytest_deselected(items=left_out)
            kept = set(map(id, left_out))
            items[:] = [item for item in items if id(item) not in kept]
    first = {name: i for i, name in enumerate(KERNEL_FREE)}
    sizes = Counter(Path(item.path).stem for item in items)

    def place(item: pytest.Item) -> tuple[int, int]:
        stem = Path(item.path).stem
        return (first[stem], 0) if stem in first else (len(first), -sizes[stem])

    items.sort(key=place)


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
