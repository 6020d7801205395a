"""Precomputed tables shared by the kernels and the plain-Python code (R1 to R3).

Only numpy here, so the numba kernels can import it. Everything is built at import
from first principles, never typed in by hand:

- ``CARD_VALUES[card]``: the value of each card (R2).
- ``MELDS``: every meld of 3 to 5 cards as a bitmask (sets of 3 or 4, runs of 3 to 5
  with the ace low and no wrap-around, R1, R3): 185 of them. Longer runs are unions
  of these and are not needed to enumerate arrangements.
- ``RUN_DEADWOOD[suit_mask]``: the least deadwood of the cards of one suit when only
  runs may be formed. Within one suit any block of 3 or more consecutive ranks is a
  single run, so the least deadwood is the value of the cards in blocks shorter
  than 3.
- ``SAME_RANK``, ``NEXT_TO``, ``WITHIN_TWO`` (card-indexed masks: the card's rank, the
  cards of its suit one rank away, one or two ranks away) and ``RUN_PARTNERS[card,
  window]`` (the cards x of the card's suit that make a 3-card run {card, x, y} with some
  y in ``window``, the held ranks r-2, r-1, r+1, r+2 of the card's rank r as bits 0, 1,
  3, 4): the strategies' discard terms (docs/strategies.md) as lookups.
"""

from __future__ import annotations

import numpy as np

N_RANKS = 13
N_SUITS = 4
N_CARDS = 52
SUIT_MASK = (1 << N_RANKS) - 1

CARD_VALUES = np.array([min(c % N_RANKS + 1, 10) for c in range(N_CARDS)], dtype=np.int64)
RANK_VALUES = CARD_VALUES[:N_RANKS].copy()


def _build_melds() -> np.ndarray:
    melds: list[int] = []
    for rank in range(N_RANKS):
        suits_bits = [1 << (s * N_RANKS + rank) for s in range(N_SUITS)]
        full = sum(suits_bits)
        melds.append(full)
        melds.extend(full & ~bit for bit in suits_bits)
    for suit in range(N_SUITS):
        for length in (3, 4, 5):
            for low in range(N_RANKS - length + 1):  # ace low: no run past the king (R1)
                run = ((1 << length) - 1) << low
                melds.append(run << (suit * N_RANKS))
    return np.array(sorted(melds), dtype=np.uint64)


def run_only_deadwood(suit_mask: int) -> int:
    """Least deadwood of one suit's cards (13-bit mask) when only runs are allowed."""
    total = 0
    rank = 0
    while rank < N_RANKS:
        if suit_mask >> rank & 1:
            start = rank
            while rank < N_RANKS and suit_mask >> rank & 1:
                rank += 1
            if rank - start < 3:
                total += int(RANK_VALUES[start:rank].sum())
        else:
            rank += 1
    return total


MELDS = _build_melds()
RUN_DEADWOOD = np.array([run_only_deadwood(m) for m in range(1 << N_RANKS)], dtype=np.int64)


def _cards(mask: int) -> list[int]:
    return [card for card in range(N_CARDS) if mask >> card & 1]


def _masks_by_distance(low: int, high: int) -> np.ndarray:
    """For each card, the cards of its suit whose rank differs by ``low`` to ``high``."""
    return np.array(
        [
            sum(
                1 << other
                for other in range(N_CARDS)
                if other // N_RANKS == card // N_RANKS
                and low <= abs(other % N_RANKS - card % N_RANKS) <= high
            )
            for card in range(N_CARDS)
        ],
        dtype=np.uint64,
    )


def _run_partners() -> np.ndarray:
    """``RUN_PARTNERS``, from the 3-card runs among ``MELDS`` (three cards, three ranks)."""
    runs = [_cards(int(m)) for m in MELDS]
    runs = [run for run in runs if len({card % N_RANKS for card in run}) == 3]
    table = np.zeros((N_CARDS, 32), dtype=np.uint64)
    for card in range(N_CARDS):
        rank = card % N_RANKS
        for window in range(32):
            held = {rank + bit - 2 for bit in (0, 1, 3, 4) if window >> bit & 1}
            for run in runs:
                if card not in run:
                    continue
                x, y = (other for other in run if other != card)
                for wanted, partner in ((x, y), (y, x)):
                    if partner % N_RANKS in held:
                        table[card, window] |= np.uint64(1 << wanted)
    return table


SAME_RANK = np.array(
    [
        sum(1 << (suit * N_RANKS + card % N_RANKS) for suit in range(N_SUITS))
        for card in range(N_CARDS)
    ],
    dtype=np.uint64,
)
NEXT_TO = _masks_by_distance(1, 1)
WITHIN_TWO = _masks_by_distance(1, 2)
RUN_PARTNERS = _run_partners()
