"""Were `mc`'s knocks right, judged by `mc`'s own play? (docs/strength.md, "Knock decisions
valued by holding out for gin")

    .venv/bin/python bench/levers/knock_play.py --seed 48002 --deals 8000 \
        --opponent gin-hunter-strong

`mc` (seat 0) plays the deals against the opponent under standard; every discard decision
of `mc`'s where a knock was open is kept (`gin_sim.experiments.positions`, knock rows, with
the evaluation's best discard without knocking as the way to play on). At each one where
`mc` knocked (gin left out) both ways are forced from the true position (the opponent's
real hand, the real stock reshuffled `--continuations` times, the same for both ways) and
the hand is played out by `mc` and the opponent themselves, each from what it knew there
(`positions.play_headline`). The figure is knocking's points less playing on's, per
decision (each row weighted as it was kept: `advice.per_decision`), by stock left and
deadwood, with a 95% interval clustered by deal: below 0 where
`mc` knocked means playing on would have done better. Unlike `knock_check.py`, `mc`'s later
moves are `mc`'s, not its rollout policy's, so playing on is not valued low.
"""

from __future__ import annotations

import argparse
import time

import pandas as pd

from gin_sim.experiments.advice import per_decision
from gin_sim.experiments.positions import (
    KINDS,
    Evaluation,
    PositionsConfig,
    play_chunk,
    play_headline,
)
from gin_sim.game.rules import Rules, load_rules
from gin_sim.players.strategies import Strategy, load_strategy

ONE_IN_1024 = 1 / 1024  # the smallest keep probability: only the knock rows are wanted
BANDS = ((25, 31), (19, 24), (13, 18), (7, 12), (0, 6))  # cards left in the stock
DEADWOOD_GROUPS = ((1, 3), (4, 6), (7, 10))


def knocked_rows(
    seed: int, deals: int, rules: Rules, players: tuple[Strategy, Strategy], samples: int
) -> pd.DataFrame:
    keep = tuple(1.0 if kind == "knock" else ONE_IN_1024 for kind in KINDS)
    evaluation = Evaluation(samples=samples, select=samples // 3, rollout="gin-hunter-strong")
    config = PositionsConfig(rules, players, seed, deals, 200, evaluation, keep)
    parts = []
    started = time.time()
    for chunk in range(config.n_chunks):
        parts.append(play_chunk(config, chunk))
        print(
            f"  deals {config.chunk_range(chunk)[1]:,} of {deals:,}, {time.time() - started:.0f} s",
            flush=True,
        )
    frame = pd.concat(parts, ignore_index=True)
    mine = (frame["kind"] == "knock") & (frame["seat"] == 0) & (frame["deadwood"] > 0)
    return frame[mine & frame["played"].str.startswith("knock")].reset_index(drop=True)


def shown(cell: pd.DataFrame) -> str:
    """The cell's mean per decision with its 95% interval clustered by deal."""
    found = per_decision(cell, cell["play_gain"])
    low, high = found.mean - found.half_width, found.mean + found.half_width
    return f"{found.mean:+.2f} [{low:+.2f}, {high:+.2f}]"


def table(rows: pd.DataFrame) -> pd.DataFrame:
    lines = []
    for low, high in BANDS:
        for dlow, dhigh in DEADWOOD_GROUPS:
            cell = rows[
                rows["stock_left"].between(low, high) & rows["deadwood"].between(dlow, dhigh)
            ]
            if not len(cell):
                continue
            lines.append((f"{low}-{high}", f"{dlow}-{dhigh}", len(cell), shown(cell)))
    lines.append(("all", "1-10", len(rows), shown(rows)))
    columns = ["cards left", "deadwood", "knocks", "knocking less playing on, points"]
    return pd.DataFrame(lines, columns=columns)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--deals", type=int, default=8000)
    parser.add_argument("--opponent", default="gin-hunter-strong")
    parser.add_argument("--player", default="mc", help="the search player (a name or TOML file)")
    parser.add_argument("--continuations", type=int, default=4)
    parser.add_argument(
        "--samples",
        type=int,
        default=96,
        help="worlds of the evaluation that picks the discard for playing on",
    )
    args = parser.parse_args()
    rules = load_rules("standard")
    players = (load_strategy(args.player), load_strategy(args.opponent))
    rows = knocked_rows(args.seed, args.deals, rules, players, args.samples)
    played = play_headline(rows, rules, players, args.continuations, args.seed)
    rows = rows.assign(play_gain=played["play_gain"].to_numpy())
    print(
        f"{args.player} against {args.opponent}, standard, seed {args.seed}, {args.deals:,} deals"
    )
    print(table(rows).to_string(index=False))


if __name__ == "__main__":
    main()
