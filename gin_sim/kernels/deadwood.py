"""Exact minimum deadwood of a hand bitmask (R3, R4), allocation-free.

A hand is a uint64 with bit ``suit * 13 + rank`` per card. Any arrangement is a choice
of sets plus, in each suit, runs among the remaining cards; with the sets fixed, each
suit's least run-only deadwood is one lookup in ``RUN_DEADWOOD`` (an 8192-entry table).
So we enumerate only the set choices: for a rank with 3 cards, set or no set; with 4
cards, none, the 4-set, or one of four 3-sets. Ranks whose cards cannot be in any run
take their whole set without branching (no alternative can beat that), which leaves
one or two branching ranks in nearly every 10- or 11-card hand.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from gin_sim.kernels.tables import N_RANKS, RUN_DEADWOOD, SAME_RANK, SUIT_MASK
from gin_sim.kernels.work import claimed_nb, run_workers

# Module globals: numba freezes them into the machine code.
_RUN_DEADWOOD = RUN_DEADWOOD
_SAME_RANK = SAME_RANK
_BIG = 1 << 30


@njit(cache=True, inline="always")
def popcount_nb(x):
    """The cards of a mask (LLVM compiles this loop to one popcount instruction)."""
    count = 0
    while x:
        x &= x - np.uint64(1)
        count += 1
    return count


@njit(cache=True, inline="always")
def lowest_card_nb(cards):
    """The lowest card of a non-empty mask (its trailing zeros, by a popcount).

    Loops over the cards of a hand go from card to card this way rather than test all 52
    bits: which of 52 bits a hand holds is a branch the processor cannot predict, and
    those mispredictions cost more than the work on the cards (the rollouts' discards
    spent two thirds of their time in them)."""
    return popcount_nb((cards & (~cards + np.uint64(1))) - np.uint64(1))


@njit(cache=True, inline="always")
def suit_masks_nb(hand):
    """The four 13-bit suit masks (C, D, H, S) of ``hand``."""
    return (
        np.int64(hand & SUIT_MASK),
        np.int64((hand >> 13) & SUIT_MASK),
        np.int64((hand >> 26) & SUIT_MASK),
        np.int64((hand >> 39) & SUIT_MASK),
    )


@njit(cache=True, inline="always")
def run_capable_nb(m):
    """Cards of a 13-bit suit mask that lie in some 3 consecutive ranks all present."""
    starts = m & (m >> 1) & (m >> 2)
    return starts | (starts << 1) | (starts << 2)


@njit(cache=True, _nrt=False)
def min_deadwood_nb(hand):
    """Least deadwood of ``hand`` (uint64 mask, any number of cards) as an int64."""
    c, d, h, s = suit_masks_nb(np.uint64(hand))
    three = (c & d & h) | (c & d & s) | (c & h & s) | (d & h & s)
    if three == 0:
        return _RUN_DEADWOOD[c] + _RUN_DEADWOOD[d] + _RUN_DEADWOOD[h] + _RUN_DEADWOOD[s]
    four = c & d & h & s
    capable = run_capable_nb(c) | run_capable_nb(d) | run_capable_nb(h) | run_capable_nb(s)
    fixed = three & ~capable
    # A set of cards in no possible run is always melded whole.
    c &= ~fixed
    d &= ~fixed
    h &= ~fixed
    s &= ~fixed
    branch = three & capable
    if branch == 0:
        return _RUN_DEADWOOD[c] + _RUN_DEADWOOD[d] + _RUN_DEADWOOD[h] + _RUN_DEADWOOD[s]
    combos = 1
    rest = branch
    while rest:
        bit = rest & -rest
        rest ^= bit
        combos *= 6 if four & bit else 2
    best = _BIG
    for combo in range(combos):
        rc, rd, rh, rs = c, d, h, s
        code = combo
        rest = branch
        while rest:
            bit = rest & -rest
            rest ^= bit
            if four & bit:
                option = code % 6
                code //= 6
                if option == 0:
                    continue
                # option 1: the 4-set; options 2 to 5: a 3-set leaving out suit option - 2
                if option != 2:
                    rc &= ~bit
                if option != 3:
                    rd &= ~bit
                if option != 4:
                    rh &= ~bit
                if option != 5:
                    rs &= ~bit
            else:
                option = code & 1
                code >>= 1
                if option:
                    rc &= ~bit
                    rd &= ~bit
                    rh &= ~bit
                    rs &= ~bit
        total = _RUN_DEADWOOD[rc] + _RUN_DEADWOOD[rd] + _RUN_DEADWOOD[rh] + _RUN_DEADWOOD[rs]
        if total < best:
            best = total
    return best


@njit(cache=True, nogil=True)
def min_deadwood_many_nb(hands, out, counter, block):
    """``out[i] = min_deadwood_nb(hands[i])`` for the blocks of ``i`` claimed from
    ``counter``; hands uint64[n], out int64[n]. One worker of ``min_deadwood_many_parallel``."""
    n = hands.shape[0]
    for i in claimed_nb(counter, block, n):
        out[i] = min_deadwood_nb(hands[i])


def min_deadwood_many_parallel(hands, out):
    """``min_deadwood_many_nb`` on every thread (``kernels/work.py``)."""
    run_workers(min_deadwood_many_nb, hands.shape[0], 4096, hands, out)


@njit(cache=True, _nrt=False)
def melds_with_card_nb(hand, card):
    """True when ``card`` is part of some meld made of it and cards of ``hand`` (R3)."""
    rank = card % N_RANKS
    suit = card // N_RANKS
    with_card = np.uint64(hand) | (np.uint64(1) << np.uint64(card))
    # The rank's cards counted with one popcount rather than four tests: the rollouts ask
    # this at every take decision, and unpredictable branches cost more than the count.
    if popcount_nb(with_card & _SAME_RANK[card]) >= 3:
        return True
    m = np.int64((with_card >> np.uint64(suit * N_RANKS)) & np.uint64(SUIT_MASK))
    return (run_capable_nb(m) >> rank) & 1 == 1


@njit(cache=True, inline="always")
def has_sets_nb(hand):
    """True when some rank has 3 or more cards in ``hand`` (a set is possible, R3)."""
    c, d, h, s = suit_masks_nb(np.uint64(hand))
    return ((c & d & h) | (c & d & s) | (c & h & s) | (d & h & s)) != 0


@njit(cache=True, _nrt=False)
def deadwood_without_nb(hand, card, whole, sets):
    """``min_deadwood_nb(hand & ~card's bit)``, given ``whole = min_deadwood_nb(hand)`` and
    ``sets = has_sets_nb(hand)``.

    A hand without a possible set has as its least deadwood the sum of its suits'
    run-only deadwoods (``min_deadwood_nb``'s first branch), and so has the hand less one
    card; only the card's suit's term changes: two lookups instead of an evaluation, the
    same number. Discards cost up to 11 of these per decision in every rollout."""
    if sets:
        return min_deadwood_nb(np.uint64(hand) & ~(np.uint64(1) << np.uint64(card)))
    suit = np.int64((np.uint64(hand) >> np.uint64((card // N_RANKS) * N_RANKS)) & SUIT_MASK)
    return whole - _RUN_DEADWOOD[suit] + _RUN_DEADWOOD[suit & ~(1 << (card % N_RANKS))]
