"""What a search player's choices lose to a deep search's, by kind of decision.

    .venv/bin/python bench/levers/deep_choice.py --players bench/levers/mc-no-early-screen.toml,mc

At every searched decision of ``mc`` (seat 0) against ``--opponent`` under standard (the
hands ``make bench`` times, ``bench.play_hands``: deals 0.. of seed 3 unless ``--seed``),
each player of ``--players`` decides from the same position, memory and random stream. A
deep search then values every candidate: ``mc`` with ``--worlds`` worlds, every discard and
no screening. It chooses on one set of worlds and is valued on another, drawn apart (a
choice valued on its own worlds would flatter it). A player's loss at a decision is the deep
choice's value less its own choice's, on the second set: 0 where they agree, an unbiased
figure of what more worlds would win, by ``mc``'s own values (its rollout policies and
opponent panel; not the game's truth: levers that change those values need play,
``paired_deals.py``).

Each line gives a kind of decision, how many there were, how often the player's choice
differs from the deep one, its mean loss a decision with a 95% interval (clustered by
hand: a hand's decisions share its deal), and its rollouts
a decision (a measure of time that no machine's load disturbs). Every player after the
first also gets its loss less the first's, paired decision by decision: a lever that saves
rollouts should show a difference near 0 with a narrow interval (docs/strength.md, "A
first cut of the screening"). The players decide at ``mc``'s positions with ``mc``'s panel
memory: give levers of ``mc`` (the same panel), not other players. ``--positions`` names
another search player in ``mc``'s place, there and in the deep search (a lever measured
before ``mc`` changed, against the ``mc`` of then: ``bench/levers/mc-no-paired-draws.toml``).
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path

import numpy as np

from gin_sim.experiments.summary import Estimate
from gin_sim.game.rules import load_rules
from gin_sim.kernels.enums import ACTION_KNOCK, Phase
from gin_sim.kernels.enums import StrategyParam as P

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # bench/, for bench.py
from strength import checked_players

from bench import DECIDER_SEED, play_hands

# The deep search's two sets of worlds: its stream is the decision's, with one of these
# mixed in, so both sets are functions of the view and apart from the player's own worlds.
CHOOSE_SALT = np.uint64(0x9E3779B97F4A7C15)
VALUE_SALT = np.uint64(0x5851F42D4C957F2D)
NO_SALT = np.uint64(0)  # the players: their own stream as it is
KINDS = ("offer", "draw", "discard", "discard, knock open")


def deep_vector(base: np.ndarray, worlds: int) -> np.ndarray:
    """``base`` (a kernel pair, the searcher in row 0) as the deep search: ``worlds``
    worlds at every decision, every discard a candidate, no screening, no extra worlds."""
    deep = base.copy()
    deep[0, P.MC_SAMPLES] = worlds
    deep[0, P.MC_SCREEN] = 0
    deep[0, P.MC_CANDIDATES] = 11
    deep[0, P.MC_SCREEN_DISCARDS] = 0
    deep[0, P.MC_EARLY_SCREEN] = 0
    deep[0, P.MC_EXTEND_SAMPLES] = 0
    deep[0, P.MC_KNOCK_SAMPLES] = 0
    deep[0, P.MC_DRAW_SAMPLES] = 0
    deep[0, P.MC_LATE_STOCK] = 0
    return deep


def deep_choice_losses(
    players: list[str], hands: int, worlds: int, opponent: str, seed: int, positions: str = "mc"
) -> dict[str, dict[str, np.ndarray]]:
    """Per player, per kind of decision: rows of (loss, differs from the deep choice,
    rollouts, hand), one per searched decision of ``positions`` (the search player whose
    game and memory give the positions, and whose values the deep search plays by), in the
    same order for every player."""
    from gin_sim.kernels.playout import decide_nb
    from gin_sim.players.calibration import load_undercut_table
    from gin_sim.players.search_value import NO_TABLES
    from gin_sim.players.strategies import load_strategy, strategies_to_kernel

    rules = load_rules("standard")
    rules_vector, table = rules.to_kernel(), load_undercut_table()
    opponent_strategy = load_strategy(opponent)
    pairs = [strategies_to_kernel((load_strategy(p), opponent_strategy), rules) for p in players]
    mc = strategies_to_kernel((load_strategy(positions), opponent_strategy), rules)
    deep = deep_vector(mc, worlds)
    rows: dict[str, dict[str, list]] = {p: collections.defaultdict(list) for p in players}
    pending: list = []
    ended: list[None] = []  # one entry a finished hand: a row's hand is how many ended before

    def decide(pair, masks, state, streams, search, salt=NO_SALT):
        """A decision on copies (the game goes on as mc plays it), and its search scratch."""
        scratch = tuple(a.copy() for a in search)
        own = streams.copy()
        own[0] ^= salt
        action = decide_nb(masks.copy(), state.copy(), rules_vector, pair, table, NO_TABLES, own,
                           scratch)  # fmt: skip
        return int(action), scratch

    def values(masks, state, streams, search, salt) -> dict[int, float]:
        _, scratch = decide(deep, masks, state, streams, search, salt)
        counts = scratch[13]
        return {int(scratch[5][c]): scratch[6][c] / counts[1] for c in range(counts[0])}

    def before(masks, state, streams, key, search):
        chosen = [decide(pair, masks, state, streams, search) for pair in pairs]
        _, own = decide(mc, masks, state, streams, search)
        if own[13][3] == 1:  # one candidate: mc does not search here
            pending.append(None)
            return
        choose = values(masks, state, streams, search, CHOOSE_SALT)
        value = values(masks, state, streams, search, VALUE_SALT)
        best = max(choose, key=choose.__getitem__)
        found = [(value[best] - value[a], a != best, s[13][2]) for a, s in chosen]
        pending.append((found, any(a & ACTION_KNOCK for a in value)))

    def after(phase, search):
        found = pending.pop()
        if found is None:
            return
        kind = {Phase.DRAW: "draw", Phase.OFFER: "offer"}.get(phase, "discard")
        if kind == "discard" and found[1]:
            kind = "discard, knock open"
        for player, row in zip(players, found[0], strict=True):
            rows[player][kind].append((*row, len(ended)))

    with np.errstate(over="ignore"):
        play_hands(
            rules, hands, positions, before, after, lambda m, s: ended.append(None), opponent, seed
        )
    return {
        p: {k: np.array(v, dtype=np.float64) for k, v in by_kind.items()}
        for p, by_kind in rows.items()
    }


def interval(values: np.ndarray, hands: np.ndarray) -> str:
    """Mean ± the 95% half-width, clustered by hand (``summary.Estimate``)."""
    estimate = Estimate.of(values, groups=hands)
    return f"{estimate.mean:+.3f} ± {estimate.half_width:.3f}"


def report(found: dict[str, dict[str, np.ndarray]], hands: int) -> list[str]:
    """The lines ``main`` prints."""
    first = next(iter(found))
    lines = []
    for player, by_kind in found.items():
        kinds = [k for k in KINDS if k in by_kind]
        every = np.concatenate([by_kind[k] for k in kinds])
        lines.append(
            f"{player}: loses {interval(every[:, 0], every[:, 3])} points a decision to the deep choice "
            f"({every[:, 0].sum() / hands:+.2f} a hand), {every[:, 2].mean():.0f} rollouts a decision"
        )
        for kind in kinds:
            rows = by_kind[kind]
            lines.append(
                f"  {kind:20s} {len(rows):5,}: differs {rows[:, 1].mean():6.1%}, loses "
                f"{interval(rows[:, 0], rows[:, 3])} a decision, {rows[:, 2].mean():4.0f} rollouts"
            )
        if player != first:
            paired = np.concatenate([by_kind[k][:, 0] - found[first][k][:, 0] for k in kinds])
            hand = every[:, 3]
            lines.append(f"  less {first}, paired: {interval(paired, hand)} points a decision")
    return lines


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", default="mc", help="search strategies (names or TOML files)")
    parser.add_argument("--hands", type=int, default=40)
    parser.add_argument("--worlds", type=int, default=2048, help="the deep search's worlds")
    parser.add_argument("--opponent", default="gin-hunter-strong")
    parser.add_argument("--seed", type=int, default=DECIDER_SEED)
    parser.add_argument(
        "--positions",
        default="mc",
        help="the search player whose hands give the positions and memory, and whose values the deep search plays by (a lever's baseline, as it was measured)",
    )
    args = parser.parse_args()
    players = args.players.split(",")
    searched = [*players, args.positions]  # each must be a search player
    *searchers, _ = checked_players(
        "deep_choice.py", [*searched, args.opponent], load_rules("standard")
    )
    plain = [p for p, s in zip(searched, searchers, strict=True) if s.kind != "mc"]
    if plain or args.hands < 1 or args.worlds < 2:
        print(
            "deep_choice.py: "
            + (f"{plain[0]} is not a search player: give levers of mc" if plain else
               "--hands must be 1 or more and --worlds 2 or more"),
            file=sys.stderr,
        )  # fmt: skip
        sys.exit(2)
    found = deep_choice_losses(
        players, args.hands, args.worlds, args.opponent, args.seed, args.positions
    )
    print(
        f"{args.hands} hands of {args.positions} against {args.opponent} (standard, seed {args.seed}); "
        f"the deep search: {args.worlds} worlds, every discard"
    )
    print("\n".join(report(found, args.hands)))


if __name__ == "__main__":
    main()
