"""bench/levers/deep_choice.py: what a search player's choices lose to a deep search's."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from bench_scripts import BENCH, load_bench_script


@pytest.fixture(scope="module")
def module():
    return load_bench_script("levers/deep_choice.py", "bench_deep_choice")


@pytest.fixture(scope="module")
def found(module):
    return module.deep_choice_losses(["mc", "mc-fast"], 2, 48, "gin-hunter-strong", 3)


def test_every_player_decides_at_mcs_searched_decisions(found):
    """The players decide at the same decisions (mc's, where mc searched), so their rows
    pair one to one; mc-fast plays fewer rollouts than mc at each kind."""
    assert list(found) == ["mc", "mc-fast"]
    for kind, rows in found["mc"].items():
        assert rows.shape[1] == 4 and len(rows) == len(found["mc-fast"][kind])
        assert found["mc-fast"][kind][:, 2].mean() < rows[:, 2].mean()


def test_a_loss_is_zero_exactly_where_the_choice_is_the_deep_ones(found):
    """Agreeing with the deep choice loses nothing; disagreeing loses its value gap on the
    second set of worlds, which may be either sign (the deep choice is made on the first)."""
    every = np.concatenate([rows for rows in found["mc"].values()])
    agreed = every[:, 1] == 0
    assert np.all(every[agreed, 0] == 0.0)
    assert agreed.any() and (~agreed).any()
    assert np.all(every[:, 2] > 0)  # every row is a searched decision: rollouts were played


def test_rows_name_their_hand_and_intervals_are_clustered_by_it(module, found):
    """A hand's decisions share its deal, so the intervals treat a hand as one unit: two
    hands of two equal losses each give the interval of two values, not of four."""
    hands = np.concatenate([rows[:, 3] for rows in found["mc"].values()])
    assert set(hands) == {0.0, 1.0}
    assert module.interval(np.array([1.0, 1.0, -1.0, -1.0]), np.array([0, 0, 1, 1])) == (
        "+0.000 ± 1.960"
    )


def test_the_report_pairs_each_player_with_the_first(module, found):
    lines = module.report(found, 2)
    assert lines[0].startswith("mc: loses ") and "rollouts a decision" in lines[0]
    assert sum(line.startswith("  less mc, paired: ") for line in lines) == 1


@pytest.mark.parametrize(
    ("option", "value"), [("--players", "mc,simple"), ("--positions", "simple")]
)
def test_a_player_that_is_not_a_search_is_one_line_and_exit_2(option, value):
    """A player, or the player whose hands give the positions (``--positions``)."""
    run = subprocess.run(
        [sys.executable, str(BENCH / "levers" / "deep_choice.py"), option, value],
        capture_output=True,
        text=True,
    )
    assert run.returncode == 2
    assert run.stderr.strip() == "deep_choice.py: simple is not a search player: give levers of mc"
