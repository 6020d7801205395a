"""One complete hand from a deck order (R5 to R18a), and many hands in parallel.

Contract: only NumPy arrays and scalars. ``rules`` is the int64 vector of
``Rules.to_kernel`` (indexed by ``RuleParam``), ``strategies`` a float64[2, P] array of
the players' strategy vectors (indexed by ``StrategyParam``), ``undercut_table`` the
float64[21, 11] undercut-risk model (``gin_sim.calibration``). Records are rows of the
aligned ``HAND_RECORD`` dtype. The exact semantics are in docs/engine.md, which the
reference engine (``gin_sim.reference``) implements too.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from gin_sim.enums import DrawReason, RuleParam
from gin_sim.kernels.deadwood import min_deadwood_nb
from gin_sim.kernels.decisions import declares_big_gin_nb, discard_or_knock_nb, takes_top_nb
from gin_sim.kernels.rng import player_key_nb, shuffle_deck_nb
from gin_sim.kernels.showdown import defender_after_layoffs_nb, knocker_set_mask_nb
from gin_sim.tables import CARD_VALUES, N_RANKS

_CARD_VALUES = CARD_VALUES
_ONE = np.uint64(1)
_BLOCK = 64  # deals per parallel work item: scratch arrays are made once per block


@njit(cache=True, inline="always")
def _bit(card):
    return _ONE << np.uint64(card)


@njit(cache=True)
def play_hand_nb(
    deck, dealer, rules, strategies, undercut_table, streams, scratch, pile, chains, out
):
    """Play one hand from ``deck`` (int8[52]) and fill the record ``out``.

    ``streams`` uint64[2] holds the players' random-stream states (used by ``random``);
    ``scratch`` uint64[4, 2] (per player: hand, cards taken from the pile, cards passed
    over, turns played), ``pile`` int64[64] and ``chains`` int64[16, 2] are scratch space.
    """
    hands = scratch[0]
    taken_by = scratch[1]  # docs/strategies.md: what each player's opponent knows of it
    passed_by = scratch[2]
    nondealer = 1 - dealer
    for p in range(2):
        hands[p] = 0
        taken_by[p] = 0
        passed_by[p] = 0
    for j in range(20):  # R6: dealt one at a time, non-dealer first
        player = nondealer if j % 2 == 0 else dealer
        hands[player] |= _bit(deck[j])
    upcard = np.int64(deck[20])
    pile[0] = upcard
    pile_size = 1
    pile_mask = _bit(upcard)
    stock_pos = 21
    if rules[RuleParam.OKLAHOMA]:  # R14a: the upcard's value, an ace means gin only
        limit = 0 if upcard % N_RANKS == 0 else _CARD_VALUES[upcard]
    else:
        limit = rules[RuleParam.KNOCK_LIMIT]
    big_gin_allowed = rules[RuleParam.BIG_GIN_BONUS] > 0
    may_discard_taken = rules[RuleParam.MAY_DISCARD_DRAWN_UPCARD] != 0
    turns_by = scratch[3]
    turns_by[0] = 0
    turns_by[1] = 0

    # R7 to R9: the upcard is offered to the non-dealer, then to the dealer.
    first_taker = -1
    for offered in (nondealer, dealer):
        if takes_top_nb(
            strategies[offered],
            hands[offered],
            upcard,
            pile_mask,
            taken_by[1 - offered],
            streams,
            offered,
        ):
            first_taker = offered
            break
        passed_by[offered] |= _bit(upcard)
    player = first_taker if first_taker >= 0 else nondealer
    from_pile = first_taker >= 0

    takes = 0
    turns = 0
    knocker = -1
    big_gin = False
    draw_reason = DrawReason.NONE
    while True:
        params = strategies[player]
        if from_pile:  # R10: the top of the discard pile
            pile_size -= 1
            taken = pile[pile_size]
            pile_mask &= ~_bit(taken)
            taken_by[player] |= _bit(taken)
            takes += 1
        else:  # R10: the top of the stock
            passed_by[player] |= _bit(pile[pile_size - 1])  # passed over the pile's top
            taken = np.int64(deck[stock_pos])
            stock_pos += 1
        hand = hands[player] | _bit(taken)
        turns += 1
        turns_by[player] += np.uint64(1)
        if (  # R14
            big_gin_allowed
            and min_deadwood_nb(hand) == 0
            and declares_big_gin_nb(params, streams, player)
        ):
            hands[player] = hand
            knocker = player
            big_gin = True
            break
        discard, knock = discard_or_knock_nb(
            params,
            hand,
            taken if from_pile else -1,
            may_discard_taken,
            pile_mask,
            taken_by[1 - player],
            passed_by[1 - player],
            52 - stock_pos,
            np.int64(turns_by[1 - player]),
            limit,
            undercut_table,
            streams,
            player,
        )
        hand &= ~_bit(discard)
        hands[player] = hand
        pile[pile_size] = discard
        pile_size += 1
        pile_mask |= _bit(discard)
        taken_by[player] &= ~_bit(discard)
        passed_by[player] |= _bit(discard)
        if knock:
            knocker = player  # R12
            break
        if 52 - stock_pos <= rules[RuleParam.WALL]:  # R18
            draw_reason = DrawReason.WALL
            break
        if takes >= rules[RuleParam.MAX_UPCARD_TAKES]:  # R18a
            draw_reason = DrawReason.UPCARD_CAP
            break
        player = 1 - player
        from_pile = takes_top_nb(
            strategies[player],
            hands[player],
            pile[pile_size - 1],
            pile_mask,
            taken_by[1 - player],
            streams,
            player,
        )

    out["dealer"] = dealer
    out["upcard"] = upcard
    out["knock_limit"] = limit
    out["first_upcard_taker"] = first_taker
    out["knocker"] = knocker
    out["big_gin"] = big_gin
    out["draw"] = knocker < 0
    out["draw_reason"] = draw_reason
    out["stock_left"] = 52 - stock_pos
    out["turns"] = turns
    out["upcard_takes"] = takes
    out["hand0"] = hands[0]
    out["hand1"] = hands[1]
    out["gin"] = False
    out["undercut"] = False
    out["winner"] = -1
    out["points"] = 0
    out["knocker_deadwood"] = -1
    out["defender_deadwood"] = -1
    out["defender_deadwood_after"] = -1
    out["laid_off_points"] = 0
    if knocker < 0:
        return

    defender = 1 - knocker
    knocker_hand = hands[knocker]
    defender_hand = hands[defender]
    k = 0 if big_gin else min_deadwood_nb(knocker_hand)
    before = min_deadwood_nb(defender_hand)
    out["knocker_deadwood"] = k
    out["defender_deadwood"] = before
    if k == 0:  # R13, R14: gin, no layoffs (R15)
        out["gin"] = True
        out["defender_deadwood_after"] = before
        out["winner"] = knocker
        bonus = rules[RuleParam.BIG_GIN_BONUS] if big_gin else rules[RuleParam.GIN_BONUS]
        out["points"] = bonus + before  # R17
        return
    sets = knocker_set_mask_nb(knocker_hand, knocker_hand | pile_mask)  # R16
    after, laid_value = defender_after_layoffs_nb(defender_hand, knocker_hand, sets, chains)
    out["defender_deadwood_after"] = after
    out["laid_off_points"] = laid_value
    if k < after:  # R17
        out["winner"] = knocker
        out["points"] = after - k
    elif k > after or rules[RuleParam.UNDERCUT_ON_TIE]:
        out["undercut"] = True
        out["winner"] = defender
        out["points"] = rules[RuleParam.UNDERCUT_BONUS] + k - after


@njit(cache=True)
def scratch_nb():
    return (
        np.empty(2, np.uint64),
        np.empty((4, 2), np.uint64),
        np.empty(64, np.int64),
        np.empty((16, 2), np.int64),
    )


@njit(cache=True)
def play_deck_nb(deck, dealer, rules, strategies, undercut_table, seed, deal, out):
    """Play one hand from an explicit deck; ``out`` is a HAND_RECORD[1] array."""
    streams, scratch, pile, chains = scratch_nb()
    streams[0] = player_key_nb(seed, deal, 0)
    streams[1] = player_key_nb(seed, deal, 1)
    play_hand_nb(
        deck, dealer, rules, strategies, undercut_table, streams, scratch, pile, chains, out[0]
    )
    out[0]["deal"] = deal


@njit(cache=True, parallel=True, nogil=True)
def play_deals_nb(seed, first_deal, rules, strategies, undercut_table, out):
    """Deals ``first_deal .. first_deal + len(out) - 1``: deck and dealer from (seed, deal).

    The dealer of deal ``i`` is ``i % 2``. Each deal depends only on (seed, i), so
    results are the same for any thread count or split into calls.
    """
    n = out.shape[0]
    n_blocks = (n + _BLOCK - 1) // _BLOCK
    for block in prange(n_blocks):
        streams, scratch, pile, chains = scratch_nb()
        deck = np.empty(52, np.int8)
        state = np.empty(1, np.uint64)
        for i in range(block * _BLOCK, min(n, (block + 1) * _BLOCK)):
            deal = first_deal + i
            shuffle_deck_nb(seed, deal, deck, state)
            streams[0] = player_key_nb(seed, deal, 0)
            streams[1] = player_key_nb(seed, deal, 1)
            play_hand_nb(
                deck,
                deal % 2,
                rules,
                strategies,
                undercut_table,
                streams,
                scratch,
                pile,
                chains,
                out[i],
            )
            out[i]["deal"] = deal
