"""Melds, deadwood, arrangements and layoffs in plain Python (R1 to R4, R15, R16).

This is the readable oracle that the numba kernels are tested against: every result
comes from an exhaustive search that follows the rules literally, never from a
shortcut table. A hand is a bitmask of card indices (``gin_sim.game.cards``).

The search order is "rank-major": the lowest card of a hand is its card of lowest
rank, and among those the one of lowest suit (C, D, H, S). The lowest card of a hand
is either unmatched or the lowest card of the meld that holds it: a set of its rank
in which it has the lowest suit, or a run that starts at it. Going rank by rank keeps
the number of distinct sub-hands small even for a whole deck, which the memo needs.

>>> from gin_sim.game.cards import parse_cards
>>> hand = parse_cards("AS 2S 3S 4H 4D 4C 9H TH JH QS")
>>> min_deadwood_exhaustive(hand)
10
>>> print(best_arrangement(hand).describe())
[4C 4D 4H] [AS 2S 3S] [9H TH JH] | QS (deadwood 10)
"""

from __future__ import annotations

import itertools
import numbers
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal, overload

from gin_sim.game.cards import FULL_DECK, N_CARDS, N_RANKS, N_SUITS, card_index, format_cards
from gin_sim.game.limits import check_hand_size
from gin_sim.kernels.tables import MELDS

__all__ = [
    "Arrangement",
    "all_arrangements",
    "best_arrangement",
    "defender_result",
    "knocker_arrangement",
    "layoff_spots",
    "min_deadwood_exhaustive",
]

_CARD_VALUE: tuple[int, ...] = tuple(min(c % N_RANKS + 1, 10) for c in range(N_CARDS))  # R2
_RANK_FOLD = (1 << N_RANKS) - 1
# Bit 0 of each suit: shifted left by a rank it selects that rank's four cards.
_RANK_COLUMN = sum(1 << (suit * N_RANKS) for suit in range(N_SUITS))
# Sub-hands of the deadwood search to remember. The hits come mostly from within one hand
# of play (the 11 discard candidates of a turn, the next turn's hand), so a modest size is
# as fast as a huge one: 2**20 entries would cost about 300 MB per process, this ~15 MB.
_MEMO_SIZE = 1 << 16


def _check_hand(hand: object, name: str = "hand") -> int:
    """The hand as a plain int, or ValueError naming what is wrong with it."""
    if type(hand) is int and 0 <= hand <= FULL_DECK:  # the common case, checked fast
        return hand
    if isinstance(hand, bool) or not isinstance(hand, numbers.Integral):
        raise ValueError(
            f"{name} must be an int bitmask of card indices, got {type(hand).__name__} {hand!r}"
        )
    value = int(hand)
    if not 0 <= value <= FULL_DECK:
        raise ValueError(f"{name} {value:#x} has bits outside the 52 cards: allowed 0 to 2**52-1")
    return value


def _lowest_card(hand: int) -> int:
    """The card of lowest rank, then lowest suit, in a non-empty hand."""
    folded = (hand | hand >> N_RANKS | hand >> 2 * N_RANKS | hand >> 3 * N_RANKS) & _RANK_FOLD
    rank = (folded & -folded).bit_length() - 1
    column = hand >> rank & _RANK_COLUMN
    return rank + (column & -column).bit_length() - 1


def _rank_major_lead(cards: int) -> tuple[int, int]:
    """(rank, suit) of the lowest card, for ordering melds by rank."""
    card = _lowest_card(cards)
    return card % N_RANKS, card // N_RANKS


def _ranks_of(cards: int) -> int:
    """13-bit mask of the ranks present in ``cards``."""
    return (cards | cards >> N_RANKS | cards >> 2 * N_RANKS | cards >> 3 * N_RANKS) & _RANK_FOLD


def _is_set(meld: int) -> bool:
    """A meld of one rank is a set; a run spans three or more ranks (R3)."""
    return _ranks_of(meld).bit_count() == 1


def _run_bounds(run: int) -> tuple[int, int, int]:
    """(suit, lowest rank, highest rank) of a run."""
    suit = ((run & -run).bit_length() - 1) // N_RANKS
    ranks = _ranks_of(run)
    return suit, (ranks & -ranks).bit_length() - 1, ranks.bit_length() - 1


def _value(cards: int) -> int:
    total = 0
    while cards:
        low = cards & -cards
        total += _CARD_VALUE[low.bit_length() - 1]
        cards ^= low
    return total


def _melds_led_by(card: int, longest_run: int) -> tuple[int, ...]:
    """Melds whose lowest card (rank-major) is ``card``: sets of its rank in which it has
    the lowest suit, and runs of 3 to ``longest_run`` cards starting at it (no wrap, R1)."""
    rank, suit = card % N_RANKS, card // N_RANKS
    melds: list[int] = []
    for size in (3, 4):
        for suits in itertools.combinations(range(suit, N_SUITS), size):
            if suits[0] == suit:
                melds.append(sum(1 << card_index(rank, s) for s in suits))
    for length in range(3, longest_run + 1):
        if rank + length <= N_RANKS:
            melds.append(sum(1 << card_index(rank + i, suit) for i in range(length)))
    return tuple(melds)


def _group_by_lead(melds: list[int]) -> tuple[tuple[int, ...], ...]:
    groups: list[list[int]] = [[] for _ in range(N_CARDS)]
    for meld in sorted(melds):
        groups[_lowest_card(meld)].append(meld)
    return tuple(tuple(group) for group in groups)


# tables.MELDS (every meld of 3 to 5 cards) grouped by lead card, for the deadwood search.
_SHORT_MELDS_LED_BY = _group_by_lead([int(m) for m in MELDS])
# With runs of any length, for listing arrangements (a 7-card run is one meld there).
_ALL_MELDS_LED_BY = _group_by_lead(
    [m for card in range(N_CARDS) for m in _melds_led_by(card, N_RANKS)]
)
assert all(
    set(short) == {m for m in every if m.bit_count() <= 5}
    for short, every in zip(_SHORT_MELDS_LED_BY, _ALL_MELDS_LED_BY, strict=True)
), "tables.MELDS must be exactly the melds of 3 to 5 cards"


@lru_cache(maxsize=_MEMO_SIZE)
def _min_deadwood(hand: int) -> int:
    if not hand:
        return 0
    # The lowest card (as _lowest_card, inlined with literal shifts: this is the hot loop
    # of the reference engine).
    folded = (hand | hand >> 13 | hand >> 26 | hand >> 39) & _RANK_FOLD
    rank = (folded & -folded).bit_length() - 1
    column = hand >> rank & _RANK_COLUMN
    card = rank + (column & -column).bit_length() - 1
    # Either the lowest card is unmatched ...
    best = _CARD_VALUE[card] + _min_deadwood(hand & ~(1 << card))
    # ... or it leads one of the melds inside the hand. Runs longer than 5 need no meld of
    # their own: they split into runs of 3 to 5 with the same deadwood.
    for meld in _SHORT_MELDS_LED_BY[card]:
        if best == 0:
            break
        if hand & meld == meld:
            best = min(best, _min_deadwood(hand & ~meld))
    return best


def min_deadwood_exhaustive(hand: int) -> int:
    """The least deadwood of ``hand`` over all its arrangements (R4), by exhaustive search.

    Works for any number of cards (0 to 52). Sub-hands are memoised.

    >>> from gin_sim.game.cards import parse_cards
    >>> min_deadwood_exhaustive(parse_cards("4C 4D 4H 4S 5S 6S"))  # 4S in the run
    0
    >>> min_deadwood_exhaustive(parse_cards("QS KS AS"))  # no wrap-around (R1)
    21
    """
    return _min_deadwood(_check_hand(hand))


@dataclass(frozen=True)
class Arrangement:
    """One way to lay out a hand: its melds (card masks, ascending) and unmatched cards.

    ``melds`` are card masks (bit ``c`` for card index ``c``), ``unmatched`` the mask of the
    cards in no meld, and ``deadwood`` the count of those cards (R4). ``describe()`` writes
    it as a person would; ``best_arrangement`` gives one.

    Examples:
        >>> from gin_sim import best_arrangement, parse_cards
        >>> arrangement = best_arrangement(parse_cards("AS 2S 3S 4H 4D 4C 9H TH JH QS"))
        >>> arrangement.deadwood, len(arrangement.melds)
        (10, 3)
    """

    melds: tuple[int, ...]
    unmatched: int
    deadwood: int

    @property
    def cards(self) -> int:
        """All cards of the arranged hand."""
        total = self.unmatched
        for meld in self.melds:
            total |= meld
        return total

    @property
    def set_mask(self) -> int:
        """The cards that lie in sets (R16's tie rule compares this mask)."""
        mask = 0
        for meld in self.melds:
            if _is_set(meld):
                mask |= meld
        return mask

    def describe(self) -> str:
        """Melds in brackets (sets first, then runs), then the unmatched cards."""
        sets = [m for m in self.melds if _is_set(m)]
        runs = [m for m in self.melds if not _is_set(m)]
        parts = [f"[{format_cards(m)}]" for m in sorted(sets, key=_rank_major_lead)]
        parts += [f"[{format_cards(m)}]" for m in sorted(runs, key=_rank_major_lead)]
        text = " ".join(parts)
        if self.unmatched:
            text = f"{text} | {format_cards(self.unmatched)}".strip()
        return f"{text} (deadwood {self.deadwood})"


def _optimal_partitions(hand: int) -> list[tuple[tuple[int, ...], int]]:
    """Every partition of ``hand`` into melds and unmatched cards with least deadwood.

    Branches as in ``_min_deadwood`` but with runs of any length, keeping only branches
    that can still reach the least deadwood; each partition is produced exactly once.
    """
    if not hand:
        return [((), 0)]
    target = _min_deadwood(hand)
    card = _lowest_card(hand)
    bit = 1 << card
    out: list[tuple[tuple[int, ...], int]] = []
    rest = hand & ~bit
    if _CARD_VALUE[card] + _min_deadwood(rest) == target:
        out.extend((melds, unmatched | bit) for melds, unmatched in _optimal_partitions(rest))
    for meld in _ALL_MELDS_LED_BY[card]:
        if hand & meld == meld and _min_deadwood(hand & ~meld) == target:
            out.extend(
                ((meld, *melds), unmatched)
                for melds, unmatched in _optimal_partitions(hand & ~meld)
            )
    return out


def all_arrangements(hand: int) -> list[Arrangement]:
    """Every arrangement of ``hand`` with the least deadwood (R4).

    Distinct partitions into melds count separately: a set chosen from four cards of a
    rank, and each split of a long run into runs of 3 or more. The number grows fast with
    the hand's size; it is meant for hands of about 10 or 11 cards, and hands of more than
    ``MAX_HAND_CARDS`` (16) cards are refused (``ValueError``).

    >>> from gin_sim.game.cards import parse_cards
    >>> [a.describe() for a in all_arrangements(parse_cards("AC 2C 3C 4C 5C 6C"))]
    ['[AC 2C 3C 4C 5C 6C] (deadwood 0)', '[AC 2C 3C] [4C 5C 6C] (deadwood 0)']
    """
    hand = check_hand_size(_check_hand(hand))
    deadwood = _min_deadwood(hand)
    arrangements = [
        Arrangement(tuple(sorted(melds)), unmatched, deadwood)
        for melds, unmatched in _optimal_partitions(hand)
    ]
    return sorted(arrangements, key=_canonical_key)


def _canonical_key(arrangement: Arrangement) -> tuple[int, int, tuple[int, ...]]:
    # docs/engine.md: smallest mask of set cards, then runs as long as possible (fewest
    # melds); the meld masks only make the order total.
    return arrangement.set_mask, len(arrangement.melds), arrangement.melds


@overload
def best_arrangement(hand: int, all: Literal[False] = False) -> Arrangement: ...
@overload
def best_arrangement(hand: int, all: Literal[True]) -> list[Arrangement]: ...
def best_arrangement(hand: int, all: bool = False) -> Arrangement | list[Arrangement]:
    """The canonical least-deadwood arrangement of ``hand``, or all of them with ``all=True``.

    Canonical: the numerically smallest mask of cards in sets, then the fewest melds
    (every block of consecutive run cards is one run).

    Examples:
        >>> from gin_sim.game.cards import parse_cards
        >>> print(best_arrangement(parse_cards("4C 4D 4H 4S 5S 6S 2H 3H")).describe())
        [4C 4D 4H] [4S 5S 6S] | 2H 3H (deadwood 5)
    """
    arrangements = all_arrangements(hand)
    return arrangements if all else arrangements[0]


def layoff_spots(arrangement: Arrangement, seen: int) -> int:
    """R16: the distinct unseen cards that could be laid off directly on the melds.

    A spot is the missing fourth card of a 3-card set or the card just beyond either end of
    a run (none below the ace or above the king, R1), unless it is in ``seen`` or among
    the arranged cards themselves. Returns a card mask.

    >>> from gin_sim.game.cards import format_cards, parse_cards
    >>> a = best_arrangement(parse_cards("5H 6H 7H 9C 9D 9S"))
    >>> format_cards(layoff_spots(a, seen=parse_cards("8H")))
    '4H 9H'
    """
    seen = _check_hand(seen, "seen")
    candidates = 0
    for meld in arrangement.melds:
        if _is_set(meld):
            if meld.bit_count() == 3:
                rank = _lowest_card(meld) % N_RANKS
                candidates |= (_RANK_COLUMN << rank) & ~meld
        else:
            suit, low, high = _run_bounds(meld)
            if low > 0:
                candidates |= 1 << card_index(low - 1, suit)
            if high < N_RANKS - 1:
                candidates |= 1 << card_index(high + 1, suit)
    return candidates & ~seen & ~arrangement.cards


def _spot_key(arrangement: Arrangement, seen: int) -> tuple[int, int, int, tuple[int, ...]]:
    return layoff_spots(arrangement, seen).bit_count(), *_canonical_key(arrangement)


def knocker_arrangement(hand10: int, seen: int) -> Arrangement:
    """R16: the knocker's arrangement among those of least deadwood.

    The fewest layoff spots (``layoff_spots``; ``seen`` is what the knocker has seen: the
    discard pile, and its own cards, which are added if missing), then the canonical tie
    rules of ``best_arrangement``: smallest mask of set cards, then the fewest melds.

    >>> from gin_sim.game.cards import parse_cards
    >>> hand = parse_cards("4C 4D 4H 4S 2H 3H 2S 3S AC AD")
    >>> print(knocker_arrangement(hand, seen=hand).describe())  # 2 spots either way
    [4C 4D 4H] [2S 3S 4S] | AC AD 2H 3H (deadwood 7)
    >>> print(knocker_arrangement(hand, seen=hand | parse_cards("5H")).describe())
    [4C 4D 4S] [2H 3H 4H] | AC AD 2S 3S (deadwood 7)
    """
    hand10 = _check_hand(hand10, "hand10")
    seen = _check_hand(seen, "seen") | hand10
    return min(all_arrangements(hand10), key=lambda a: _spot_key(a, seen))


def _layoff_choices(defender: int, knocker: Arrangement) -> list[list[int]]:
    """For each place on the knocker's melds, the card masks the defender could lay off
    there (R15): nothing or the fourth card of a 3-card set; nothing or a chain of 1, 2, ...
    consecutive cards beyond a run's end, each extending the run as laid off so far."""
    choices: list[list[int]] = []
    for meld in knocker.melds:
        if _is_set(meld):
            if meld.bit_count() == 3:
                rank = _lowest_card(meld) % N_RANKS
                fourth = (_RANK_COLUMN << rank) & ~meld
                if defender & fourth:
                    choices.append([0, fourth])
            continue
        suit, low, high = _run_bounds(meld)
        for step, start, stop in ((-1, low - 1, -1), (1, high + 1, N_RANKS)):
            chain = [0]
            for rank in range(start, stop, step):
                bit = 1 << card_index(rank, suit)
                if not defender & bit:
                    break
                chain.append(chain[-1] | bit)
            if len(chain) > 1:
                choices.append(chain)
    return choices


def defender_layoffs(defender_hand: int, knocker_arrangement: Arrangement) -> tuple[int, int, int]:
    """R15, R16: the defender's melds and layoffs chosen jointly, exactly.

    Every legal layoff set ``L`` is a union of one choice per place (``_layoff_choices``);
    the final deadwood is the least, over all ``L``, of the least deadwood of the
    defender's other cards. Returns ``(final_deadwood, laid_off_points, laid_off)``:
    among the layoff sets reaching that deadwood, the one of least value laid off (the
    numerically smallest mask among those). After gin there are no layoffs: do not call
    this then.

    >>> from gin_sim.game.cards import parse_cards, format_cards
    >>> knocker = best_arrangement(parse_cards("5H 6H 7H 9C 9D 9S KC KD QC JC"))
    >>> final, points, laid = defender_layoffs(parse_cards("8H 9H 2C 2D"), knocker)
    >>> final, points, format_cards(laid)  # 8H, then 9H beyond it
    (4, 17, '8H 9H')
    """
    defender_hand = _check_hand(defender_hand, "defender_hand")
    if defender_hand & knocker_arrangement.cards:
        raise ValueError(
            "defender_hand shares cards with the knocker's arrangement: "
            + format_cards(defender_hand & knocker_arrangement.cards)
        )
    best: tuple[int, int, int] | None = None
    for picks in itertools.product(*_layoff_choices(defender_hand, knocker_arrangement)):
        laid_off = 0
        for pick in picks:
            laid_off |= pick  # chains of two runs may meet: a card is laid off once
        outcome = (_min_deadwood(defender_hand & ~laid_off), _value(laid_off), laid_off)
        if best is None or outcome < best:
            best = outcome
    assert best is not None  # the product always holds the empty layoff set
    return best


def defender_result(defender_hand: int, knocker_arrangement: Arrangement) -> tuple[int, int]:
    """``(final_deadwood, laid_off_points)`` of ``defender_layoffs``.

    >>> from gin_sim.game.cards import parse_cards
    >>> knocker = best_arrangement(parse_cards("5H 6H 7H 9C 9D 9S KC KD QC JC"))
    >>> defender_result(parse_cards("8H 9H 2C 2D"), knocker)  # 8H, then 9H beyond it
    (4, 17)
    """
    final, points, _ = defender_layoffs(defender_hand, knocker_arrangement)
    return final, points
