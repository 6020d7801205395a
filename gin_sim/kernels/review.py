"""Every legal action of a decision valued by a deep search from the decider's view
(``gin-sim review``, docs/review.md).

``review_actions_nb`` lists what the player to move may do (R7 to R14): at an offer or a
draw decline or draw (0) and take (1); at a discard big gin when it scores (R14), every
card it may discard (R11: not the card just taken from the pile, unless
``may_discard_drawn_upcard``), then a knock with each
of those cards that leaves deadwood within the hand's limit (R12; with deadwood 0, gin).
``review_position_nb`` values each of them in the same sampled worlds (common random
numbers): worlds drawn from the decider's view alone (``kernels.search.sample_world_nb``,
with opponent-hand inference as in ``mc``), each action applied then played out by the
family rollout policies, each world's hand points from the decider's side kept one by
one, with the change in its game or match equity where the position has a score and a
table is given. The statistics (the best action, the loss, the intervals) are taken from
those values in ``gin_sim.experiments.review``.

Contract: only NumPy arrays and scalars; positions as in ``kernels/position.py``; the
settings are an ``mc`` strategy vector (``StrategyParam``: rollout and opponent policies,
inference), the worlds the first axis of the output.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gin_sim.kernels.advice import (
    forbidden_discard_nb,
    rollout_scratch_nb,
    set_rollout_policies_nb,
)
from gin_sim.kernels.deadwood import min_deadwood_nb
from gin_sim.kernels.enums import (
    ACTION_BIG_GIN,
    ACTION_KNOCK,
    Phase,
    PositionMask,
    PositionSlot,
    RuleParam,
    SearchValue,
    StrategyParam,
)
from gin_sim.kernels.position import (
    apply_nb,
    copy_position_nb,
    hand_value_nb,
    play_out_with_family_nb,
)
from gin_sim.kernels.rng import bounded_nb, next_nb
from gin_sim.kernels.search import load_score_nb, sample_world_nb, score_equity_nb, score_value_nb
from gin_sim.kernels.work import claimed_nb, run_workers

_ONE = np.uint64(1)
_S = PositionSlot
_M = PositionMask
# Big gin, 11 discards and 11 knocks: the most actions a discard decision has.
MAX_REVIEW_ACTIONS = 23


@njit(cache=True, inline="always")
def _bit(card):
    return _ONE << np.uint64(card)


@njit(cache=True, _nrt=False)
def review_actions_nb(masks, state, rules, actions):
    """Every legal action of the player to move into ``actions`` int64[MAX_REVIEW_ACTIONS];
    returns how many (the order of the module's docstring)."""
    if state[_S.PHASE] != Phase.DISCARD:
        actions[0] = 0
        actions[1] = 1
        return 2
    hand = masks[_M.HAND + state[_S.PLAYER]]
    forbidden = -1 if rules[RuleParam.MAY_DISCARD_DRAWN_UPCARD] else forbidden_discard_nb(state)
    n = 0
    if rules[RuleParam.BIG_GIN_BONUS] > 0 and min_deadwood_nb(hand) == 0:  # R14
        actions[n] = ACTION_BIG_GIN
        n += 1
    for card in range(52):
        if hand & _bit(card) and card != forbidden:
            actions[n] = card
            n += 1
    for card in range(52):  # R12: a knock leaves deadwood within the limit
        if (
            hand & _bit(card)
            and card != forbidden
            and min_deadwood_nb(hand & ~_bit(card)) <= state[_S.LIMIT]
        ):
            actions[n] = card | ACTION_KNOCK
            n += 1
    return n


@njit(cache=True)
def review_scratch_nb():
    """One thread's scratch: ``kernels.advice.rollout_scratch_nb()``'s, then result
    int64[8] and score int64[12]."""
    return (*rollout_scratch_nb(), np.zeros(8, np.int64), np.zeros(12, np.int64))


@njit(cache=True, _nrt=False)
def review_position_nb(
    params, masks, state, rules, undercut_table, table, key, actions, n, scratch, points_out,
    equity_out,
):  # fmt: skip
    """Value actions ``actions[:n]`` at the position in ``points_out.shape[0]`` worlds drawn
    from the stream ``key``: ``points_out`` float64[worlds, >= n] the hand's points from
    the side of the player to move, world by world; ``equity_out`` (same shape) the change
    in its equity (``params``' ``value``: GAME or MATCH, read from ``table``, the value
    vector of ``kernels/match_value.py``) where the position has a score, else 0.
    ``scratch`` is ``review_scratch_nb()``. Only the decider's view is read: the worlds
    replace every hidden card (``sample_world_nb``)."""
    (world_masks, world_state, roll_masks, roll_state, cards, policies, rng, idle, chains,
     result, score) = scratch  # fmt: skip
    player = state[_S.PLAYER]
    set_rollout_policies_nb(params, policies, player)
    value_kind = np.int64(params[StrategyParam.MC_VALUE])
    games = state[_S.SCORE_GAMES]
    by_score = value_kind != SearchValue.HAND and games > 0
    target = rules[RuleParam.GAME_TARGET]
    before = 0.0
    if by_score:
        load_score_nb(state, score)
        before = score_equity_nb(score, games, target, table, player, state[_S.DEALER], value_kind)
    rng[0] = key
    for world in range(points_out.shape[0]):
        sample_world_nb(params, masks, state, player, world_masks, world_state, cards, rng)
        for c in range(n):
            copy_position_nb(world_masks, world_state, roll_masks, roll_state)
            apply_nb(roll_masks, roll_state, rules, actions[c])
            idle[0] = 0  # the rollouts are family players: no stream is read
            idle[1] = 0
            play_out_with_family_nb(roll_masks, roll_state, rules, policies, undercut_table, idle)
            points_out[world, c] = np.float64(
                hand_value_nb(roll_masks, roll_state, rules, chains, result, player)
            )
            equity_out[world, c] = 0.0
            if by_score:
                equity_out[world, c] = score_value_nb(
                    state, score, games, target, table, player, result, value_kind, before
                )


@njit(cache=True, nogil=True)
def review_positions_nb(
    params, rules, undercut_table, table, masks, states, keys, actions, counts, points_out,
    equity_out, counter, block,
):  # fmt: skip
    """``review_position_nb`` for positions ``masks`` uint64[n, N_POSITION_MASKS],
    ``states`` int64[n, N_POSITION_SLOTS], world keys ``keys`` uint64[n]: ``actions``
    int64[n, MAX_REVIEW_ACTIONS] and ``counts`` int64[n] are filled by
    ``review_actions_nb``; ``points_out``/``equity_out`` float64[n, worlds,
    MAX_REVIEW_ACTIONS]. One worker of ``review_positions_parallel`` (kernels/work.py): a
    position's values depend only on it, its key and the settings."""
    for i in claimed_nb(counter, block, masks.shape[0]):
        scratch = review_scratch_nb()
        n = review_actions_nb(masks[i], states[i], rules, actions[i])
        counts[i] = n
        review_position_nb(
            params, masks[i], states[i], rules, undercut_table, table, keys[i], actions[i], n,
            scratch, points_out[i], equity_out[i],
        )  # fmt: skip


def review_positions_parallel(
    params, rules, undercut_table, table, masks, states, keys, actions, counts, points_out,
    equity_out,
):  # fmt: skip
    """``review_positions_nb`` on every thread, a position at a time."""
    run_workers(
        review_positions_nb, masks.shape[0], 1, params, rules, undercut_table, table, masks,
        states, keys, actions, counts, points_out, equity_out,
    )  # fmt: skip


@njit(cache=True, _nrt=False)
def deal_values_nb(
    params, masks, state, rules, undercut_table, key, actions, n, scratch, points_out
):  # fmt: skip
    """Value actions ``actions[:n]`` on the deal's own cards (the review scale's check,
    docs/review.md): ``masks``/``state`` are the whole true position, the opponent's real
    hand included. Order 0 plays the real stock; each further order (``points_out``
    float64[orders, >= n]) the same stock cards in a fresh order from the stream ``key``:
    the stock's order is independent of everything a player has seen, so each is a draw
    from the position's true distribution. Every action is played out by the family
    policies of ``params`` (``MC_ROLLOUT`` for the player to move, ``MC_OPPONENT`` for the
    opponent); ``points_out`` the hand's points from the side of the player to move."""
    (world_masks, world_state, roll_masks, roll_state, _, policies, rng, idle, chains,
     result, _) = scratch  # fmt: skip
    player = state[_S.PLAYER]
    set_rollout_policies_nb(params, policies, player)
    rng[0] = key
    stock_pos = state[_S.STOCK_POS]
    copy_position_nb(masks, state, world_masks, world_state)
    for order in range(points_out.shape[0]):
        if order > 0:  # Fisher-Yates over the stock's slots
            for j in range(51, stock_pos, -1):
                k = stock_pos + bounded_nb(next_nb(rng, 0), j - stock_pos + 1)
                swap = world_state[_S.DECK + j]
                world_state[_S.DECK + j] = world_state[_S.DECK + k]
                world_state[_S.DECK + k] = swap
        for c in range(n):
            copy_position_nb(world_masks, world_state, roll_masks, roll_state)
            apply_nb(roll_masks, roll_state, rules, actions[c])
            idle[0] = 0  # family players: no stream is read
            idle[1] = 0
            play_out_with_family_nb(roll_masks, roll_state, rules, policies, undercut_table, idle)
            points_out[order, c] = np.float64(
                hand_value_nb(roll_masks, roll_state, rules, chains, result, player)
            )


@njit(cache=True, nogil=True)
def deal_values_many_nb(
    params, rules, undercut_table, masks, states, keys, actions, counts, points_out, counter,
    block,
):  # fmt: skip
    """``deal_values_nb`` for true positions ``masks``/``states`` (``actions``/``counts``
    as ``review_positions_nb`` fills them); ``points_out`` float64[n, orders,
    MAX_REVIEW_ACTIONS]. One worker of ``deal_values_parallel``."""
    for i in claimed_nb(counter, block, masks.shape[0]):
        scratch = review_scratch_nb()
        n = review_actions_nb(masks[i], states[i], rules, actions[i])
        counts[i] = n
        deal_values_nb(
            params, masks[i], states[i], rules, undercut_table, keys[i], actions[i], n, scratch,
            points_out[i],
        )  # fmt: skip


def deal_values_parallel(
    params, rules, undercut_table, masks, states, keys, actions, counts, points_out
):  # fmt: skip
    """``deal_values_many_nb`` on every thread, a position at a time."""
    run_workers(
        deal_values_many_nb, masks.shape[0], 1, params, rules, undercut_table, masks, states,
        keys, actions, counts, points_out,
    )  # fmt: skip
