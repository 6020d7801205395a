"""A lever of `mc` against `mc` on the same deals: points per hand, paired deal by deal.

    .venv/bin/python bench/levers/paired_deals.py --seed 48201 --deals 20000 \
        --opponent gin-hunter-strong \
        --players bench/levers/mc-no-knock-rollout.toml,bench/levers/mc-knock-pure.toml

Each player plays the same `--deals` deals under `--rules` (standard unless given) against
the opponent (seat 0;
deal i's deck, dealer and both players' random streams depend only on the seed and i, so
two searchers play alike until their first different choice). The figure is each lever's
net points per hand less the first player's, with a 95% interval over deals
(Bonferroni-adjusted with `--comparisons N`, when one claim spans N such figures): a lever that
changes few decisions leaves most deals equal, so small gains are measured with far fewer
deals than games to 100 need (docs/strength.md, "Knock decisions valued by holding out
for gin"). Hands are single deals: a panel's posterior starts from its prior each deal.
With several opponents (`--opponent a,b,c`) each lever's gain is also averaged over them
deal by deal, one figure with its interval clustered by deal.
With `--save` each player's hand records are kept and read back on a rerun while neither
player has changed (the file's name carries a digest of both players' kernel vectors).
Several seeds (`--seed 50001,50002`, with `--deals` one count for all or one per seed)
are pooled: their deals are independent, so the figures are over all of them, and a
seed's records saved by an earlier run are read back.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from statistics import NormalDist

import numpy as np

from gin_sim.experiments.simulate import simulate_deals
from gin_sim.game.rules import load_rules
from gin_sim.players.strategies import load_strategy

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, for strength.py
from strength import checked_players, checked_rules, identity, seeds_of  # identity: digests


def z_value(comparisons: int) -> float:
    """The normal quantile of a 95% interval Bonferroni-adjusted for ``comparisons``."""
    return NormalDist().inv_cdf(1 - 0.025 / comparisons)


def hand_records(
    player: str, opponent: str, seed: int, deals: int, save: Path | None, rules: str
) -> np.ndarray:
    name = Path(player).stem if player.endswith(".toml") else player
    tag = identity(player, rules, opponent)  # a changed player (or rule set) is played again
    where = "" if rules == "standard" else f"-{Path(rules).stem}"  # standard: the old names
    path = None if save is None else save / f"{name}-{opponent}{where}-{seed}-{deals}-{tag}.npy"
    if path is not None and path.is_file():
        return np.load(path)
    started = time.time()
    records = simulate_deals(
        load_rules(rules), (load_strategy(player), load_strategy(opponent)), deals, seed
    )
    print(f"  {name} against {opponent}: {time.time() - started:.0f} s", flush=True)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.save(path, records)
    return records


def seeds_and_deals(seeds: str, deals: str) -> list[tuple[int, int]]:
    """The runs of ``--seed`` and ``--deals`` as (seed, deals) pairs: seeds comma-separated,
    deals one count for every seed or one per seed. A ValueError names what is wrong."""
    seed_list = seeds_of(seeds)
    try:
        counts = [int(count) for count in deals.split(",")]
    except ValueError:
        raise ValueError(f"--deals {deals}: allowed whole numbers, comma-separated") from None
    if len(counts) == 1:
        counts *= len(seed_list)
    if len(counts) != len(seed_list):
        raise ValueError(
            f"--deals {deals}: allowed one count, or one per seed "
            f"({len(seed_list)} seed{'s' if len(seed_list) > 1 else ''})"
        )
    if min(counts) < 2:
        raise ValueError(f"--deals {deals}: allowed 2 or more deals per seed")
    if len(set(seed_list)) != len(seed_list):
        raise ValueError(f"--seed {seeds}: a seed given twice would count its deals twice")
    return list(zip(seed_list, counts, strict=True))


def pooled_records(
    player: str, opponent: str, runs: list[tuple[int, int]], save: Path | None, rules: str
) -> np.ndarray:
    """The player's hand records against the opponent over the (seed, deals) runs, one
    seed after the other: deal i of a seed is dealt alike for every player and opponent,
    so records of the same runs line up deal by deal."""
    return np.concatenate(
        [hand_records(player, opponent, seed, deals, save, rules) for seed, deals in runs]
    )


def seat0_points(records: np.ndarray) -> np.ndarray:
    """Each hand's points from seat 0's side (R17): won +points, lost -points, drawn 0."""
    points = records["points"].astype(np.float64)
    return np.where(records["winner"] == 0, points, np.where(records["winner"] == 1, -points, 0.0))


def knock_counts(records: np.ndarray) -> str:
    knocks = records["knocker"] == 0
    gins = int((knocks & records["gin"]).sum())
    undercut = int((knocks & records["undercut"]).sum())
    return f"knocks without gin {int(knocks.sum()) - gins:,}, undercut {undercut:,}, gins {gins:,}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--seed", required=True, help="seeds no choice used, comma-separated (pooled)"
    )
    parser.add_argument(
        "--deals", default="20000", help="deals per seed: one count, or one per seed"
    )
    parser.add_argument(
        "--opponent",
        default="gin-hunter-strong",
        help="one opponent, or several comma-separated: then also each lever's mean over them",
    )
    parser.add_argument(
        "--players", required=True, help="the baseline, then the levers (names or TOML files)"
    )
    parser.add_argument("--rules", default="standard", help="a named rule set or a TOML file")
    parser.add_argument("--save", type=Path, help="a folder that keeps each player's records")
    parser.add_argument(
        "--comparisons", type=int, default=1, help="Bonferroni count of the levers' intervals"
    )
    args = parser.parse_args()
    try:
        args.runs = seeds_and_deals(args.seed, args.deals)
    except ValueError as error:  # one line, as checked_players refuses a bad player
        print(f"paired_deals.py: {error}", file=sys.stderr)
        sys.exit(2)
    base, *levers = args.players.split(",")
    opponents = args.opponent.split(",")
    rules = checked_rules("paired_deals.py", args.rules)
    checked_players("paired_deals.py", [base, *levers, *opponents], rules)
    gains = {lever: [] for lever in levers}
    for opponent in opponents:
        for lever, gain in compare(args, base, levers, opponent).items():
            gains[lever].append(gain)
    if len(opponents) > 1:
        # One figure per lever: each deal's gain averaged over the opponents, so the
        # interval is clustered by deal (deal i is dealt alike against every opponent).
        print(f"mean over the {len(opponents)} opponents (one comparison each, 95%):")
        for lever, per_opponent in gains.items():
            mean = np.mean(per_opponent, axis=0)
            half = z_value(1) * mean.std(ddof=1) / np.sqrt(len(mean))
            print(f"{lever}: {mean.mean():+.3f} ± {half:.3f} points per hand over {base}")


def compare(args, base: str, levers: list[str], opponent: str) -> dict[str, np.ndarray]:
    """Print the baseline's figures and each lever's gain against one opponent; return
    each lever's gain per deal."""
    z = z_value(args.comparisons)
    records = pooled_records(base, opponent, args.runs, args.save, args.rules)
    points = seat0_points(records)
    deals = len(records)
    half = z_value(1) * points.std(ddof=1) / np.sqrt(deals)
    print(f"{base} against {opponent}, {args.rules}, seed {args.seed}, {deals:,} deals")
    print(f"{base}: {points.mean():+.3f} ± {half:.3f} points per hand; {knock_counts(records)}")
    gains = {}
    for lever in levers:
        other = pooled_records(lever, opponent, args.runs, args.save, args.rules)
        gain = seat0_points(other) - points
        half = z * gain.std(ddof=1) / np.sqrt(deals)
        differ = int((gain != 0).sum() + ((gain == 0) & (other["turns"] != records["turns"])).sum())
        print(
            f"{lever}: {gain.mean():+.3f} ± {half:.3f} points per hand over {base}; "
            f"deals played otherwise {differ:,}; {knock_counts(other)}"
        )
        gains[lever] = gain
    return gains


if __name__ == "__main__":
    main()
