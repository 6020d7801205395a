"""Cards, hands and their text form (R1, R2).

A card is an index ``suit * 13 + rank`` with suits in the order C, D, H, S and ranks
A = 0 to K = 12 (the ace is always low, R1). A hand is a 64-bit integer with bit
``index`` set for each card it holds. Card strings are parsed in this module only.

>>> format_cards(parse_cards("as 2s 3S td, KH"))
'TD KH AS 2S 3S'
>>> card_value(parse_card("QD"))
10
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from gin_sim.game.config import shown

RANKS = "A23456789TJQK"
SUITS = "CDHS"
N_RANKS = 13
N_SUITS = 4
N_CARDS = 52
SUIT_MASK = (1 << N_RANKS) - 1
FULL_DECK = (1 << N_CARDS) - 1

_TOKEN_SPLIT = re.compile(r"[\s,]+")
# Every spelling of a card parse_card accepts, upper-cased ("7H", "TH", "10H"): a card is
# looked up, which a decision server parsing a view per request needs to be quick.
_CARD_BY_NAME = {
    (rank_name + suit_name): suit * N_RANKS + rank
    for suit, suit_name in enumerate(SUITS)
    for rank, rank_names in enumerate(RANKS)
    for rank_name in (rank_names, "10")
    if rank_name != "10" or rank_names == "T"
}


def card_index(rank: int, suit: int) -> int:
    """Index of the card of ``rank`` (A = 0) and ``suit`` (C = 0)."""
    return suit * N_RANKS + rank


def card_rank(card: int) -> int:
    return card % N_RANKS


def card_suit(card: int) -> int:
    return card // N_RANKS


def card_value(card: int) -> int:
    """R2: ace 1, 2 to 10 face value, J, Q, K 10."""
    return min(card % N_RANKS + 1, 10)


def parse_card(token: str) -> int:
    """Parse one card such as ``"TD"``, ``"10d"`` or ``"as"`` into its index. Only ASCII
    is read: Unicode case folding would make ``kſ`` (long s) a KS and ``ı`` an I."""
    if not isinstance(token, str):
        raise TypeError(f"card = {shown(token)}: expected text such as '7H'")
    if not token.isascii():
        raise ValueError(
            f"malformed card {shown(token)}: only ASCII letters and digits, a rank from {RANKS} (or 10) and a suit from {SUITS}"
        )
    text = token.strip().upper()
    card = _CARD_BY_NAME.get(text)
    if card is not None:
        return card
    if len(text) < 2:
        raise ValueError(
            f"malformed card {shown(token)}: expected a rank from {RANKS} (or 10) and a suit from {SUITS}"
        )
    rank_text, suit_text = text[:-1], text[-1]
    if rank_text == "10":
        rank_text = "T"
    if len(rank_text) != 1 or rank_text not in RANKS:
        raise ValueError(
            f"unknown rank in card {shown(token)}: ranks are {', '.join(RANKS)} (or 10)"
        )
    if suit_text not in SUITS:
        raise ValueError(f"unknown suit in card {shown(token)}: suits are {', '.join(SUITS)}")
    return card_index(RANKS.index(rank_text), SUITS.index(suit_text))


def parse_card_list(text: str) -> list[int]:
    """Parse cards separated by spaces or commas, keeping their order; duplicates are an error."""
    if not isinstance(text, str):
        raise TypeError(f"cards = {shown(text)}: expected text such as '7H 8H 9H'")
    if not text.isascii():  # a Unicode space or comma is no separator, a folded letter no card
        odd = next(c for c in text if not c.isascii())
        raise ValueError(
            f"cards {shown(text)}: {odd!r} is not ASCII: cards are written in ASCII, such as '7H 8H 9H', separated by spaces or commas"
        )
    tokens = [t for t in _TOKEN_SPLIT.split(text.strip()) if t]
    # Most lists are of distinct spellings of the table (a host's view per decision is
    # parsed this way): looked up at once. Anything else goes card by card below, which
    # names the first thing wrong.
    looked_up = [_CARD_BY_NAME.get(token.upper()) for token in tokens]
    if None not in looked_up and len(set(looked_up)) == len(looked_up):
        return looked_up  # type: ignore[return-value]  # no None in it
    cards: list[int] = []
    seen: set[int] = set()
    for token in tokens:
        card = parse_card(token)
        if card in seen:
            raise ValueError(f"duplicate card {shown(token)}: each card may appear once")
        seen.add(card)
        cards.append(card)
    return cards


def parse_cards(text: str, count: int | None = None) -> int:
    """Parse a card string into a hand bitmask; ``count`` requires exactly that many cards.

    Cards are a rank (A, 2 to 9, T or 10, J, Q, K) and a suit (C, D, H, S), in either case,
    separated by spaces or commas. Card ``c`` is bit ``c`` of the mask: clubs A to K are 0
    to 12, then diamonds, hearts and spades. A malformed, repeated or missing card is a
    ``ValueError`` naming it.

    Examples:
        >>> parse_cards("AC 2C") == 0b11
        True
        >>> from gin_sim import format_cards
        >>> format_cards(parse_cards("qs 10h 2c"))
        '2C TH QS'
    """
    cards = parse_card_list(text)
    if count is not None and len(cards) != count:
        raise ValueError(
            f"wrong number of cards in {shown(text)}: got {len(cards)}, expected {count}"
        )
    return hand_from_cards(cards)


def hand_from_cards(cards: Iterable[int]) -> int:
    hand = 0
    for card in cards:
        if not 0 <= card < N_CARDS:
            raise ValueError(f"card index {card} out of range: allowed 0 to {N_CARDS - 1}")
        bit = 1 << card
        if hand & bit:
            raise ValueError(f"duplicate card {format_card(card)!r}: each card may appear once")
        hand |= bit
    return hand


def cards_of(hand: int) -> list[int]:
    """The card indices in ``hand``, ascending."""
    if not 0 <= hand <= FULL_DECK:
        raise ValueError(
            f"hand {hand:#x} is not a set of the 52 cards: allowed 0 to {FULL_DECK:#x}"
        )
    return [c for c in range(N_CARDS) if hand >> c & 1]


def format_card(card: int) -> str:
    return RANKS[card_rank(card)] + SUITS[card_suit(card)]


def format_cards(hand: int | Iterable[int]) -> str:
    """Format a hand bitmask (or a list of indices, kept in order) as card strings.

    A mask is written in card order (clubs, diamonds, hearts, spades; A to K), a list in
    its own order.

    Examples:
        >>> format_cards(0b11)
        'AC 2C'
        >>> format_cards([51, 0])
        'KS AC'
    """
    if isinstance(hand, str | bytes) or not isinstance(hand, int | Iterable):
        raise TypeError(f"hand = {shown(hand)}: expected a card mask or a list of card indices")
    cards = cards_of(hand) if isinstance(hand, int) else list(hand)
    return " ".join(format_card(c) for c in cards)


def parse_deck(deck: str | Iterable[int | str]) -> list[int]:
    """A full 52-card order from a card string or a sequence of indices or card strings."""
    if isinstance(deck, str):
        cards = parse_card_list(deck)
    else:
        cards = [parse_card(c) if isinstance(c, str) else int(c) for c in deck]
        hand_from_cards(cards)  # rejects out-of-range and duplicate cards
    if len(cards) != N_CARDS:
        raise ValueError(f"a deck needs all {N_CARDS} cards once each: got {len(cards)}")
    return cards
