"""Where a knock was open, would `mc` have done better the other way? Measured on the
deals' own cards (docs/review.md, "The check on the deal's own cards").

    .venv/bin/python bench/levers/knock_check.py --seed 46601 --deals 2000 \
        --opponents gin-hunter-strong,sparring-hollywood

`mc` plays player 1 against each opponent on the deals (through `Decider`, as `gin-sim
review` plays a run's deal). At each of its discards where a knock is open, the move it
made and the other way with the same card (knock instead of discarding, or discard instead
of knocking; a discard whose card could not knock, and gin, are left out) are both played out from the true position: the opponent's real hand, the
real stock and fresh orders of it, the opponent by its own policy (exact: a family player),
`mc`'s later moves by its own rollout policy under the rules (`gin-hunter-strong` under
standard; a caveat: weaker than `mc` itself, so playing on is valued a little low). The figure is the other way's points less `mc`'s move's, per
decision, split by what `mc` did, with a 95% interval clustered by deal: above 0 where it
knocked means it knocks too often there; above 0 where it played on, too rarely.
"""

from __future__ import annotations

import argparse
import math

import numpy as np

from gin_sim.experiments.review import ReviewSettings, deal_valued_actions, simulated_hands
from gin_sim.game.cards import parse_cards
from gin_sim.game.melds import min_deadwood_exhaustive
from gin_sim.game.rules import load_rules
from gin_sim.kernels.enums import ACTION_BIG_GIN, ACTION_CARD, ACTION_KNOCK
from gin_sim.players.strategies import load_strategy

Z95 = 1.959963984540054
# The deadwood the knock leaves, in the groups the figures are split by.
DEADWOOD_GROUPS = ((0, 0), (1, 3), (4, 6), (7, 10))  # 0: gin, left out


def deadwood_group(view: dict, card: int) -> str:
    left = min_deadwood_exhaustive(parse_cards(str(view["hand"])) & ~(1 << card))
    for low, high in DEADWOOD_GROUPS:
        if low <= left <= high:
            return f"{low}-{high}" if high > low else f"{low}"
    return f"{left}"


def other_way(codes: list[int], played: int) -> int | None:
    """The other way with the same card: the knock for a plain discard, the plain discard
    for a knock; None where that is not a legal move (the card cannot knock, big gin)."""
    if played == ACTION_BIG_GIN:
        return None
    other = played & ACTION_CARD if played & ACTION_KNOCK else played | ACTION_KNOCK
    return other if other in codes else None


def measure(
    seed: int, deals: int, opponent: str, rules_name: str, player: str = "mc"
) -> dict[str, tuple]:
    rules = load_rules(rules_name)
    searcher = load_strategy(player).for_rules(rules)
    pair = (searcher, load_strategy(opponent).for_rules(rules))
    # Only the rollout is read: the searcher's later moves are played by its own rollout
    # policy under these rules (gin-hunter-strong for mc under standard).
    settings = ReviewSettings(depth=16, rollout=searcher.rollout)
    per_deal: dict[str, list[tuple[float, int]]] = {}
    for index, hand in enumerate(simulated_hands(seed, 0, deals, rules, pair)):
        sums: dict[str, list] = {}
        for decision, codes, points in deal_valued_actions(
            hand, seed, rules, settings, opponent=opponent
        ):
            if decision.seat != 0 or decision.phase != "discard":
                continue
            listed = [int(c) for c in codes]
            if not any(c & ACTION_KNOCK for c in listed):
                continue
            alt = other_way(listed, decision.played)
            if alt is None:
                continue
            kind = "knocked" if decision.played & ACTION_KNOCK else "played on"
            mine, other = listed.index(decision.played), listed.index(alt)
            gain = float(points[:, other].mean() - points[:, mine].mean())
            dead = deadwood_group(decision.view, decision.played & ACTION_CARD)
            if dead == "0":  # gin against not declaring it: nothing to learn
                continue
            for group in (kind, f"{kind}, deadwood {dead}"):
                entry = sums.setdefault(group, [0.0, 0])
                entry[0] += gain
                entry[1] += 1
        for group in set(per_deal) | set(sums):
            # every deal counts in every group (0 decisions where it has none)
            rows = per_deal.setdefault(group, [(0.0, 0)] * index)
            rows.append(tuple(sums.get(group, (0.0, 0))))
    out = {}
    for group, rows in sorted(per_deal.items()):
        totals = np.array([r[0] for r in rows])
        counts = np.array([r[1] for r in rows], dtype=float)
        n = counts.sum()
        if n < 2:
            continue
        mean = totals.sum() / n
        # ratio estimator's variance, clustered by deal
        resid = totals - mean * counts
        se = math.sqrt(len(rows) / (len(rows) - 1) * (resid**2).sum()) / n
        out[group] = (mean, mean - Z95 * se, mean + Z95 * se, int(n))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--deals", type=int, default=2000)
    parser.add_argument("--opponents", default="gin-hunter-strong,sparring-hollywood")
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--player", default="mc", help="the search player (a name or TOML file)")
    args = parser.parse_args()
    for opponent in args.opponents.split(","):
        for group, (mean, low, high, n) in measure(
            args.seed, args.deals, opponent, args.rules, args.player
        ).items():
            print(
                f"{opponent:20s} {args.player} {group:24s} {n:6d} decisions: the other way"
                f" {mean:+.2f} [{low:+.2f}, {high:+.2f}] points per decision"
            )


if __name__ == "__main__":
    main()
