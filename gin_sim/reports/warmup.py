"""Compile numba's kernels ahead of their first call, in processes of their own.

Why: numba compiles a kernel at its first call, on one core, and stores it in its on-disk
cache; a fresh clone's cache is empty. The default report set then spends about 120 CPU
seconds compiling, one kernel after another, while the second core waits (measured from an
empty cache on 2026-12-02, one process, groups in this order, a shared machine: 53 s for
the hand kernel, 9 s more for the match kernel, 18 s for the advice kernels, 25 s for
the equity model's, 16 s for decisions from outside). Started at the beginning of a job,
a warm-up process compiles the kernels the job reaches later into the cache while this
process compiles the first ones; when the job reaches them, they load from the cache. The
test suite warms every kernel once, in two processes, before its workers start
(tests/conftest.py), instead of each worker compiling every kernel for itself.

The hand kernel is called by every kernel that plays (matches, advice, decisions), so a
warm-up started beside a job's first sweep would compile it a second time at once. It
compiles first what calls no player (the equity model), then waits for the job to store
the hand kernel (``after-deals``) and loads it from the cache.

A warm-up plays tiny workloads through the same functions the jobs call, so that each
kernel is compiled for the argument types the jobs use, into a temporary folder it deletes.
Nothing it computes is kept, and no result depends on it: a kernel loaded from the cache
is the kernel that would be compiled here. A warm-up that fails changes nothing but time.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gin_sim.reports.build import DefaultSet

# Niceness of a background warm-up: the job's own work comes first.
BACKGROUND_NICE = 5


def _deals(folder: Path) -> None:
    from gin_sim.experiments.simulate import head_to_head, play_hand
    from gin_sim.game.rules import load_rules
    from gin_sim.players.strategies import load_strategy

    pair = (load_strategy("basic"), load_strategy("simple"))
    head_to_head(load_rules("hollywood"), pair, 2, 0)
    play_hand(range(52), "hollywood", ("basic", "simple"))  # one deck, from its order


def _matches(folder: Path) -> None:
    from gin_sim.experiments.simulate import simulate_matches
    from gin_sim.game.rules import load_rules
    from gin_sim.players.strategies import load_strategy

    pair = (load_strategy("basic"), load_strategy("simple"))
    simulate_matches(load_rules("hollywood"), pair, 2, 0, with_hands=True)


def _advice(folder: Path) -> None:
    from gin_sim.reports.build import write_advice

    write_advice("hollywood", ["standard"], ["mc", "mc"], 2, 16, 2, 2, 0, folder / "advice")


def _equity(folder: Path) -> None:
    # The hand-outcome model's kernels (game table, joint match table, model matches) call
    # no player, so they compile from invented outcomes while another process compiles the
    # player; the calls are equity_study's, on tiny sizes.
    import numpy as np

    from gin_sim.experiments import equity as model
    from gin_sim.game.rules import load_rules
    from gin_sim.players.strategies import load_strategy

    rules = load_rules("hollywood")
    players = (load_strategy("expert"), load_strategy("expert"))
    codes = np.array([[0, 4], [5, -1], [2, 3]], np.int64)  # winner * 3 + k, -1: nobody
    outcomes = model.HandOutcomes(rules, players, np.array([10, 25, 45], np.int64), codes)
    model.game_equity(outcomes, 2, 0)
    model.joint_table(outcomes)
    run = model.model_matches(outcomes, model.MatchStart(), 8, 0, 2, 4)
    model.heat_table(run, 0, rules.game_target)


def _after_deals(folder: Path) -> None:
    # Wait (up to STORED_WAIT seconds) until another process has stored the hand kernel in
    # the cache: the groups after this one call it, and compiled here at the same time it
    # would be compiled twice (about 50 CPU seconds for nothing). A wait that runs out only
    # costs that time: this process then compiles it.
    import time

    import numba

    deadline = time.monotonic() + STORED_WAIT
    cache = Path(numba.config.CACHE_DIR)
    while time.monotonic() < deadline:
        if any(cache.rglob("playout.play_hand_nb-*.nbc")):  # its data: numba writes the index first
            return
        time.sleep(0.5)


VIEW = {"decision": "draw", "hand": "AS 2S 3S 4H 4D 4C 9H TH JH QS", "pile": "7C 4S",
        "stock_left": 30, "opp_turns": 1, "dealer": "me"}  # fmt: skip


def _decide(folder: Path) -> None:
    from gin_sim.players.decide import Decider
    from gin_sim.players.strategies import load_strategy

    for strategy in ("expert", "mc", "mc-fixed"):
        Decider(strategy, "hollywood").decide(VIEW)
    # A searcher valuing its game or its match, from a score (advise --score; serve).
    scores = {"game": "95/3:90/3", "hollywood": "95/3:90/3,40/1:20/1,0/0:0/0"}
    for value, (game_format, columns) in zip(("game", "match"), scores.items(), strict=True):
        decider = Decider(load_strategy("mc", [f"value={value}", "samples=8"]), "hollywood")
        decider.decide(VIEW | {"score": {"format": game_format, "columns": columns}})


# The kernels by the job that calls them first.
GROUPS: dict[str, Callable[[Path], None]] = {
    "deals": _deals,  # the hand kernel (every player, the search players too)
    "matches": _matches,  # the match kernel
    "advice": _advice,  # the advice report's position and evaluation kernels
    # the equity report's model kernels (no player); its hands, games and matches with
    # cards are played by the hand and match kernels
    "equity": _equity,
    "decide": _decide,  # one decision from outside (play, serve, advise)
    # not a kernel: waits for another process's "deals" (see _after_deals)
    "after-deals": _after_deals,
}
# How long a warm-up waits for another process to store the hand kernel (its
# compile takes about 50 CPU seconds on an idle core).
STORED_WAIT = 240.0


def default_set_groups(settings: DefaultSet) -> list[str]:
    """The groups ``report default`` warms beside its first sweep, which compiles the hand
    kernel: first what calls no player, then (after-deals) what calls it, in the order the
    set reaches them."""
    groups = ["equity"] * bool(settings.equity_rules) + ["after-deals"]
    groups += ["matches"] * bool(settings.matches) + ["advice"] * bool(settings.advice_rules)
    return groups if len(groups) > 1 else []


def warm(groups: Sequence[str]) -> None:
    """Compile the kernels of ``groups`` (names of GROUPS) here, now."""
    unknown = [g for g in groups if g not in GROUPS]
    if unknown:
        raise ValueError(f"warm-up groups {unknown}: allowed {', '.join(GROUPS)}")
    with tempfile.TemporaryDirectory(prefix="gin-sim-warmup-") as folder:
        for group in groups:
            GROUPS[group](Path(folder))


def start(groups: Sequence[str], nice: int = BACKGROUND_NICE) -> subprocess.Popen | None:
    """A process that compiles the kernels of ``groups`` (its output discarded); None
    when warm-ups are turned off (``GIN_SIM_WARMUP=0``)."""
    if os.environ.get("GIN_SIM_WARMUP", "1") == "0" or not groups:
        return None
    return background([sys.executable, "-m", "gin_sim.reports.warmup", *groups], nice)


def background(command: Sequence[str], nice: int = BACKGROUND_NICE) -> subprocess.Popen:
    """``command`` started quietly (no input, its output discarded) at niceness ``nice``."""
    return subprocess.Popen(
        list(command),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        preexec_fn=(lambda: os.nice(nice)) if nice else None,
    )


@contextmanager
def warming(groups: Sequence[str]) -> Iterator[None]:
    """Compile ``groups`` in the background while the block runs; a warm-up still running
    when the block ends (interrupted, or everything was already cached) is stopped."""
    process = start(groups)
    try:
        yield
    finally:
        if process is not None and process.poll() is None:
            process.kill()
            process.wait()


if __name__ == "__main__":
    warm(sys.argv[1:])
