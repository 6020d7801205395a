"""``make bench``: speed of the kernels, as medians over repeated runs after JIT warm-up.

Prints the core count and the load average (before, and after each section) and one
``name: value`` line per figure, among them ``deadwood ns/eval`` (random
10-card hands, one thread) and ``deals/s`` (simple vs simple, hollywood, all cores).
``--check`` also verifies the timed results against the plain-Python reference.
Timings belong here, never in tests: machines are shared and noisy.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

import numba
import numpy as np

from gin_sim.experiments.simulate import simulate_deals, simulate_matches
from gin_sim.game.rules import load_rules
from gin_sim.kernels.deadwood import min_deadwood_many_parallel
from gin_sim.players.strategies import parse_players

SECTIONS = ("kernels", "search", "serve", "positions", "review", "runs")
# Sections played only when asked for (--only): the strength bench takes minutes per
# opponent (bench/strength.py; its seeds come on the command line, --seed).
ASKED_ONLY = ("decider", "strength")


def random_hands(n: int, size: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    keys = rng.random((n, 52)).argsort(axis=1)[:, :size]
    return (np.uint64(1) << keys.astype(np.uint64)).sum(axis=1, dtype=np.uint64)


def load_average() -> str:
    """The machine's load beside the figures: on a shared machine a figure measured under
    a load above the core count is slower than the code is (issue 28)."""
    one, five, fifteen = os.getloadavg()
    return f"{one:.2f} {five:.2f} {fifteen:.2f} (1, 5, 15 min; {os.cpu_count()} cores)"


def median_seconds(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hands", type=int, default=2_000_000)
    parser.add_argument("--deals", type=int, default=2_000_000)
    parser.add_argument("--matches", type=int, default=200_000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument(
        "--mc-decisions", type=int, default=300, help="positions the mc-fixed player decides"
    )
    parser.add_argument("--mc-matches", type=int, default=60, help="matches of mc vs simple")
    parser.add_argument(
        "--adaptive-hands",
        type=int,
        default=40,
        help="hands of mc (the adaptive searcher) vs simple whose decisions it times",
    )
    parser.add_argument(
        "--positions-deals", type=int, default=60, help="deals whose positions are evaluated"
    )
    parser.add_argument(
        "--serve-requests", type=int, default=2000, help="requests sent to gin-sim serve"
    )
    parser.add_argument(
        "--review-deals",
        type=int,
        default=40,
        help="deals of expert play whose decisions are reviewed",
    )
    parser.add_argument("--check", action="store_true", help="verify results against the reference")
    parser.add_argument(
        "--only",
        choices=SECTIONS + ASKED_ONLY,
        help="run one section (A/B timing of one change): kernels, search (mc's time per decision through Decider and games/s among them), serve, positions, runs; decider (only mc's time per decision through Decider); strength (bench/strength.py, needs --seed)",
    )
    parser.add_argument(
        "--decider-hands",
        type=int,
        default=60,
        help="hands of mc vs gin-hunter-strong whose decisions are timed through Decider",
    )
    parser.add_argument(
        "--decider-strategy",
        default="mc",
        help="the strategy (a name or a TOML file) timed through Decider; several, comma-separated, are timed in turns (a lever's A/B)",
    )
    parser.add_argument(
        "--seed", default="", help="--only strength: seeds no choice used (bench/strength.py)"
    )
    parser.add_argument(
        "--games", type=int, default=200, help="--only strength: pairs per opponent"
    )
    parser.add_argument(
        "--opponents", default="", help="--only strength: opponents (default: bench/strength.py's)"
    )
    parser.add_argument("--run-deals", type=int, default=2_000_000, help="decks of the Parquet run")
    parser.add_argument(
        "--memory-deals",
        type=int,
        default=10_000_000,
        help="decks of the peak-memory run (0: skip)",
    )
    args = parser.parse_args()
    print(f"cores: {os.cpu_count()}  numba threads: {numba.config.NUMBA_NUM_THREADS}")
    print(f"load before: {load_average()}")
    sections = {
        "kernels": bench_kernels,
        "search": bench_search,
        "serve": bench_serve,
        "positions": bench_positions,
        "review": bench_review,
        "runs": bench_runs,
        "decider": bench_decider,
        "strength": bench_strength,
    }
    for name in SECTIONS if args.only is None else (args.only,):
        sections[name](args)
        print(f"load after {name}: {load_average()}")


def bench_kernels(args: argparse.Namespace) -> None:
    """Deadwood evaluations, deals and matches of the family, timed and (``--check``)
    verified against the reference."""
    hands = random_hands(args.hands, 10, seed=1)
    out = np.empty(hands.shape, np.int64)
    numba.set_num_threads(1)
    min_deadwood_many_parallel(hands[:1000], out[:1000])  # compile
    seconds = median_seconds(lambda: min_deadwood_many_parallel(hands, out), args.repeats)
    print(
        f"deadwood ns/eval: {seconds / hands.size * 1e9:.1f}  (random 10-card hands, 1 thread, median of {args.repeats})"
    )
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    if args.check:
        from gin_sim.game.melds import min_deadwood_exhaustive

        sample = range(0, hands.size, max(1, hands.size // 20_000))
        bad = sum(min_deadwood_exhaustive(int(hands[i])) != out[i] for i in sample)
        print(f"deadwood check: {len(sample)} hands against the exhaustive search, {bad} differ")

    rules = load_rules("hollywood")
    for players in ("simple,simple", "expert,expert"):
        pair = parse_players(players)
        simulate_deals(rules, pair, 10_000, seed=0)  # compile and warm up
        seconds = median_seconds(
            lambda pair=pair: simulate_deals(rules, pair, args.deals, seed=1), args.repeats
        )
        label = (
            "deals/s" if players == "simple,simple" else f"deals/s {players.replace(',', ' vs ')}"
        )
        print(
            f"{label}: {args.deals / seconds:.0f}  ({players.replace(',', ' vs ')}, hollywood, "
            f"{numba.config.NUMBA_NUM_THREADS} threads, {args.deals:,} deals, median of {args.repeats})"
        )
        if args.check:
            from gin_sim.game.records import record_to_dict
            from gin_sim.reference.engine import play_deal_reference

            records = simulate_deals(rules, pair, 2_000, seed=1)
            bad = sum(
                play_deal_reference(1, deal, rules, pair) != record_to_dict(records[deal])
                for deal in range(2_000)
            )
            print(f"deals check: 2,000 deals against the reference engine, {bad} differ")

    pair = parse_players("simple,simple")
    simulate_matches(rules, pair, 1_000, seed=0)  # compile and warm up
    seconds = median_seconds(
        lambda: simulate_matches(rules, pair, args.matches, seed=1), args.repeats
    )
    print(
        f"matches/s: {args.matches / seconds:.0f}  (simple vs simple, hollywood, "
        f"{numba.config.NUMBA_NUM_THREADS} threads, {args.matches:,} matches, median of {args.repeats})"
    )


def game_lengths(hands, target: int) -> np.ndarray:
    """Hands until game 1 (a plain game to ``target``: every won hand counts, R19) ends."""
    lengths = []
    for _, match in hands.groupby("match", sort=False):
        totals = [0, 0]
        for played, (winner, points) in enumerate(
            zip(match["winner"], match["points"], strict=True), 1
        ):
            if winner >= 0:
                totals[winner] += int(points)
                if totals[winner] >= target:
                    lengths.append(played)
                    break
    return np.array(lengths)


def expert_positions(rules, count: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """``count`` positions where player 0 decides, from expert against expert under
    ``rules`` (each at a turn drawn from 1 to 11 of a deck of seed 1): the positions the
    search benchmarks decide at (``bench_search``, ``bench/search_profile.py``)."""
    from gin_sim.kernels.enums import Phase, PositionSlot
    from gin_sim.kernels.playout import scratch_nb
    from gin_sim.kernels.position import apply_nb, deal_nb, family_action_nb
    from gin_sim.players.calibration import load_undercut_table
    from gin_sim.players.strategies import load_strategy, strategies_to_kernel

    rules_vector = rules.to_kernel()
    table = load_undercut_table()
    expert = strategies_to_kernel((load_strategy("expert"),) * 2, rules)
    streams, masks, state = scratch_nb()[:3]
    rng = np.random.default_rng(1)
    positions = []
    while len(positions) < count:
        deal_nb(rng.permutation(52).astype(np.int8), 1, rules_vector, masks, state)
        stop = int(rng.integers(1, 12))
        while state[PositionSlot.PHASE] != Phase.OVER:
            player = state[PositionSlot.PLAYER]
            if player == 0 and (stop := stop - 1) == 0:
                positions.append((masks.copy(), state.copy()))
                break
            action = family_action_nb(
                expert[player], masks, state, rules_vector, table, streams, player
            )
            apply_nb(masks, state, rules_vector, action)
    return positions


def adaptive_positions(rules, hands: int) -> list[tuple]:
    """The decisions of ``mc`` (the adaptive searcher, seat 0) against ``simple`` in ``hands``
    hands under ``rules`` (deals 0.. of seed 2, ``play_hands``), its panel memory kept from
    hand to hand as a match keeps it (the showdowns read): per decision the position, the
    memory rows before it and the streams, so that a search there does what it did in play,
    its posterior update too."""
    positions = []

    def before(masks, state, streams, key, search):
        positions.append((masks.copy(), state.copy(), search[17].copy(), streams.copy()))

    def nothing(*args):
        return None

    play_hands(rules, hands, "mc", before, nothing, nothing, opponent="simple", seed=2)
    return positions


DECIDER_SEED = 3  # the deals of the hands mc's decisions are timed on


def play_hands(
    rules, hands: int, player: str, before, after, hand_over,
    opponent: str = "gin-hunter-strong", seed: int = DECIDER_SEED,
) -> None:  # fmt: skip
    """Hands of ``player`` (seat 0) against ``opponent`` under ``rules`` (deals 0.. of
    ``seed``; by default the hands ``make bench`` times mc's decisions on), played by the
    kernels as a simulation plays them, its panel memory kept from hand to hand. Around
    each of seat 0's decisions ``before(masks, state, streams, key, search)`` (``key``: its
    stream at the deal's start; ``search``: the scratch with its memory as it stands before
    the decision) and ``after(phase, search)`` (its counts those of this decision); at each
    hand's end ``hand_over(masks, state)``."""
    from gin_sim.kernels.enums import Phase, PositionSlot
    from gin_sim.kernels.playout import decide_nb, scratch_nb
    from gin_sim.kernels.position import apply_nb, deal_nb
    from gin_sim.kernels.rng import player_key_nb, shuffle_deck_nb
    from gin_sim.kernels.search import forget_nb, new_hand_nb, showdown_update_nb
    from gin_sim.players.calibration import load_undercut_table
    from gin_sim.players.search_value import NO_TABLES
    from gin_sim.players.strategies import load_strategy, strategies_to_kernel

    rules_vector = rules.to_kernel()
    table = load_undercut_table()
    pair = strategies_to_kernel((load_strategy(player), load_strategy(opponent)), rules)
    streams, masks, state, _, _, search = scratch_nb()
    forget_nb(search)
    deck, deck_state = np.empty(52, np.int8), np.empty(1, np.uint64)
    with np.errstate(over="ignore"):
        for deal in range(hands):
            shuffle_deck_nb(seed, deal, deck, deck_state)
            streams[0] = player_key_nb(seed, deal, 0)
            streams[1] = player_key_nb(seed, deal, 1)
            key = int(streams[0])
            deal_nb(deck, deal % 2, rules_vector, masks, state)
            new_hand_nb(search, pair)
            while state[PositionSlot.PHASE] != Phase.OVER:
                mine = state[PositionSlot.PLAYER] == 0
                phase = state[PositionSlot.PHASE]
                if mine:
                    before(masks, state, streams, key, search)
                action = decide_nb(
                    masks, state, rules_vector, pair, table, NO_TABLES, streams, search
                )
                if mine:
                    after(phase, search)
                apply_nb(masks, state, rules_vector, action)
            hand_over(masks, state)
            showdown_update_nb(masks, state, rules_vector, pair, table, search)


def decider_hands(rules, hands: int) -> list[tuple[list[tuple[dict, int]], dict]]:
    """Hands of ``mc`` against ``gin-hunter-strong`` (``play_hands``): per hand
    mc's views with the numbers drawn before each, and the hand's end as plain data (what
    a host reports)."""
    from gin_sim.players.decide import _drawn, hand_end_of_position, view_of_position

    played: list[tuple[list[tuple[dict, int]], dict]] = []
    views: list[tuple[dict, int]] = []

    def before(masks, state, streams, key, search):
        views.append((view_of_position(masks, state), _drawn(key, streams[0])))

    def hand_over(masks, state):
        played.append((list(views), hand_end_of_position(masks, state, 0)))
        views.clear()

    play_hands(rules, hands, "mc", before, lambda phase, search: None, hand_over)
    return played


def bench_decider(args: argparse.Namespace) -> None:
    """mc's time per decision through the public ``Decider`` on one core at its default
    settings: one memory for the run, each hand's end reported, the hands of mc against
    gin-hunter-strong under standard (a strong opponent, so the posterior moves as in play).
    Several strategies (comma-separated, a lever's A/B) are timed in turns in one process,
    so that a shared machine's load falls on each alike; each line also gives the ratio of
    its median to the first's."""
    from gin_sim.players.decide import Decider

    standard = load_rules("standard")
    hands = decider_hands(standard, args.decider_hands)
    count = sum(len(views) for views, _ in hands)
    names = args.decider_strategy.split(",")

    def decide_all(decider: Decider) -> None:
        memory = decider.memory()
        for number, (views, end) in enumerate(hands):
            for view, draws in views:
                decider.decide(
                    view, 3, deal=number, seat=0, draws=draws, memory=memory, hand_number=number
                )
            memory.hand_ended(end, hand_number=number)

    deciders = [Decider(name, standard) for name in names]
    repeats = max(1, min(args.repeats, 3)) if len(names) == 1 else max(3, args.repeats)
    numba.set_num_threads(1)
    times: list[list[float]] = [[] for _ in names]
    for decider in deciders:
        decide_all(decider)  # compile, prepare
    for _ in range(repeats):
        for i, decider in enumerate(deciders):
            times[i].append(median_seconds(lambda d=decider: decide_all(d), 1))
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    first = statistics.median(times[0])
    for name, seconds in zip(names, map(statistics.median, times), strict=True):
        ratio = f", {seconds / first:.3f} x the first's" if len(names) > 1 else ""
        print(
            f"{name} decision ms through Decider: {seconds / count * 1e3:.3f}  "
            f"(Decider({name!r}, 'standard') "
            f"with one memory, each hand's end reported; {count:,} decisions in {args.decider_hands} "
            f"hands against gin-hunter-strong, 1 thread, mean per decision, median of "
            f"{repeats}{ratio})"
        )


def bench_strength(args: argparse.Namespace) -> None:
    """bench/strength.py: mc against its named opponents in duplicate games to 100, with
    Bonferroni-adjusted intervals, on the seeds given (--seed)."""
    import subprocess
    import sys
    from pathlib import Path

    if not args.seed:
        raise SystemExit("--only strength needs --seed: seeds no tuning or choice ever used")
    command = [sys.executable, str(Path(__file__).with_name("strength.py")), "--seed", args.seed]
    command += ["--games", str(args.games)]
    if args.opponents:
        command += ["--opponents", args.opponents]
    subprocess.run(command, check=True)


def bench_search(args: argparse.Namespace) -> None:
    """The search players: mc-fixed's decisions and rollouts per second on one thread at
    positions from expert play, mc's (the adaptive searcher) at its own positions in play
    beside mc-fixed's there, mc's time per decision through Decider (bench_decider), and
    whole games to 100 per second (mc vs simple, standard)."""
    from gin_sim.experiments.simulate import head_to_head_matches
    from gin_sim.kernels.playout import scratch_nb
    from gin_sim.kernels.search import search_nb, search_scratch_nb
    from gin_sim.players.calibration import load_undercut_table
    from gin_sim.players.search_value import NO_TABLES
    from gin_sim.players.strategies import load_strategy, strategies_to_kernel

    standard = load_rules("standard")
    rules_vector = standard.to_kernel()
    table = load_undercut_table()
    fixed = strategies_to_kernel((load_strategy("mc-fixed"), load_strategy("simple")), standard)[0]
    streams = scratch_nb()[0]
    positions = expert_positions(standard, args.mc_decisions)
    search = search_scratch_nb()

    def decide_all() -> int:
        rollouts = 0
        for masks, state in positions:
            search_nb(fixed, masks, state, rules_vector, table, NO_TABLES, streams, 0, search)
            rollouts += int(search[13][2])  # screened-out candidates' rollouts included
        return rollouts

    rollouts = decide_all()  # compile and warm up
    seconds = median_seconds(decide_all, args.repeats)
    print(
        f"mc-fixed decisions/s: {len(positions) / seconds:.0f}  (mc-fixed, standard, "
        f"{len(positions):,} positions from expert play, 1 thread, median of {args.repeats})"
    )
    print(
        f"rollouts/s: {rollouts / seconds:.0f}  (the same searches: every rollout, those of screened-out candidates included, 1 thread)"
    )

    # mc, the adaptive searcher, beside mc-fixed, at its own decisions in play: each search
    # starts from the panel memory it had there, so its posterior updates (16 evidence worlds
    # per model after an answered turn) and its worlds' models drawn from the posterior are
    # timed too.
    adaptive = strategies_to_kernel((load_strategy("mc"), load_strategy("simple")), standard)[0]
    played = adaptive_positions(standard, args.adaptive_hands)
    own_streams = np.empty(2, np.uint64)

    def decide_played(params: np.ndarray) -> None:
        for masks, state, memory, at in played:
            search[17][:] = memory
            own_streams[:] = at
            search_nb(params, masks, state, rules_vector, table, NO_TABLES, own_streams, 0, search)

    per_second = {}
    for name, params in (("mc", adaptive), ("mc-fixed", fixed)):
        decide_played(params)  # compile and warm up
        per_second[name] = len(played) / median_seconds(
            lambda p=params: decide_played(p), args.repeats
        )
    print(
        f"mc decisions/s: {per_second['mc']:.0f}  (mc-fixed at the same positions: "
        f"{per_second['mc-fixed']:.0f}; mc's {len(played):,} decisions in {args.adaptive_hands} "
        f"hands against simple under standard, each from the panel memory it had in play, 1 thread, "
        f"median of {args.repeats})"
    )

    bench_decider(args)

    pair = (load_strategy("mc"), load_strategy("simple"))
    head_to_head_matches(standard, pair, 2, seed=0)  # compile
    runs = max(1, min(args.repeats, 3))
    seconds = median_seconds(
        lambda: simulate_matches(standard, pair, args.mc_matches, seed=1), runs
    )
    records, hands = simulate_matches(standard, pair, args.mc_matches, seed=1, with_hands=True)
    import pandas as pd

    frame = pd.DataFrame.from_records(hands)
    frame.insert(0, "match", np.repeat(records["match"], records["hands"]))
    per_game = game_lengths(frame, standard.game_target).mean()
    hands_per_second = records["hands"].sum() / seconds
    print(
        f"mc games/s: {hands_per_second / per_game:.1f}  (mc vs simple, games to {standard.game_target} "
        f"under standard, {numba.config.NUMBA_NUM_THREADS} threads: {hands_per_second:.0f} hands/s in "
        f"{args.mc_matches:,} matches, {per_game:.2f} hands per game, median of {runs})"
    )

    # The score-aware searcher: the same matches, a match-table lookup per rollout.
    score_pair = (load_strategy("mc-match"), load_strategy("simple"))
    simulate_matches(standard, score_pair, 2, seed=0)  # compile, build the game table
    seconds = median_seconds(
        lambda: simulate_matches(standard, score_pair, args.mc_matches, seed=1), runs
    )
    records, _ = simulate_matches(standard, score_pair, args.mc_matches, seed=1)
    print(
        f"mc-match hands/s: {records['hands'].sum() / seconds:.0f}  (mc-match vs simple in the "
        f"same {args.mc_matches:,} Hollywood matches under standard; mc: {hands_per_second:.0f})"
    )


def bench_positions(args: argparse.Namespace) -> None:
    """Deep evaluation (docs/advice.md) at the default depth: positions of every kind kept
    from expert play (the default keep probabilities), evaluated on all cores; then a whole
    dataset of mc against mc."""
    from gin_sim.experiments.positions import (
        Evaluation,
        PositionsConfig,
        evaluate_positions,
        execute,
        positions_frame,
        row_keys,
        sample_positions,
    )

    rules = load_rules("hollywood")
    pair = parse_players("expert,expert")
    evaluation = Evaluation()
    masks, states, info = sample_positions(rules, pair, 1, 0, args.positions_deals)
    frame = positions_frame(pair, masks, states, info)
    keys = row_keys(1, frame)
    evaluate_positions(masks[:4], states[:4], keys[:4], rules, evaluation)  # compile
    runs = max(1, min(args.repeats, 3))
    seconds = median_seconds(
        lambda: evaluate_positions(masks, states, keys, rules, evaluation), runs
    )
    print(
        f"evaluated positions/s: {len(frame) / seconds:.1f}  (default evaluation: {evaluation.name}; "
        f"hollywood, {len(frame):,} positions of every kind from {args.positions_deals:,} deals of expert play, "
        f"{numba.config.NUMBA_NUM_THREADS} threads, median of {runs})"
    )
    deals = max(2, args.positions_deals // 3)
    config = PositionsConfig(rules, parse_players("mc,mc"), 1, deals, deals, evaluation)
    list(execute(PositionsConfig(rules, config.players, 1, 2, 2, evaluation)))  # compile
    start = time.perf_counter()
    rows = sum(len(chunk) for chunk in execute(config))
    seconds = time.perf_counter() - start
    print(
        f"dataset deals/s mc vs mc: {deals / seconds:.1f}  ({rows:,} positions from {deals:,} deals "
        f"played and evaluated at the default depth, hollywood, {numba.config.NUMBA_NUM_THREADS} threads, once)"
    )


def bench_review(args: argparse.Namespace) -> None:
    """``gin-sim review`` at the default depth: decisions reviewed per second (both players'
    decisions of deals of expert against expert, all cores); then a 10-hand Hollywood match
    played through ``play`` (an expert at the table against mc) and saved, reviewed by the
    real command, start to end (the process's start, the kernels' load and the match
    equity table included)."""
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    from gin_sim.experiments.review import ReviewSettings, simulated_hands, value_decisions
    from gin_sim.interfaces.play import Game, GameSettings, InputEnded, parse_move
    from gin_sim.players.decide import Decider
    from gin_sim.players.strategies import load_strategy
    from gin_sim.reference.views import view_from_situation

    rules = load_rules("hollywood")
    settings = ReviewSettings()
    pair = (load_strategy("expert"), load_strategy("expert"))
    decisions = [
        d for h in simulated_hands(2, 0, args.review_deals, rules, pair) for d in h.decisions
    ]
    value_decisions(decisions[:4], rules, settings, 2)  # compile
    runs = max(1, min(args.repeats, 3))
    seconds = median_seconds(lambda: value_decisions(decisions, rules, settings, 2), runs)
    print(
        f"decisions reviewed/s: {len(decisions) / seconds:.1f}  (default depth: {settings.name}; "
        f"hollywood, {len(decisions):,} decisions of {args.review_deals:,} deals of expert play, "
        f"{numba.config.NUMBA_NUM_THREADS} threads, median of {runs})"
    )

    class ExpertAtTheTable(Game):
        """The person's moves are expert's; the person leaves after 10 hands (as the end
        of the input stops a game: the record keeps them, and the next hand's moves so far)."""

        expert = Decider("expert", rules)

        def _your_move(self, hand, deal, move):
            if len(self.hands) >= 10:
                raise InputEnded()
            view = view_from_situation(hand.situation(hand.view()))
            return parse_move(self.expert.decide(view).action, hand.phase)

    with tempfile.TemporaryDirectory() as folder:
        record = Path(folder) / "match.json"
        game = GameSettings(rules, load_strategy("mc").for_rules(rules), "hollywood", seed=45)
        ExpertAtTheTable(game, lambda prompt: None, lambda line: None, record).play()
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "gin_sim", "review", str(record), "--json", "--quiet"],
            capture_output=True, text=True, check=True,
        )  # fmt: skip
        seconds = time.perf_counter() - start
    reviewed = len(__import__("json").loads(done.stdout)["decisions"])
    print(
        f"10-hand match reviewed in s: {seconds:.1f}  (gin-sim review of a play record, hollywood "
        f"format, {reviewed} decisions of the person at the default depth, match equity too, "
        f"{numba.config.NUMBA_NUM_THREADS} threads, once, the process's start included)"
    )


def bench_serve(args: argparse.Namespace) -> None:
    """Requests answered per second by a real ``gin-sim serve`` process, one at a time (a
    host waiting for each answer), at the positions of real hands."""
    import json
    import subprocess
    import sys

    from gin_sim.reference.engine import decisions_reference
    from gin_sim.reference.views import view_from_situation

    views, deal = [], 0
    while len(views) < args.serve_requests:
        views += [
            (view_from_situation(s), s.player)
            for s, _ in decisions_reference(5, deal, "hollywood", ("expert", "expert"))
        ]
        deal += 1
    from gin_sim.players.decide import Decider

    for strategy, count in (("simple", args.serve_requests), ("mc", args.serve_requests // 10)):
        decider = Decider(strategy, "hollywood")

        def decide_all(n: int, decider: Decider = decider) -> None:
            for i in range(n):
                view, seat = views[i % len(views)]
                decider.decide(view, i, seat=seat)

        decide_all(20)  # compile
        seconds = median_seconds(lambda: decide_all(count), 3)  # noqa: B023 (called at once)
        print(
            f"prepared decision ms {strategy}: {seconds / count * 1e3:.3f}  (Decider.decide in process, "
            f"hollywood, {count:,} positions of expert play, median of 3)"
        )
    server = subprocess.Popen(
        [sys.executable, "-m", "gin_sim", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        bufsize=1,
    )
    assert server.stdin is not None and server.stdout is not None
    try:
        for strategy, count in (("simple", args.serve_requests), ("mc", args.serve_requests // 10)):

            def ask(n: int, strategy: str = strategy) -> None:
                for i in range(n):
                    view, seat = views[i % len(views)]
                    request = {"id": i, "strategy": strategy, "seed": i, "seat": seat, "view": view}
                    server.stdin.write(json.dumps(request) + "\n")
                    answer = json.loads(server.stdout.readline())
                    assert answer["id"] == i and "error" not in answer, answer

            ask(20)  # compile, prepare
            seconds = median_seconds(lambda: ask(count), 3)  # noqa: B023 (called at once)
            print(
                f"serve decisions/s {strategy}: {count / seconds:.0f}  (gin-sim serve, hollywood, "
                f"one request at a time at {count:,} positions of expert play, median of 3)"
            )
    finally:
        server.stdin.close()
        server.wait()


def bench_runs(args: argparse.Namespace) -> None:
    """A whole run written to Parquet against the same run kept in memory only."""
    import subprocess
    import sys
    import tempfile

    from gin_sim.experiments.runs import RunConfig, execute
    from gin_sim.experiments.summary import HeadToHead

    config = RunConfig(
        "hands",
        load_rules("hollywood"),
        parse_players("simple,simple"),
        1,
        args.run_deals,
        False,
        200_000,
    )

    def play(directory: str | None) -> None:
        # what ``gin-sim simulate`` does with each chunk: summarise it
        summary = HeadToHead()
        for frame in execute(config, directory):
            summary = summary + HeadToHead.of(frame)

    def written() -> None:
        with tempfile.TemporaryDirectory() as folder:
            play(folder + "/run")

    # Alternate the two so that load from other processes falls on both alike.
    in_memory_times, to_parquet_times = [], []
    for _ in range(args.repeats):
        in_memory_times.append(median_seconds(lambda: play(None), 1))
        to_parquet_times.append(median_seconds(written, 1))
    in_memory = statistics.median(in_memory_times)
    to_parquet = statistics.median(to_parquet_times)
    print(
        f"run deals/s: {args.run_deals / to_parquet:.0f}  (simple vs simple, {args.run_deals:,} decks written "
        f"to Parquet in 200,000-deck chunks (the default), median of {args.repeats})"
    )
    print(
        f"parquet overhead: {to_parquet / in_memory - 1:.1%}  (against the same run without writing)"
    )
    if args.memory_deals:
        # The child reports its own high-water mark (VmHWM, Linux): getrusage on children
        # would also count the pages this large process had when it forked the child.
        report_peak = (
            "import atexit, sys; from gin_sim.interfaces.cli import main; "
            "atexit.register(lambda: print([l for l in open('/proc/self/status') "
            "if l.startswith('VmHWM')][0], file=sys.stderr)); main()"
        )
        with tempfile.TemporaryDirectory() as folder:
            command = [sys.executable, "-c", report_peak, "simulate", "--deals", str(args.memory_deals),
                       "--out", folder + "/run", "--quiet"]  # fmt: skip
            result = subprocess.run(command, check=True, capture_output=True, text=True)
        peak = int(result.stderr.split("VmHWM:")[1].split()[0]) / 1024**2  # KiB -> GiB
        print(
            f"peak memory: {peak:.2f} GiB  (gin-sim simulate --deals {args.memory_deals:,} --out, duplicate)"
        )


if __name__ == "__main__":
    main()
