"""A deal depends only on (seed, index): not on threads, chunking, or the JIT."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numba
import numpy as np
import pytest

from gin_sim.experiments.simulate import simulate_deals
from gin_sim.game.rules import load_rules
from gin_sim.kernels.rng import shuffle_deck_nb
from gin_sim.players.strategies import parse_players

RULES = load_rules("hollywood")


@pytest.mark.parametrize("players", ["simple,simple", "random,simple"])
def test_threads_and_chunks_do_not_change_results(players):
    pair = parse_players(players)
    whole = simulate_deals(RULES, pair, 5_000, seed=11, threads=numba.config.NUMBA_NUM_THREADS)
    one_thread = simulate_deals(RULES, pair, 5_000, seed=11, chunk=777, threads=1)
    numba.set_num_threads(numba.config.NUMBA_NUM_THREADS)
    assert np.array_equal(whole, one_thread)
    tail = simulate_deals(RULES, pair, 1_000, seed=11, first_deal=4_000)
    assert np.array_equal(whole[4_000:], tail)
    assert (whole["deal"] == np.arange(5_000)).all()
    assert (whole["dealer"] == np.arange(5_000) % 2).all()


def test_seed_changes_decks_and_decks_are_permutations():
    deck = np.empty(52, np.int8)
    state = np.empty(1, np.uint64)
    seen = set()
    for seed, deal in [(1, 0), (1, 1), (2, 0), (2**64 - 1, 10**12)]:
        shuffle_deck_nb(np.uint64(seed), deal, deck, state)
        assert sorted(deck.tolist()) == list(range(52))
        seen.add(tuple(deck.tolist()))
    assert len(seen) == 4


def test_jit_disabled_gives_the_same_records():
    """NUMBA_DISABLE_JIT=1 (for debugging) runs the same code as plain Python."""
    code = (
        "import json; from gin_sim.experiments.simulate import simulate_deals;"
        "from gin_sim.game.rules import load_rules; from gin_sim.players.strategies import parse_players;"
        "r = simulate_deals(load_rules('hollywood'), parse_players('simple,random'), 40, 3);"
        "print(json.dumps([[int(x) for x in row.tolist()] for row in r]))"
    )
    env = dict(os.environ, NUMBA_DISABLE_JIT="1")
    result = subprocess.run(
        [sys.executable, "-W", "error", "-c", code],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    plain = json.loads(result.stdout)
    compiled = simulate_deals(RULES, parse_players("simple,random"), 40, 3)
    assert plain == [[int(x) for x in row.tolist()] for row in compiled]
