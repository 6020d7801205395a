"""The table of ``player`` less ``baseline`` per rule set and opponent, from the per-match
results ``bench/adaptive_matches.py --save DIR`` wrote: the matches of every seed given
for a rule set pooled (paired by match), Bonferroni-adjusted for all the table's cells.

    .venv/bin/python bench/adaptive_table.py --save runs/saved --player mc \\
        --baseline mc-fixed --seeds standard=31601,31603 --seeds hollywood=31602,31604 \\
        --opponents gin-hunter-pairs,simple
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path
from statistics import NormalDist

import numpy as np


def load(folder: Path, tag: str, rules: str, fmt: str, opponent: str, seed: int) -> dict | None:
    """The saved shares and margins of one run (any match count), or None."""
    found = sorted(folder.glob(f"{tag}_{rules}_{fmt}_{opponent}_{seed}_*.npz"))
    if not found:
        return None
    saved = np.load(found[0])
    return {"shares": saved["shares"], "margins": saved["margins"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--save", required=True)
    parser.add_argument("--player", default="mc")
    parser.add_argument("--baseline", default="mc-fixed")
    parser.add_argument("--format", default="hollywood")
    parser.add_argument("--seeds", action="append", required=True, help="rules=seed,seed")
    parser.add_argument("--opponents", required=True)
    parser.add_argument(
        "--comparisons", type=int, default=0, help="for Bonferroni (0: rule sets x opponents)"
    )
    args = parser.parse_args()
    folder = Path(args.save)
    seeds = {}
    for item in args.seeds:
        rules, listed = item.split("=")
        seeds[rules] = [int(s) for s in listed.split(",")]
    opponents = args.opponents.split(",")
    k = args.comparisons or len(seeds) * len(opponents)  # the cells planned, played or not
    z = NormalDist().inv_cdf(1 - 0.025 / k)
    for opponent in opponents:
        cells = []
        for rules, listed in seeds.items():
            diff, gap, base, used = [], [], [], []
            for seed in listed:
                ours = load(folder, args.player, rules, args.format, opponent, seed)
                theirs = load(folder, args.baseline, rules, args.format, opponent, seed)
                if ours is None or theirs is None:
                    continue
                diff.append(ours["shares"] - theirs["shares"])
                gap.append(ours["margins"] - theirs["margins"])
                base.append(theirs["shares"])
                used.append(seed)
            if not diff:
                cells.append(f"{rules}: not played")
                continue
            d, g, b = np.concatenate(diff), np.concatenate(gap), np.concatenate(base)
            half = z * d.std(ddof=1) / math.sqrt(len(d))
            gap_half = z * g.std(ddof=1) / math.sqrt(len(g))
            cells.append(
                f"{rules} ({len(d)} matches, seeds {','.join(map(str, used))}): "
                f"{d.mean():+.3f} [{d.mean() - half:+.3f}, {d.mean() + half:+.3f}]; "
                f"{g.mean():+.1f} [{g.mean() - gap_half:+.1f}, {g.mean() + gap_half:+.1f}] "
                f"({args.baseline} {b.mean():.2f})"
            )
        print(f"{opponent} | " + " | ".join(cells), f"(Bonferroni for {k})")


if __name__ == "__main__":
    main()
