"""The bounds on every number a user can give: seeds, indices, counts, chunks, hand sizes.

One function per kind of number, used by the library and by every command, so that a
seed is checked the same way by ``simulate``, ``match``, ``replay`` and the reports, and
a count too large to finish (or to fit in memory) is refused at once with the bound,
instead of allocating until the process is killed.

>>> check_seed(2**64)
Traceback (most recent call last):
...
gin_sim.game.config.ConfigError: seed 18446744073709551616 out of range: allowed 0 to 2**64 - 1
>>> check_count(10, "deals")
10
"""

from __future__ import annotations

from typing import Any

import numpy as np

from gin_sim.game.config import ConfigError, shown

MAX_SEED = (1 << 64) - 1  # every --seed: the random streams take 64-bit seeds
# Decks or matches of one run. Runs stream chunk by chunk (memory stays one or two chunks),
# so the bound is about time and disk: 10**10 duplicate decks are 2 * 10**10 hands, about
# 700 GB of Parquet and hours on a cluster.
MAX_COUNT = 10**10
# Matches of one run: their summary (quantiles of the final margins) is computed from every
# match record, held in memory (about 200 bytes a match, duplicate), so 10**8 is ~20 GB.
MAX_MATCHES = 10**8
# A run folder holds at most this many chunk files; resuming and summarizing look at each.
MAX_CHUNKS = 10**6
# Decks or matches in one chunk: a chunk's records are held in memory (twice, duplicate).
MAX_CHUNK_SIZE = 10**7
# Reports hold every variant's records in memory at once.
MAX_REPORT_DEALS = 10**7
MAX_REPORT_MATCHES = 10**6  # a report's matches, held in memory at once too
MAX_WORKERS = 256  # --workers: local Dask worker processes (capped to the cores and memory)
MAX_FINALISTS = 1000  # also tune --top and --blocks
MAX_TRIALS = 100_000  # tune --trials
# A hand in play holds 10 cards, 11 during a turn (R6, R10). Larger card sets are accepted up
# to this size; beyond it the exhaustive searches grow exponentially (a 44-card hand takes
# half a minute, the whole deck many minutes) and the arrangements run into the millions.
MAX_HAND_CARDS = 16
# The game target under which a score-aware search player (``value = "game"`` or
# ``"match"``) plays: its game table has a row per score pair (T * T * 2 values) and takes
# a time in T * T to make, a second at 1,000 and hours at the 100,000 a rule set allows.
MAX_SCORE_TABLE_TARGET = 1_000
# A search player's undercut_weight: how many times a knock's undercut counts in its search
# (1: as it scores). Beyond a few times the search would refuse every knock an opponent
# could undercut at all, whatever it stands to win.
MAX_UNDERCUT_WEIGHT = 4.0


def whole_number(value: Any) -> int | None:
    """``value`` as a Python int when it is a whole number: an ``int`` or a numpy integer (a
    value read from an array), not a bool (``True`` or ``np.True_`` is no number); else None."""
    if isinstance(value, bool | np.bool_) or not isinstance(value, int | np.integer):
        return None
    return int(value)


def _whole_number(value: Any, what: str) -> int:
    number = whole_number(value)
    if number is None:
        raise ConfigError(f"{what} = {shown(value)}: expected a whole number")
    return number


def check_seed(seed: Any) -> int:
    """A seed: a whole number from 0 to 2**64 - 1 (larger ones would wrap around)."""
    seed = _whole_number(seed, "seed")
    if not 0 <= seed <= MAX_SEED:
        raise ConfigError(f"seed {shown(seed)} out of range: allowed 0 to 2**64 - 1")
    return seed


def check_index(index: Any, what: str = "deal") -> int:
    """The index of a deal or a match in a run: 0 to MAX_COUNT - 1."""
    index = _whole_number(index, what)
    if not 0 <= index < MAX_COUNT:
        raise ConfigError(
            f"{what} {shown(index)} out of range: allowed 0 to {MAX_COUNT - 1:,} (a run has at most {MAX_COUNT:,})"
        )
    return index


def check_count(count: Any, what: str, low: int = 1, high: int = MAX_COUNT) -> int:
    """A number of decks, matches, runs...: ``low`` to ``high``."""
    count = _whole_number(count, what)
    if not low <= count <= high:
        said = f"{count:,}" if count.bit_length() <= 256 else shown(count)
        raise ConfigError(f"{what} = {said}: allowed {low:,} to {high:,}")
    return count


def check_chunks(count: int, chunk_size: Any, what: str) -> int:
    """A chunk size for ``count`` decks or matches: 1 to MAX_CHUNK_SIZE, and at most
    MAX_CHUNKS chunks."""
    chunk_size = check_count(chunk_size, "chunk size", 1, MAX_CHUNK_SIZE)
    chunks = -(-count // chunk_size)
    if chunks > MAX_CHUNKS:
        smallest = -(-count // MAX_CHUNKS)
        raise ConfigError(
            f"chunk size = {chunk_size:,} makes {chunks:,} chunks of {count:,} {what}: allowed at most {MAX_CHUNKS:,} chunks (a chunk size of {smallest:,} or more)"
        )
    return chunk_size


def check_hand_size(hand: int, what: str = "hand") -> int:
    """A card mask of at most MAX_HAND_CARDS cards."""
    cards = int(hand).bit_count()
    if cards > MAX_HAND_CARDS:
        raise ValueError(
            f"{what} of {cards} cards: allowed 0 to {MAX_HAND_CARDS} cards (a hand holds 10, 11 during a turn)"
        )
    return hand
