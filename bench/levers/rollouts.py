"""Where a search player's rollouts go: rollouts per decision, by kind of decision.

    .venv/bin/python bench/levers/rollouts.py --player mc --hands 200

The hands of ``--player`` (seat 0) against ``gin-hunter-strong`` under standard, deals 0..
of seed 3 (the hands ``make bench`` times mc's decisions on), played by the kernels with its
panel memory kept from hand to hand. For each kind of decision (the opening offer, a draw,
a discard with no knock open, a discard with a knock among the candidates, a decision with
one candidate, which plays no rollout) it prints how many there were, the rollouts each
played (the screening's included), their share of all rollouts, the worlds of the choice
after the screening, the candidates left after it, and how often the screening alone
decided. A lever's rollouts per decision against mc's is a measure of its time that no
machine's load disturbs (docs/strength.md, "Fewer worlds, or more at knock decisions").
"""

from __future__ import annotations

import argparse
import collections

import numpy as np

from gin_sim.game.rules import load_rules
from gin_sim.kernels.enums import ACTION_KNOCK, Phase, PositionSlot
from gin_sim.kernels.playout import decide_nb, scratch_nb
from gin_sim.kernels.position import apply_nb, deal_nb
from gin_sim.kernels.rng import player_key_nb, shuffle_deck_nb
from gin_sim.kernels.search import forget_nb, new_hand_nb, showdown_update_nb
from gin_sim.players.calibration import load_undercut_table
from gin_sim.players.search_value import NO_TABLES
from gin_sim.players.strategies import load_strategy, strategies_to_kernel

SEED = 3  # bench.py's decider hands


def rollouts_by_kind(player: str, hands: int) -> dict[str, np.ndarray]:
    """Per kind of decision of ``player``: rows of (rollouts, worlds of the choice,
    candidates after the screening)."""
    rules = load_rules("standard")
    vector = rules.to_kernel()
    table = load_undercut_table()
    pair = strategies_to_kernel((load_strategy(player), load_strategy("gin-hunter-strong")), rules)
    streams, masks, state, _, _, search = scratch_nb()
    forget_nb(search)
    deck, deck_state = np.empty(52, np.int8), np.empty(1, np.uint64)
    rows = collections.defaultdict(list)
    with np.errstate(over="ignore"):
        for deal in range(hands):
            shuffle_deck_nb(SEED, deal, deck, deck_state)
            streams[0], streams[1] = player_key_nb(SEED, deal, 0), player_key_nb(SEED, deal, 1)
            deal_nb(deck, deal % 2, vector, masks, state)
            new_hand_nb(search, pair)
            while state[PositionSlot.PHASE] != Phase.OVER:
                mine = state[PositionSlot.PLAYER] == 0
                phase = state[PositionSlot.PHASE]
                action = decide_nb(masks, state, vector, pair, table, NO_TABLES, streams, search)
                if mine:
                    counts = search[13]
                    before = search[5][: counts[3]]
                    kind = {Phase.DRAW: "draw", Phase.OFFER: "offer"}.get(phase, "discard")
                    if kind == "discard" and any(int(c) & ACTION_KNOCK for c in before):
                        kind = "discard, knock open"
                    if counts[3] == 1:
                        kind = "one candidate"
                    rows[kind].append((counts[2], counts[1], counts[0]))
                apply_nb(masks, state, vector, action)
            showdown_update_nb(masks, state, vector, pair, table, search)
    return {kind: np.array(found) for kind, found in rows.items()}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--player", default="mc", help="a search strategy's name or TOML file")
    parser.add_argument("--hands", type=int, default=200)
    args = parser.parse_args()
    found = rollouts_by_kind(args.player, args.hands)
    decisions = sum(len(rows) for rows in found.values())
    total = sum(rows[:, 0].sum() for rows in found.values())
    print(
        f"{args.player}: {decisions:,} decisions in {args.hands} hands against "
        f"gin-hunter-strong (standard, seed {SEED}), {total / decisions:.1f} rollouts a decision"
    )
    for kind, rows in sorted(found.items()):
        if kind == "one candidate":
            print(f"  {kind:20s} {len(rows):6,} ({len(rows) / decisions:5.1%}): no search")
            continue
        print(
            f"  {kind:20s} {len(rows):6,} ({len(rows) / decisions:5.1%}): "
            f"{rows[:, 0].mean():6.1f} rollouts each, {rows[:, 0].sum() / total:5.1%} of all; "
            f"choice on {rows[:, 1].mean():5.1f} worlds, {rows[:, 2].mean():.2f} candidates "
            f"after the screening, decided by it {np.mean(rows[:, 2] == 1):.0%}"
        )


if __name__ == "__main__":
    main()
