"""What share of an ``mc`` decision's time its worlds take to draw.

    .venv/bin/python bench/levers/world_time.py --hands 60

At ``mc``'s positions against ``gin-hunter-strong`` under standard (``make bench``'s
decider hands, ``bench.play_hands``, with the panel memory each decision had), each
position is searched as ``mc`` searches it, then searched without its rollouts
(``kernels.search.search_worlds_nb``: its candidates, its posterior's update and its
worlds, drawn as the search draws them, the same streams, every world of ``samples``: the
screening's early stops draw fewer, so the share is an upper bound). Then both again with
every world's first draw kept (``infer_weight`` 1, no world drawn again for the opponent's
passes): the difference is what the rejected draws cost. One thread, medians of ``--repeats`` passes, interleaved;
read the shares, not the times, on a shared machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numba
import numpy as np

from gin_sim.game.rules import load_rules
from gin_sim.kernels.enums import StrategyParam
from gin_sim.kernels.search import search_nb, search_scratch_nb, search_worlds_nb
from gin_sim.players.calibration import load_undercut_table
from gin_sim.players.search_value import NO_TABLES
from gin_sim.players.strategies import load_strategy, strategies_to_kernel

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, for bench.py
from bench import play_hands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=60, help="decider hands (default 60)")
    parser.add_argument("--repeats", type=int, default=5, help="passes (default 5)")
    args = parser.parse_args()
    numba.set_num_threads(1)
    rules = load_rules("standard")
    vector, table = rules.to_kernel(), load_undercut_table()
    pair = strategies_to_kernel((load_strategy("mc"), load_strategy("gin-hunter-strong")), rules)
    positions = []

    def before(masks, state, streams, key, search):
        positions.append((masks.copy(), state.copy(), search[17].copy(), streams.copy()))

    play_hands(rules, args.hands, "mc", before, lambda *a: None, lambda *a: None)
    search = search_scratch_nb()
    first_kept = pair[0].copy()
    first_kept[StrategyParam.MC_INFER_WEIGHT] = 1.0
    first_kept[StrategyParam.MC_LATE_INFER_WEIGHT] = 1.0

    def whole(params):
        for masks, state, memory, streams in positions:
            search[17][:] = memory
            search_nb(params, masks, state, vector, table, NO_TABLES, streams.copy(), 0, search)

    def worlds(params):
        for masks, state, memory, streams in positions:
            search[17][:] = memory
            search_worlds_nb(
                params, masks, state, vector, table, NO_TABLES, streams.copy(), 0, search
            )

    runs = {
        "search": (whole, pair[0]),
        "worlds": (worlds, pair[0]),
        "search, first draw kept": (whole, first_kept),
        "worlds, first draw kept": (worlds, first_kept),
    }
    times: dict[str, list[float]] = {name: [] for name in runs}
    with np.errstate(over="ignore"):
        for run, params in runs.values():
            run(params)  # compile
        for _ in range(args.repeats):
            for name, (run, params) in runs.items():
                started = time.perf_counter()
                run(params)
                times[name].append(time.perf_counter() - started)
    ms = {name: statistics.median(t) / len(positions) * 1e3 for name, t in times.items()}
    print(
        f"mc under standard, {len(positions):,} decisions of {args.hands} decider hands, ms a decision:"
    )
    print(
        f"  search {ms['search']:.3f}; without its rollouts (drawing its worlds) {ms['worlds']:.3f} ({ms['worlds'] / ms['search']:.1%})"
    )
    print(
        f"  every world's first draw kept: drawing the worlds {ms['worlds, first draw kept']:.3f}; "
        f"the draws rejected for the opponent's passes cost {ms['worlds'] - ms['worlds, first draw kept']:.3f} "
        f"({(ms['worlds'] - ms['worlds, first draw kept']) / ms['search']:.1%} of the search)"
    )


if __name__ == "__main__":
    main()
