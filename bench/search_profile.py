"""Where an ``mc`` decision spends its time: candidates, world sampling, rollout turns
(take/draw decisions, discard decisions, applying them), scoring.

numba code has no clock inside, so each part is timed on its own over the same work: the
positions of ``make bench`` (expert play, player 0 to move after a random number of its
turns), the worlds each search samples (the same streams), and the positions its rollouts
pass through (kept as snapshots, then decided again in a timed loop). Timings are medians
over repeats, one thread; on a shared machine compare shares, not absolute figures.

    .venv/bin/python bench/search_profile.py --rules standard --positions 200
"""

from __future__ import annotations

import argparse
import statistics
import time

import numba
import numpy as np
from numba import njit

from bench import expert_positions  # bench/bench.py: the script's folder is on the path
from gin_sim.game.rules import load_rules
from gin_sim.kernels.enums import FAMILY_PARAMS, Phase, PositionSlot, StrategyParam
from gin_sim.kernels.playout import scratch_nb
from gin_sim.kernels.position import (
    apply_nb,
    copy_position_nb,
    family_action_nb,
    hand_value_nb,
)
from gin_sim.kernels.rng import next_nb
from gin_sim.kernels.search import candidates_nb, sample_world_nb, search_nb, search_scratch_nb
from gin_sim.players.calibration import load_undercut_table
from gin_sim.players.search_value import NO_TABLES
from gin_sim.players.strategies import load_strategy, strategies_to_kernel

_MAX_SNAPSHOTS = 2_000_000


@njit(cache=False)
def _rollout_snapshots(params, masks, state, rules, table, streams, worlds, search, snap_m, snap_s):
    """Replay a search's rollouts (every candidate, no screening) in ``worlds`` worlds,
    keeping every decision position they pass through; returns (snapshots, rollout turns,
    rollouts)."""
    world_masks, world_state, roll_masks, roll_state, cards, candidates = search[:6]
    policies, rng, idle = search[8:11]
    gains = search[14]
    player = state[PositionSlot.PLAYER]
    n = candidates_nb(params, masks, state, rules, table, idle, player, candidates, cards, gains)
    if n == 1:
        return 0, 0, 0
    for j in range(FAMILY_PARAMS):
        policies[player, j] = params[StrategyParam.MC_ROLLOUT + j]
        policies[1 - player, j] = params[StrategyParam.MC_OPPONENT + j]
    rng[0] = next_nb(streams, player)
    k = 0
    turns = 0
    rollouts = 0
    for _ in range(worlds):
        sample_world_nb(params, masks, state, player, world_masks, world_state, cards, rng)
        for c in range(n):
            copy_position_nb(world_masks, world_state, roll_masks, roll_state)
            apply_nb(roll_masks, roll_state, rules, candidates[c])
            start = roll_state[PositionSlot.TURNS]
            while roll_state[PositionSlot.PHASE] != Phase.OVER:
                if k < snap_m.shape[0]:
                    copy_position_nb(roll_masks, roll_state, snap_m[k], snap_s[k])
                    k += 1
                p = roll_state[PositionSlot.PLAYER]
                action = family_action_nb(
                    policies[p], roll_masks, roll_state, rules, table, idle, p
                )
                apply_nb(roll_masks, roll_state, rules, action)
            turns += roll_state[PositionSlot.TURNS] - start
            rollouts += 1
    return k, turns, rollouts


@njit(cache=False)
def _decide_snapshots(policies, snap_m, snap_s, rules, table, idle, phase_wanted, n, loops):
    total = 0
    for _ in range(loops):
        for i in range(n):
            if (snap_s[i, PositionSlot.PHASE] == Phase.DISCARD) != phase_wanted:
                continue
            p = snap_s[i, PositionSlot.PLAYER]
            total += family_action_nb(policies[p], snap_m[i], snap_s[i], rules, table, idle, p)
    return total


@njit(cache=False)
def _copy_apply_score(params, masks, state, rules, worlds, search, n_rollouts):
    """Copying a world into a rollout and scoring a finished hand, ``n_rollouts`` times."""
    roll_masks, roll_state = search[2:4]
    chains, result = search[11:13]
    total = 0
    for _ in range(n_rollouts):
        copy_position_nb(masks, state, roll_masks, roll_state)
        roll_state[PositionSlot.PHASE] = Phase.OVER
        roll_state[PositionSlot.KNOCKER] = 0
        total += hand_value_nb(roll_masks, roll_state, rules, chains, result, 0)
    return total


@njit(cache=False)
def _sample_only(params, masks, state, streams, worlds, search):
    world_masks, world_state = search[:2]
    cards, rng = search[4], search[9]
    player = state[PositionSlot.PLAYER]
    rng[0] = next_nb(streams, player)
    for _ in range(worlds):
        sample_world_nb(params, masks, state, player, world_masks, world_state, cards, rng)


@njit(cache=False)
def _candidates_only(params, masks, state, rules, table, search):
    cards, candidates, idle, gains = search[4], search[5], search[10], search[14]
    player = state[PositionSlot.PLAYER]
    return candidates_nb(params, masks, state, rules, table, idle, player, candidates, cards, gains)


def median_seconds(fn, repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="standard")
    parser.add_argument("--player", default="mc")
    parser.add_argument("--positions", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    numba.set_num_threads(1)
    rules = load_rules(args.rules)
    rules_vector = rules.to_kernel()
    table = load_undercut_table()
    searcher = load_strategy(args.player)
    mc = strategies_to_kernel((searcher, load_strategy("simple")), rules)[0]
    streams, masks, state = scratch_nb()[:3]
    positions = expert_positions(rules, args.positions)  # the positions make bench searches
    search = search_scratch_nb()
    samples = int(searcher.samples)

    def whole() -> tuple[int, int, int]:
        streams[:] = (11, 12)
        worlds = rollouts = searched = 0
        for m, s in positions:
            search_nb(mc, m, s, rules_vector, table, NO_TABLES, streams, 0, search)
            counts = search[13]
            if counts[0] and counts[2]:
                searched += 1
                stopped = counts[1] == searcher.screen and samples - searcher.screen != counts[1]
                worlds += searcher.screen if stopped else samples
                rollouts += int(counts[2])
        return worlds, rollouts, searched

    worlds, rollouts, searched = whole()
    t_total = median_seconds(whole, args.repeats)

    def candidates_only() -> None:
        for m, s in positions:
            _candidates_only(mc, m, s, rules_vector, table, search)

    candidates_only()
    t_candidates = median_seconds(candidates_only, args.repeats)

    per_position = worlds // max(searched, 1)

    def sampling_only() -> None:
        streams[:] = (11, 12)
        for m, s in positions:
            _sample_only(mc, m, s, streams, per_position, search)

    sampling_only()
    t_sampling = median_seconds(sampling_only, args.repeats) * searched / len(positions)

    snap_m = np.zeros((_MAX_SNAPSHOTS, masks.shape[0]), np.uint64)
    snap_s = np.zeros((_MAX_SNAPSHOTS, state.shape[0]), np.int64)
    # Rollout decisions: the first candidate's rollouts in 8 worlds of every position.
    kept_m, kept_s, kept_turns, kept_rollouts = [], [], 0, 0
    streams[:] = (11, 12)
    for m, s in positions:
        k, turns, played = _rollout_snapshots(
            mc, m, s, rules_vector, table, streams, 8, search, snap_m, snap_s
        )
        kept_m.append(snap_m[:k].copy())
        kept_s.append(snap_s[:k].copy())
        kept_turns += turns
        kept_rollouts += played
    # A few thousand of them, decided many times over: they stay in the cache, as the
    # position of a real rollout does.
    # Drawn at random, not every k-th: decisions alternate take, discard, so an even k
    # would keep nearly only one kind.
    kept = sum(len(x) for x in kept_s)
    pick = np.sort(np.random.default_rng(0).choice(kept, min(kept, 3000), replace=False))
    all_m = np.ascontiguousarray(np.concatenate(kept_m)[pick])
    all_s = np.ascontiguousarray(np.concatenate(kept_s)[pick])
    loops = 30
    policies = search[8]
    idle = search[10]
    n = len(all_s)
    discard_share = float(np.mean(all_s[:, PositionSlot.PHASE] == Phase.DISCARD))
    _decide_snapshots(policies, all_m, all_s, rules_vector, table, idle, True, n, 1)
    t_discards = (
        median_seconds(
            lambda: _decide_snapshots(
                policies, all_m, all_s, rules_vector, table, idle, True, n, loops
            ),
            args.repeats,
        )
        / loops
    )
    t_takes = (
        median_seconds(
            lambda: _decide_snapshots(
                policies, all_m, all_s, rules_vector, table, idle, False, n, loops
            ),
            args.repeats,
        )
        / loops
    )
    t_total = min(t_total, median_seconds(whole, args.repeats))  # the least loaded of two
    decisions_per_rollout = sum(len(x) for x in kept_s) / max(kept_rollouts, 1)
    _copy_apply_score(mc, all_m[-1], all_s[-1], rules_vector, 1, search, 10)
    t_score = (
        median_seconds(
            lambda: _copy_apply_score(mc, all_m[-1], all_s[-1], rules_vector, 1, search, 100_000),
            args.repeats,
        )
        / 100_000
    )
    per_decision_discard = t_discards / max(1, int(discard_share * n))
    per_decision_take = t_takes / max(1, n - int(discard_share * n))
    # Scale the per-decision costs to the whole searches' rollouts.
    decisions = rollouts * decisions_per_rollout
    t_discard_all = decisions * discard_share * per_decision_discard
    t_take_all = decisions * (1 - discard_share) * per_decision_take
    t_score_all = rollouts * t_score
    t_rest = t_total - t_candidates - t_sampling - t_discard_all - t_take_all - t_score_all

    def line(name: str, seconds: float, note: str = "") -> None:
        print(
            f"  {name:<44} {seconds * 1e3 / len(positions):8.3f} ms  {seconds / t_total:6.1%}  {note}"
        )

    print(
        f"{args.player} under {args.rules}: {len(positions)} positions, {searched} searched, "
        f"{worlds / max(searched, 1):.1f} worlds and {rollouts / max(searched, 1):.0f} rollouts per search, "
        f"{kept_turns / max(kept_rollouts, 1):.1f} turns and {decisions_per_rollout:.1f} decisions per rollout "
        f"({discard_share:.0%} of them discards)"
    )
    print(
        f"  {'per decision (all positions)':<44} {t_total * 1e3 / len(positions):8.3f} ms  100.0%"
    )
    line("candidates (rollout policy's costs)", t_candidates)
    line("world sampling (infer: built hands)", t_sampling)
    line(
        "rollout discard/knock decisions",
        t_discard_all,
        f"{per_decision_discard * 1e9:.0f} ns each",
    )
    line("rollout take/draw decisions", t_take_all, f"{per_decision_take * 1e9:.0f} ns each")
    line("scoring the rollout's end (R13-R17)", t_score_all, f"{t_score * 1e9:.0f} ns each")
    line("the rest (copy, apply, screening)", t_rest)


if __name__ == "__main__":
    main()
