"""Strategy decisions (docs/strategies.md): what to take, what to discard, when to knock.

Every decision reads only the deciding player's view: its own hand, the discard pile
(``pile`` mask and top card), the cards the opponent took from the pile and still holds
(``opp_taken``), the cards the opponent passed over or discarded (``opp_passed``), the
stock size, the opponent's turn count, the hand's knock limit. ``params`` is the player's
float64 strategy vector (``StrategyParam``); ``streams`` the random streams (``random``).

``undercut_table`` is indexed as ``undercut_table[min(opp_turns, 20), k]`` with ``k`` up to
10 and no bounds check: callers must pass a table validated by
``gin_sim.players.calibration.check_undercut_table`` (as ``load_undercut_table`` returns it):
float64, C-contiguous, shape (21, 11), every value a finite probability in [0, 1].
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gin_sim.kernels.deadwood import (
    deadwood_without_nb,
    has_sets_nb,
    lowest_card_nb,
    melds_with_card_nb,
    min_deadwood_nb,
    popcount_nb,
)
from gin_sim.kernels.enums import UNDERCUT_TABLE_TURNS, StrategyKind, StrategyParam
from gin_sim.kernels.rng import bounded_nb, next_nb
from gin_sim.kernels.tables import (
    CARD_VALUES,
    N_RANKS,
    NEXT_TO,
    RUN_PARTNERS,
    SAME_RANK,
    SUIT_MASK,
    WITHIN_TWO,
)

# Module globals: numba freezes them into the machine code.
_CARD_VALUES = CARD_VALUES
_HIGHEST_VALUE = np.int64(CARD_VALUES.max())  # R2: 10
_SAME_RANK = SAME_RANK
_NEXT_TO = NEXT_TO
_WITHIN_TWO = WITHIN_TWO
_RUN_PARTNERS = RUN_PARTNERS
_WINDOW_WITHOUT_CARD = 0b11011  # ranks r-2, r-1, r+1, r+2 of the window, not r itself
_ONE = np.uint64(1)
_ALL = np.uint64((1 << 52) - 1)


@njit(cache=True, inline="always")
def _bit(card):
    return _ONE << np.uint64(card)


@njit(cache=True, _nrt=False)
def live_nb(card, hand, unseen):
    """Unseen cards x that make a 3-card meld {card, x, y} with some y in ``hand``.

    Lookups (``tables.py``) rather than rank arithmetic: this is costed for every card of
    every discard in every rollout. Sets: the unseen cards of the rank, if ``hand`` holds
    one. Runs: x and y lie within two ranks of ``card`` in its suit, so the held ranks
    r-2, r-1, r+1, r+2 (a 5-bit window of the suit, shifted by 2 so that r-2 >= 0) pick
    the wanted cards from ``RUN_PARTNERS``."""
    rank_mates = _SAME_RANK[card] & ~_bit(card)
    # Counted and then kept or dropped rather than counted only if the hand holds one:
    # whether it does is a branch the processor cannot predict.
    count = popcount_nb(unseen & rank_mates) * ((hand & rank_mates) != 0)
    rank = card % N_RANKS
    held = np.int64((hand >> np.uint64((card // N_RANKS) * N_RANKS)) & np.uint64(SUIT_MASK))
    window = ((held << 2) >> rank) & _WINDOW_WITHOUT_CARD
    count += popcount_nb(unseen & _RUN_PARTNERS[card, window])
    return count


@njit(cache=True, inline="always")
def danger_nb(card, opp_taken):
    return popcount_nb(opp_taken & _SAME_RANK[card]) + popcount_nb(opp_taken & _WITHIN_TWO[card])


@njit(cache=True, inline="always")
def disinterest_nb(card, opp_passed):
    return popcount_nb(opp_passed & (_SAME_RANK[card] | _NEXT_TO[card]) & ~_bit(card))


@njit(cache=True, inline="always")
def pair_value_nb(card, hand):
    """``pair(c, h)``: the value of ``card`` (R2) times the other cards of its rank in
    ``hand``: what a player who keeps its high pairs loses by breaking one."""
    return _CARD_VALUES[card] * popcount_nb(hand & _SAME_RANK[card] & ~_bit(card))


@njit(cache=True, _nrt=False)
def takes_top_nb(params, hand, card, pile, opp_taken, stock_left, streams, player):
    """Take the first upcard (R7, R8) or the discard pile's top (R10), with ``stock_left``
    cards in the stock?"""
    return takes_top_from_nb(params, hand, card, pile, opp_taken, stock_left, streams, player, -1)


@njit(cache=True, inline="always")
def take_rule_nb(params, stock_left):
    """(take_melds, take_min_gain) for this stock size: the first take-schedule phase
    whose min_stock is at most ``stock_left``, or the plain parameters when there is no
    schedule (0 phases: one comparison, then the same two slots as without schedules)."""
    for i in range(np.int64(params[StrategyParam.TAKE_PHASES])):
        if params[StrategyParam.TAKE_MIN_STOCK + i] <= stock_left:
            return (
                params[StrategyParam.TAKE_MELDS_AT + i] != 0,
                params[StrategyParam.TAKE_MIN_GAIN_AT + i],
            )
    return params[StrategyParam.TAKE_MELDS] != 0, params[StrategyParam.TAKE_MIN_GAIN]


@njit(cache=True, _nrt=False)
def takes_top_from_nb(params, hand, card, pile, opp_taken, stock_left, streams, player, whole):
    """``takes_top_nb`` with ``whole`` = ``min_deadwood_nb(hand)`` known (-1: not known).

    ``take_melds`` and ``take_min_gain`` are those of the stock size (``take_rule_nb``).
    The score is ``gain + improve_weight * live`` (docs/strategies.md), the gain being
    ``deadwood(hand) - deadwood(hand | card less the best other card)``. A card that melds
    with nothing in the hand stays unmatched in every arrangement of the hand with it, so
    then ``deadwood(hand | card less c) = deadwood(hand less c) + value(card)``: the best
    drop is the 10-card hand's (no 11-card evaluation), and the gain is at most
    ``min(deadwood(hand), 10) - value(card)`` (10: the highest card value, R2; a drop lowers the deadwood by at most the
    dropped card's value, and not below 0). Float additions are monotone, so a score
    already short of ``take_min_gain`` with that bound needs no drop search (exact).
    """
    if params[StrategyParam.KIND] == StrategyKind.RANDOM:
        return bounded_nb(next_nb(streams, player), 2) == 1
    melds = melds_with_card_nb(hand, card)
    take_melds, min_gain = take_rule_nb(params, stock_left)
    if take_melds and melds:
        return True
    if min_gain <= 0:
        return False
    unseen = _ALL & ~hand & ~pile & ~opp_taken
    improve = params[StrategyParam.IMPROVE_WEIGHT] * live_nb(card, hand, unseen)
    if whole < 0:
        whole = min_deadwood_nb(hand)
    if melds:
        best = least_deadwood_drop_nb(hand | _bit(card), hand)[1]  # never the card itself
    else:
        value = _CARD_VALUES[card]
        if np.float64(min(whole, _HIGHEST_VALUE) - value) + improve < min_gain:
            return False
        best = least_deadwood_drop_from_nb(hand, hand, whole)[1] + value
    return np.float64(whole - best) + improve >= min_gain


@njit(cache=True, _nrt=False)
def declares_big_gin_nb(params, streams, player):
    if params[StrategyParam.KIND] == StrategyKind.RANDOM:
        return bounded_nb(next_nb(streams, player), 2) == 1
    return True


@njit(cache=True, _nrt=False)
def knock_threshold_nb(params, stock_left, hand_limit):
    """The schedule's threshold for this stock size (or the fixed one), capped by the limit."""
    threshold = np.int64(params[StrategyParam.KNOCK_THRESHOLD])
    for i in range(np.int64(params[StrategyParam.SCHEDULE_PHASES])):
        if params[StrategyParam.SCHEDULE_MIN_STOCK + i] <= stock_left:
            threshold = np.int64(params[StrategyParam.SCHEDULE_THRESHOLD + i])
            break
    return min(threshold, hand_limit)


@njit(cache=True, inline="always")
def tie_key_nb(card):
    """Higher is discarded first among equals: value, then rank, then suit S, H, D, C."""
    return _CARD_VALUES[card] * 1000 + (card % N_RANKS) * 10 + card // N_RANKS


@njit(cache=True, _nrt=False)
def least_deadwood_drop_nb(hand, allowed):
    """The card of ``allowed`` whose removal from ``hand`` leaves the least deadwood (ties:
    higher value, then rank, then suit S, H, D, C) and that deadwood.

    Ranks are tried from the highest, so of equals the first rank wins, and within a rank
    the last suit (from C up to S, ``least_deadwood_drop_from_nb``). Removing a card lowers
    the deadwood by at most its value (an arrangement of the rest, plus the card unmatched,
    arranges the whole hand), so once ``deadwood(hand) - value`` reaches the best found, no
    card of that value or less can do better: the search stops (exact, and most hands
    need two or three evaluations instead of eleven).
    """
    return least_deadwood_drop_from_nb(hand, allowed, min_deadwood_nb(hand))


@njit(cache=True, _nrt=False)
def least_deadwood_drop_from_nb(hand, allowed, whole):
    """``least_deadwood_drop_nb`` with ``whole`` = ``min_deadwood_nb(hand)`` known."""
    best_card = -1
    best_deadwood = 1 << 30
    sets = has_sets_nb(hand)
    for rank in range(N_RANKS - 1, -1, -1):
        held = allowed & _SAME_RANK[rank]  # the rank's cards (card ``rank`` is of suit 0)
        if not held:  # one test per rank, not four unpredictable ones (lowest_card_nb)
            continue
        if best_card >= 0 and whole - _CARD_VALUES[rank] >= best_deadwood:
            break
        # The rank's cards from suit C up (lowest_card_nb), not a test of each suit: among
        # equals of the rank the later (higher suit) one wins, as the tie order says.
        best_of_rank = False  # whether the best so far is a card of this rank
        while held:
            card = lowest_card_nb(held)
            held &= held - _ONE
            deadwood = deadwood_without_nb(hand, card, whole, sets)
            if deadwood < best_deadwood or (deadwood == best_deadwood and best_of_rank):
                best_card = card
                best_deadwood = deadwood
                best_of_rank = True
    return best_card, best_deadwood


@njit(cache=True, _nrt=False)
def least_deadwood_discard_nb(hand, forbidden):
    """The ``simple`` discard of an 11-card hand and the deadwood it leaves."""
    allowed = hand & ~_bit(forbidden) if forbidden >= 0 else hand
    return least_deadwood_drop_nb(hand, allowed)


@njit(cache=True, _nrt=False)
def weighted_terms_nb(params, hand, card, unseen, opp_taken, opp_passed):
    """The weighted terms of discarding ``card`` from ``hand``: meld chances kept, danger,
    disinterest, the high pair broken, each times its weight."""
    return (
        params[StrategyParam.KEEP_WEIGHT] * live_nb(card, hand & ~_bit(card), unseen),
        params[StrategyParam.SAFETY_WEIGHT] * danger_nb(card, opp_taken),
        params[StrategyParam.DISINTEREST_WEIGHT] * disinterest_nb(card, opp_passed),
        params[StrategyParam.PAIR_WEIGHT] * pair_value_nb(card, hand),
    )


@njit(cache=True, inline="always")
def cost_from_terms_nb(deadwood, terms):
    """The discard cost, in exactly this order of float operations (docs/strategies.md)."""
    return np.float64(deadwood) + terms[0] + terms[1] - terms[2] + terms[3]


@njit(cache=True, _nrt=False)
def discard_cost_nb(params, hand, card, unseen, opp_taken, opp_passed):
    """The cost of discarding ``card`` from ``hand``: deadwood left, meld chances kept,
    danger, disinterest, the high pair broken."""
    terms = weighted_terms_nb(params, hand, card, unseen, opp_taken, opp_passed)
    return cost_from_terms_nb(min_deadwood_nb(hand & ~_bit(card)), terms)


@njit(cache=True, _nrt=False)
def weighted_discard_nb(params, hand, forbidden, unseen, opp_taken, opp_passed):
    """The legal card of least cost (``discard_cost_nb``).

    The deadwood left is at least ``deadwood(hand) - value`` (see
    ``least_deadwood_drop_nb``), and float rounding keeps that order through the same
    operations, so a card whose cost with that bound already loses needs no deadwood
    evaluation (exact).
    """
    return weighted_discard_from_nb(
        params, hand, forbidden, unseen, opp_taken, opp_passed, min_deadwood_nb(hand), -1, 0
    )[0]


@njit(cache=True, _nrt=False)
def weighted_discard_from_nb(
    params, hand, forbidden, unseen, opp_taken, opp_passed, whole, known_card, known_deadwood
):
    """``weighted_discard_nb`` with ``whole`` = ``min_deadwood_nb(hand)`` known, and the
    legal card ``known_card`` (-1: none) known to leave ``known_deadwood``. That card is
    costed first, without an evaluation: usually the cheapest or close to it, its cost
    makes the bound skip more of the others. The choice is the least (cost, tie key)
    whatever the order in which cards are tried, so the result is the same (exact).
    Returns the card and the deadwood it leaves."""
    best_card = -1
    best_cost = np.inf
    best_key = -1
    best_deadwood = -1
    if known_card >= 0:
        terms = weighted_terms_nb(params, hand, known_card, unseen, opp_taken, opp_passed)
        best_card = known_card
        best_cost = cost_from_terms_nb(known_deadwood, terms)
        best_key = tie_key_nb(known_card)
        best_deadwood = known_deadwood
    rest = hand
    if forbidden >= 0:
        rest &= ~_bit(forbidden)
    if known_card >= 0:
        rest &= ~_bit(known_card)
    return least_cost_scan_nb(
        params, hand, rest, unseen, opp_taken, opp_passed, whole,
        best_card, best_cost, best_key, best_deadwood,
    )  # fmt: skip


# Inlined (numba's IR): the expert family's rollouts run it at every discard; as a call
# it cost a third of mc's decisions per second (2026-12-02, reverted then), inlined the
# same as the two loops it replaces (2026-12-03, docs/search-players.md, "Speed").
@njit(cache=True, _nrt=False, inline="always")
def least_cost_scan_nb(
    params, hand, rest, unseen, opp_taken, opp_passed, whole,
    best_card, best_cost, best_key, best_deadwood,
):  # fmt: skip
    """The scan shared by every least-discard-cost choice (``weighted_discard_from_nb``,
    ``search.model_drop_nb``): over the candidate cards ``rest`` of the 11 cards
    ``hand`` (``whole`` = ``min_deadwood_nb(hand)``), from the best so far
    (``best_card`` -1 with ``best_cost`` inf: none yet), the least (cost, tie key),
    ties to the higher tie key. A card whose cost with the bound
    ``deadwood(hand) - value`` already loses is skipped without a deadwood evaluation
    (exact: the bound keeps its order through the same float operations), and the
    result does not depend on the order in which cards are tried. Returns the card and
    the deadwood it leaves.

    Most cards are ruled out by that bound, and most of those by a cheaper one, checked
    first: the three terms other than disinterest are counts times weights, so >= 0 when
    the weights are (a strategy's always are; checked here for any vector), and then the
    deadwood bound less the disinterest term alone is at most the full bound (float
    addition and subtraction are monotone in each operand, so terms >= 0 never lower the
    result). A card that cheap bound rules out needs none of the other terms; exact, as
    the full bound is (measured: about 7% more ``mc`` decisions per second, docs/search-
    players.md, "Speed")."""
    sets = has_sets_nb(hand)
    other_terms_nonnegative = (
        params[StrategyParam.KEEP_WEIGHT] >= 0.0
        and params[StrategyParam.SAFETY_WEIGHT] >= 0.0
        and params[StrategyParam.PAIR_WEIGHT] >= 0.0
    )
    disinterest_weight = params[StrategyParam.DISINTEREST_WEIGHT]
    while rest:
        card = lowest_card_nb(rest)
        rest &= rest - _ONE
        key = tie_key_nb(card)
        if other_terms_nonnegative:
            disinterest = disinterest_weight * disinterest_nb(card, opp_passed)
            low = np.float64(whole - _CARD_VALUES[card]) - disinterest
            if low > best_cost or (low == best_cost and key < best_key):
                continue
        terms = weighted_terms_nb(params, hand, card, unseen, opp_taken, opp_passed)
        # deadwood(hand less card) >= deadwood(hand) - value(card): a bound on the cost
        bound = cost_from_terms_nb(whole - _CARD_VALUES[card], terms)
        if bound > best_cost or (bound == best_cost and key < best_key):
            continue
        deadwood = deadwood_without_nb(hand, card, whole, sets)
        cost = cost_from_terms_nb(deadwood, terms)
        if cost < best_cost or (cost == best_cost and key > best_key):
            best_card = card
            best_cost = cost
            best_key = key
            best_deadwood = deadwood
    return best_card, best_deadwood


@njit(cache=True, _nrt=False)
def discard_or_knock_nb(
    params,
    hand,
    forbidden,
    may_discard_taken,
    pile,
    opp_taken,
    opp_passed,
    stock_left,
    opp_turns,
    hand_limit,
    undercut_table,
    streams,
    player,
    to_close,
):
    """After taking a card: (card to discard, knock?) for an 11-card ``hand``.

    ``forbidden`` is the card just taken from the pile, or -1. ``to_close``: the points
    the player needs to win the first open game of the score (``points_to_close_nb``),
    or a large number where there is no score (a plain hand).
    """
    card, knock, _ = discard_or_knock_from_nb(
        params, hand, forbidden, may_discard_taken, pile, opp_taken, opp_passed, stock_left,
        opp_turns, hand_limit, undercut_table, streams, player, to_close, -1,
    )  # fmt: skip
    return card, knock


@njit(cache=True, _nrt=False)
def discard_or_knock_from_nb(
    params,
    hand,
    forbidden,
    may_discard_taken,
    pile,
    opp_taken,
    opp_passed,
    stock_left,
    opp_turns,
    hand_limit,
    undercut_table,
    streams,
    player,
    to_close,
    whole,
):
    """``discard_or_knock_nb`` with ``whole`` = ``min_deadwood_nb(hand)`` known (-1: not
    known); returns (card, knock?, the deadwood the card leaves, or -1 when not known)."""
    if params[StrategyParam.KIND] == StrategyKind.RANDOM:
        blocked = -1 if may_discard_taken else forbidden
        n_legal = 0
        for card in range(52):
            if hand & _bit(card) and card != blocked:
                n_legal += 1
        pick = bounded_nb(next_nb(streams, player), n_legal)
        chosen = -1
        for card in range(52):
            if hand & _bit(card) and card != blocked:
                if pick == 0:
                    chosen = card
                    break
                pick -= 1
        knock = False
        left = min_deadwood_nb(hand & ~_bit(chosen))
        if left <= hand_limit:
            knock = bounded_nb(next_nb(streams, player), 2) == 1
        return chosen, knock, left
    if whole < 0:
        whole = min_deadwood_nb(hand)  # once for both searches below
    allowed = hand & ~_bit(forbidden) if forbidden >= 0 else hand
    best, deadwood = least_deadwood_drop_from_nb(hand, allowed, whole)
    if deadwood == 0:
        return best, True, deadwood  # gin (R13): nothing to fear
    closing = params[StrategyParam.CLOSING_DISTANCE]
    if closing > 0 and to_close <= closing and deadwood <= hand_limit:
        return best, True, deadwood  # a won hand would likely end the game: win one now
    if deadwood <= knock_threshold_nb(params, stock_left, hand_limit):
        risk_limit = params[StrategyParam.UNDERCUT_RISK]
        row = min(opp_turns, UNDERCUT_TABLE_TURNS - 1)
        if risk_limit >= 1.0 or undercut_table[row, deadwood] <= risk_limit:
            return best, True, deadwood
    if (
        params[StrategyParam.KEEP_WEIGHT] == 0
        and params[StrategyParam.SAFETY_WEIGHT] == 0
        and params[StrategyParam.DISINTEREST_WEIGHT] == 0
        and params[StrategyParam.PAIR_WEIGHT] == 0
    ):
        return best, False, deadwood
    unseen = _ALL & ~hand & ~pile & ~opp_taken
    card, left = weighted_discard_from_nb(
        params, hand, forbidden, unseen, opp_taken, opp_passed, whole, best, deadwood
    )
    return card, False, left
