"""Decision positions from played hands, and their deep evaluation (docs/advice.md).

``sample_positions_nb`` plays deals exactly as ``kernels/playout.py`` does (the same deck,
dealer and player streams, so the same hands as ``simulate``) and keeps each decision of a
kind (``DecisionKind``) independently with that kind's probability, by a stream of its own
(``sample_key_nb``) which no player reads: one number per decision with a kind, so being
kept never depends on the rest of the hand.
``evaluate_positions_nb`` evaluates every relevant action of each position with a deep
search: worlds sampled from the decider's view alone (``kernels.search.sample_world_nb``,
with opponent-hand inference as in ``mc``), every action played out in every world by the
family rollout policies (common random numbers), each position with its own world stream.
The reference engine (``gin_sim.reference.advice``) implements both too.

Contract: only NumPy arrays and scalars; positions as in ``kernels/position.py``; the
evaluation's settings are an ``mc`` strategy vector (``StrategyParam``: samples, rollout
and opponent policies, inference) plus ``select``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gin_sim.kernels.deadwood import min_deadwood_nb
from gin_sim.kernels.decisions import least_deadwood_discard_nb
from gin_sim.kernels.enums import (
    ACTION_CARD,
    ACTION_KNOCK,
    FAMILY_PARAMS,
    KEEP_SCALE,
    N_DECISION_KINDS,
    N_POSITION_MASKS,
    N_POSITION_SLOTS,
    DecisionKind,
    Phase,
    PositionMask,
    PositionSlot,
    RuleParam,
    StrategyKind,
    StrategyParam,
)
from gin_sim.kernels.playout import decide_nb, play_on_nb, scratch_nb
from gin_sim.kernels.position import (
    apply_nb,
    copy_position_nb,
    deal_nb,
    hand_value_nb,
    play_out_with_family_nb,
    score_nb,
)
from gin_sim.kernels.rng import (
    bounded_nb,
    next_nb,
    player_key_nb,
    sample_key_nb,
    shuffle_deck_nb,
    splitmix64_nb,
)
from gin_sim.kernels.search import MEMORY_DISCARD, MEMORY_TURN, forget_nb, sample_world_nb
from gin_sim.kernels.work import claimed_nb, run_workers

_ONE = np.uint64(1)
_S = PositionSlot
_M = PositionMask
MAX_ACTIONS = 12  # a knock and up to 11 discards
# Columns of a kept position's int64 facts (``sample_positions_nb``'s ``info``).
INFO_DEAL = 0  # the deal's index under the seed
INFO_KIND = 1  # its ``DecisionKind``
INFO_DECISION = 2  # the position's decision number in the hand, from 0 (both players')
INFO_COUNT = 3  # decisions of this kind in the whole hand (a fact, not a weight)
INFO_RATE = 4  # the kind's keep rate: kept with probability rate / KEEP_SCALE
INFO_ACTION = 5  # the action the player to move took there
INFO_OWN_TAKES = 6  # cards the player to move had taken from the discard pile so far
INFO_OPP_TAKES = 7  # cards its opponent had taken from the discard pile so far
INFO_POINTS = 8  # the hand's final points from the side of the player to move
N_INFO = 9
_DEALS_PER_BLOCK = 4  # the most deals a worker claims at a time (kernels/work.py)


@njit(cache=True, inline="always")
def _bit(card):
    return _ONE << np.uint64(card)


@njit(cache=True, _nrt=False)
def forbidden_discard_nb(state):
    """The card just taken from the pile, which no candidate discards (as in ``mc``), or -1."""
    return state[_S.TAKEN_CARD] if state[_S.FROM_PILE] else -1


@njit(cache=True, _nrt=False)
def decision_kind_nb(masks, state, rules):
    """The ``DecisionKind`` of the decision the position waits for; -1 when it is none
    (the hand is over, or big gin can be declared, R14)."""
    phase = state[_S.PHASE]
    if phase == Phase.OFFER:
        return DecisionKind.OFFER
    if phase == Phase.DRAW:
        return DecisionKind.DRAW
    if phase != Phase.DISCARD:
        return -1
    hand = masks[_M.HAND + state[_S.PLAYER]]
    if rules[RuleParam.BIG_GIN_BONUS] > 0 and min_deadwood_nb(hand) == 0:
        return -1
    deadwood = least_deadwood_discard_nb(hand, forbidden_discard_nb(state))[1]
    return DecisionKind.KNOCK if deadwood <= state[_S.LIMIT] else DecisionKind.DISCARD


@njit(cache=True, inline="always", _nrt=False)
def sample_deal_nb(
    seed, deal, rules, rates, strategies, undercut_table, equity, scratch, work, masks_out,
    states_out, info_out,
):  # fmt: skip
    """Play deal ``deal`` of ``seed`` and keep each decision of kind ``k`` with probability
    ``rates[k] / KEEP_SCALE``; returns how many were kept.

    The sampling stream (``sample_key_nb``) gives one number ``u`` per decision that has a
    kind, in the order of play, and the decision is kept iff ``bounded(u, KEEP_SCALE) <
    rates[kind]``: whether a decision is kept depends on that number and its kind only,
    never on how the hand goes on. Kept positions go to rows 0, 1, ... of ``masks_out``
    uint64[slots, N_POSITION_MASKS], ``states_out`` int64[slots, N_POSITION_SLOTS] and
    ``info_out`` int64[slots, N_INFO] (the position before the decision and its facts, in
    the order of play); ``slots`` must be at least the hand's decisions (a count above it
    means rows were lost: the caller refuses it). ``scratch`` is
    ``kernels.playout.scratch_nb()``; ``work`` is ``_work_nb()``; ``equity`` the score-aware
    searchers' tables (``gin_sim.players.search_value``; a deal has no score, so a search
    values it by the hand's points whatever it reads).
    """
    streams, masks, state, chains, result, search = scratch
    deck, deck_state, pick, counts, takes = work
    slots = masks_out.shape[0]
    shuffle_deck_nb(seed, deal, deck, deck_state)
    streams[0] = player_key_nb(seed, deal, 0)
    streams[1] = player_key_nb(seed, deal, 1)
    deal_nb(deck, deal % 2, rules, masks, state)
    forget_nb(search)
    pick[0] = sample_key_nb(seed, deal)
    for k in range(N_DECISION_KINDS):
        counts[k] = 0
    takes[0] = 0
    takes[1] = 0
    kept = 0
    decision = 0
    while state[_S.PHASE] != Phase.OVER:
        player = state[_S.PLAYER]
        kind = decision_kind_nb(masks, state, rules)
        row = -1
        if kind >= 0:
            counts[kind] += 1
            if bounded_nb(next_nb(pick, 0), KEEP_SCALE) < rates[kind]:
                if kept < slots:
                    row = kept
                    copy_position_nb(masks, state, masks_out[row], states_out[row])
                    info_out[row, INFO_DEAL] = deal
                    info_out[row, INFO_KIND] = kind
                    info_out[row, INFO_DECISION] = decision
                    info_out[row, INFO_RATE] = rates[kind]
                    info_out[row, INFO_OWN_TAKES] = takes[player]
                    info_out[row, INFO_OPP_TAKES] = takes[1 - player]
                kept += 1
        action = decide_nb(masks, state, rules, strategies, undercut_table, equity, streams, search)
        if row >= 0:
            info_out[row, INFO_ACTION] = action
        if state[_S.PHASE] != Phase.DISCARD and action == 1:
            takes[player] += 1
        apply_nb(masks, state, rules, action)
        decision += 1
    score_nb(masks, state, rules, chains, result)
    for row in range(min(kept, slots)):
        info_out[row, INFO_COUNT] = counts[info_out[row, INFO_KIND]]
        points = 0
        if result[0] >= 0:
            points = result[1] if result[0] == states_out[row, _S.PLAYER] else -result[1]
        info_out[row, INFO_POINTS] = points
    return kept


@njit(cache=True)
def _work_nb():
    """Per-thread scratch of ``sample_deal_nb``: (deck int8[52], deck stream uint64[1],
    sampling stream uint64[1], decisions per kind int64[4], pile takes per player int64[2])."""
    return (
        np.empty(52, np.int8),
        np.empty(1, np.uint64),
        np.empty(1, np.uint64),
        np.zeros(N_DECISION_KINDS, np.int64),
        np.zeros(2, np.int64),
    )


@njit(cache=True, nogil=True)
def sample_positions_nb(
    seed, first_deal, rules, rates, strategies, undercut_table, equity, masks_out, states_out,
    info_out, kept_out, counter, block,
):  # fmt: skip
    """``sample_deal_nb`` for deals ``first_deal .. first_deal + n - 1`` (dealer ``deal %
    2``, as ``play_deals_nb``) with keep rates ``rates`` int64[N_DECISION_KINDS]: deal ``i``'s
    kept positions in rows ``0 .. kept_out[i] - 1`` of ``masks_out[i]`` (uint64[n, slots,
    N_POSITION_MASKS]), ``states_out[i]`` (int64[n, slots, N_POSITION_SLOTS]) and
    ``info_out[i]`` (int64[n, slots, N_INFO]); the rows past them are left as they were.
    One worker of ``sample_positions_parallel``: it plays the blocks of deals it claims from
    ``counter`` (kernels/work.py). Each deal depends only on (seed, deal, rates): any
    threads, any split into calls."""
    n = masks_out.shape[0]
    scratch = scratch_nb()
    work = _work_nb()
    for i in claimed_nb(counter, block, n):
        kept_out[i] = sample_deal_nb(
            seed, first_deal + i, rules, rates, strategies, undercut_table, equity,
            scratch, work, masks_out[i], states_out[i], info_out[i],
        )  # fmt: skip


def sample_positions_parallel(
    seed, first_deal, rules, rates, strategies, undercut_table, equity, masks_out, states_out,
    info_out, kept_out,
):  # fmt: skip
    """``sample_positions_nb`` on every thread (kernels/work.py)."""
    run_workers(
        sample_positions_nb, masks_out.shape[0], _DEALS_PER_BLOCK, seed, first_deal, rules,
        rates, strategies, undercut_table, equity, masks_out, states_out, info_out, kept_out,
    )  # fmt: skip


@njit(cache=True)
def rollout_scratch_nb():
    """What one thread needs to play actions out in sampled worlds, shared by the
    evaluations here and the review's (kernels/review.py), each adding its own tail:
    (world masks, world state, rollout masks, rollout state, unseen cards int64[52],
    rollout policies float64[2, FAMILY_PARAMS], world stream uint64[1], idle streams
    uint64[2], chains int64[16, 2])."""
    return (
        np.zeros(N_POSITION_MASKS, np.uint64),
        np.zeros(N_POSITION_SLOTS, np.int64),
        np.zeros(N_POSITION_MASKS, np.uint64),
        np.zeros(N_POSITION_SLOTS, np.int64),
        np.zeros(52, np.int64),
        np.zeros((2, FAMILY_PARAMS), np.float64),
        np.zeros(1, np.uint64),
        np.zeros(2, np.uint64),
        np.zeros((16, 2), np.int64),
    )


@njit(cache=True, inline="always")
def set_rollout_policies_nb(params, policies, player):
    """The rollouts' family policies from an ``mc`` vector: ``MC_ROLLOUT`` plays
    ``player``'s later moves, ``MC_OPPONENT`` the opponent's."""
    for j in range(FAMILY_PARAMS):
        policies[player, j] = params[StrategyParam.MC_ROLLOUT + j]
        policies[1 - player, j] = params[StrategyParam.MC_OPPONENT + j]


@njit(cache=True)
def evaluation_scratch_nb():
    """One thread's scratch for evaluations: ``rollout_scratch_nb()``'s, then score
    int64[8] and values float64[MAX_ACTIONS]."""
    return (*rollout_scratch_nb(), np.zeros(8, np.int64), np.zeros(MAX_ACTIONS, np.float64))


@njit(cache=True, _nrt=False)
def evaluation_actions_nb(masks, state, actions):
    """The actions an evaluation compares (docs/advice.md), into ``actions``; returns how
    many. Offer and draw: decline or draw (0), then take (1). After taking: knocking with
    the least-deadwood discard when that is allowed (R12), then every card of the hand but
    the one just taken from the pile, ascending, as a discard without knocking."""
    if state[_S.PHASE] != Phase.DISCARD:
        actions[0] = 0
        actions[1] = 1
        return 2
    hand = masks[_M.HAND + state[_S.PLAYER]]
    forbidden = forbidden_discard_nb(state)
    best, deadwood = least_deadwood_discard_nb(hand, forbidden)
    n = 0
    if deadwood <= state[_S.LIMIT]:
        actions[0] = best | ACTION_KNOCK
        n = 1
    for card in range(52):
        if hand & _bit(card) and card != forbidden:
            actions[n] = card
            n += 1
    return n


@njit(cache=True, _nrt=False)
def evaluate_position_nb(
    params, select, masks, state, rules, undercut_table, key, scratch, actions, sums, squares,
    gains, gain_squares,
):  # fmt: skip
    """Evaluate every action of ``evaluation_actions_nb`` at the position in ``params``'s
    ``samples`` worlds, the world stream seeded with ``key``; returns (actions, baseline).

    ``sums``/``squares`` float64[MAX_ACTIONS]: each action's value (points of the hand from
    the side of the player to move) summed over every world, and its square.
    ``gains``/``gain_squares``: the value less the baseline's in the same world, summed
    over the measuring worlds. The baseline is action 0 (decline or draw) at an offer or a
    draw, measured on every world; after taking it is the discard without knocking with the
    greatest value sum over the first ``select`` worlds (ties: the lower card), measured on
    the worlds after those, so that choosing it does not flatter it. ``scratch`` is
    ``evaluation_scratch_nb()``.
    """
    (world_masks, world_state, roll_masks, roll_state, cards, policies, rng, idle, chains,
     result, values) = scratch  # fmt: skip
    player = state[_S.PLAYER]
    n = evaluation_actions_nb(masks, state, actions)
    set_rollout_policies_nb(params, policies, player)
    for c in range(n):
        sums[c] = 0.0
        squares[c] = 0.0
        gains[c] = 0.0
        gain_squares[c] = 0.0
    rng[0] = key
    choosing = state[_S.PHASE] == Phase.DISCARD
    baseline = -1 if choosing else 0
    for world in range(np.int64(params[StrategyParam.MC_SAMPLES])):
        if choosing and world == select:
            for c in range(n):
                plain = not actions[c] & ACTION_KNOCK
                if plain and (baseline < 0 or sums[c] > sums[baseline]):
                    baseline = c
        sample_world_nb(params, masks, state, player, world_masks, world_state, cards, rng)
        for c in range(n):
            copy_position_nb(world_masks, world_state, roll_masks, roll_state)
            apply_nb(roll_masks, roll_state, rules, actions[c])
            play_out_with_family_nb(roll_masks, roll_state, rules, policies, undercut_table, idle)
            value = np.float64(hand_value_nb(roll_masks, roll_state, rules, chains, result, player))
            values[c] = value
            sums[c] += value
            squares[c] += value * value
        if baseline >= 0:
            for c in range(n):
                gain = values[c] - values[baseline]
                gains[c] += gain
                gain_squares[c] += gain * gain
    return n, baseline


@njit(cache=True, nogil=True)
def evaluate_positions_nb(
    params, select, rules, undercut_table, masks, states, keys, actions_out, sums_out,
    squares_out, gains_out, gain_squares_out, meta_out, counter, block,
):  # fmt: skip
    """``evaluate_position_nb`` for positions ``masks`` uint64[n, N_POSITION_MASKS] and
    ``states`` int64[n, N_POSITION_SLOTS] with world keys ``keys`` uint64[n];
    ``actions_out`` int64[n, MAX_ACTIONS] (-1 past the last), the four float64[n,
    MAX_ACTIONS] sums, ``meta_out`` int64[n, 2] (actions, baseline). One worker of
    ``evaluate_positions_parallel``: it evaluates the positions it claims from ``counter``
    (kernels/work.py). A position's result depends only on it, its key and the settings:
    any threads, any order."""
    total = masks.shape[0]
    for i in claimed_nb(counter, block, total):
        scratch = evaluation_scratch_nb()
        for c in range(MAX_ACTIONS):
            actions_out[i, c] = -1
        n, baseline = evaluate_position_nb(
            params, select, masks[i], states[i], rules, undercut_table, keys[i], scratch,
            actions_out[i], sums_out[i], squares_out[i], gains_out[i], gain_squares_out[i],
        )  # fmt: skip
        meta_out[i, 0] = n
        meta_out[i, 1] = baseline


def evaluate_positions_parallel(
    params, select, rules, undercut_table, masks, states, keys, actions_out, sums_out,
    squares_out, gains_out, gain_squares_out, meta_out,
):  # fmt: skip
    """``evaluate_positions_nb`` on every thread, a position at a time (kernels/work.py:
    positions take very different times)."""
    run_workers(
        evaluate_positions_nb, masks.shape[0], 1, params, select, rules, undercut_table, masks,
        states, keys, actions_out, sums_out, squares_out, gains_out, gain_squares_out,
        meta_out,
    )  # fmt: skip


@njit(cache=True, _nrt=False)
def shuffle_stock_nb(state, rng):
    """Shuffle the stock's order (``DECK[STOCK_POS:]``) in place with the stream ``rng``:
    no player has seen those cards, so every order of them is as likely as the real one."""
    first = _S.DECK + state[_S.STOCK_POS]
    for j in range(_S.DECK + 51, first, -1):
        k = first + bounded_nb(next_nb(rng, 0), j - first + 1)
        state[j], state[k] = state[k], state[j]


@njit(cache=True, _nrt=False)
def replay_to_nb(seed, deal, decision, rules, strategies, undercut_table, equity, scratch, deck,
                 deck_state, masks, state):  # fmt: skip
    """Play deal ``deal`` of ``seed`` as ``sample_deal_nb`` plays it (the same deck, dealer
    and player streams) up to decision ``decision``, and let the player to move make its
    real decision there without applying it; returns whether the position reached is
    ``masks``/``state`` (the stored position, hidden cards included). ``scratch``'s search
    memory then holds what every searcher knew after that decision: its opponent posterior
    and its last discard (``kernels.search``'s panel memory), as it played."""
    streams, at_masks, at_state, _, _, search = scratch
    shuffle_deck_nb(seed, deal, deck, deck_state)
    streams[0] = player_key_nb(seed, deal, 0)
    streams[1] = player_key_nb(seed, deal, 1)
    deal_nb(deck, deal % 2, rules, at_masks, at_state)
    forget_nb(search)
    for _ in range(decision):
        if at_state[_S.PHASE] == Phase.OVER:
            return False
        action = decide_nb(
            at_masks, at_state, rules, strategies, undercut_table, equity, streams, search
        )
        apply_nb(at_masks, at_state, rules, action)
    for j in range(N_POSITION_MASKS):
        if at_masks[j] != masks[j]:
            return False
    for j in range(N_POSITION_SLOTS):
        if at_state[j] != state[j]:
            return False
    if at_state[_S.PHASE] == Phase.OVER:
        return False
    decide_nb(at_masks, at_state, rules, strategies, undercut_table, equity, streams, search)
    return True


@njit(cache=True, nogil=True)
def play_forced_nb(
    rules,
    strategies,
    undercut_table,
    equity,
    masks,
    states,
    actions,
    keys,
    seed,
    deals,
    decisions,
    values_out,
    counter,
    block,
):
    """Row ``i``: from the position (``masks[i]``, ``states[i]``, its hidden cards as they
    were) apply ``actions[i]`` and let the players of ``strategies`` (float64[2, P], by
    seat) play the hand out, ``values_out.shape[1]`` times; ``values_out[i, r]`` is the
    hand's points from the side of the player to move. Continuation ``r`` reshuffles the
    stock and seeds both players' streams from ``(keys[i], r)``, so rows with the same key
    (one position, different actions) are played on the same stocks: paired. One worker of
    ``play_forced_parallel``: it plays the rows it claims from ``counter`` (kernels/work.py). Any
    threads give the same values. ``equity``: the score-aware searchers' tables (a position from a
    deal has no score, so a search values it by the hand's points whatever it reads).

    The searchers' memory: with ``decisions[i] >= 0`` the row is decision ``decisions[i]``
    of deal ``deals[i]`` (int64[n] both) of ``seed`` (uint64) played by ``strategies``, and
    every continuation starts from what each searcher knew there, as it played: the hand
    is replayed from the deal to the position and the player's real decision there
    (``replay_to_nb``), and a forced discard is remembered as the searcher's own (its
    opponent's answer to it is evidence at its next draw, as in ``search_nb``). A row whose
    replay does not reach its position gets NaN values (the caller refuses them). With
    ``decisions[i] < 0`` every continuation starts from the prior (nothing remembered)."""
    total = masks.shape[0]
    for i in claimed_nb(counter, block, total):
        scratch = scratch_nb()
        streams, roll_masks, roll_state, chains, result, search = scratch
        memory = search[17]
        known = np.zeros_like(memory)
        if decisions[i] >= 0:
            deck = np.empty(52, np.int8)
            deck_state = np.empty(1, np.uint64)
            if not replay_to_nb(
                seed, deals[i], decisions[i], rules, strategies, undercut_table, equity,
                scratch, deck, deck_state, masks[i], states[i],
            ):  # fmt: skip
                for r in range(values_out.shape[1]):
                    values_out[i, r] = np.nan
                continue
            known[:] = memory
            player = states[i, _S.PLAYER]
            panel = (
                strategies[player, StrategyParam.KIND] == StrategyKind.MC
                and strategies[player, StrategyParam.MC_PANEL_SIZE] > 0
            )
            if (
                panel and states[i, _S.PHASE] == Phase.DISCARD
            ):  # the forced discard, not the real one
                known[player, MEMORY_DISCARD] = actions[i] & ACTION_CARD
                known[player, MEMORY_TURN] = states[i, _S.TURNS_BY + player] + 1
        rng = np.zeros(1, np.uint64)
        player = states[i, _S.PLAYER]
        for r in range(values_out.shape[1]):
            base = splitmix64_nb(keys[i] + np.uint64(r))
            copy_position_nb(masks[i], states[i], roll_masks, roll_state)
            rng[0] = base
            shuffle_stock_nb(roll_state, rng)
            streams[0] = splitmix64_nb(base ^ np.uint64(0x9E3779B97F4A7C15))
            streams[1] = splitmix64_nb(base ^ np.uint64(0xBF58476D1CE4E5B9))
            apply_nb(roll_masks, roll_state, rules, actions[i])
            memory[:] = known  # what each searcher knew at the position (nothing: the prior)
            play_on_nb(
                roll_masks, roll_state, rules, strategies, undercut_table, equity, streams,
                search,
            )  # fmt: skip
            values_out[i, r] = np.float64(
                hand_value_nb(roll_masks, roll_state, rules, chains, result, player)
            )


def play_forced_parallel(
    rules, strategies, undercut_table, equity, masks, states, actions, keys, values_out,
    seed=0, deals=None, decisions=None,
):  # fmt: skip
    """``play_forced_nb`` on every thread, a row at a time (kernels/work.py); without
    ``decisions`` every continuation starts from the prior (nothing remembered)."""
    n = masks.shape[0]
    if decisions is None:
        deals = np.zeros(n, np.int64)
        decisions = np.full(n, -1, np.int64)
    run_workers(
        play_forced_nb, n, 1, rules, strategies, undercut_table, equity, masks, states,
        actions, keys, np.uint64(seed), np.ascontiguousarray(deals, np.int64),
        np.ascontiguousarray(decisions, np.int64), values_out,
    )  # fmt: skip
