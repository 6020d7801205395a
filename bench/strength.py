"""How strong is ``mc``, measured like a tournament result (issue 46)?

``mc`` plays each named opponent in duplicate games to 100 (rule R20) from 0:0 under
``standard`` scoring: every game's deck sequence is played twice with the seats swapped, and
a pair's score is the share of its two games ``mc`` won (0, 0.5 or 1), so the luck of the
cards cancels within the pair and the interval is clustered by pair. The intervals are
Bonferroni-adjusted for the opponents of the run (95% jointly), so "the low end is above
50%" holds for all of them at once. The seeds are required (several are pooled, pair by
pair): give ones that no tuning or choice ever used, and say which in what you publish.

    .venv/bin/python bench/strength.py --seed 46101,46103 --games 200

The default opponents are the sparring partners (tuned to beat ``mc``, never in its
opponent panel), the three strong gin hunters (``gin-hunter-pairs`` and ``gin-hunter-tuned``
not in the panel either), ``expert`` and ``mc-fixed``. With ``--save
DIR`` each opponent's per-pair shares and margins go to ``DIR/<player>_<rules>_<opponent>_
<seed>_<games>_<identity>.npz`` and are read back instead of played again; the identity is
a digest of both players' kernel vectors under the rules, so a saved result is read back
only while neither player (nor a rollout or panel model it names) has changed since.
"""

from __future__ import annotations

import argparse
import hashlib
import math
import sys
import time
from pathlib import Path
from statistics import NormalDist

import numpy as np

from gin_sim.experiments.simulate import head_to_head_matches
from gin_sim.game.config import ConfigError
from gin_sim.game.match_start import parse_start
from gin_sim.game.rules import Rules, load_rules
from gin_sim.players.strategies import Strategy, load_strategy

OPPONENTS = (
    "sparring-standard,sparring-hollywood,sparring-hunter,gin-hunter-strong,gin-hunter-pairs,"
    "gin-hunter-tuned,expert,mc-fixed"
)


def checked_players(script: str, names, rules) -> list[Strategy]:
    """Each named player (a name or TOML file) as it plays under ``rules``, loaded before
    anything is played: an unknown name or a value out of range ends the bench script at
    once with one line naming it (exit code 2), not after minutes of play."""
    try:
        return [load_strategy(name).for_rules(rules) for name in names]
    except ConfigError as error:
        print(f"{script}: {error}", file=sys.stderr)
        sys.exit(2)


def checked_rules(script: str, name: str) -> Rules:
    """The named rule set (or TOML file), or one line naming what is allowed (exit code 2),
    as ``checked_players`` refuses a player."""
    try:
        return load_rules(name)
    except ConfigError as error:
        print(f"{script}: {error}", file=sys.stderr)
        sys.exit(2)


def seeds_of(text: str) -> list[int]:
    """The seeds of a ``--seed`` value, comma-separated; a ValueError names the bad text."""
    try:
        return [int(seed) for seed in text.split(",")]
    except ValueError:
        raise ValueError(f"--seed {text}: allowed whole numbers, comma-separated") from None


def pair_shares(frame) -> tuple[np.ndarray, np.ndarray]:
    """Per deck sequence (pair of games), ``players[0]``'s share of the two games won and
    its mean final margin in points (its game points less the opponent's)."""
    swapped = frame["swapped"].to_numpy()
    won = (frame["winner"].to_numpy() == np.where(swapped, 1, 0)).astype(np.float64)
    mine = np.where(swapped, frame["points1_game1"], frame["points0_game1"])
    theirs = np.where(swapped, frame["points0_game1"], frame["points1_game1"])
    margin = (mine - theirs).astype(np.float64)
    order = np.argsort(frame["match"].to_numpy(), kind="stable")
    starts = np.arange(0, len(won), 2)
    return (
        np.add.reduceat(won[order], starts) / 2.0,
        np.add.reduceat(margin[order], starts) / 2.0,
    )


def interval(values: np.ndarray, z: float) -> tuple[float, float, float]:
    """Mean and the normal interval at ``z`` of independent per-pair values."""
    mean = float(values.mean())
    half = z * float(values.std(ddof=1)) / math.sqrt(len(values))
    return mean, mean - half, mean + half


def identity(player: str, rules: str, opponent: str) -> str:
    """A digest of the rules' and both players' kernel vectors (their rollout policies and
    panel models included): it changes whenever a TOML file that shapes the play does."""
    played = load_rules(rules)
    digest = hashlib.sha256(played.to_kernel().tobytes())
    for name in (player, opponent):
        digest.update(load_strategy(name).for_rules(played).to_kernel(played).tobytes())
    return digest.hexdigest()[:12]


def saved_result(folder: str, player: str, rules: str, opponent: str, seed, games) -> Path:
    """Where ``--save`` keeps one opponent's per-pair results on one seed, always inside
    ``folder``: a player given as a file keeps its folders beneath it (an absolute path or
    ``..`` would otherwise write elsewhere). The name ends in the players' ``identity``, so
    a result played before a player changed is never read back as today's.
    bench/levers/paired.py reads them here."""
    parts = [part for part in Path(player).parts if part not in (Path(player).anchor, "..")]
    tag = identity(player, rules, opponent)
    name = f"{parts[-1]}_{rules}_{opponent}_{seed}_{games}_{tag}.npz"
    return Path(folder).joinpath(*parts[:-1], name)


def play(args, rules, start, name: str, pair, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """One opponent's per-pair shares and margins on one seed, read back from ``--save``
    when that run was played before."""
    path = None
    if args.save:
        path = saved_result(args.save, args.player, args.rules, name, seed, args.games)
    if path is not None and path.exists():
        saved = np.load(path)
        return saved["shares"], saved["margins"]
    frame, _ = head_to_head_matches(
        rules, pair, args.games, seed, threads=args.threads, start=start
    )
    shares, margins = pair_shares(frame)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez(path, shares=shares, margins=margins)
    return shares, margins


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seed", required=True, help="seeds no choice ever used, comma-separated (pooled)"
    )
    parser.add_argument("--games", type=int, default=300, help="duplicate pairs per opponent")
    parser.add_argument("--player", default="mc")
    parser.add_argument("--opponents", default=OPPONENTS)
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--save", default="", help="a folder for per-pair results (reused)")
    parser.add_argument(
        "--comparisons",
        type=int,
        default=0,
        help="the Bonferroni count when one claim spans several runs (default: the opponents of this run)",
    )
    args = parser.parse_args()
    if args.games < 2:
        parser.error(f"--games {args.games}: allowed 2 or more")
    try:
        seeds = seeds_of(args.seed)
    except ValueError as error:
        parser.error(str(error))
    rules = checked_rules("strength.py", args.rules)
    start = parse_start("0:0", "game", None, rules)
    opponents = args.opponents.split(",")
    player, *others = checked_players("strength.py", [args.player, *opponents], rules)
    pairs = {name: (player, other) for name, other in zip(opponents, others, strict=True)}
    comparisons = args.comparisons or len(opponents)
    if comparisons < len(opponents):
        parser.error(
            f"--comparisons {comparisons}: allowed at least the {len(opponents)} opponents"
        )
    z = NormalDist().inv_cdf(1 - 0.025 / comparisons)
    print(
        f"{args.player} in duplicate games to {rules.game_target} under {args.rules}, seed "
        f"{args.seed}, {args.games} pairs per opponent and seed; Bonferroni for {comparisons} "
        f"(z = {z:.3f})",
        flush=True,
    )
    rows = []
    for name, pair in pairs.items():
        started = time.time()
        played = [play(args, rules, start, name, pair, seed) for seed in seeds]
        shares = np.concatenate([p[0] for p in played])
        margins = np.concatenate([p[1] for p in played])
        share, low, high = interval(shares, z)
        margin, margin_low, margin_high = interval(margins, z)
        row = (
            f"| `{name}` | {2 * len(shares):,} | {100 * share:.1f}% [{100 * low:.1f}, "
            f"{100 * high:.1f}] | {margin:+.1f} [{margin_low:+.1f}, {margin_high:+.1f}] |"
        )
        rows.append(row)
        print(row, f"({time.time() - started:.0f} s)", flush=True)
    print()
    print(f"| opponent | games | {args.player}'s share of games won | final margin, points |")
    print("|---|---:|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
