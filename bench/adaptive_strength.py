"""Is ``mc`` (an opponent panel, issue 19) stronger than ``mc-fixed`` (one fixed model)?

For each rule set and opponent: both search players play the same duplicate decks against
the opponent (each deck twice, seats swapped), and the difference in net points per hand
is paired deck by deck. Intervals are Bonferroni-adjusted for every comparison the run
makes (95% jointly). Use seeds no tuning ever saw.

    .venv/bin/python bench/adaptive_strength.py --seed 9711 --deals 1000 \
        --rules hollywood,standard --opponents simple,expert,gin-hunter-strong --out /tmp/x.csv
"""

from __future__ import annotations

import argparse
import csv
import time
from statistics import NormalDist

import pandas as pd

from gin_sim.experiments.simulate import head_to_head
from gin_sim.experiments.summary import paired_difference
from gin_sim.game.rules import load_rules
from gin_sim.players.strategies import load_strategy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="hollywood,standard")
    parser.add_argument(
        "--opponents", default="simple,expert,gin-hunter,early-knocker,defensive,gin-hunter-strong"
    )
    parser.add_argument("--player", default="mc")
    parser.add_argument("--baseline", default="mc-fixed")
    parser.add_argument("--deals", type=int, default=1000)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--comparisons", type=int, default=0, help="for Bonferroni (0: this run's)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    rule_sets = args.rules.split(",")
    opponents = args.opponents.split(",")
    k = args.comparisons or len(rule_sets) * len(opponents)
    z = NormalDist().inv_cdf(1 - 0.025 / k)
    rows = []
    for rule_set in rule_sets:
        rules = load_rules(rule_set)
        for opponent in opponents:
            frames = []
            started = time.time()
            for name in (args.player, args.baseline):
                pair = (load_strategy(name), load_strategy(opponent))
                frames.append(
                    head_to_head(rules, pair, args.deals, args.seed, threads=args.threads)
                )
            diff = paired_difference(frames[0], frames[1])
            half = diff.half_width / NormalDist().inv_cdf(0.975) * z
            row = {
                "rules": rule_set,
                "opponent": opponent,
                "seed": args.seed,
                "deals": args.deals,
                "difference": round(diff.mean, 3),
                "low": round(diff.mean - half, 3),
                "high": round(diff.mean + half, 3),
                "half_width_95": round(diff.half_width, 3),
                "bonferroni_k": k,
                "seconds": round(time.time() - started),
            }
            rows.append(row)
            print(row, flush=True)
    if args.out:
        with open(args.out, "w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=list(rows[0]))
            writer.writeheader()
            writer.writerows(rows)
    print(pd.DataFrame(rows).to_string(index=False))


if __name__ == "__main__":
    main()
