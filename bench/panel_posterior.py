"""How fast does an opponent panel find the opponent? (issue 19; docs/figures/panel-posterior.png)

A search player with an opponent panel (default ``mc``) plays runs of hands
against each model of its panel in turn, keeping its posterior across the hands of a run
as in a match (``panel_memory`` match; no score is kept). After each update (at each of its
draws) the posterior mass on the true model is recorded, by the searcher's own turn in
the first hand (from the prior), and at the end of each hand of the run (after the
showdown's update, when the opponent knocked). Decks and streams
come from ``--seed`` (hand ``h`` of run ``r`` is deal ``r * hands + h``).

    .venv/bin/python bench/panel_posterior.py --seed 9790 --runs 16 --hands 5
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt
import numpy as np

from gin_sim.game.rules import load_rules
from gin_sim.kernels.enums import PanelMemory, Phase, PositionSlot, StrategyParam
from gin_sim.kernels.playout import decide_nb, scratch_nb
from gin_sim.kernels.position import apply_nb, deal_nb
from gin_sim.kernels.rng import player_key_nb, shuffle_deck_nb
from gin_sim.kernels.search import forget_nb, new_hand_nb, showdown_update_nb
from gin_sim.players.calibration import load_undercut_table
from gin_sim.players.search_value import NO_TABLES
from gin_sim.players.strategies import load_strategy, strategies_to_kernel

MAX_TURN = 12


def run(searcher, opponent, truth, rules, seed, runs, hands):
    """(mass on the true model by own turn in hand 1: lists; by hand at its end: lists)."""
    strategies = strategies_to_kernel((searcher, opponent), rules)
    strategies[0, StrategyParam.MC_PANEL_MEMORY] = PanelMemory.MATCH  # kept across hands
    rule_vector = rules.to_kernel()
    table = load_undercut_table()
    equity = NO_TABLES  # no score is kept: no value vectors
    scratch = scratch_nb()
    streams, masks, state, _, _, search = scratch
    memory = search[17]
    deck = np.empty(52, np.int8)
    deck_state = np.empty(1, np.uint64)
    by_turn = [[] for _ in range(MAX_TURN + 1)]
    by_hand = [[] for _ in range(hands + 1)]
    for r in range(runs):
        forget_nb(search)
        for h in range(hands):
            deal = r * hands + h
            shuffle_deck_nb(np.uint64(seed), deal, deck, deck_state)
            streams[0] = player_key_nb(np.uint64(seed), deal, 0)
            streams[1] = player_key_nb(np.uint64(seed), deal, 1)
            deal_nb(deck, deal % 2, rule_vector, masks, state)
            new_hand_nb(search, strategies)
            while state[PositionSlot.PHASE] != Phase.OVER:
                player = state[PositionSlot.PLAYER]
                phase = state[PositionSlot.PHASE]
                action = decide_nb(
                    masks, state, rule_vector, strategies, table, equity, streams, search
                )
                if player == 0 and phase == Phase.DRAW and h == 0:
                    turn = min(int(state[PositionSlot.TURNS_BY]), MAX_TURN)
                    by_turn[turn].append(float(memory[0, truth]))
                apply_nb(masks, state, rule_vector, action)
            showdown_update_nb(masks, state, rule_vector, strategies, table, search)
            by_hand[h + 1].append(float(memory[0, truth]))
    return by_turn, by_hand


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--player", default="mc")
    parser.add_argument("--rules", default="hollywood")
    parser.add_argument("--seed", type=int, default=9790)
    parser.add_argument("--runs", type=int, default=16)
    parser.add_argument("--hands", type=int, default=5)
    parser.add_argument("--out", default="docs/figures/panel-posterior.png")
    args = parser.parse_args()
    rules = load_rules(args.rules)
    searcher = load_strategy(args.player)
    panel = searcher.opponent_panel
    # The prior mass of each model (the posterior before any evidence).
    weights = np.array(searcher.panel_prior or [1.0] * len(panel))
    prior = weights / weights.sum()
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
    rows = []
    with np.errstate(over="ignore"):
        for truth, name in enumerate(panel):
            by_turn, by_hand = run(
                searcher, load_strategy(name), truth, rules, args.seed, args.runs, args.hands
            )
            turns = [t for t in range(1, MAX_TURN + 1) if len(by_turn[t]) >= 5]
            means = [float(np.mean(by_turn[t])) for t in turns]
            left.plot([0, *turns], [prior[truth], *means], marker="o", ms=3, label=name)
            hand_means = [prior[truth]] + [float(np.mean(v)) for v in by_hand[1:]]
            right.plot(range(args.hands + 1), hand_means, marker="o", ms=3, label=name)
            for t, mean in zip(turns, means, strict=True):
                rows.append((name, "turn", t, round(mean, 4), len(by_turn[t])))
            for h, mean in enumerate(hand_means):
                rows.append((name, "hand", h, round(mean, 4), len(by_hand[h])))
            print(name, [round(m, 3) for m in means], [round(m, 3) for m in hand_means], flush=True)
    left.set_xlabel("the searcher's own turn in the first hand (0: the prior)")
    left.set_ylabel("posterior mass on the true model (mean)")
    left.set_title("Within the first hand")
    right.set_xlabel("hands played against the same opponent (0: the prior)")
    right.set_title("Across hands (panel_memory = match)")
    right.legend(title="true opponent", fontsize=8)
    for ax in (left, right):
        ax.grid(alpha=0.3)
        ax.set_ylim(0, 1)
    fig.suptitle(
        f"{args.player} under {args.rules}: {args.runs} runs of {args.hands} hands per opponent, seed {args.seed}"
    )
    fig.tight_layout()
    Path(args.out).parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(args.out, dpi=110)
    with open(Path(args.out).with_suffix(".csv"), "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["opponent", "by", "index", "mass_on_true_model", "n"])
        writer.writerows(rows)
    print("wrote", args.out)


if __name__ == "__main__":
    main()
