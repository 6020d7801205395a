"""A hand as a position that can be copied and played on from any decision (R5 to R18a).

The one implementation of a hand's flow: ``deal_nb`` sets a position up, ``apply_nb``
carries out one decision's action, ``score_nb`` scores a finished hand (R13 to R17).
The normal playout (``kernels/playout.py``) and every rollout of a search player
(``kernels/search.py``) go through these functions, so both play the same game.

Contract: only NumPy arrays and scalars. A position is two arrays:
``masks`` uint64[N_POSITION_MASKS] (card sets, indexed by ``PositionMask``) and
``state`` int64[N_POSITION_SLOTS] (counters, the pile and the deck order, indexed by
``PositionSlot``). Copying both copies the position. ``rules`` is the int64 vector of
``Rules.to_kernel``; a strategy vector is float64 (``StrategyParam``); ``undercut_table``
the validated float64[21, 11] model of ``gin_sim.players.calibration``. Actions are ints (see
``gin_sim.kernels.enums``: 0/1 for OFFER and DRAW, a card plus ``ACTION_KNOCK`` or
``ACTION_BIG_GIN`` for DISCARD).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gin_sim.kernels.deadwood import melds_with_card_nb, min_deadwood_nb
from gin_sim.kernels.decisions import (
    declares_big_gin_nb,
    discard_or_knock_from_nb,
    takes_top_from_nb,
)
from gin_sim.kernels.enums import (
    ACTION_BIG_GIN,
    ACTION_CARD,
    ACTION_KNOCK,
    DrawReason,
    Phase,
    PositionMask,
    PositionSlot,
    RuleParam,
)
from gin_sim.kernels.showdown import defender_after_layoffs_nb, knocker_set_mask_nb
from gin_sim.kernels.tables import CARD_VALUES, N_RANKS

_CARD_VALUES = CARD_VALUES
_ONE = np.uint64(1)
_HAND = PositionMask.HAND
_TAKEN = PositionMask.TAKEN
_PASSED = PositionMask.PASSED
_PILE_MASK = PositionMask.PILE
_S = PositionSlot


@njit(cache=True, inline="always")
def _bit(card):
    return _ONE << np.uint64(card)


@njit(cache=True, _nrt=False)
def pile_top_nb(state):
    return state[_S.PILE + state[_S.PILE_SIZE] - 1]


@njit(cache=True, _nrt=False)
def stock_left_nb(state):
    return 52 - state[_S.STOCK_POS]


@njit(cache=True, _nrt=False)
def copy_position_nb(masks, state, to_masks, to_state):
    # Element loops: a slice assignment may allocate a temporary copy.
    for j in range(masks.shape[0]):
        to_masks[j] = masks[j]
    for j in range(state.shape[0]):
        to_state[j] = state[j]


@njit(cache=True, _nrt=False)
def deal_nb(deck, dealer, rules, masks, state):
    """Deal ``deck`` (int8[52]) with ``dealer`` dealing (R6): the upcard offered (R7).
    The score slots stay as the caller set them (``set_score_nb``)."""
    nondealer = 1 - dealer
    for j in range(masks.shape[0]):
        masks[j] = 0
    for j in range(_S.DECK):
        state[j] = 0
    for j in range(52):
        state[_S.DECK + j] = deck[j]
    for j in range(20):  # R6: dealt one at a time, non-dealer first
        player = nondealer if j % 2 == 0 else dealer
        masks[_HAND + player] |= _bit(deck[j])
    upcard = np.int64(deck[20])
    state[_S.PILE] = upcard
    state[_S.PILE_SIZE] = 1
    masks[_PILE_MASK] = _bit(upcard)
    state[_S.STOCK_POS] = 21
    if rules[RuleParam.OKLAHOMA]:  # R14a: the upcard's value, an ace means gin only
        state[_S.LIMIT] = 0 if upcard % N_RANKS == 0 else _CARD_VALUES[upcard]
    else:
        state[_S.LIMIT] = rules[RuleParam.KNOCK_LIMIT]
    state[_S.DEALER] = dealer
    state[_S.PLAYER] = nondealer  # R7: the upcard is offered to the non-dealer first
    state[_S.PHASE] = Phase.OFFER
    state[_S.FIRST_TAKER] = -1
    state[_S.KNOCKER] = -1
    state[_S.TAKEN_CARD] = -1


@njit(cache=True, _nrt=False)
def set_score_nb(state, totals, entered, games):
    """The public score before the hand into the position: totals int64[2, 3], entered
    bool[2, 3], ``games`` 1 or 3 (0: a plain hand, no score)."""
    state[_S.SCORE_GAMES] = games
    for player in range(2):
        for game in range(3):
            state[_S.SCORE_POINTS + 3 * player + game] = totals[player, game]
            state[_S.SCORE_ENTERED + 3 * player + game] = 1 if entered[player, game] else 0


@njit(cache=True, _nrt=False)
def _take_nb(masks, state, player, from_pile):
    """R10: ``player`` takes the pile's top or the stock's; 11 cards, a discard is due."""
    if from_pile:
        size = state[_S.PILE_SIZE] - 1
        state[_S.PILE_SIZE] = size
        taken = state[_S.PILE + size]
        masks[_PILE_MASK] &= ~_bit(taken)
        masks[_TAKEN + player] |= _bit(taken)
        state[_S.TAKES] += 1
    else:
        masks[_PASSED + player] |= _bit(pile_top_nb(state))  # passed over the pile's top
        taken = state[_S.DECK + state[_S.STOCK_POS]]
        state[_S.STOCK_POS] += 1
    masks[_HAND + player] |= _bit(taken)
    state[_S.TURNS] += 1
    state[_S.TURNS_BY + player] += 1
    state[_S.TAKEN_CARD] = taken
    state[_S.FROM_PILE] = 1 if from_pile else 0
    state[_S.PLAYER] = player
    state[_S.PHASE] = Phase.DISCARD


@njit(cache=True, _nrt=False)
def apply_nb(masks, state, rules, action):
    """Carry out the action of the player to move; the position moves to the next decision."""
    phase = state[_S.PHASE]
    player = state[_S.PLAYER]
    if phase == Phase.OFFER:  # R7 to R9
        dealer = state[_S.DEALER]
        if action:
            state[_S.FIRST_TAKER] = player
            _take_nb(masks, state, player, True)
        else:
            masks[_PASSED + player] |= _bit(state[_S.PILE])
            if player != dealer:
                state[_S.PLAYER] = dealer
            else:  # R9: both declined, the non-dealer draws from the stock
                _take_nb(masks, state, 1 - dealer, False)
        return
    if phase == Phase.DRAW:
        _take_nb(masks, state, player, action == 1)
        return
    if action == ACTION_BIG_GIN:  # R14
        state[_S.KNOCKER] = player
        state[_S.BIG_GIN] = 1
        state[_S.PHASE] = Phase.OVER
        return
    card = action & ACTION_CARD
    masks[_HAND + player] &= ~_bit(card)
    state[_S.PILE + state[_S.PILE_SIZE]] = card
    state[_S.PILE_SIZE] += 1
    masks[_PILE_MASK] |= _bit(card)
    masks[_TAKEN + player] &= ~_bit(card)
    masks[_PASSED + player] |= _bit(card)
    if action & ACTION_KNOCK:  # R12
        state[_S.KNOCKER] = player
        state[_S.PHASE] = Phase.OVER
    elif stock_left_nb(state) <= rules[RuleParam.WALL]:  # R18
        state[_S.DRAW_REASON] = DrawReason.WALL
        state[_S.PHASE] = Phase.OVER
    elif state[_S.TAKES] >= rules[RuleParam.MAX_UPCARD_TAKES]:  # R18a
        state[_S.DRAW_REASON] = DrawReason.UPCARD_CAP
        state[_S.PHASE] = Phase.OVER
    else:
        state[_S.PLAYER] = 1 - player
        state[_S.PHASE] = Phase.DRAW


@njit(cache=True, _nrt=False)
def family_action_nb(params, masks, state, rules, undercut_table, streams, player):
    """The decision of a family (or ``random``) strategy, from ``player``'s view only."""
    return family_action_from_nb(
        params, masks, state, rules, undercut_table, streams, player, _NOTHING_KNOWN, -1
    )[0]


_NOTHING_KNOWN = np.uint64(0)  # no hand of 10 cards is empty


@njit(cache=True, _nrt=False)
def family_action_from_nb(
    params, masks, state, rules, undercut_table, streams, player, known_hand, known_deadwood
):
    """``family_action_nb``, given that ``known_hand`` (a hand of ``player``'s after one of
    its discards, or _NOTHING_KNOWN) leaves ``known_deadwood``; returns (action, the same
    for the hand it holds after this decision, or (_NOTHING_KNOWN, -1) if not known).

    A player's hand changes only by its own takes and discards, so the deadwood its last
    discard left is its hand's deadwood at its next take decision, and after taking a card
    that melds with nothing in that hand, the 11 cards' deadwood is that plus the card's
    value (the card stays unmatched in every arrangement): one exact evaluation fewer at
    each (a rollout carries them from decision to decision, ``play_out_with_family_nb``).
    """
    opponent = 1 - player
    hand = masks[_HAND + player]
    if state[_S.PHASE] != Phase.DISCARD:
        takes = takes_top_from_nb(
            params,
            hand,
            pile_top_nb(state),
            masks[_PILE_MASK],
            masks[_TAKEN + opponent],
            stock_left_nb(state),
            streams,
            player,
            known_deadwood if hand == known_hand else -1,
        )
        return (1 if takes else 0), known_hand, known_deadwood
    whole = -1
    taken = state[_S.TAKEN_CARD]
    held_before = taken >= 0 and hand & ~_bit(taken) == known_hand
    if held_before and not melds_with_card_nb(known_hand, taken):
        whole = known_deadwood + _CARD_VALUES[taken]
    if rules[RuleParam.BIG_GIN_BONUS] > 0:
        if whole < 0:
            whole = min_deadwood_nb(hand)
        if whole == 0 and declares_big_gin_nb(params, streams, player):
            return ACTION_BIG_GIN, _NOTHING_KNOWN, -1
    discard, knock, left = discard_or_knock_from_nb(
        params,
        hand,
        state[_S.TAKEN_CARD] if state[_S.FROM_PILE] else -1,
        rules[RuleParam.MAY_DISCARD_DRAWN_UPCARD] != 0,
        masks[_PILE_MASK],
        masks[_TAKEN + opponent],
        masks[_PASSED + opponent],
        stock_left_nb(state),
        state[_S.TURNS_BY + opponent],
        state[_S.LIMIT],
        undercut_table,
        streams,
        player,
        points_to_close_nb(state, rules, player),
        whole,
    )
    action = discard | ACTION_KNOCK if knock else discard
    return action, hand & ~_bit(discard), left


NO_SCORE_TO_CLOSE = 1 << 30  # a plain hand: no game to close


@njit(cache=True, _nrt=False)
def points_to_close_nb(state, rules, player):
    """The points ``player`` needs to win the first open game of the position's score
    (the target less its points there; R19, R20: in a Hollywood match the first open
    game is the one it is closest to winning), or NO_SCORE_TO_CLOSE for a plain hand."""
    games = state[_S.SCORE_GAMES]
    target = rules[RuleParam.GAME_TARGET]
    for game in range(games):
        mine = state[_S.SCORE_POINTS + 3 * player + game]
        theirs = state[_S.SCORE_POINTS + 3 * (1 - player) + game]
        if mine < target and theirs < target:
            return target - mine
    return NO_SCORE_TO_CLOSE


@njit(cache=True, _nrt=False)
def play_out_with_family_nb(masks, state, rules, policies, undercut_table, streams):
    """Play the position to the end with family strategies (``policies`` float64[2, P]).

    Each player's hand after its last discard and that hand's deadwood go from one of its
    decisions to the next (``family_action_from_nb``): the same actions, fewer
    evaluations."""
    play_out_drawing_nb(masks, state, rules, policies, undercut_table, streams, -1)


@njit(cache=True, _nrt=False)
def bottom_to_top_nb(state):
    """The stock's bottom card onto its top, the others one place down: the next stock
    draw takes what was the bottom card, and the rest keep their order."""
    top = state[_S.STOCK_POS]
    bottom = state[_S.DECK + 51]
    for j in range(51, top, -1):
        state[_S.DECK + j] = state[_S.DECK + j - 1]
    state[_S.DECK + top] = bottom


@njit(cache=True, _nrt=False)
def apply_drawing_nb(masks, state, rules, action, bottom):
    """``apply_nb``, where player ``bottom`` (-1: neither) draws from the stock's bottom."""
    if bottom >= 0 and action == 0:  # a draw from the stock, a declined offer, a discard
        phase = state[_S.PHASE]
        drawer = -1
        if phase == Phase.DRAW:
            drawer = state[_S.PLAYER]
        elif phase == Phase.OFFER and state[_S.PLAYER] == state[_S.DEALER]:
            drawer = 1 - state[_S.DEALER]  # R9: both declined, the non-dealer draws
        if drawer == bottom:
            bottom_to_top_nb(state)
    apply_nb(masks, state, rules, action)


@njit(cache=True, _nrt=False)
def play_out_drawing_nb(masks, state, rules, policies, undercut_table, streams, bottom):
    """``play_out_with_family_nb`` where player ``bottom`` (-1: neither) draws from the
    stock's bottom and the other from its top. Over a stock in uniform order each draw
    is still uniform over the cards left (the cards not yet drawn keep a uniform order),
    so a playout's law is unchanged; but from one position played on by two candidate
    actions each player draws the same cards in both, also where one takes the pile's
    top and the other draws (a search's paired_draws)."""
    known_hands = (_NOTHING_KNOWN, _NOTHING_KNOWN)
    known_deadwoods = (-1, -1)
    while state[_S.PHASE] != Phase.OVER:
        player = state[_S.PLAYER]
        action, hand, deadwood = family_action_from_nb(
            policies[player], masks, state, rules, undercut_table, streams, player,
            known_hands[player], known_deadwoods[player],
        )  # fmt: skip
        if player == 0:
            known_hands = (hand, known_hands[1])
            known_deadwoods = (deadwood, known_deadwoods[1])
        else:
            known_hands = (known_hands[0], hand)
            known_deadwoods = (known_deadwoods[0], deadwood)
        apply_drawing_nb(masks, state, rules, action, bottom)


@njit(cache=True, _nrt=False)
def score_nb(masks, state, rules, chains, result):
    """Score a finished hand (R13 to R17) into ``result`` int64[8]:

    winner, points, gin, undercut, knocker's deadwood, defender's deadwood before and
    after layoffs, laid-off points (-1 for the deadwoods and winner when not played).
    ``chains`` int64[16, 2] is scratch.
    """
    result[0] = -1
    result[1] = 0
    result[2] = 0
    result[3] = 0
    result[4] = -1
    result[5] = -1
    result[6] = -1
    result[7] = 0
    knocker = state[_S.KNOCKER]
    if knocker < 0:
        return
    defender = 1 - knocker
    knocker_hand = masks[_HAND + knocker]
    defender_hand = masks[_HAND + defender]
    k = 0 if state[_S.BIG_GIN] else min_deadwood_nb(knocker_hand)
    before = min_deadwood_nb(defender_hand)
    result[4] = k
    result[5] = before
    if k == 0:  # R13, R14: gin, no layoffs (R15)
        result[0] = knocker
        result[2] = 1
        result[6] = before
        bonus = rules[RuleParam.BIG_GIN_BONUS] if state[_S.BIG_GIN] else rules[RuleParam.GIN_BONUS]
        result[1] = bonus + before  # R17
        return
    sets = knocker_set_mask_nb(knocker_hand, knocker_hand | masks[_PILE_MASK])  # R16
    after, laid_value = defender_after_layoffs_nb(defender_hand, knocker_hand, sets, chains)
    result[6] = after
    result[7] = laid_value
    if k < after:  # R17
        result[0] = knocker
        result[1] = after - k
    elif k > after or rules[RuleParam.UNDERCUT_ON_TIE]:
        result[0] = defender
        result[1] = rules[RuleParam.UNDERCUT_BONUS] + k - after
        result[3] = 1


@njit(cache=True, _nrt=False)
def hand_value_nb(masks, state, rules, chains, result, player):
    """The finished hand's points from ``player``'s side: won +, lost -, drawn 0."""
    score_nb(masks, state, rules, chains, result)
    if result[0] < 0:
        return 0
    return result[1] if result[0] == player else -result[1]


@njit(cache=True, _nrt=False)
def record_nb(masks, state, rules, chains, result, out):
    """Fill the HAND_RECORD ``out`` of a finished hand (all but ``deal``)."""
    score_nb(masks, state, rules, chains, result)
    knocker = state[_S.KNOCKER]
    out["dealer"] = state[_S.DEALER]
    out["upcard"] = state[_S.DECK + 20]
    out["knock_limit"] = state[_S.LIMIT]
    out["first_upcard_taker"] = state[_S.FIRST_TAKER]
    out["knocker"] = knocker
    out["big_gin"] = state[_S.BIG_GIN] != 0
    out["draw"] = knocker < 0
    out["draw_reason"] = state[_S.DRAW_REASON]
    out["stock_left"] = stock_left_nb(state)
    out["turns"] = state[_S.TURNS]
    out["upcard_takes"] = state[_S.TAKES]
    out["hand0"] = masks[_HAND]
    out["hand1"] = masks[_HAND + 1]
    out["winner"] = result[0]
    out["points"] = result[1]
    out["gin"] = result[2] != 0
    out["undercut"] = result[3] != 0
    out["knocker_deadwood"] = result[4]
    out["defender_deadwood"] = result[5]
    out["defender_deadwood_after"] = result[6]
    out["laid_off_points"] = result[7]
