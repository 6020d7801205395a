"""How good is the match value of score-aware searchers (``value = "match"``)?

The kernel takes the chance of winning a Hollywood match as the chance of winning two of
the three columns with each column's game-table chance, as if the columns were
independent (``kernels.search.score_equity_nb``). This script compares that with the Monte
Carlo match model of ``gin_sim.equity`` (``kernels.equity.model_matches_nb``: hands drawn
from the same measured outcome distribution, credited by the match kernel's rules) on
match states people meet, for the player playing the searcher's rollout policy.

    .venv/bin/python bench/match_value_check.py [--rules hollywood] [--matches 20000]
"""

from __future__ import annotations

import argparse

import numpy as np

from gin_sim.enums import SearchValue
from gin_sim.kernels.equity import model_matches_nb
from gin_sim.kernels.search import score_equity_nb
from gin_sim.match_start import parse_start
from gin_sim.rules import load_rules
from gin_sim.search_value import game_table, hand_outcome_probabilities

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
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="hollywood")
    parser.add_argument("--rollout", default="expert")
    parser.add_argument("--opponent", default="simple")
    parser.add_argument("--matches", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=9311)
    args = parser.parse_args()
    rules = load_rules(args.rules)
    target = rules.game_target
    table = game_table(rules, args.rollout, args.opponent)
    win_points, prob = hand_outcome_probabilities(rules, args.rollout, args.opponent)
    cumulative = np.cumsum(prob.reshape(2, -1), axis=1)
    print("state (me:opponent per column) | dealer | independent columns | match model ± 95%")
    errors = []
    for text in STATES:
        for dealer in (0, 1):
            start = parse_start(text, "hollywood", dealer + 1, rules)
            vector = start.to_kernel()
            score = np.zeros(12, np.int64)
            for player in (0, 1):
                for game in range(3):
                    score[3 * player + game] = start.points[player][game]
                    score[6 + 3 * player + game] = int(start.boxes[player][game] > 0)
            approx = score_equity_nb(score, 3, target, table, 0, dealer, SearchValue.MATCH)
            out = np.zeros((args.matches, 3), np.int64)
            visits = np.zeros((3, 2, 10, 10), np.int64)
            with np.errstate(over="ignore"):
                model_matches_nb(
                    np.uint64(args.seed), 0, vector, target, rules.hollywood_bonuses,
                    win_points, cumulative, 10, out, visits,
                )  # fmt: skip
            won = float((out[:, 0] == 0).mean())
            half = 1.96 * np.sqrt(won * (1 - won) / args.matches)
            errors.append(approx - won)
            who = "me" if dealer == 0 else "opponent"
            print(f"{text:22s} | {who:8s} | {approx:.3f} | {won:.3f} ± {half:.3f}")
    errors_array = np.array(errors)
    print(
        f"independent columns less the model: mean {errors_array.mean():+.3f}, "
        f"largest {errors_array[np.argmax(np.abs(errors_array))]:+.3f}, "
        f"mean absolute {np.abs(errors_array).mean():.3f}"
    )


if __name__ == "__main__":
    main()
