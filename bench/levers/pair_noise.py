"""How noisy a search's comparisons are: the spread over worlds of a candidate's value
less the first candidate's, for levers of ``mc`` at the same positions.

    .venv/bin/python bench/levers/pair_noise.py --seed 50708 --hands 30 \
        --positions bench/levers/mc-no-paired-draws.toml \
        --players bench/levers/mc-no-paired-draws.toml,mc

At every searched decision of ``mc`` (seat 0; ``--positions``: another search player)
against ``gin-hunter-strong`` under standard (``bench.play_hands``: deals 0.. of
``--seed``, the panel memory each decision had), each
player searches every discard on ``--worlds`` worlds with no screening, from the same
stream (so the same worlds). Per decision and candidate after the first, the variance over
worlds of its value less the first's (what the screening and the choice compare, step 5
of docs/strategies.md) and of its value alone; each line gives their means over the
decisions. Every player after the first also gets the ratio of its mean difference
variance to the first's, with a 95% interval by a bootstrap over hands (a hand's
decisions share its deal). A lever that leaves each value's law alone and pairs the
candidates better shows the same value variance and a lower difference variance: as many
more worlds as one over the ratio, for the comparisons.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

from gin_sim.game.rules import load_rules
from gin_sim.kernels.search import search_nb, search_scratch_nb
from gin_sim.players.calibration import load_undercut_table
from gin_sim.players.search_value import NO_TABLES
from gin_sim.players.strategies import strategies_to_kernel

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, for bench.py
from deep_choice import deep_vector  # every discard on every world, no screening
from strength import checked_players

from bench import play_hands


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", required=True, help="comma-separated levers of mc")
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--hands", type=int, default=30)
    parser.add_argument("--worlds", type=int, default=256)
    parser.add_argument(
        "--positions", default="mc", help="the search player whose hands give the positions"
    )
    args = parser.parse_args()
    players = args.players.split(",")
    rules = load_rules("standard")
    vector, table = rules.to_kernel(), load_undercut_table()
    *loaded, _, opponent = checked_players(
        "pair_noise.py", [*players, args.positions, "gin-hunter-strong"], rules
    )
    searchers = [
        deep_vector(strategies_to_kernel((player, opponent), rules), args.worlds)[0]
        for player in loaded
    ]
    positions: list[tuple] = []
    hand = [0]

    def before(masks, state, streams, key, search):
        positions.append((masks.copy(), state.copy(), search[17].copy(), streams.copy(), hand[0]))

    def hand_over(masks, state):
        hand[0] += 1

    play_hands(
        rules, args.hands, args.positions, before, lambda *a: None, hand_over, seed=args.seed
    )
    search = search_scratch_nb()
    rows: list[list[tuple[int, float, float]]] = [[] for _ in players]  # hand, diff, value
    with np.errstate(over="ignore"):
        for masks, state, memory, streams, number in positions:
            figures = []
            for searcher in searchers:
                search[17][:] = memory
                search_nb(
                    searcher, masks, state, vector, table, NO_TABLES, streams.copy(), 0, search
                )
                n, worlds = int(search[13][0]), int(search[13][1])
                if worlds == 0 or n < 2:
                    break
                gains, gain_squares = search[14][:n] / worlds, search[15][:n] / worlds
                sums, squares = search[6][:n] / worlds, search[7][:n] / worlds
                difference = (gain_squares - gains * gains)[1:].mean()
                figures.append((number, difference, (squares - sums * sums).mean()))
            if len(figures) == len(players):
                for row, figure in zip(rows, figures, strict=True):
                    row.append(figure)
    hands = np.array([r[0] for r in rows[0]])
    print(
        f"{len(hands):,} searched decisions of {args.positions} in {args.hands} hands against gin-hunter-strong "
        f"(standard, seed {args.seed}); every discard on {args.worlds} worlds:"
    )
    base = np.array([r[1] for r in rows[0]])
    rng = np.random.default_rng(0)
    drawn = [rng.choice(np.unique(hands), len(np.unique(hands))) for _ in range(2000)]
    where = {h: np.flatnonzero(hands == h) for h in np.unique(hands)}
    for name, row in zip(players, rows, strict=True):
        difference = np.array([r[1] for r in row])
        value = np.array([r[2] for r in row])
        line = (
            f"{name}: variance of a candidate's value less the first's {difference.mean():.1f}, "
            f"of a value {value.mean():.1f}"
        )
        if row is not rows[0]:
            ratios = []
            for pick in drawn:
                index = np.concatenate([where[h] for h in pick])
                ratios.append(difference[index].mean() / base[index].mean())
            low, high = np.percentile(ratios, [2.5, 97.5])
            line += (
                f"; {difference.mean() / base.mean():.3f} [{low:.3f}, {high:.3f}] times the first's"
            )
        print(line)


if __name__ == "__main__":
    main()
