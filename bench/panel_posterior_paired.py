"""Two search players' posteriors against the same opponents on the same decks, paired by
run (issue 26): the mass on the true model after ``--hands`` hands of each run (the
posterior kept across them, ``bench/panel_posterior.py``'s ``run``), the mean per player
and the paired difference with a Bonferroni-adjusted 95% interval over the panel's models.

    .venv/bin/python bench/panel_posterior_paired.py --player bench/mc-adaptive-offer.toml \
        --baseline mc --rules standard --seed 33603 --runs 24 --hands 5
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from statistics import NormalDist

import numpy as np

sys.path.insert(0, str(Path(__file__).parent))
from panel_posterior import run

from gin_sim.game.rules import load_rules
from gin_sim.players.strategies import load_strategy


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", required=True)
    parser.add_argument("--baseline", default="mc")
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--runs", type=int, default=24)
    parser.add_argument("--hands", type=int, default=5)
    args = parser.parse_args()
    rules = load_rules(args.rules)
    player, baseline = load_strategy(args.player), load_strategy(args.baseline)
    if player.opponent_panel != baseline.opponent_panel:
        raise SystemExit("the two players must weigh the same panel")
    panel = player.opponent_panel
    z = NormalDist().inv_cdf(1 - 0.025 / len(panel))
    with np.errstate(over="ignore"):
        for truth, name in enumerate(panel):
            opponent = load_strategy(name)
            ends = []
            for searcher in (player, baseline):
                _, by_hand = run(searcher, opponent, truth, rules, args.seed, args.runs, args.hands)
                ends.append(np.array(by_hand[args.hands]))
            diff = ends[0] - ends[1]
            half = z * diff.std(ddof=1) / math.sqrt(len(diff))
            print(
                {
                    "true model": name,
                    "rules": args.rules,
                    "seed": args.seed,
                    "runs": args.runs,
                    "hands": args.hands,
                    args.player: round(float(ends[0].mean()), 3),
                    args.baseline: round(float(ends[1].mean()), 3),
                    "difference": round(float(diff.mean()), 3),
                    "low": round(float(diff.mean() - half), 3),
                    "high": round(float(diff.mean() + half), 3),
                    "bonferroni_k": len(panel),
                },
                flush=True,
            )


if __name__ == "__main__":
    main()
