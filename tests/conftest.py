"""Shared by every test module: the test tiers (tests/tiers.py, issue 28)."""

from __future__ import annotations

import pytest
from tiers import FULL, TIER, TIERS


def pytest_configure(config: pytest.Config) -> None:
    if TIER not in TIERS:
        raise pytest.UsageError(
            f"GIN_SIM_TEST_TIER={TIER!r}: allowed {' or '.join(TIERS)} (unset: fast)"
        )


def pytest_report_header(config: pytest.Config) -> str:
    if FULL:
        return "test tier: full (make test-all): every test at full size"
    return "test tier: fast (make test): tests marked full left out, oracles on smaller samples; make test-all runs everything"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The fast tier leaves out the tests marked ``full`` (deselected and counted, not
    skipped one by one)."""
    if FULL:
        return
    left_out = [item for item in items if item.get_closest_marker("full")]
    if left_out:
        config.hook.pytest_deselected(items=left_out)
        items[:] = [item for item in items if not item.get_closest_marker("full")]
