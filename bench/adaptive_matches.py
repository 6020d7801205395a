"""``mc`` (the adaptive searcher, called ``mc-adaptive`` before 2026-12-03) against ``mc-fixed``
(called ``mc`` before) in whole matches (issue 19): where the panel is kept across the hands
of a match, does it win more matches than ``mc-fixed``'s fixed model?

For each rule set and opponent both search players play the same duplicate Hollywood
matches (or games, ``--format game``) against the opponent; the difference in the share
won is paired by match (both plays of a match's deck sequence), with Bonferroni-adjusted
intervals for the comparisons of the run. Use seeds no tuning ever saw.

    .venv/bin/python bench/adaptive_matches.py --seed 9731 --matches 150 \
        --rules standard --opponents gin-hunter-strong

With ``--save DIR`` each player's per-match shares and game-1 margins are written to
``DIR/<tag or name>_<rules>_<format>_<opponent>_<seed>_<matches>.npz`` and, where that
file is already there, read instead of played again: a baseline played once (say by an
earlier version of the code, ``--player-tag``) pairs with later players on the same
matches. Every figure is a function of the seed (thread counts change nothing).
"""

from __future__ import annotations

import argparse
import math
import time
from pathlib import Path
from statistics import NormalDist

import numpy as np

from gin_sim.experiments.simulate import head_to_head_matches
from gin_sim.game.match_start import parse_start
from gin_sim.game.rules import load_rules
from gin_sim.players.strategies import load_strategy


def won_by_match(frame) -> np.ndarray:
    """Per match index, how many of its two plays ``players[0]`` won (0, 1 or 2)."""
    seat = np.where(frame["swapped"].to_numpy(), 1, 0)
    won = (frame["winner"].to_numpy() == seat).astype(np.int64)
    order = np.argsort(frame["match"].to_numpy(), kind="stable")
    return np.add.reduceat(won[order], np.arange(0, len(won), 2))


def margin_by_match(frame) -> np.ndarray:
    """Per match index, ``players[0]``'s game-1 points less the opponent's, the mean of its
    two plays: a game's final margin (``--format game``), a sharper measure than the share."""
    swapped = frame["swapped"].to_numpy()
    mine = np.where(swapped, frame["points1_game1"], frame["points0_game1"])
    theirs = np.where(swapped, frame["points0_game1"], frame["points1_game1"])
    margin = (mine - theirs).astype(np.float64)
    order = np.argsort(frame["match"].to_numpy(), kind="stable")
    return np.add.reduceat(margin[order], np.arange(0, len(margin), 2)) / 2.0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="hollywood,standard")
    parser.add_argument("--opponents", default="gin-hunter-strong,simple")
    parser.add_argument("--player", default="mc")
    parser.add_argument("--baseline", default="mc-fixed")
    parser.add_argument("--format", default="hollywood", choices=["hollywood", "game"])
    parser.add_argument("--matches", type=int, default=150)
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--comparisons", type=int, default=0, help="for Bonferroni (0: this run's)")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--save", default="", help="a folder for per-match results (reused)")
    parser.add_argument("--player-tag", default="", help="the player's file name (--save)")
    parser.add_argument("--baseline-tag", default="", help="the baseline's file name (--save)")
    parser.add_argument("--only-player", action="store_true", help="play (save) the player only")
    args = parser.parse_args()
    rule_sets = args.rules.split(",")
    opponents = args.opponents.split(",")
    k = args.comparisons or len(rule_sets) * len(opponents)
    z = NormalDist().inv_cdf(1 - 0.025 / k)
    for rule_set in rule_sets:
        rules = load_rules(rule_set)
        start = parse_start("0:0", "game", None, rules) if args.format == "game" else None
        for opponent in opponents:
            started = time.time()
            shares, margins = [], []
            names = [(args.player, args.player_tag or args.player)]
            if not args.only_player:
                names.append((args.baseline, args.baseline_tag or args.baseline))
            for name, tag in names:
                stem = f"{tag}_{rule_set}_{args.format}_{opponent}_{args.seed}_{args.matches}"
                path = Path(args.save) / f"{stem}.npz" if args.save else None
                if path is not None and path.exists():
                    saved = np.load(path)
                    shares.append(saved["shares"])
                    margins.append(saved["margins"])
                    continue
                pair = (load_strategy(name), load_strategy(opponent))
                frame, _ = head_to_head_matches(
                    rules, pair, args.matches, args.seed, threads=args.threads, start=start
                )
                shares.append(won_by_match(frame) / 2.0)
                margins.append(margin_by_match(frame))
                if path is not None:
                    path.parent.mkdir(parents=True, exist_ok=True)
                    np.savez(path, shares=shares[-1], margins=margins[-1])
            if args.only_player:
                print(
                    {
                        "saved": names[0][1],
                        "rules": rule_set,
                        "opponent": opponent,
                        "seed": args.seed,
                        "seconds": round(time.time() - started),
                    },
                    flush=True,
                )
                continue
            diff = shares[0] - shares[1]
            half = z * diff.std(ddof=1) / math.sqrt(len(diff))
            gap = margins[0] - margins[1]
            gap_half = z * gap.std(ddof=1) / math.sqrt(len(gap))
            print(
                {
                    "rules": rule_set,
                    "format": args.format,
                    "opponent": opponent,
                    "seed": args.seed,
                    "matches": args.matches,
                    args.player: round(float(shares[0].mean()), 4),
                    args.baseline: round(float(shares[1].mean()), 4),
                    "difference": round(float(diff.mean()), 4),
                    "low": round(float(diff.mean() - half), 4),
                    "high": round(float(diff.mean() + half), 4),
                    "game1_margin_difference": round(float(gap.mean()), 2),
                    "margin_low": round(float(gap.mean() - gap_half), 2),
                    "margin_high": round(float(gap.mean() + gap_half), 2),
                    "bonferroni_k": k,
                    "seconds": round(time.time() - started),
                },
                flush=True,
            )


if __name__ == "__main__":
    main()
