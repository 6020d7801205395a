"""The two tiers of the test suite (issue 28): ``make test`` runs the fast tier, ``make
test-all`` the full one (what CI runs).

The tier is the environment variable ``GIN_SIM_TEST_TIER`` (``fast``, the default, or
``full``), so that it reaches pytest-xdist's workers and is known when a test module is
imported (sample sizes are module constants and parametrize lists). Two ways a test
follows it:

- ``@pytest.mark.full``: the test runs in the full tier only (tests/conftest.py leaves it
  out of the fast one). For tests whose point is their size, where a fast copy would add
  nothing that another fast test does not already check.
- ``@pytest.mark.first_case``: a parametrized test whose cases each take seconds runs its
  first case in the fast tier and every case in the full one. The fast tier is the quick loop
  of development (within 6 minutes from a fresh clone, numba's compile and the virtual
  environment included); the full tier, which CI runs, is the bar.
- ``size(fast=..., full=...)``: an oracle (kernel against reference, a statistical check)
  runs in both tiers, on the smaller sample in the fast one. One test, one helper: the
  sizes sit side by side where the test reads them.
"""

from __future__ import annotations

import os

TIERS = ("fast", "full")
TIER = os.environ.get("GIN_SIM_TEST_TIER", "fast").strip() or "fast"
FULL = TIER == "full"


def size(fast: int, full: int) -> int:
    """A sample size by tier: ``fast`` in make test, ``full`` in make test-all."""
    return full if FULL else fast
