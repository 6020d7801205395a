"""A gin-sim strategy against OpenSpiel's own simple bot in OpenSpiel's ``gin_rummy``.

Duplicate deals: each deck (gin-sim's deck of ``--seed`` and the deal's index, dealt as
``gin_sim.interfaces.openspiel_bot.openspiel_deal_order`` says) is played twice, the strategy in
each seat once, and the two hands' results are averaged per deck, so that the luck of
the cards cancels out; the 95% intervals are over decks (1.96 standard errors).

    .venv/bin/python bench/openspiel.py --strategy expert --deals 2000 --seed 9401
    .venv/bin/python bench/openspiel.py --strategy mc --baseline mc-fixed --deals 500 --seed S

With ``--baseline``, the baseline plays the same decks in the same seats and the difference
in points per hand is paired deck by deck. Each seat's bot lives for the whole run (each
hand is an OpenSpiel game; ``restart`` is a new hand), so a strategy with an opponent panel
and ``panel_memory = "match"`` learns the simple bot's style from hand to hand.

Needs the ``openspiel`` extra (``pip install -e '.[openspiel]'``).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time

try:
    import pyspiel
except ImportError:
    sys.exit("error: bench/openspiel.py needs OpenSpiel: pip install -e '.[openspiel]'")

from gin_sim.game.rng import deck_for_deal
from gin_sim.interfaces.openspiel_bot import GinSimBot, play_deck

Z95 = 1.959963984540054


def interval(values: list[float]) -> str:
    mean = statistics.fmean(values)
    half = Z95 * statistics.stdev(values) / math.sqrt(len(values))
    return f"{mean:+.3f} ± {half:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--strategy", default="expert", help="a gin-sim strategy (name or TOML)")
    parser.add_argument(
        "--baseline", default=None, help="a second strategy on the same decks, paired"
    )
    parser.add_argument("--deals", type=int, default=2000, help="decks, each played twice")
    parser.add_argument("--seed", type=int, default=9401, help="gin-sim deck seed")
    parser.add_argument(
        "--undercut-bonus", type=int, default=None, help="gin_rummy's undercut_bonus (25)"
    )
    args = parser.parse_args()
    if args.deals < 2:
        parser.error(f"--deals {args.deals}: allowed 2 or more (an interval needs two decks)")
    params = {} if args.undercut_bonus is None else {"undercut_bonus": args.undercut_bonus}
    game = pyspiel.load_game("gin_rummy", params)
    print(f"game: {game}")
    results = {}
    for strategy in [args.strategy] + ([args.baseline] if args.baseline else []):
        results[strategy] = play_strategy(game, strategy, args)
    if args.baseline:
        mine, theirs = results[args.strategy], results[args.baseline]
        difference = [a - b for a, b in zip(mine, theirs, strict=True)]
        print(
            f"{args.strategy} less {args.baseline}, paired on the same {args.deals} decks: "
            f"points per hand {interval(difference)}"
        )


def play_strategy(game, strategy: str, args: argparse.Namespace) -> list[float]:
    """``strategy`` against OpenSpiel's simple bot on every deck, in both seats: prints
    its figures and returns its points per hand, deck by deck (the two seats' mean)."""
    seats = []
    for seat in (0, 1):
        bots = [pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), p) for p in (0, 1)]
        try:
            bots[seat] = GinSimBot(game, seat, strategy, seed=args.seed)
        except ValueError as error:  # a strategy or seed gin-sim refuses
            print(f"error: {error}", file=sys.stderr)
            sys.exit(2)
        seats.append(bots)
    points: list[list[float]] = [[], []]  # by seat, deck by deck
    start = time.perf_counter()
    for deal in range(args.deals):
        deck = deck_for_deal(args.seed, deal)
        for seat, bots in enumerate(seats):
            # play_deck restarts the bots: the strategy's random numbers are those of
            # deal ``deal`` of the seed (its bot's restarts count the decks).
            state = play_deck(game, bots, deck)
            points[seat].append(state.returns()[seat])
    seconds = time.perf_counter() - start
    paired = [(a + b) / 2 for a, b in zip(*points, strict=True)]
    wins = [((a > 0) + (b > 0)) / 2 for a, b in zip(*points, strict=True)]
    losses = [((a < 0) + (b < 0)) / 2 for a, b in zip(*points, strict=True)]
    hands = 2 * args.deals
    print(
        f"{strategy} against OpenSpiel's simple bot, {args.deals} decks of seed {args.seed} played in both seats ({hands} hands, {seconds / hands:.3f} s a hand)"
    )
    print(f"points per hand: {interval(paired)}")
    print(
        f"hands won: {interval(wins)}  lost: {interval(losses)}  drawn or tied: {1 - statistics.fmean(wins) - statistics.fmean(losses):.3f}"
    )
    for seat in (0, 1):
        role = "non-dealer (player 0)" if seat == 0 else "dealer (player 1)"
        print(f"  as {role}: points per hand {interval(points[seat])}")
    for seat, bots in enumerate(seats):
        learned = bots[seat].posterior
        if learned:
            shown = ", ".join(f"{name} {p:.2f}" for name, p in learned.items())
            print(f"  its posterior at the end, seat {seat}: {shown}")
    return paired


if __name__ == "__main__":
    main()
