"""A lever against mc on the same decks: the per-pair shares of games won that
bench/strength.py --save kept for both players, paired by deck sequence.

    .venv/bin/python bench/levers/paired.py DIR VARIANT --seed 46301,46302 --games 150,250 \
        --opponents gin-hunter-strong,sparring-hollywood [--compare 3]

The interval is the normal interval of the per-pair difference, Bonferroni-adjusted for
``--compare`` comparisons (the levers times the opponents looked at together). With several
opponents, their mean follows as one comparison, clustered by deck sequence.
"""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from statistics import NormalDist

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, for strength.py
from strength import saved_result  # where bench/strength.py --save wrote them


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder")
    parser.add_argument("variant", help="the --player given to bench/strength.py")
    parser.add_argument("--baseline", default="mc")
    parser.add_argument("--seed", required=True)
    parser.add_argument("--games", required=True, help="pairs per seed, comma-separated as --seed")
    parser.add_argument("--opponents", required=True)
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--compare", type=int, default=0, help="comparisons (default: opponents)")
    args = parser.parse_args()
    opponents = args.opponents.split(",")
    z = NormalDist().inv_cdf(1 - 0.025 / (args.compare or len(opponents)))
    pooled = []
    for name in opponents:
        diffs = []
        seeds, games = args.seed.split(","), args.games.split(",")
        for seed, count in zip(
            seeds, games * len(seeds) if len(games) == 1 else games, strict=False
        ):
            shares = []
            for player in (args.variant, args.baseline):
                path = saved_result(args.folder, player, args.rules, name, seed, count)
                shares.append(np.load(path)["shares"])
            diffs.append(shares[0] - shares[1])
        diff = np.concatenate(diffs)
        pooled.append(diff)
        half = z * diff.std(ddof=1) / math.sqrt(len(diff))
        print(
            f"{name}: {100 * diff.mean():+.1f} points of share [{100 * (diff.mean() - half):+.1f}, "
            f"{100 * (diff.mean() + half):+.1f}] ({len(diff)} pairs, z = {z:.3f})"
        )
    if len(opponents) > 1:
        # Every opponent plays the same deck sequences of a seed (the deal's deck depends
        # only on the seed and its index), so the mean over the opponents is clustered by
        # deck sequence: one value per sequence, the opponents' differences averaged.
        mean = np.mean(np.stack(pooled), axis=0)
        z1 = NormalDist().inv_cdf(0.975)
        half = z1 * mean.std(ddof=1) / math.sqrt(len(mean))
        print(
            f"mean over the {len(opponents)} opponents: {100 * mean.mean():+.1f} points of share "
            f"[{100 * (mean.mean() - half):+.1f}, {100 * (mean.mean() + half):+.1f}] "
            f"({len(mean)} deck sequences, one comparison, z = {z1:.3f})"
        )


if __name__ == "__main__":
    main()
