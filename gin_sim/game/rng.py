"""The counter-based random numbers of docs/engine.md in plain Python.

All arithmetic is on unsigned 64-bit integers, wrapping: Python ints masked to 64 bits.
A deal's deck depends only on ``(seed, deal)``, a player's stream only on
``(seed, deal, player)``. A seed outside 0 .. 2**64-1 is reduced modulo 2**64 (so -1
is 2**64-1, as the unsigned conversion in the kernels gives).

>>> Stream(0).next() == 0xE220A8397B1DCDAF  # the published first output of SplitMix64
True
>>> sorted(deck_for_deal(1, 0)) == list(range(52))
True
"""

from __future__ import annotations

from gin_sim.game.cards import N_CARDS
from gin_sim.kernels.rng import STREAM_DOMAINS

MASK64 = (1 << 64) - 1
GOLDEN_GAMMA = 0x9E3779B97F4A7C15
DECK_KEY = STREAM_DOMAINS["deck"]
PLAYER_KEY = STREAM_DOMAINS["player"]
SAMPLE_KEY = STREAM_DOMAINS["sample"]  # which decisions of a deal a positions dataset keeps
EVALUATION_KEY = STREAM_DOMAINS["evaluation"]  # the worlds of a position's evaluation
REVIEW_KEY = STREAM_DOMAINS["review"]  # the worlds of a reviewed decision


def mix(z: int) -> int:
    """The SplitMix64 finaliser."""
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
    return z ^ (z >> 31)


def splitmix64(x: int) -> int:
    return mix((x + GOLDEN_GAMMA) & MASK64)


class Stream:
    """A SplitMix64 stream: ``next()`` adds the golden gamma to the state and mixes it."""

    __slots__ = ("state",)

    def __init__(self, state: int) -> None:
        self.state = state & MASK64

    def next(self) -> int:
        self.state = (self.state + GOLDEN_GAMMA) & MASK64
        return mix(self.state)


def bounded(u: int, n: int) -> int:
    """A number in ``0 .. n-1`` from the high 32 bits of ``u``."""
    return ((u >> 32) * n) >> 32


def _check_index(value: int, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise ValueError(f"{name} must be a whole number 0 or more, got {value!r}")
    return value


def deck_stream_state(seed: int, deal: int) -> int:
    """The initial state of the stream that shuffles the deck of ``deal``."""
    deal = _check_index(deal, "deal")
    return splitmix64((splitmix64((seed & MASK64) ^ DECK_KEY) + deal) & MASK64)


def deck_for_deal(seed: int, deal: int) -> list[int]:
    """The deck order of ``deal`` under ``seed``: a Fisher-Yates shuffle of 0..51."""
    stream = Stream(deck_stream_state(seed, deal))
    deck = list(range(N_CARDS))
    for j in range(N_CARDS - 1, 0, -1):
        k = bounded(stream.next(), j + 1)
        deck[j], deck[k] = deck[k], deck[j]
    return deck


def player_stream_state(seed: int, deal: int, player: int) -> int:
    """The initial state of player ``player``'s stream in ``deal`` (the random strategy's)."""
    deal = _check_index(deal, "deal")
    if player not in (0, 1):
        raise ValueError(f"player must be 0 or 1, got {player!r}")
    return splitmix64((splitmix64((seed & MASK64) ^ PLAYER_KEY) + 2 * deal + player) & MASK64)


def sample_stream_state(seed: int, deal: int) -> int:
    """The initial state of the stream that picks the decisions a positions dataset keeps
    from ``deal`` (docs/advice.md)."""
    deal = _check_index(deal, "deal")
    return splitmix64((splitmix64((seed & MASK64) ^ SAMPLE_KEY) + deal) & MASK64)


def evaluation_stream_state(seed: int, deal: int, decision: int) -> int:
    """The initial state of the world stream of the evaluation of the position at decision
    ``decision`` (its number in the hand, 0 to 255) of ``deal`` (docs/advice.md)."""
    deal = _check_index(deal, "deal")
    decision = _check_index(decision, "decision")
    if decision >= 256:
        raise ValueError(f"decision must be below 256, got {decision}")
    return splitmix64(
        (splitmix64((seed & MASK64) ^ EVALUATION_KEY) + 256 * deal + decision) & MASK64
    )


def review_stream_state(seed: int, hand: int, decision: int) -> int:
    """The initial state of the world stream of reviewed decision ``decision`` (its number
    in the hand, below 2**20) of hand ``hand`` of a game (docs/review.md)."""
    hand = _check_index(hand, "hand")
    decision = _check_index(decision, "decision")
    if decision >= 1 << 20:
        raise ValueError(f"decision must be below 2**20, got {decision}")
    return splitmix64(
        (splitmix64((seed & MASK64) ^ REVIEW_KEY) + (1 << 20) * hand + decision) & MASK64
    )
