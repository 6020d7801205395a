"""Melds, deadwood, arrangements, layoff spots and layoffs (R1 to R4, R15, R16).

``gin_sim.game.melds`` is the oracle for the kernels, so it is checked here against known hands
worked out by hand and against deliberately naive brute-force searches written
independently in this file (every collection of disjoint melds; every subset of the
defender's cards, replayed card by card to see whether it can be laid off).
"""

from __future__ import annotations

import itertools
import random
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from gin_sim.game.cards import FULL_DECK, card_index, card_value, format_cards, parse_cards
from gin_sim.game.melds import (
    Arrangement,
    all_arrangements,
    best_arrangement,
    defender_result,
    knocker_arrangement,
    layoff_spots,
    min_deadwood_exhaustive,
)
from gin_sim.kernels.tables import MELDS, RUN_DEADWOOD

# ------------------------------------------------------------- independent brute force


def value(cards: int) -> int:
    return sum(card_value(c) for c in range(52) if cards >> c & 1)


def rank_of(card: int) -> int:
    return card % 13


def is_valid_meld(meld: int) -> bool:
    """R3 from scratch: 3 or 4 cards of one rank, or 3+ consecutive ranks of one suit."""
    cards = [c for c in range(52) if meld >> c & 1]
    if len({rank_of(c) for c in cards}) == 1:
        return len(cards) in (3, 4)
    if len({c // 13 for c in cards}) != 1 or len(cards) < 3:
        return False
    ranks = sorted(rank_of(c) for c in cards)
    return ranks == list(range(ranks[0], ranks[0] + len(ranks)))  # ace low, no wrap (R1)


def melds_inside(hand: int) -> list[int]:
    """Every meld (any run length) whose cards are all in ``hand``."""
    found = []
    for rank in range(13):
        present = [card_index(rank, s) for s in range(4) if hand >> card_index(rank, s) & 1]
        for size in (3, 4):
            for combo in itertools.combinations(present, size):
                found.append(sum(1 << c for c in combo))
    for suit in range(4):
        for low in range(13):
            for high in range(low + 2, 13):
                run = sum(1 << card_index(r, suit) for r in range(low, high + 1))
                if hand & run == run:
                    found.append(run)
    return found


def brute_partitions(hand: int) -> list[tuple[frozenset[int], int]]:
    """Every collection of disjoint melds in ``hand``, with its deadwood."""
    melds = melds_inside(hand)
    out = []

    def extend(start: int, used: int, chosen: list[int]) -> None:
        out.append((frozenset(chosen), value(hand & ~used)))
        for i in range(start, len(melds)):
            if not melds[i] & used:
                extend(i + 1, used | melds[i], [*chosen, melds[i]])

    extend(0, 0, [])
    return out


def brute_min_deadwood(hand: int) -> int:
    return min(d for _, d in brute_partitions(hand))


def brute_spots(melds: frozenset[int], seen: int) -> int:
    spots = 0
    for meld in melds:
        cards = [c for c in range(52) if meld >> c & 1]
        if len({rank_of(c) for c in cards}) == 1:
            if len(cards) == 3:
                spots |= sum(1 << card_index(rank_of(cards[0]), s) for s in range(4)) & ~meld
        else:
            suit = cards[0] // 13
            low, high = rank_of(cards[0]), rank_of(cards[-1])
            if low > 0:
                spots |= 1 << card_index(low - 1, suit)
            if high < 12:
                spots |= 1 << card_index(high + 1, suit)
    return spots & ~seen


def brute_set_mask(melds: frozenset[int]) -> int:
    mask = 0
    for meld in melds:
        if len({rank_of(c) for c in range(52) if meld >> c & 1}) == 1:
            mask |= meld
    return mask


def can_lay_off_all(cards: int, knocker_melds: tuple[int, ...]) -> bool:
    """R15 replayed: can every card of ``cards`` be laid off, one at a time, each onto a
    knocker meld as it stands then (a set of three takes its fourth card; a run takes the
    card beyond either end, including ends made by earlier layoffs)?"""

    @cache
    def search(left: int, melds: tuple[int, ...]) -> bool:
        if not left:
            return True
        for c in range(52):
            if not left >> c & 1:
                continue
            for i, meld in enumerate(melds):
                grown = meld | 1 << c
                fits = is_valid_meld(grown) and grown.bit_count() == meld.bit_count() + 1
                if fits and search(left & ~(1 << c), (*melds[:i], grown, *melds[i + 1 :])):
                    return True
        return False

    return search(cards, knocker_melds)


def brute_defender(defender: int, knocker_melds: tuple[int, ...]) -> tuple[int, int]:
    cards = [c for c in range(52) if defender >> c & 1]
    best = None
    for size in range(len(cards) + 1):
        for combo in itertools.combinations(cards, size):
            laid = sum(1 << c for c in combo)
            if can_lay_off_all(laid, knocker_melds):
                outcome = (brute_min_deadwood(defender & ~laid), value(laid))
                best = outcome if best is None or outcome < best else best
    assert best is not None
    return best


def random_hand(rng: random.Random, size: int, pool: list[int] | None = None) -> int:
    return sum(1 << c for c in rng.sample(pool if pool is not None else range(52), size))


def meld_rich_pool(rng: random.Random) -> list[int]:
    """A few suits and neighbouring ranks, so that sets, runs and layoffs compete."""
    suits = rng.sample(range(4), rng.choice([2, 3, 4]))
    low = rng.randrange(0, 7)
    return [card_index(r, s) for s in suits for r in range(low, low + 7)]


# ------------------------------------------------------------------- the meld table


def test_meld_table_has_185_melds_without_wraparound() -> None:
    melds = [int(m) for m in MELDS]
    assert len(melds) == 185 == len(set(melds))
    assert all(is_valid_meld(m) for m in melds)
    sets = [m for m in melds if len({rank_of(c) for c in range(52) if m >> c & 1}) == 1]
    assert len(sets) == 13 * 5  # per rank: four sets of three, one of four
    assert len(melds) - len(sets) == 4 * (11 + 10 + 9)  # runs of 3, 4, 5 per suit
    # R1: the ace is low; Q-K-A and K-A-2 are not runs
    for wrap in ("QS KS AS", "KH AH 2H", "JD QD KD AD"):
        assert parse_cards(wrap) not in melds
        assert not is_valid_meld(parse_cards(wrap))
    assert parse_cards("AS 2S 3S") in melds
    assert parse_cards("JD QD KD") in melds


# --------------------------------------------------------------- minimum deadwood


@pytest.mark.parametrize(
    ("cards", "deadwood"),
    [
        # AS 2S 3S (run, ace low), 4H 4D 4C (set), 9H TH JH (run); QS is left: 10.
        ("AS 2S 3S 4H 4D 4C 9H TH JH QS", 10),
        ("AC 2C 3C", 0),  # R1: ace low
        ("QS KS AS", 21),  # R1: no Q-K-A
        ("KH AH 2H", 13),  # R1: no K-A-2
        ("JD QD KD", 0),
        ("AH 2H 4H 5H", 12),
        ("2C 3C 4C 5C 6C 7C 8C", 0),  # a run longer than 5
        ("7C 7D 7H 8H 9H 7S", 0),  # 7C 7D 7S and 7H 8H 9H
        ("4C 4D 4H 4S 5S 6S", 0),  # 4C 4D 4H and 4S 5S 6S
        ("4C 4D 4H 4S 5S 6S 2H 3H", 5),
        ("4C 4D 4H 4S 2H 3H 2S 3S AC AD", 7),
        ("AC AD AH AS KC KD KH KS", 0),
        ("KC KD QH", 30),
        ("", 0),
    ],
)
def test_known_hands(cards: str, deadwood: int) -> None:
    hand = parse_cards(cards)
    assert min_deadwood_exhaustive(hand) == deadwood
    assert brute_min_deadwood(hand) == deadwood


def test_whole_deck_and_large_hands() -> None:
    assert min_deadwood_exhaustive(FULL_DECK) == 0
    assert min_deadwood_exhaustive(FULL_DECK & ~parse_cards("AC")) == 0
    # The whole deck but all the 7s: the suits split into A-6 and 8-K runs.
    assert min_deadwood_exhaustive(FULL_DECK & ~parse_cards("7C 7D 7H 7S")) == 0
    # Only even ranks (2 4 6 8 T Q) and kings: four of each rank make sets, nothing else.
    evens = parse_cards(" ".join(f"{r}{s}" for r in "2468TQK" for s in "CDHS"))
    assert min_deadwood_exhaustive(evens) == 0
    # Two cards of every rank: no set, and runs of the two suits cover everything.
    two_suits = parse_cards(" ".join(f"{r}{s}" for r in "A23456789TJQK" for s in "CH"))
    assert min_deadwood_exhaustive(two_suits) == 0
    # Alternating ranks in two suits, one card of each rank: nothing melds.
    scattered = parse_cards("AC 3C 5C 7C 9C JC KC 2H 4H 6H 8H TH QH")
    assert min_deadwood_exhaustive(scattered) == value(scattered)


def test_run_table_against_exhaustive_search_in_every_suit() -> None:
    """RUN_DEADWOOD (runs only) equals the full search on any one suit's cards."""
    for suit in range(4):
        for mask in range(1 << 13):
            assert min_deadwood_exhaustive(mask << (13 * suit)) == RUN_DEADWOOD[mask]


def test_against_brute_force_on_seeded_hands() -> None:
    rng = random.Random(4)
    for _ in range(300):
        size = rng.choice([0, 1, 3, 5, 8, 10, 11, 12])
        hand = random_hand(rng, size, meld_rich_pool(rng) if rng.random() < 0.7 else None)
        assert min_deadwood_exhaustive(hand) == brute_min_deadwood(hand), format_cards(hand)


@settings(max_examples=200, deadline=None)
@given(st.sets(st.integers(0, 51), max_size=11))
def test_property_against_brute_force(cards: set[int]) -> None:
    hand = sum(1 << c for c in cards)
    assert min_deadwood_exhaustive(hand) == brute_min_deadwood(hand)


@pytest.mark.parametrize("bad", [-1, 1 << 52, 1 << 60, "AS", 1.5, True, None])
def test_bad_hands_are_rejected(bad: object) -> None:
    with pytest.raises(ValueError, match="hand"):
        min_deadwood_exhaustive(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="hand"):
        best_arrangement(bad)  # type: ignore[arg-type]


# ------------------------------------------------------------------- arrangements


def check_arrangement(arrangement: Arrangement, hand: int) -> None:
    union = arrangement.unmatched
    for meld in arrangement.melds:
        assert is_valid_meld(meld)
        assert not union & meld
        union |= meld
    assert union == hand == arrangement.cards
    assert arrangement.deadwood == value(arrangement.unmatched)


def test_a_rank_of_four_split_between_a_set_and_a_run() -> None:
    hand = parse_cards("4C 4D 4H 4S 5S 6S 2H 3H")
    best = best_arrangement(hand)
    assert set(best.melds) == {parse_cards("4C 4D 4H"), parse_cards("4S 5S 6S")}
    assert best.unmatched == parse_cards("2H 3H") and best.deadwood == 5
    check_arrangement(best, hand)


def test_all_arrangements_of_an_ambiguous_hand() -> None:
    hand = parse_cards("4C 4D 4H 4S 2H 3H 2S 3S AC AD")
    arrangements = all_arrangements(hand)
    assert {frozenset(a.melds) for a in arrangements} == {
        frozenset({parse_cards("4C 4D 4S"), parse_cards("2H 3H 4H")}),
        frozenset({parse_cards("4C 4D 4H"), parse_cards("2S 3S 4S")}),
    }
    assert all(a.deadwood == 7 for a in arrangements)
    # the canonical one: the smaller mask of set cards (4H is below 4S)
    assert best_arrangement(hand).set_mask == parse_cards("4C 4D 4H")
    assert best_arrangement(hand, all=True) == arrangements


def test_long_runs_split_every_way() -> None:
    # a 9-card run: 9, 3+6, 6+3, 4+5, 5+4, 3+3+3
    hand = parse_cards("AC 2C 3C 4C 5C 6C 7C 8C 9C")
    arrangements = all_arrangements(hand)
    sizes = sorted(tuple(m.bit_count() for m in sorted(a.melds)) for a in arrangements)
    assert sizes == sorted([(9,), (3, 6), (6, 3), (4, 5), (5, 4), (3, 3, 3)])
    assert best_arrangement(hand).melds == (hand,)  # the fewest melds: one run


def test_set_choices_are_listed() -> None:
    # KC KD KH KS with JS QS: the spade king goes to the run, or the run is not made
    hand = parse_cards("KC KD KH KS QS JS 9H 9D 9C")
    arrangements = all_arrangements(hand)
    assert [a.describe() for a in arrangements] == [
        "[9C 9D 9H] [KC KD KH] [JS QS KS] (deadwood 0)",
    ]
    hand = parse_cards("7C 7D 7H 7S 5H 6H 5S 6S")  # the 7H or the 7S runs: 11 either way
    assert len(all_arrangements(hand)) == 2


def test_all_arrangements_against_brute_force() -> None:
    rng = random.Random(11)
    for _ in range(150):
        hand = random_hand(rng, rng.choice([6, 9, 10, 11]), meld_rich_pool(rng))
        partitions = brute_partitions(hand)
        least = min(d for _, d in partitions)
        expected = {melds for melds, d in partitions if d == least}
        arrangements = all_arrangements(hand)
        assert {frozenset(a.melds) for a in arrangements} == expected
        assert len(arrangements) == len(expected)  # each partition once
        for arrangement in arrangements:
            check_arrangement(arrangement, hand)
        canonical = min(arrangements, key=lambda a: (a.set_mask, len(a.melds)))
        assert best_arrangement(hand).melds == canonical.melds


# -------------------------------------------------------------- R16: layoff spots


def test_layoff_spots() -> None:
    def spots(cards: str, seen: str = "") -> str:
        return format_cards(layoff_spots(best_arrangement(parse_cards(cards)), parse_cards(seen)))

    assert spots("AS 2S 3S") == "4S"  # nothing below the ace (R1)
    assert spots("JH QH KH") == "TH"  # nothing above the king (R1)
    assert spots("5D 6D 7D 8D") == "4D 9D"
    assert spots("9C 9D 9S") == "9H"  # the missing fourth card
    assert spots("9C 9D 9H 9S") == ""  # a set of four takes nothing
    assert spots("5H 6H 7H 8C 8D 8S") == "4H 8H"  # 8H counted once (distinct cards)
    assert spots("5H 6H 7H 8C 8D 8S", seen="4H") == "8H"  # seen cards are no spots
    assert spots("5H 6H 7H 8C 8D 8S 9H TH JH") == "4H 8H QH"  # 8H once for three melds
    assert spots("4H 5H 6H 7H 8H 8C 8D") == "3H 8S"  # 8H, beyond 7H, is in the set
    with pytest.raises(ValueError, match="seen"):
        layoff_spots(best_arrangement(0), -1)


def test_knocker_arrangement_prefers_fewest_spots() -> None:
    hand = parse_cards("4C 4D 4H 4S 2H 3H 2S 3S AC AD")
    # both offer two spots: the smaller set mask (4C 4D 4H, with the spades run) wins
    tie = knocker_arrangement(hand, seen=parse_cards("KC"))
    assert tie.set_mask == parse_cards("4C 4D 4H")
    # 5S seen: the spades run offers AS only, the hearts run AH and 5H
    assert knocker_arrangement(hand, seen=parse_cards("5S")).set_mask == parse_cards("4C 4D 4H")
    # 5H seen: now the hearts run offers fewer, so its set (4C 4D 4S) is laid out
    fewer = knocker_arrangement(hand, seen=parse_cards("5H"))
    assert fewer.set_mask == parse_cards("4C 4D 4S")
    assert fewer.melds == tuple(sorted([parse_cards("4C 4D 4S"), parse_cards("2H 3H 4H")]))
    # only least-deadwood arrangements are candidates, however many spots they offer
    assert all(knocker_arrangement(hand, s).deadwood == 7 for s in (0, parse_cards("5H AH")))


def test_knocker_arrangement_against_brute_force() -> None:
    rng = random.Random(12)
    for _ in range(200):
        pool = meld_rich_pool(rng)
        hand = random_hand(rng, 10, pool)
        seen = hand | random_hand(rng, 4, [c for c in range(52) if not hand >> c & 1])
        partitions = brute_partitions(hand)
        least = min(d for _, d in partitions)
        best = min(
            (brute_spots(m, seen).bit_count(), brute_set_mask(m), len(m))
            for m, d in partitions
            if d == least
        )
        chosen = knocker_arrangement(hand, seen)
        got = (layoff_spots(chosen, seen).bit_count(), chosen.set_mask, len(chosen.melds))
        assert got == best, format_cards(hand)


# ---------------------------------------------------------- R15, R16: the defender


def knocker(cards: str) -> Arrangement:
    return best_arrangement(parse_cards(cards))


@pytest.mark.parametrize(
    ("knocker_cards", "defender_cards", "expected"),
    [
        # a chain: 8H on 7H, then 9H on the 8H just laid off
        ("5H 6H 7H 2C 2D 2S KC KD KS AD", "8H 9H 4C 7C JS QD 5S 3S TD AC", (50, 17)),
        # laying off 8H and 7H from a set of four, keeping 8C 8D 8S, beats melding first
        ("9H TH JH QC QD QS 2C 3C 4C AS", "8C 8D 8H 8S 7H KC KD 6S 4D 2H", (32, 15)),
        # 8S stays in the defender's own run rather than going on the knocker's 8s
        ("8C 8D 8H 3H 4H 5H JC QC KC AD", "8S 9S TS 2D 4C 6D KD QS 5C AH", (38, 0)),
        # own run or layoffs reach the same 30: the least value is laid off (none)
        ("5H 6H 7H 2C 2D 2S KC KD KS AD", "8H 9H TH JH 4C 7C QD 5S 3S AC", (30, 0)),
        # below the ace nothing can be laid off (R1); 4S above 3S can, and 5S after it
        ("AS 2S 3S 9C 9D 9H KC KD KH 2C", "4S 5S 7D 8H QD JC 6C 3D 2D 2H", (48, 9)),
        # the fourth card on a set of three (7S); 6S 7S alone are no run
        ("7C 7D 7H 4S 4D 4H 4C JD QD KD", "7S 3D 5C 9S 8H 2H TC TH AC 6S", (54, 7)),
        # two runs of one suit with a gap: both chains may meet in the middle
        ("2H 3H 4H 8H 9H TH KC KD KS AD", "5H 6H 7H JC QS 3S 5D 6C 2D 9S", (45, 0)),
        ("2H 3H 4H 8H 9H TH KC KD KS AD", "5H 7H 6C JC QS 3S 5D 9C 2D 9S", (54, 12)),
    ],
)
@pytest.mark.first_case
def test_defender_result_cases(
    knocker_cards: str, defender_cards: str, expected: tuple[int, int]
) -> None:
    arrangement = knocker(knocker_cards)
    defender = parse_cards(defender_cards, 10)
    assert defender_result(defender, arrangement) == expected
    assert brute_defender(defender, arrangement.melds) == expected


@pytest.mark.full
def test_defender_result_against_brute_force() -> None:
    rng = random.Random(13)
    checked_with_layoffs = 0
    for _ in range(120):
        pool = meld_rich_pool(rng) + rng.sample(range(52), 8)
        pool = list(dict.fromkeys(pool))
        hand = random_hand(rng, 10, pool)
        rest = [c for c in pool if not hand >> c & 1]
        if len(rest) < 10:
            rest += [c for c in range(52) if not hand >> c & 1 and c not in rest]
        defender = random_hand(rng, 10, rest)
        arrangement = knocker_arrangement(hand, hand)
        got = defender_result(defender, arrangement)
        assert got == brute_defender(defender, arrangement.melds), (
            format_cards(hand),
            format_cards(defender),
        )
        checked_with_layoffs += got[1] > 0
    assert checked_with_layoffs >= 20  # the sample really exercises layoffs


def test_defender_result_rejects_shared_cards() -> None:
    with pytest.raises(ValueError, match="shares cards"):
        defender_result(parse_cards("5H"), knocker("5H 6H 7H"))
