"""bench/levers/knock_undercuts.py: the searcher's knocks are found in either seat."""

from __future__ import annotations

import pandas as pd
from bench_scripts import load_bench_script


def test_the_searchers_knocks_are_counted_in_both_seats_and_gin_is_left_out():
    """The searcher sits in seat 0, or in seat 1 in the replay with seats swapped; the
    opponent's knocks and the searcher's gins are not its knocks (R12, R15)."""
    hands = pd.DataFrame(
        {
            # searcher seat 0 knocks; opponent knocks; searcher (seat 1, swapped) knocks
            # and is undercut; searcher's gin; opponent in seat 0 of a swapped game knocks
            "swapped": [False, False, True, False, True],
            "knocker": [0, 1, 1, 0, 0],
            "gin": [False, False, False, True, False],
            "undercut": [False, True, True, False, False],
            "stock_left": [25, 25, 10, 20, 12],
            "knocker_deadwood": [8, 5, 9, 0, 4],
            "deal": [0, 0, 4, 1, 5],
        }
    )
    module = load_bench_script("levers/knock_undercuts.py", "bench_knock_undercuts")
    mine = module.knocks(hands)
    assert mine.index.tolist() == [0, 2]
    found = module.table(mine).set_index(["hands", "cards_left", "deadwood"])
    assert found.loc[("1st-3rd", "19-31", "7-10"), "undercut"] == "0%"
    assert found.loc[("4th on", "0-18", "7-10"), "undercut"] == "100%"
    assert found["knocks"].sum() == 2
