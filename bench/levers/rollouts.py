"""Where a search player's rollouts go: rollouts per decision, by kind of decision.

    .venv/bin/python bench/levers/rollouts.py --player mc --hands 200

The hands of ``--player`` (seat 0) against ``gin-hunter-strong`` under standard, deals 0..
of seed 3 (the hands ``make bench`` times mc's decisions on, ``bench.play_hands``), played
by the kernels with its panel memory kept from hand to hand. For each kind of decision (the opening offer, a draw,
a discard with no knock open, a discard with a knock among the candidates, a decision with
one candidate, which plays no rollout) it prints how many there were, the rollouts each
played (the screening's included), their share of all rollouts, the worlds of the choice
after the screening, the candidates left after it, and how often the screening alone
decided. A lever's rollouts per decision against mc's is a measure of its time that no
machine's load disturbs (docs/strength.md, "Fewer worlds, or more at knock decisions").
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

import numpy as np

from gin_sim.game.rules import load_rules
from gin_sim.kernels.enums import ACTION_KNOCK, Phase

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, for bench.py
from bench import DECIDER_SEED, play_hands


def rollouts_by_kind(player: str, hands: int) -> dict[str, np.ndarray]:
    """Per kind of decision of ``player``: rows of (rollouts, worlds of the choice,
    candidates after the screening)."""
    rows = collections.defaultdict(list)

    def after(phase, search):
        counts = search[13]
        before = search[5][: counts[3]]
        kind = {Phase.DRAW: "draw", Phase.OFFER: "offer"}.get(phase, "discard")
        if kind == "discard" and any(int(c) & ACTION_KNOCK for c in before):
            kind = "discard, knock open"
        if counts[3] == 1:
            kind = "one candidate"
        rows[kind].append((counts[2], counts[1], counts[0]))

    def nothing(*args):
        return None

    play_hands(load_rules("standard"), hands, player, nothing, after, nothing)
    return {kind: np.array(found) for kind, found in rows.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--player", default="mc", help="a search strategy's name or TOML file")
    parser.add_argument("--hands", type=int, default=200)
    args = parser.parse_args()
    found = rollouts_by_kind(args.player, args.hands)
    decisions = sum(len(rows) for rows in found.values())
    total = sum(rows[:, 0].sum() for rows in found.values())
    print(
        f"{args.player}: {decisions:,} decisions in {args.hands} hands against "
        f"gin-hunter-strong (standard, seed {DECIDER_SEED}), {total / decisions:.1f} rollouts a decision"
    )
    for kind, rows in sorted(found.items()):
        if kind == "one candidate":
            print(f"  {kind:20s} {len(rows):6,} ({len(rows) / decisions:5.1%}): no search")
            continue
        print(
            f"  {kind:20s} {len(rows):6,} ({len(rows) / decisions:5.1%}): "
            f"{rows[:, 0].mean():6.1f} rollouts each, {rows[:, 0].sum() / total:5.1%} of all; "
            f"choice on {rows[:, 1].mean():5.1f} worlds, {rows[:, 2].mean():.2f} candidates "
            f"after the screening, decided by it {np.mean(rows[:, 2] == 1):.0%}"
        )


if __name__ == "__main__":
    main()
