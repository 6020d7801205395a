"""One complete hand from a deck order (R5 to R18a), and many hands in parallel.

The hand's flow is ``kernels/position.py``; this module deals, lets each player decide
(``mc`` players search, ``kernels/search.py``) and records.

Contract: only NumPy arrays and scalars. ``rules`` is the int64 vector of
``Rules.to_kernel`` (indexed by ``RuleParam``), ``strategies`` a float64[2, P] array of
the players' strategy vectors (indexed by ``StrategyParam``), ``undercut_table`` the
float64[21, 11] undercut-risk model (``gin_sim.players.calibration``), ``equity`` the seats' value
vectors of score-aware searchers (``kernels/search.py``; a plain hand has no score, so
the deal kernels here pass an empty one). Records are rows of the
aligned ``HAND_RECORD`` dtype. The exact semantics are in docs/engine.md, which the
reference engine (``gin_sim.reference``) implements too.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gin_sim.kernels.enums import (
    N_POSITION_MASKS,
    N_POSITION_SLOTS,
    Phase,
    PositionSlot,
    StrategyKind,
    StrategyParam,
)
from gin_sim.kernels.position import apply_nb, deal_nb, family_action_nb, record_nb
from gin_sim.kernels.rng import player_key_nb, shuffle_deck_nb
from gin_sim.kernels.search import (
    forget_nb,
    new_hand_nb,
    search_nb,
    search_scratch_nb,
    showdown_update_nb,
)
from gin_sim.kernels.work import claimed_nb, run_workers

_BLOCK = 64  # the most deals a worker claims at a time (kernels/work.py)


@njit(cache=True)
def scratch_nb():
    """One thread's scratch: (streams uint64[2], masks, state, chains int64[16, 2],
    score int64[8], search scratch of ``search_scratch_nb``)."""
    return (
        np.empty(2, np.uint64),
        np.zeros(N_POSITION_MASKS, np.uint64),
        np.zeros(N_POSITION_SLOTS, np.int64),
        np.empty((16, 2), np.int64),
        np.empty(8, np.int64),
        search_scratch_nb(),
    )


@njit(cache=True, inline="always", _nrt=False)
def decide_nb(masks, state, rules, strategies, undercut_table, equity, streams, search):
    """The action of the player to move, by its own strategy (a family member, ``random``,
    or an ``mc`` search that plays its rollouts with the family; ``equity``: the score-aware
    searchers' game tables, ``gin_sim.players.search_value``)."""
    player = state[PositionSlot.PLAYER]
    params = strategies[player]
    if params[StrategyParam.KIND] == StrategyKind.MC:
        return search_nb(
            params, masks, state, rules, undercut_table, equity, streams, player, search
        )
    return family_action_nb(params, masks, state, rules, undercut_table, streams, player)


@njit(cache=True, inline="always", _nrt=False)
def play_on_nb(masks, state, rules, strategies, undercut_table, equity, streams, search):
    """Play the position to the end, each player deciding by its own strategy."""
    while state[PositionSlot.PHASE] != Phase.OVER:
        action = decide_nb(masks, state, rules, strategies, undercut_table, equity, streams, search)
        apply_nb(masks, state, rules, action)


@njit(cache=True, _nrt=False)
def play_hand_nb(deck, dealer, rules, strategies, undercut_table, equity, scratch, out):
    """Play one hand from ``deck`` (int8[52]) and fill the record ``out`` (all but ``deal``).

    ``scratch`` is ``scratch_nb()``, its streams set to the players' random streams and
    its position's score slots to the score before the hand (zero: a plain hand).
    """
    streams, masks, state, chains, result, search = scratch
    deal_nb(deck, dealer, rules, masks, state)
    new_hand_nb(search, strategies)  # what a searcher's opponent panel keeps of the last hand
    play_on_nb(masks, state, rules, strategies, undercut_table, equity, streams, search)
    showdown_update_nb(masks, state, rules, strategies, undercut_table, search)  # cards shown
    record_nb(masks, state, rules, chains, result, out)


def play_deck(deck, dealer, rules, strategies, undercut_table, seed, deal, out):
    """Play one hand from an explicit deck (int8[52]); ``out`` is a HAND_RECORD[1] array.

    Python, not a kernel of its own: it calls the kernels ``play_deals_nb`` calls, with the
    argument types that kernel gives them, so they load from numba's cache as compiled
    for it. A jitted wrapper was one more entry point to compile with the hand kernel
    linked in: 1.3 CPU seconds more per empty cache, measured (docs/reports.md)."""
    scratch = scratch_nb()
    scratch[0][0] = player_key_nb(seed, deal, 0)
    scratch[0][1] = player_key_nb(seed, deal, 1)
    equity = np.zeros((2, 1))  # a plain hand: no score to value
    forget_nb(scratch[5])
    # out[0] is a view of the record (a structured scalar), which the kernel fills in place.
    play_hand_nb(deck, np.int64(dealer), rules, strategies, undercut_table, equity, scratch, out[0])
    out[0]["deal"] = deal


@njit(cache=True, nogil=True)
def play_deals_nb(seed, first_deal, rules, strategies, undercut_table, out, counter, block):
    """Deals ``first_deal .. first_deal + len(out) - 1``: deck and dealer from (seed, deal).

    One worker of ``play_deals_parallel`` (``kernels/work.py``): it plays the blocks of deals it
    claims from ``counter``. The dealer of deal ``i`` is ``i % 2``. Each deal depends only
    on (seed, i), so results are the same for any thread count or split into calls, and
    whichever worker claims the deal.
    """
    n = out.shape[0]
    scratch = scratch_nb()
    equity = np.zeros((2, 1))  # plain hands: no score to value
    streams = scratch[0]
    deck = np.empty(52, np.int8)
    deck_state = np.empty(1, np.uint64)
    for i in claimed_nb(counter, block, n):
        deal = first_deal + i
        shuffle_deck_nb(seed, deal, deck, deck_state)
        streams[0] = player_key_nb(seed, deal, 0)
        streams[1] = player_key_nb(seed, deal, 1)
        forget_nb(scratch[5])  # deals are independent: no opponent panel remembers one
        play_hand_nb(deck, deal % 2, rules, strategies, undercut_table, equity, scratch, out[i])
        out[i]["deal"] = deal


def play_deals_parallel(seed, first_deal, rules, strategies, undercut_table, out):
    """``play_deals_nb`` on every thread (``kernels/work.py``): fills ``out``."""
    run_workers(
        play_deals_nb, out.shape[0], _BLOCK, seed, first_deal, rules, strategies,
        undercut_table, out,
    )  # fmt: skip
