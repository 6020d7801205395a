"""Shared fixtures.

``unit_weights``: the advice figures read each position's ``weight`` (the decisions it
stands for, docs/advice.md) and production code refuses rows without one. Datasets sampled
before positions carried weights (one position of each kind per deal) have none; for tests
that run the advice report on such datasets, this fixture gives every row weight 1. It does
nothing where the positions already carry weights.
"""

from __future__ import annotations

from collections.abc import Iterator

import pandas as pd
import pytest


def add_unit_weights(patch: pytest.MonkeyPatch) -> None:
    """Make ``positions.positions_frame`` add ``weight`` 1 (and ``keep_probability`` 1) to
    rows that lack them."""
    import gin_sim.experiments.positions as positions

    original = getattr(positions, "positions_frame", None)
    if original is None:
        return

    def weighted(frame: pd.DataFrame) -> pd.DataFrame:
        if "weight" in frame:
            return frame
        return frame.assign(keep_probability=1.0, weight=1.0)

    def with_weights(*args, **kwargs):
        result = original(*args, **kwargs)
        if isinstance(result, pd.DataFrame):
            return weighted(result)
        if isinstance(result, tuple) and result and isinstance(result[0], pd.DataFrame):
            return (weighted(result[0]), *result[1:])
        return result

    patch.setattr(positions, "positions_frame", with_weights)


@pytest.fixture
def unit_weights(monkeypatch: pytest.MonkeyPatch) -> None:
    add_unit_weights(monkeypatch)


@pytest.fixture(scope="module")
def unit_weights_for_module() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        add_unit_weights(patch)
        yield
