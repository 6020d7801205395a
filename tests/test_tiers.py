"""The test tiers themselves (tests/tiers.py, tests/conftest.py; issue 28): the fast tier
leaves out the tests marked full and gives the oracles their smaller sample, the full tier
runs everything at full size, and a tier that does not exist is refused."""

from __future__ import annotations

import shutil
import threading
from pathlib import Path

import pytest

pytest_plugins = ["pytester"]

HERE = Path(__file__).parent
SAMPLE = """
import pytest
from tiers import size

def test_sized():
    assert size(fast=1, full=2) == EXPECTED

@pytest.mark.full
def test_full_only():
    pass

@pytest.mark.first_case
@pytest.mark.parametrize("case", [1, 2, 3])
def test_first_case(case):
    pass

@pytest.mark.parametrize("case", [1, 2])
def test_every_case(case):
    pass
"""


@pytest.mark.parametrize(("tier", "expected", "outcomes"), [
    ("fast", 1, {"passed": 4, "deselected": 3}),
    ("full", 2, {"passed": 7}),
])  # fmt: skip
def test_a_tier_chooses_the_tests_and_their_sizes(pytester, monkeypatch, tier, expected, outcomes):
    for name in ("conftest.py", "tiers.py"):
        shutil.copy(HERE / name, pytester.path / name)
    pytester.makeini(
        "[pytest]\nmarkers =\n    full: the full tier only\n    first_case: the first case\naddopts = --strict-markers"
    )
    pytester.makepyfile(test_sample=SAMPLE.replace("EXPECTED", str(expected)))
    monkeypatch.setenv("GIN_SIM_TEST_TIER", tier)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist")
    result.assert_outcomes(**outcomes)


def test_an_unknown_tier_is_a_usage_error(pytester, monkeypatch):
    for name in ("conftest.py", "tiers.py"):
        shutil.copy(HERE / name, pytester.path / name)
    pytester.makepyfile(test_sample="def test_nothing():\n    pass\n")
    monkeypatch.setenv("GIN_SIM_TEST_TIER", "medium")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:xdist")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(["*GIN_SIM_TEST_TIER='medium': allowed fast or full*"])


def test_a_kernel_first_called_during_the_warmup_waits_for_it(tmp_path, monkeypatch):
    """In a worker, numba's compile entry waits until the warm-up is over (its flag file),
    then is itself again: a test that reaches a kernel beside the warm-up never compiles it
    a second time. A stand-in compile records when it runs."""
    from conftest import _gate_compiles
    from numba.core.dispatcher import Dispatcher

    flag, calls = tmp_path / "ready", []

    def stand_in(self, *args, **kwargs):
        calls.append(flag.exists())
        return "compiled"

    monkeypatch.setattr(Dispatcher, "_compile_for_args", stand_in)
    _gate_compiles(flag)
    answers = []
    caller = threading.Thread(target=lambda: answers.append(Dispatcher._compile_for_args(None, 1)))
    caller.start()
    caller.join(timeout=1.0)
    assert caller.is_alive() and calls == []  # waiting for the warm-up
    flag.touch()
    caller.join(timeout=30)
    assert answers == ["compiled"] and calls == [True]
    assert Dispatcher._compile_for_args is stand_in  # the gate removed itself


def test_the_modules_run_beside_the_warmup_exist():
    from conftest import KERNEL_FREE

    missing = [name for name in KERNEL_FREE if not (HERE / f"{name}.py").exists()]
    assert not missing and len(set(KERNEL_FREE)) == len(KERNEL_FREE), missing


def test_the_tests_that_wait_for_the_warmup_before_they_start():
    """Every test named in KERNEL_CALLS exists in its module, which is one of KERNEL_FREE;
    they wait for the warm-up, their modules' other tests do not, and every test of a
    module not in KERNEL_FREE does."""
    from types import SimpleNamespace

    from conftest import KERNEL_CALLS, KERNEL_FREE, _needs_kernels

    for module, names in KERNEL_CALLS.items():
        assert module in KERNEL_FREE, module
        source = (HERE / f"{module}.py").read_text()
        for name in names:
            assert f"def {name}(" in source, (module, name)

    def item(module: str, name: str, case: str = "") -> SimpleNamespace:
        return SimpleNamespace(path=HERE / f"{module}.py", originalname=name, name=name + case)

    assert _needs_kernels(item("test_cli", "test_simulate_prints_a_table_and_json"))
    assert _needs_kernels(item("test_reference_rules", "test_rule_case", "[R12-gin]"))
    assert not _needs_kernels(item("test_cli", "test_help_lists_every_command"))
    assert not _needs_kernels(item("test_cards", "test_simulate_prints_a_table_and_json"))
    assert _needs_kernels(item("test_search", "test_anything"))
