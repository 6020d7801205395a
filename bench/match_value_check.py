"""How good is the match value of score-aware searchers (``value = "match"``)?

The kernels read the chance of winning a Hollywood match from the joint dynamic programme
of ``kernels/match_value.py`` (the columns move together; scores on a lattice of
``--step`` points, interpolated). This script compares it, and the chance of winning two
of the three columns as if they were independent (the value before issue 17's second
session), with the Monte Carlo match model of ``gin_sim.experiments.equity``
(``kernels.equity.model_matches_nb``: hands drawn from the same measured outcome
distribution, real points credited by the match kernel's rules) on match states people
meet, for the player playing the searcher's rollout policy.

    .venv/bin/python bench/match_value_check.py [--rules hollywood] [--matches 20000]
"""

from __future__ import annotations

import argparse

import numpy as np

from gin_sim.game.match_start import parse_start
from gin_sim.game.rules import load_rules
from gin_sim.kernels.equity import model_matches_nb
from gin_sim.kernels.match_value import match_equity_nb, value_vector
from gin_sim.players.search_value import game_table, hand_outcome_probabilities, lattice_step

STATES = [
    "0:0,0:0,0:0",
    "50:50,0:0,0:0",
    "80:40,30:0,0:0",
    "40:80,0:30,0:0",
    "95:90,45:60,10:20",
    "90:95,60:45,20:10",
    "100:60,40:60,0:20",
    "60:100,60:40,20:0",
    "100:60,40:90,0:20",
    "100:60,90:40,20:0",
    "120:95,80:60,40:10",
    "20:70,0:30,0:0",
    "30:0,0:0,0:0",
    "60:25,35:0,0:0",
    "85:85,60:50,25:30",
    "100:0,0:0,0:0",
    "0:100,0:0,0:0",
    "100:95,30:95,0:40",
    "100:70,70:60,50:20",
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="hollywood")
    parser.add_argument("--rollout", default="expert")
    parser.add_argument("--opponent", default="simple")
    parser.add_argument("--matches", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=9311)
    parser.add_argument("--step", type=int, default=0, help="lattice step (0: the searchers')")
    args = parser.parse_args()
    rules = load_rules(args.rules)
    target = rules.game_target
    table = game_table(rules, args.rollout, args.opponent)
    win_points, prob = hand_outcome_probabilities(rules, args.rollout, args.opponent)
    step = args.step or lattice_step(target)
    vector = value_vector(target, step, win_points, prob, table)
    cumulative = np.cumsum(prob.reshape(2, -1), axis=1)
    print("state (me:opponent per column) | dealer | independent | joint | match model ± 95%")
    errors = {"independent columns": [], "joint": []}
    for text in STATES:
        for dealer in (0, 1):
            start = parse_start(text, "hollywood", dealer + 1, rules)
            start_vector = start.to_kernel()
            score = np.zeros(12, np.int64)
            for player in (0, 1):
                for game in range(3):
                    score[3 * player + game] = start.points[player][game]
                    score[6 + 3 * player + game] = int(start.boxes[player][game] > 0)
            independent = independent_columns(score, target, table, dealer)
            joint = match_equity_nb(vector, score, 0, dealer)
            out = np.zeros((args.matches, 3), np.int64)
            visits = np.zeros((3, 2, 10, 10), np.int64)
            with np.errstate(over="ignore"):
                model_matches_nb(
                    np.uint64(args.seed), 0, start_vector, target, rules.hollywood_bonuses,
                    win_points, cumulative, 10, out, visits,
                )  # fmt: skip
            won = float((out[:, 0] == 0).mean())
            half = 1.96 * np.sqrt(won * (1 - won) / args.matches)
            errors["independent columns"].append(independent - won)
            errors["joint"].append(joint - won)
            who = "me" if dealer == 0 else "opponent"
            print(
                f"{text:22s} | {who:8s} | {independent:.3f} | {joint:.3f} | {won:.3f} ± {half:.3f}"
            )
    for name, values in errors.items():
        array = np.array(values)
        print(
            f"{name} less the model: mean {array.mean():+.3f}, "
            f"largest {array[np.argmax(np.abs(array))]:+.3f}, mean absolute {np.abs(array).mean():.3f}"
        )


def independent_columns(score, target, table, dealer) -> float:
    """The chance of winning two of three columns taken as independent games."""
    chances = []
    for game in range(3):
        if score[game] >= target:
            chances.append(1.0)
        elif score[3 + game] >= target:
            chances.append(0.0)
        else:
            chances.append(float(table[score[game], score[3 + game], dealer]))
    first, second, third = chances
    return first * second + first * third + second * third - 2 * first * second * third


if __name__ == "__main__":
    main()
