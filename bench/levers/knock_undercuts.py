"""How often are `mc`'s knocks undercut in games to 100, by cards left and deadwood?
(docs/strength.md, "Late knocks with much deadwood")

    .venv/bin/python bench/levers/knock_undercuts.py --seed 49301 --games 500 \
        --opponent gin-hunter-strong

`mc` plays duplicate games to 100 under standard against the opponent (each deck sequence
twice, seats swapped, as `bench/strength.py`), with every hand kept. Each of `mc`'s knocks
without gin counts once, by the stock left when it knocked, its deadwood, and whether it
came in the game's first three hands (the panel's posterior still near its prior) or later
(it has seen three showdowns or more). Unlike `knock_play.py` this is what happened, not a
comparison with playing on: it shows where the knocks' risk lies, in games where `mc`
learns its opponent from hand to hand.
"""

from __future__ import annotations

import argparse

import pandas as pd

from gin_sim.experiments.simulate import head_to_head_matches
from gin_sim.game.rules import load_rules
from gin_sim.players.strategies import load_strategy

STOCK_BANDS = [-1, 18, 31]  # 0-18 cards left: late; 19-31: early
DEADWOOD_GROUPS = [0, 3, 6, 10]
LEARNT_FROM_HAND = 3  # hands numbered from 0: the fourth hand on has seen 3 showdowns


def knocks(hands: pd.DataFrame) -> pd.DataFrame:
    """The searcher's knocks without gin: it sits in seat 0 unless the game is the replay
    with seats swapped."""
    seat = hands["swapped"].astype(int)
    mine = hands[(hands["knocker"] == seat) & ~hands["gin"]]
    return mine.assign(
        cards_left=pd.cut(mine["stock_left"], STOCK_BANDS, labels=["0-18", "19-31"]),
        deadwood=pd.cut(mine["knocker_deadwood"], DEADWOOD_GROUPS, labels=["1-3", "4-6", "7-10"]),
        hands=(mine["deal"] >= LEARNT_FROM_HAND).map({False: "1st-3rd", True: "4th on"}),
    )


def table(mine: pd.DataFrame) -> pd.DataFrame:
    grouped = mine.groupby(["hands", "cards_left", "deadwood"], observed=True)["undercut"]
    found = grouped.agg(knocks="size", undercut="mean").reset_index()
    found["undercut"] = (100 * found["undercut"]).map("{:.0f}%".format)
    return found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, required=True)
    parser.add_argument("--games", type=int, default=500, help="duplicate pairs of games")
    parser.add_argument("--opponent", default="gin-hunter-strong")
    parser.add_argument("--player", default="mc", help="the search player (a name or TOML file)")
    args = parser.parse_args()
    rules = load_rules("standard")
    pair = (load_strategy(args.player), load_strategy(args.opponent))
    _, hands = head_to_head_matches(rules, pair, args.games, args.seed, with_hands=True)
    print(
        f"{args.player} against {args.opponent}, standard, seed {args.seed}, "
        f"{2 * args.games:,} games, {len(hands):,} hands; its knocks without gin:"
    )
    print(table(knocks(hands)).to_string(index=False))


if __name__ == "__main__":
    main()
