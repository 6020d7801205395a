"""The numba deadwood kernel against the exhaustive pure-Python search (R1, R3, R4)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from numba import njit
from tiers import size

from gin_sim.game.cards import parse_cards
from gin_sim.game.deadwood import min_deadwood, min_deadwood_many
from gin_sim.game.melds import min_deadwood_exhaustive
from gin_sim.kernels.deadwood import (
    deadwood_without_nb,
    has_sets_nb,
    lowest_card_nb,
    melds_with_card_nb,
    min_deadwood_nb,
)
from gin_sim.kernels.tables import MELDS, RUN_DEADWOOD, run_only_deadwood


def random_hands(rng: np.random.Generator, n: int, size: int) -> list[int]:
    return [sum(1 << int(c) for c in rng.choice(52, size, replace=False)) for _ in range(n)]


def meld_rich_hands(rng: np.random.Generator, n: int, size: int) -> list[int]:
    """Hands drawn from few suits and few neighbouring ranks, so sets and runs overlap."""
    hands = []
    shapes = [(2, 7), (3, 5), (4, 4), (3, 4), (4, 3)]
    for _ in range(n):
        n_suits, n_ranks = shapes[rng.integers(len(shapes))]
        while n_suits * n_ranks < size:
            n_ranks += 1
        suits = rng.choice(4, n_suits, replace=False)
        low = rng.integers(0, 13 - n_ranks + 1)
        pool = [int(s) * 13 + low + r for s in suits for r in range(n_ranks)]
        hands.append(sum(1 << int(c) for c in rng.choice(pool, size, replace=False)))
    return hands


# Hands of each half (random, meld-rich) per hand size: 50,000 hands a size in the full
# tier, 5,000 in the fast one.
HALF = size(fast=2_500, full=25_000)


@pytest.mark.parametrize("cards", [10, 11])
@pytest.mark.first_case
def test_kernel_matches_exhaustive_search_per_size(cards):
    rng = np.random.default_rng(cards)
    hands = random_hands(rng, HALF, cards) + meld_rich_hands(rng, HALF, cards)
    got = min_deadwood_many(np.array(hands, dtype=np.uint64))
    expected = np.array([min_deadwood_exhaustive(h) for h in hands])
    mismatches = np.flatnonzero(got != expected)
    assert mismatches.size == 0, [(hex(hands[i]), got[i], expected[i]) for i in mismatches[:5]]
    # the meld-rich half really is meld-rich: most of it has a set and a run competing
    assert np.mean(expected[HALF:] < expected[:HALF].mean()) > 0.5


@pytest.mark.parametrize("size", [0, 1, 2, 3, 5, 8, 9, 12, 13, 16])
def test_other_sizes(size):
    rng = np.random.default_rng(100 + size)
    hands = random_hands(rng, 300, size) + (meld_rich_hands(rng, 300, size) if size <= 16 else [])
    for hand in hands:
        assert min_deadwood(hand) == min_deadwood_exhaustive(hand)


def test_meld_table_has_185_melds_without_wraparound():
    assert len(MELDS) == 185 == len(set(MELDS.tolist()))
    sizes = [bin(int(m)).count("1") for m in MELDS]
    assert sorted(set(sizes)) == [3, 4, 5]
    # R1: ace low, no Q-K-A or K-A-2
    for wrap in ("QS KS AS", "KH AH 2H", "JD QD KD AD"):
        assert parse_cards(wrap) not in set(MELDS.tolist())
    assert parse_cards("AS 2S 3S") in set(MELDS.tolist())


def test_run_table_against_its_definition():
    assert RUN_DEADWOOD.shape == (8192,)
    for mask in range(8192):
        assert RUN_DEADWOOD[mask] == run_only_deadwood(mask) == min_deadwood_exhaustive(mask)


@pytest.mark.parametrize(
    ("cards", "deadwood"),
    [
        ("AS 2S 3S 4H 4D 4C 9H TH JH QS", 10),
        ("QS KS AS", 21),  # R1: no wrap-around run
        ("AC 2C 3C", 0),  # R1: ace low
        ("4C 4D 4H 4S 5S 6S", 0),  # 4 of a kind split: set 4C 4D 4H and run 4S 5S 6S
        ("4C 4D 4H 4S 5S 6S 3S", 0),
        ("7C 7D 7H 8H 9H 7S", 0),
        ("", 0),
        ("KC KD QH", 30),
    ],
)
def test_known_hands(cards, deadwood):
    assert min_deadwood(parse_cards(cards)) == deadwood


def test_many_matches_single_and_validates():
    hands = np.array([parse_cards("AS 2S 3S 9D"), 0, parse_cards("KC KD KH")], dtype=np.uint64)
    assert min_deadwood_many(hands).tolist() == [9, 0, 0]
    with pytest.raises(ValueError, match="outside the 52 cards"):
        min_deadwood(1 << 52)
    with pytest.raises(ValueError, match="outside the 52 cards"):
        min_deadwood_many(np.array([1 << 60], dtype=np.uint64))


@settings(max_examples=300, deadline=None)
@given(st.sets(st.integers(0, 51), max_size=11))
def test_property_against_exhaustive(cards):
    hand = sum(1 << c for c in cards)
    assert min_deadwood(hand) == min_deadwood_exhaustive(hand)


@njit
def _drop_each_both_ways(hands, out_fast, out_plain):
    """Every card of every hand removed: the fast path and the plain evaluation."""
    for i in range(hands.shape[0]):
        hand = hands[i]
        whole = min_deadwood_nb(hand)
        sets = has_sets_nb(hand)
        k = 0
        for card in range(52):
            if hand >> np.uint64(card) & np.uint64(1):
                out_fast[i, k] = deadwood_without_nb(hand, card, whole, sets)
                out_plain[i, k] = min_deadwood_nb(hand & ~(np.uint64(1) << np.uint64(card)))
                k += 1


@pytest.mark.parametrize("size", [10, 11, 12])
@pytest.mark.first_case
def test_deadwood_without_a_card_equals_the_evaluation(size):
    """``deadwood_without_nb``'s two lookups (hands without sets) and its evaluation
    (hands with) give ``min_deadwood_nb`` of the hand less each card."""
    rng = np.random.default_rng(100 + size)
    hands = np.array(
        random_hands(rng, 3_000, size) + meld_rich_hands(rng, 3_000, size), dtype=np.uint64
    )
    fast = np.zeros((len(hands), size), np.int64)
    plain = np.ones((len(hands), size), np.int64)
    _drop_each_both_ways(hands, fast, plain)
    assert np.array_equal(fast, plain)
    with_sets = np.array([has_sets_nb(h) for h in hands])
    assert 0.2 < with_sets.mean() < 0.9  # both ways are exercised


def test_melds_with_card_and_lowest_card_are_their_definitions():
    """``melds_with_card_nb`` (a popcount for sets) against the meld table (R3), and
    ``lowest_card_nb`` (a popcount for trailing zeros) against Python's integers."""
    rng = np.random.default_rng(31)
    hands = random_hands(rng, 150, 10) + meld_rich_hands(rng, 150, 10)
    for hand in hands:
        for card in range(52):
            if hand >> card & 1:
                continue
            expected = any(int(m) >> card & 1 and int(m) & ~(1 << card) & ~hand == 0 for m in MELDS)
            assert melds_with_card_nb(np.uint64(hand), card) == expected
        assert lowest_card_nb(np.uint64(hand)) == (hand & -hand).bit_length() - 1
    assert lowest_card_nb(np.uint64(1 << 51)) == 51
