"""Public deadwood functions (R3, R4): validate the input, then call the numba kernel.

>>> min_deadwood(parse_cards("AS 2S 3S 4H 4D 4C 9H TH JH QS"))
10
>>> min_deadwood_many(np.array([parse_cards("AS 2S 3S"), parse_cards("KD")], dtype=np.uint64)).tolist()
[0, 10]
"""

from __future__ import annotations

import numpy as np

from gin_sim.game.cards import FULL_DECK, parse_cards  # noqa: F401  (parse_cards: doctests)
from gin_sim.game.limits import MAX_HAND_CARDS, check_hand_size
from gin_sim.kernels.deadwood import min_deadwood_many_parallel, min_deadwood_nb


def _check_hand(hand: int) -> int:
    if isinstance(hand, bool) or not isinstance(hand, int | np.integer):
        raise ValueError(f"hand must be an integer card mask, got {type(hand).__name__}")
    hand = int(hand)
    if not 0 <= hand <= FULL_DECK:
        raise ValueError(
            f"hand {hand:#x} has bits outside the 52 cards: allowed 0 to {FULL_DECK:#x}"
        )
    return check_hand_size(hand)


def min_deadwood(hand: int) -> int:
    """The exact minimum deadwood of a hand (R4) of 0 to ``MAX_HAND_CARDS`` (16) cards.

    ``hand`` is a card mask (``parse_cards``). The numba kernel is checked against the
    plain exhaustive search over every arrangement (tests/test_kernel_deadwood.py).

    Examples:
        >>> from gin_sim import parse_cards
        >>> min_deadwood(parse_cards("AS 2S 3S 4H 4D 4C 9H TH JH QS"))
        10
        >>> min_deadwood(parse_cards("QS KS AS"))  # no run wraps around from K to A (R1)
        21
    """
    return int(min_deadwood_nb(np.uint64(_check_hand(hand))))


def min_deadwood_many(hands: np.ndarray) -> np.ndarray:
    """Minimum deadwood of each hand in a uint64 array, in parallel; returns int64.

    Each hand holds 0 to ``MAX_HAND_CARDS`` (16) cards; each value is ``min_deadwood`` of
    that hand.

    Examples:
        >>> import numpy as np
        >>> from gin_sim import parse_cards
        >>> hands = np.array([parse_cards("AS 2S 3S"), parse_cards("KC KD 9H")], dtype=np.uint64)
        >>> min_deadwood_many(hands).tolist()
        [0, 29]
    """
    array = np.ascontiguousarray(hands)
    if array.dtype != np.uint64:
        if array.size and (not np.issubdtype(array.dtype, np.integer) or array.min() < 0):
            raise ValueError(f"hands must be a uint64 array of card masks, got dtype {array.dtype}")
        array = array.astype(np.uint64)
    if array.size and int(array.max()) > FULL_DECK:
        raise ValueError(f"a hand has bits outside the 52 cards: allowed 0 to {FULL_DECK:#x}")
    if array.size and int(np.bitwise_count(array).max()) > MAX_HAND_CARDS:
        check_hand_size(int(array.reshape(-1)[np.argmax(np.bitwise_count(array))]))
    out = np.empty(array.shape, dtype=np.int64)
    min_deadwood_many_parallel(array.reshape(-1), out.reshape(-1))
    return out
