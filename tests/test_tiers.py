"""The test tiers themselves (tests/tiers.py, tests/conftest.py; issue 28): the fast tier
leaves out the tests marked full and gives the oracles their smaller sample, the full tier
runs everything at full size, and a tier that does not exist is refused."""

from __future__ import annotations

import shutil
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
