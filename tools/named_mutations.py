"""Apply each named wrong change of issue 27 to a copy of the package, one at a time, and
check that a test fails on it (docs/testing.md, "The named changes").

The copy (gin_sim, tests, configs, pyproject.toml) lives in a temporary folder and is put
first on the import path, so the worktree is never modified and an interrupted run leaves
nothing behind. Exit code 0 when every change is caught, 1 when one survives.

    .venv/bin/python tools/named_mutations.py [NAME ...]
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Mutation:
    name: str
    path: str  # in the repository
    old: str  # must occur exactly once
    new: str
    tests: tuple[str, ...]  # the test node ids or files that must catch it


EQUITY = "gin_sim/experiments/equity.py"
DISTILL = "gin_sim/experiments/distill.py"
ADVICE = "gin_sim/experiments/advice.py"
LOOKS_AGAIN = (
    "tests/test_reference_search.py::test_an_undecided_choice_looks_again_as_the_reference_does"
)
LATE_UNDERCUTS = (
    "tests/test_reference_search.py::test_undercuts_are_priced_late_only_as_the_reference_does"
)
LATE_INFERENCE = (
    "tests/test_reference_search.py::test_passes_weigh_otherwise_late_as_the_reference_does"
)
LOWERING_PASSES = (
    "tests/test_reference_search.py::test_the_kernels_lowering_passes_are_the_references",
    "tests/test_reference_search.py::"
    "test_passes_that_would_have_lowered_the_deadwood_are_read_as_the_reference_does",
)
TIMED_PASSES = (
    "tests/test_reference_search.py::test_the_kernels_timed_passes_are_the_references",
    "tests/test_reference_search.py::test_a_pass_reads_only_the_cards_held_when_it_was_made",
    "tests/test_reference_search.py::test_passes_read_by_when_they_were_made_as_the_reference_does",
    "tests/test_reference_search.py::test_the_passes_are_dated_as_they_were_made_in_kernel_and_reference",
)
KNOCK_DEPTH = (
    "tests/test_reference_search.py::test_knock_decisions_search_deeper_as_the_reference_does"
)
CHEAPEST_SCREENED = (
    "tests/test_reference_search.py::"
    "test_the_screening_plays_the_cheapest_discards_as_the_reference_does"
)
FIRST_CUT = "tests/test_reference_search.py::test_the_screenings_first_cut_is_the_references"
PAIRED_DRAWS = (
    "tests/test_reference_search.py::test_paired_draws_are_the_references",
    "tests/test_search.py::test_paired_draws_leave_a_playouts_law_unchanged",
)
WORLDS_ONLY = ("tests/test_search.py::test_a_search_without_its_rollouts_draws_the_searchs_worlds",)
DRAW_DEPTH = (
    "tests/test_reference_search.py::"
    "test_offers_and_draws_search_their_own_worlds_as_the_reference_does"
)
KNOCK_CONTINUATION = (
    "tests/test_reference_search.py::"
    "test_knock_decisions_take_their_own_continuation_as_the_reference_does"
)

MUTATIONS = (
    Mutation(
        "equity: who won swapped",
        EQUITY,
        "np.where(seat_winner == me_seat, 0, 1)",
        "np.where(seat_winner == me_seat, 1, 0)",
        ("tests/test_mutants_equity.py",),
    ),
    Mutation(
        "equity: who dealt swapped",
        EQUITY,
        'dealer = np.where(frame["dealer"].to_numpy() == me_seat, 0, 1)',
        'dealer = np.where(frame["dealer"].to_numpy() == me_seat, 1, 0)',
        ("tests/test_mutants_equity.py",),
    ),
    Mutation(
        "distill: Bonferroni adjustment removed (check)",
        DISTILL,
        'gain = adjusted(player_summary(frame, 0)["net points per hand"], comparisons)',
        'gain = player_summary(frame, 0)["net points per hand"]',
        ("tests/test_mutants_distill.py",),
    ),
    Mutation(
        "distill: Bonferroni adjustment removed (one comparison passed)",
        DISTILL,
        "check(base, proposal, by_name[proposal.rules], deals, seed, len(made), threads)",
        "check(base, proposal, by_name[proposal.rules], deals, seed, 1, threads)",
        ("tests/test_mutants_distill.py",),
    ),
    Mutation(
        "advice: knock line's bootstrap resampling removed",
        ADVICE,
        "counts = counts.reshape(k, n).astype(np.float64)",
        "counts = np.ones((k, n))",
        ("tests/test_mutants_advice.py",),
    ),
    Mutation(
        "advice: knock line's bootstrap draws rows, not deals",
        ADVICE,
        "        np.add.at(cell_w, (deal_of, column), w)\n",
        "        deal_of = np.arange(len(rows))\n"
        "        cell_w = np.zeros((len(rows), len(LINE_DEADWOOD)))\n"
        "        cell_y = np.zeros((len(rows), len(LINE_DEADWOOD)))\n"
        "        np.add.at(cell_w, (deal_of, column), w)\n",
        ("tests/test_mutants_advice.py",),
    ),
    Mutation(
        "equity: deck-bootstrap spread dropped from the match model's interval",
        EQUITY,
        "half = Z95 * np.sqrt(monte_carlo + spread)",
        "half = Z95 * np.sqrt(monte_carlo)",
        ("tests/test_mutants_equity.py",),
    ),
    Mutation(
        "advice: check against play unpaired (play's positions shuffled)",
        ADVICE,
        "values = part[minuend].to_numpy(np.float64) - part[subtrahend].to_numpy(np.float64)",
        "values = part[minuend].to_numpy(np.float64)"
        " - np.random.default_rng(0).permutation(part[subtrahend].to_numpy(np.float64))",
        ("tests/test_mutants_advice.py",),
    ),
    Mutation(
        "advice: check against play unpaired (two independent means)",
        ADVICE,
        "    estimate = per_decision(part, values)\n",
        # each part's two columns (CHECK_PARTS) as two means, their variances added
        "    minuend, subtrahend = next(p[1:] for p in CHECK_PARTS if p[0] == label)\n"
        "    m = per_decision(part, part[minuend].to_numpy(np.float64))\n"
        "    s = per_decision(part, part[subtrahend].to_numpy(np.float64))\n"
        "    estimate = Estimate(m.mean - s.mean, Z95 * math.sqrt(m.variance + s.variance),"
        " m.n, m.variance + s.variance)\n",
        ("tests/test_mutants_advice.py",),
    ),
    Mutation(
        "advice: the check's flag forced to True",
        ADVICE,
        'record[f"{prefix}flagged"] = bool(',
        'record[f"{prefix}flagged"] = True or bool(',
        ("tests/test_mutants_advice.py",),
    ),
    Mutation(
        "advice: the check's flag forced to False",
        ADVICE,
        'record[f"{prefix}flagged"] = bool(',
        'record[f"{prefix}flagged"] = False and bool(',
        ("tests/test_mutants_advice.py",),
    ),
    # issue 47: planted bugs that once passed the tests of their module's selection
    Mutation(
        "equity: the model-against-direct agreement made one-sided",
        EQUITY,
        '"agrees": bool(abs(difference) <= half)',
        '"agrees": bool(difference <= half)',
        ("tests/test_mutants_equity.py",),
    ),
    Mutation(
        "equity: the game table's intervals made 90%",
        EQUITY,
        "low, high = np.nanquantile(draws, [0.025, 0.975], axis=0)",
        "low, high = np.nanquantile(draws, [0.05, 0.95], axis=0)",
        ("tests/test_mutants_equity.py",),
    ),
    Mutation(
        "advice: the check's detectable difference at 50% power",
        ADVICE,
        "DETECTABLE_SES = Z95 + Z80",
        "DETECTABLE_SES = Z95",
        ("tests/test_mutants_advice.py",),
    ),
    # Issue 46: an undecided choice looks again, in the kernel and in the reference engine.
    Mutation(
        "search kernel: undecided measured from 0 instead of the confidence line",
        "gin_sim/kernels/search.py",
        "error >= 0.0 and abs(mean - confidence * error) < EXTEND_BAND * error",
        "error >= 0.0 and abs(mean) < EXTEND_BAND * error",
        (LOOKS_AGAIN,),
    ),
    Mutation(
        "search kernel: the screening worlds counted in the undecided test",
        "gin_sim/kernels/search.py",
        "undecided_nb(n, samples - start, confidence, gains, gain_squares)",
        "undecided_nb(n, samples, confidence, gains, gain_squares)",
        (LOOKS_AGAIN,),
    ),
    Mutation(
        "search reference: the extra worlds not counted in the choice",
        "gin_sim/reference/search.py",
        "                worlds += strategy.extend_samples\n",
        "",
        (LOOKS_AGAIN,),
    ),
    # Issue 46: the screening plays the cheapest discards only (screen_discards).
    Mutation(
        "search kernel: screen_discards ignored",
        "gin_sim/kernels/search.py",
        "            wanted = np.int64(params[StrategyParam.MC_SCREEN_DISCARDS])\n",
        "            pass\n",
        (CHEAPEST_SCREENED,),
    ),
    Mutation(
        "search reference: one discard more screened",
        "gin_sim/reference/search.py",
        "    screened = by_cost[: strategy.screen_discards or len(by_cost)]\n",
        "    screened = by_cost[: strategy.screen_discards + 1 if strategy.screen_discards else len(by_cost)]\n",
        (CHEAPEST_SCREENED,),
    ),
    # Issue 46: the screening's first cut (early_screen, early_keep).
    Mutation(
        "search kernel: the first cut keeps one discard more",
        "gin_sim/kernels/search.py",
        "            n = screen_nb(n, early_keep, world, candidates, sums, squares, gains, gain_squares)\n",
        "            n = screen_nb(n, early_keep + 1, world, candidates, sums, squares, gains, gain_squares)\n",
        (FIRST_CUT,),
    ),
    Mutation(
        "search reference: the cut's figures start again",
        "gin_sim/reference/search.py",
        "            gains, gain_squares = [gains[c] for c in kept], [gain_squares[c] for c in kept]\n",
        "            gains, gain_squares = [0.0] * len(kept), [0.0] * len(kept)\n",
        (FIRST_CUT,),
    ),
    Mutation(
        "decision: the cut's figures over the screening's worlds",
        "gin_sim/players/decision.py",
        "        early_screened_out=tuple(candidate(c, early) for c in range(cut, before)),\n",
        "        early_screened_out=tuple(candidate(c, screen) for c in range(cut, before)),\n",
        (FIRST_CUT,),
    ),
    # Issue 46: paired draws (paired_draws).
    Mutation(
        "position kernel: the bottom card swapped with the top, not moved onto it",
        "gin_sim/kernels/position.py",
        "    for j in range(51, top, -1):\n        state[_S.DECK + j] = state[_S.DECK + j - 1]\n",
        "    state[_S.DECK + 51] = state[_S.DECK + top]\n",
        PAIRED_DRAWS,
    ),
    Mutation(
        "search kernel: the candidate's own draw from the top",
        "gin_sim/kernels/search.py",
        "            apply_drawing_nb(roll_masks, roll_state, rules, candidates[c], bottom)\n",
        "            apply_drawing_nb(roll_masks, roll_state, rules, candidates[c], -1)\n",
        PAIRED_DRAWS,
    ),
    Mutation(
        "search reference: the opponent draws from the bottom",
        "gin_sim/reference/search.py",
        "        bottom = situation.player if strategy.paired_draws else None\n",
        "        bottom = 1 - situation.player if strategy.paired_draws else None\n",
        PAIRED_DRAWS,
    ),
    # Issue 46: a search without its rollouts (search_worlds_nb, world_time.py).
    Mutation(
        "search kernel: the search without rollouts plays them",
        "gin_sim/kernels/search.py",
        "        played = n if rollouts else 0  # search_worlds_nb: the worlds alone\n",
        "        played = n\n",
        WORLDS_ONLY,
    ),
    Mutation(
        "search kernel: the search without rollouts is the whole search",
        "gin_sim/kernels/search.py",
        "player, search, False)\n",
        "player, search, True)\n",
        WORLDS_ONLY,
    ),
    # Issue 46: offers and draws searched on their own worlds (draw_samples).
    Mutation(
        "search kernel: draw_samples at discards too",
        "gin_sim/kernels/search.py",
        "    if state[_S.PHASE] != Phase.DISCARD and params[StrategyParam.MC_DRAW_SAMPLES] > 0:",
        "    if params[StrategyParam.MC_DRAW_SAMPLES] > 0:",
        (DRAW_DEPTH,),
    ),
    Mutation(
        "search reference: draw_samples never played",
        "gin_sim/reference/search.py",
        "        samples = strategy.draw_samples  # take the pile's top or not (issue 46)\n",
        "        pass\n",
        (DRAW_DEPTH,),
    ),
    # Issue 46: knock decisions searched deeper (knock_samples).
    Mutation(
        "search kernel: knock_samples at every search",
        "gin_sim/kernels/search.py",
        "    if knock_open and params[StrategyParam.MC_KNOCK_SAMPLES] > 0:",
        "    if params[StrategyParam.MC_KNOCK_SAMPLES] > 0:",
        (KNOCK_DEPTH,),
    ),
    Mutation(
        "search reference: knock_samples never played",
        "gin_sim/reference/search.py",
        "        samples = strategy.knock_samples  # a knock decision: a deeper search (issue 46)\n",
        "        pass\n",
        (KNOCK_DEPTH,),
    ),
    # Issue 46: knock decisions valued with their own continuation (knock_rollout).
    Mutation(
        "search kernel: the knock continuation never taken",
        "gin_sim/kernels/search.py",
        "                own = StrategyParam.MC_KNOCK_ROLLOUT\n",
        "                own = StrategyParam.MC_ROLLOUT\n",
        (KNOCK_CONTINUATION,),
    ),
    Mutation(
        "search kernel: the knock continuation taken at every search",
        "gin_sim/kernels/search.py",
        "            if candidates[c] & ACTION_KNOCK:  # a knock is open: its own continuation",
        "            if True:  # a knock is open: its own continuation",
        (KNOCK_CONTINUATION,),
    ),
    Mutation(
        "search reference: the knock continuation never taken",
        "gin_sim/reference/search.py",
        "        policies[situation.player] = knock_rollout\n",
        "        pass\n",
        (KNOCK_CONTINUATION,),
    ),
    # Issue 46: passes weighed otherwise at late knocks (late_infer_stock, late_infer_weight).
    Mutation(
        "search kernel: the late pass weight at every depth",
        "gin_sim/kernels/search.py",
        "    if knock_open and late > 0 and stock_left <= late:\n",
        "    if knock_open and late > 0:\n",
        (LATE_INFERENCE,),
    ),
    Mutation(
        "search kernel: the late pass weight with no knock open too",
        "gin_sim/kernels/search.py",
        "    pass_weight = pass_weight_nb(params, 52 - state[_S.STOCK_POS], knock_open)\n",
        "    pass_weight = pass_weight_nb(params, 52 - state[_S.STOCK_POS], True)\n",
        (LATE_INFERENCE,),
    ),
    Mutation(
        "search kernel: the late pass weight never taken",
        "gin_sim/kernels/search.py",
        "        return params[StrategyParam.MC_LATE_INFER_WEIGHT]\n",
        "        return params[StrategyParam.MC_INFER_WEIGHT]\n",
        (LATE_INFERENCE,),
    ),
    Mutation(
        "search reference: the late pass weight never taken",
        "gin_sim/reference/search.py",
        "        return strategy.late_infer_weight\n",
        "        return strategy.infer_weight\n",
        (LATE_INFERENCE,),
    ),
    # Issue 46: the passes that would have lowered the deadwood (infer_lowering).
    Mutation(
        "search kernel: a card melding with nothing kept at its own value",
        "gin_sim/kernels/search.py",
        "        elif _CARD_VALUES[card] < gap:\n",
        "        elif _CARD_VALUES[card] <= gap:\n",
        LOWERING_PASSES,
    ),
    Mutation(
        "search kernel: the gap from any card, the known ones too",
        "gin_sim/kernels/search.py",
        "    gap = whole - least_deadwood_drop_from_nb(opp_hand, allowed, whole)[1]\n",
        "    gap = whole - least_deadwood_drop_from_nb(opp_hand, opp_hand, whole)[1]\n",
        LOWERING_PASSES,
    ),
    Mutation(
        "search kernel: lowering passes never read",
        "gin_sim/kernels/search.py",
        "        if lowering:\n",
        "        if False:\n",
        LOWERING_PASSES,
    ),
    Mutation(
        "search reference: lowering passes never read",
        "gin_sim/reference/search.py",
        "        if strategy.infer_lowering:\n",
        "        if False:\n",
        LOWERING_PASSES,
    ),
    # Issue 46: passes read against the hand held when they were made (infer_timed).
    Mutation(
        "search kernel: a discard dated as a pass over the top",
        "gin_sim/kernels/search.py",
        "            stage = turns if card == latest else max(turns - 1, 0)\n",
        "            stage = max(turns - 1, 0)\n",
        TIMED_PASSES,
    ),
    Mutation(
        "search kernel: a take dated from the start",
        "gin_sim/kernels/search.py",
        "            if tag == 0.0 or np.int64(tag) - 1 <= stage:\n",
        "            if True:\n",
        TIMED_PASSES,
    ),
    Mutation(
        "search kernel: the card of a turn held a stage early",
        "gin_sim/kernels/search.py",
        "            held |= _bit(cards[hidden + stage - 1])\n",
        "            held |= _bit(cards[hidden + stage])\n",
        TIMED_PASSES,
    ),
    Mutation(
        "search kernel: timed passes never read",
        "gin_sim/kernels/search.py",
        "        elif timed:\n",
        "        elif False:\n",
        TIMED_PASSES,
    ),
    Mutation(
        "search reference: timed passes never read",
        "gin_sim/reference/search.py",
        "        elif strategy.infer_timed:\n",
        "        elif False:\n",
        TIMED_PASSES,
    ),
    Mutation(
        "search reference: a take dated from the start",
        "gin_sim/reference/search.py",
        "            if history.taken.get(c, 0) <= stage:\n",
        "            if True:\n",
        TIMED_PASSES,
    ),
    # Issue 46: the undercut priced late only (undercut_stock).
    Mutation(
        "search kernel: the undercut priced at every depth",
        "gin_sim/kernels/search.py",
        "    if undercut_stock > 0 and stock_left > undercut_stock:\n",
        "    if False:\n",
        (LATE_UNDERCUTS,),
    ),
    Mutation(
        "search reference: the undercut priced at every depth",
        "gin_sim/reference/search.py",
        "    undercut_priced = not late_only or stock_left <= late_only\n",
        "    undercut_priced = True\n",
        (LATE_UNDERCUTS,),
    ),
    Mutation(
        "the least-deadwood drop breaks a tie within a rank to the lower suit",
        "gin_sim/kernels/decisions.py",
        "if deadwood < best_deadwood or (deadwood == best_deadwood and best_of_rank):",
        "if deadwood < best_deadwood:",
        (
            "tests/test_strategies.py::test_the_weighted_discard_seeded_with_the_least_deadwood_card_chooses_the_same",
        ),
    ),
    Mutation(
        "the least-deadwood drop breaks a tie between ranks to the lower rank",
        "gin_sim/kernels/decisions.py",
        "if deadwood < best_deadwood or (deadwood == best_deadwood and best_of_rank):",
        "if deadwood <= best_deadwood:",
        (
            "tests/test_strategies.py::test_the_weighted_discard_seeded_with_the_least_deadwood_card_chooses_the_same",
            "tests/test_kernel_vs_reference.py",
        ),
    ),
    Mutation(
        "mc: the rollout policy's adaptation to standard scoring dropped",
        "configs/strategies/mc.toml",
        'rollout = "gin-hunter-strong"',
        'rollout = "expert"',
        ("tests/test_strategies.py",),
    ),
)


def _copy(into: Path) -> None:
    # copy2 keeps the modification times, so numba's cache beside the kernels stays valid
    for name in ("gin_sim", "tests", "configs"):
        shutil.copytree(ROOT / name, into / name, ignore=shutil.ignore_patterns("*.pyc"))
    shutil.copy2(ROOT / "pyproject.toml", into / "pyproject.toml")


def _pytest(folder: Path, *args: str) -> subprocess.CompletedProcess:
    env = os.environ | {"PYTHONPATH": str(folder)}
    return subprocess.run(
        [sys.executable, *args], cwd=folder, env=env, capture_output=True, text=True, check=False
    )


def run(mutation: Mutation, folder: Path) -> list[str]:
    """The tests that fail with ``mutation`` applied (none: the change survives)."""
    path = folder / mutation.path
    original = path.read_text()
    if original.count(mutation.old) != 1:
        raise SystemExit(f"{mutation.name}: the text to change is not in {mutation.path} once")
    path.write_text(original.replace(mutation.old, mutation.new))
    try:
        result = _pytest(folder, "-m", "pytest", "-q", "-rf", "-n", "0", "-p", "no:cacheprovider",
                         *mutation.tests)  # fmt: skip
    finally:
        path.write_text(original)
    if result.returncode not in (0, 1):
        raise SystemExit(f"{mutation.name}: pytest could not run:\n{result.stdout[-2000:]}")
    return [line.split()[1] for line in result.stdout.splitlines() if line.startswith("FAILED ")]


def main(names: list[str]) -> int:
    chosen = [m for m in MUTATIONS if not names or any(n in m.name for n in names)]
    survived = []
    with tempfile.TemporaryDirectory(prefix="gin-sim-mutations-") as tmp:
        folder = Path(tmp)
        _copy(folder)
        # the copy, not the worktree's editable install, must be what the tests import
        where = _pytest(folder, "-c", "import gin_sim; print(gin_sim.__file__)").stdout
        if not where.startswith(str(folder)):
            raise SystemExit(f"the tests would import gin_sim from {where.strip()}, not the copy")
        for mutation in chosen:
            failed = run(mutation, folder)
            print(f"{'caught  ' if failed else 'SURVIVED'}  {mutation.name}", flush=True)
            for test in failed:
                print(f"            by {test}")
            if not failed:
                survived.append(mutation.name)
    print(f"{len(chosen) - len(survived)} caught, {len(survived)} survived")
    return 1 if survived else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
