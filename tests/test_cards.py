"""Card strings and hand masks (R1, R2)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gin_sim.game.cards import (
    card_value,
    format_cards,
    parse_card,
    parse_cards,
    parse_deck,
)


def test_index_is_suit_times_13_plus_rank():
    assert parse_card("AC") == 0
    assert parse_card("KC") == 12
    assert parse_card("AD") == 13
    assert parse_card("AH") == 26
    assert parse_card("KS") == 51


def test_ten_case_and_separators():
    assert parse_cards("10h, td ,Ts  2c") == parse_cards("TH TD TS 2C")
    assert parse_card("th") == parse_card("10H")


def test_values_r2():
    assert [card_value(parse_card(f"{r}S")) for r in "A23456789TJQK"] == [
        1,
        2,
        3,
        4,
        5,
        6,
        7,
        8,
        9,
        10,
        10,
        10,
        10,
    ]


@pytest.mark.parametrize(
    ("text", "token"),
    [("AS 1S", "1S"), ("AS ZZ", "ZZ"), ("AS 2X", "2X"), ("AS 2", "2"), ("AS as", "as")],
)
def test_bad_cards_name_the_token(text, token):
    with pytest.raises(ValueError, match=token):
        parse_cards(text)


def test_wrong_count():
    with pytest.raises(ValueError, match="expected 10"):
        parse_cards("AS 2S", count=10)


def test_deck_needs_52_distinct_cards():
    assert parse_deck(list(range(52))) == list(range(52))
    with pytest.raises(ValueError, match="52"):
        parse_deck(list(range(51)))
    with pytest.raises(ValueError, match="duplicate"):
        parse_deck([0, *range(51)])


@given(st.sets(st.integers(0, 51)))
def test_format_parse_round_trip(cards):
    hand = sum(1 << c for c in cards)
    assert parse_cards(format_cards(hand)) == hand
