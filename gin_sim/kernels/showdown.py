"""The showdown after a knock that is not gin (R15, R16), exact.

The knocker's arrangement is given by the cards it puts in sets (``set_mask``): with
the sets fixed, every block of 3 or more consecutive remaining cards of a suit is one
run (a minimum-deadwood arrangement melds all of them; splitting a run never changes
spots or layoffs). The tie rules are in docs/engine.md.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gin_sim.kernels.deadwood import lowest_card_nb, min_deadwood_nb, popcount_nb, run_capable_nb
from gin_sim.kernels.tables import CARD_VALUES, N_RANKS, SAME_RANK, SUIT_MASK

# Module globals: numba freezes them into the machine code.
_CARD_VALUES = CARD_VALUES
_SAME_RANK = SAME_RANK
_ONE = np.uint64(1)


@njit(cache=True, inline="always")
def _bit(card):
    return _ONE << np.uint64(card)


@njit(cache=True, _nrt=False)
def runs_of_nb(hand):
    """Cards of ``hand`` (uint64) that lie in blocks of 3 or more consecutive ranks of a suit."""
    runs = np.uint64(0)
    for suit in range(4):
        shift = np.uint64(suit * N_RANKS)
        m = np.int64((hand >> shift) & np.uint64(SUIT_MASK))
        runs |= np.uint64(run_capable_nb(m)) << shift
    return runs


@njit(cache=True, _nrt=False)
def run_ends_nb(runs):
    """Cards just beyond either end of each run in ``runs`` (no wrap-around, R1)."""
    ends = np.uint64(0)
    for suit in range(4):
        shift = np.uint64(suit * N_RANKS)
        m = np.int64((runs >> shift) & np.uint64(SUIT_MASK))
        adjacent = ((m << 1) | (m >> 1)) & ~m & SUIT_MASK
        ends |= np.uint64(adjacent) << shift
    return ends


@njit(cache=True, _nrt=False)
def knocker_set_mask_nb(hand, seen):
    """R16: the set cards of the knocker's arrangement.

    Among minimum-deadwood arrangements of ``hand`` (uint64), the fewest layoff spots
    (unseen cards: the missing fourth card of a 3-card set, the card beyond a run's end;
    ``seen`` is the knocker's cards plus the discard pile), then the numerically smallest
    mask of set cards. Returns that mask (uint64).
    """
    target = min_deadwood_nb(hand)
    three = np.int64(0)
    four = np.int64(0)
    for rank in range(N_RANKS):
        count = popcount_nb(hand & _SAME_RANK[rank])  # (card ``rank`` is of suit 0)
        if count >= 3:
            three |= np.int64(1) << rank
        if count == 4:
            four |= np.int64(1) << rank
    if three == 0:  # one arrangement, all runs: the search below would find it alone
        return np.uint64(0)
    combos = 1
    rest = three
    while rest:
        bit = rest & -rest
        rest ^= bit
        combos *= 6 if four & bit else 2
    best_spots = 1 << 30
    best_sets = np.uint64(0)
    found = False
    for combo in range(combos):
        sets = np.uint64(0)
        spots = np.uint64(0)
        code = combo
        rest = three
        while rest:
            bit = rest & -rest
            rest ^= bit
            rank = 0
            while (np.int64(1) << rank) != bit:
                rank += 1
            if four & bit:
                option = code % 6
                code //= 6
                if option == 0:
                    continue
                for suit in range(4):
                    if option != suit + 2:
                        sets |= _bit(suit * N_RANKS + rank)
                if option >= 2:
                    spots |= _bit((option - 2) * N_RANKS + rank)
            else:
                option = code & 1
                code >>= 1
                if option:
                    for suit in range(4):
                        card = suit * N_RANKS + rank
                        if hand & _bit(card):
                            sets |= _bit(card)
                        else:
                            spots |= _bit(card)
        rest_hand = hand & ~sets
        runs = runs_of_nb(rest_hand)
        deadwood = 0
        unmatched = rest_hand & ~runs
        while unmatched:  # card by card, not 52 unpredictable tests (lowest_card_nb)
            deadwood += _CARD_VALUES[lowest_card_nb(unmatched)]
            unmatched &= unmatched - _ONE
        if deadwood != target:
            continue
        spots |= run_ends_nb(runs)
        spots &= ~seen
        count = 0
        while spots:
            spots &= spots - _ONE
            count += 1
        if not found or count < best_spots or (count == best_spots and sets < best_sets):
            found = True
            best_spots = count
            best_sets = sets
    return best_sets


@njit(cache=True, _nrt=False)
def defender_after_layoffs_nb(defender, knocker, set_mask, chains):
    """R15, R16: the defender's least deadwood after melds and layoffs chosen jointly.

    ``defender`` and ``knocker`` are 10-card masks, ``set_mask`` the knocker's set cards,
    ``chains`` int64[16, 2] scratch. A layoff set is: any subset of the fourth cards of
    the knocker's 3-card sets that the defender holds, plus a prefix of each chain of
    the defender's consecutive cards beyond a run's end. Returns (least final deadwood,
    least laid-off value among the layoff sets reaching it).
    """
    set_cards = np.uint64(0)
    for rank in range(N_RANKS if set_mask else 0):
        rank_cards = _SAME_RANK[rank]  # (card ``rank`` is of suit 0)
        if popcount_nb(set_mask & rank_cards) == 3:  # a 3-card set: its fourth card
            set_cards |= defender & rank_cards & ~set_mask
    runs = runs_of_nb(knocker & ~set_mask)
    n_chains = 0
    for suit in range(4):
        shift = np.uint64(suit * N_RANKS)
        m = np.int64((runs >> shift) & np.uint64(SUIT_MASK))
        for rank in range(N_RANKS if m else 0):
            if not (m >> rank) & 1:
                continue
            if rank == 0 or not (m >> (rank - 1)) & 1:  # a run's low end: chain downwards
                length = 0
                r = rank - 1
                while r >= 0 and defender & _bit(suit * N_RANKS + r):
                    length += 1
                    r -= 1
                if length:
                    chains[n_chains, 0] = suit * N_RANKS + rank - 1
                    chains[n_chains, 1] = -length
                    n_chains += 1
            if rank == N_RANKS - 1 or not (m >> (rank + 1)) & 1:  # high end: upwards
                length = 0
                r = rank + 1
                while r < N_RANKS and defender & _bit(suit * N_RANKS + r):
                    length += 1
                    r += 1
                if length:
                    chains[n_chains, 0] = suit * N_RANKS + rank + 1
                    chains[n_chains, 1] = length
                    n_chains += 1
    n_set_cards = 0
    tmp = set_cards
    while tmp:
        tmp &= tmp - _ONE
        n_set_cards += 1
    combos = 1 << n_set_cards
    for j in range(n_chains):
        combos *= abs(chains[j, 1]) + 1
    best = 1 << 30
    best_value = 1 << 30
    for combo in range(combos):
        code = combo
        laid = np.uint64(0)
        chosen = set_cards
        while chosen:  # one bit of the code per set card, lowest card first
            low = chosen & (~chosen + _ONE)
            chosen ^= low
            if code & 1:
                laid |= low
            code >>= 1
        for j in range(n_chains):
            length = abs(chains[j, 1])
            take = code % (length + 1)
            code //= length + 1
            step = 1 if chains[j, 1] > 0 else -1
            for t in range(take):
                laid |= _bit(chains[j, 0] + step * t)
        deadwood = min_deadwood_nb(defender & ~laid)
        if deadwood <= best:
            value = 0
            rest = laid
            while rest:
                value += _CARD_VALUES[lowest_card_nb(rest)]
                rest &= rest - _ONE
            if deadwood < best or value < best_value:
                best = deadwood
                best_value = value
    return best, best_value
