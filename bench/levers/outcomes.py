"""How a player wins and loses its points against one opponent: each way a hand ends, how
often and for how many points, beside other players on the same deals.

    .venv/bin/python bench/levers/outcomes.py --seed 50501 --deals 20000 \
        --opponent gin-hunter-strong --players mc,gin-hunter-strong,sparring-standard \
        --save runs/knockdup

Each player plays the same deals (seat 0) against the opponent (seat 1), as
`paired_deals.py` plays them (its `--save` files are shared). A hand ends in one of seven
ways, from the player's side (R12 to R17): its knock won, its knock undercut, its gin
(big gin included), the opponent's knock won, the opponent's knock undercut (by the
player), the opponent's gin, or a dead hand at the wall. For each way: the share of hands
and the points a hand it brought (its points summed, over all hands), with 95% intervals;
the seven points add up to the net points a hand. Each player after the first also gets
its points a hand in each way less the first player's, paired deal by deal (the deals are
dealt alike), with intervals Bonferroni-adjusted for every such difference in the table.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))  # bench/levers/, for paired_deals
from paired_deals import pooled_records, seat0_points, seeds_and_deals, z_value

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, for strength.py
from strength import checked_players, checked_rules

# The ways a hand ends, from seat 0's side, in the table's order.
WAYS = (
    "own knock won",
    "own knock undercut",
    "own gin",
    "opponent's knock won",
    "opponent's knock undercut",
    "opponent's gin",
    "dead hand",
)


def ways_of(records: np.ndarray) -> np.ndarray:
    """Each hand's way of ending, an index into WAYS (every hand has exactly one)."""
    knocker = records["knocker"]
    gin = records["gin"].astype(bool) | records["big_gin"].astype(bool)
    undercut = records["undercut"].astype(bool)
    way = np.full(len(records), WAYS.index("dead hand"), np.int64)
    for side, first in ((0, 0), (1, 3)):
        knocked = knocker == side
        way[knocked & ~gin & ~undercut] = first
        way[knocked & undercut] = first + 1
        way[knocked & gin] = first + 2
    return way


def breakdown(records: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(share of hands, points a hand) per way: arrays [hands, ways] whose column means
    are the figures (each hand an indicator, and its points where it ended that way)."""
    way = ways_of(records)
    points = seat0_points(records)
    shares = np.zeros((len(records), len(WAYS)))
    shares[np.arange(len(records)), way] = 1.0
    return shares, shares * points[:, None]


def interval(column: np.ndarray, z: float) -> str:
    half = z * column.std(ddof=1) / np.sqrt(len(column))
    return f"{column.mean():+.2f} [{column.mean() - half:+.2f}, {column.mean() + half:+.2f}]"


def share_text(column: np.ndarray) -> str:
    half = z_value(1) * column.std(ddof=1) / np.sqrt(len(column))
    return f"{100 * column.mean():.1f}% ± {100 * half:.1f}"


def table(players: list[str], records: dict[str, np.ndarray]) -> list[str]:
    """The Markdown table: a row per way, for each player its share and points a hand, for
    each player after the first its points a hand less the first's."""
    first = players[0]
    parts = {player: breakdown(records[player]) for player in players}
    others = players[1:]
    z = z_value(max(1, len(others) * len(WAYS)))
    header = ["way the hand ended"]
    header += [f"`{player}`: hands, points a hand" for player in players]
    header += [f"`{player}` less `{first}`" for player in others]
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    for w, way in enumerate(WAYS):
        row = [way]
        for player in players:
            shares, points = parts[player]
            row.append(f"{share_text(shares[:, w])}, {interval(points[:, w], z_value(1))}")
        for player in others:
            row.append(interval(parts[player][1][:, w] - parts[first][1][:, w], z))
        lines.append("| " + " | ".join(row) + " |")
    row = ["all hands (net points a hand)"]
    for player in players:
        row.append(interval(parts[player][1].sum(axis=1), z_value(1)))
    for player in others:
        row.append(interval(parts[player][1].sum(axis=1) - parts[first][1].sum(axis=1), z))
    lines.append("| " + " | ".join(row) + " |")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", required=True, help="seeds, comma-separated (pooled)")
    parser.add_argument(
        "--deals", default="20000", help="deals per seed: one count, or one per seed"
    )
    parser.add_argument("--opponent", default="gin-hunter-strong", help="the opponent (seat 1)")
    parser.add_argument(
        "--players",
        required=True,
        help="players, comma-separated; the first is the one the others are compared with",
    )
    parser.add_argument("--rules", default="standard", help="a named rule set or a TOML file")
    parser.add_argument("--save", type=Path, help="a folder that keeps each player's records")
    args = parser.parse_args()
    try:
        runs = seeds_and_deals(args.seed, args.deals)
    except ValueError as error:  # one line, as checked_players refuses a bad player
        print(f"outcomes.py: {error}", file=sys.stderr)
        sys.exit(2)
    players = args.players.split(",")
    rules = checked_rules("outcomes.py", args.rules)
    checked_players("outcomes.py", [*players, args.opponent], rules)
    records = {p: pooled_records(p, args.opponent, runs, args.save, args.rules) for p in players}
    deals = sum(count for _, count in runs)
    differences = (len(players) - 1) * len(WAYS)
    print(
        f"Against `{args.opponent}`, {args.rules}, seed {args.seed}, {deals:,} deals (seat 0 "
        f"against seat 1); 95% intervals, the differences Bonferroni-adjusted for {differences}."
    )
    print()
    print("\n".join(table(players, records)))


if __name__ == "__main__":
    main()
