"""Counter-based random numbers: a deal's deck depends only on (seed, deal index).

splitmix64 keyed by the seed and the deal index (docs/engine.md, "Random numbers"), so
results never depend on threads, chunking or the order deals are played in. A stream
is a one-element uint64 array (its state) owned by the caller.
"""

from __future__ import annotations

import numpy as np
from numba import njit

GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
# One domain per feature's random stream, so unrelated features never share a stream (a
# shared domain correlates, e.g., which matches are played with which decisions a dataset
# keeps). The words of SHA-512's initial value: arbitrary but visibly not chosen. The plain
# reference (game/rng.py, reference/match.py) takes its keys from here;
# tests/test_streams.py requires them distinct.
STREAM_DOMAINS = {
    "deck": 0x6A09E667F3BCC908,  # a deal's deck
    "player": 0xBB67AE8584CAA73B,  # a player's own choices in a deal
    "match": 0x3C6EF372FE94F82B,  # a match's first dealer and hand decks
    "model": 0xA54FF53A5F1D36F1,  # the equity model's simulated matches
    "sample": 0x510E527FADE682D1,  # which decisions of a deal a positions dataset keeps
    "evaluation": 0x9B05688C2B3E6C1F,  # the worlds of a position's evaluation
    "check": 0x1F83D9ABFB41BD6B,  # the continuations of the advice check against play
    "review": 0x5BE0CD19137E2179,  # the worlds of a reviewed decision (gin-sim review)
}
DECK_DOMAIN = np.uint64(STREAM_DOMAINS["deck"])
PLAYER_DOMAIN = np.uint64(STREAM_DOMAINS["player"])
SAMPLE_DOMAIN = np.uint64(STREAM_DOMAINS["sample"])
EVALUATION_DOMAIN = np.uint64(STREAM_DOMAINS["evaluation"])
REVIEW_DOMAIN = np.uint64(STREAM_DOMAINS["review"])
_S30 = np.uint64(30)
_S27 = np.uint64(27)
_S31 = np.uint64(31)
_S32 = np.uint64(32)


@njit(cache=True, inline="always")
def mix_nb(z):
    z = (z ^ (z >> _S30)) * _MIX1
    z = (z ^ (z >> _S27)) * _MIX2
    return z ^ (z >> _S31)


@njit(cache=True, inline="always")
def splitmix64_nb(x):
    return mix_nb(np.uint64(x) + GOLDEN)


@njit(cache=True, inline="always")
def next_nb(states, index):
    """Advance stream ``states[index]`` and return its next uint64."""
    states[index] += GOLDEN
    return mix_nb(states[index])


@njit(cache=True, inline="always")
def bounded_nb(u, n):
    """A number in 0 .. n-1 from the uint64 ``u``."""
    return np.int64(((u >> _S32) * np.uint64(n)) >> _S32)


@njit(cache=True, _nrt=False)
def deck_key_nb(seed, deal):
    return splitmix64_nb(splitmix64_nb(np.uint64(seed) ^ DECK_DOMAIN) + np.uint64(deal))


@njit(cache=True, _nrt=False)
def player_key_nb(seed, deal, player):
    base = splitmix64_nb(np.uint64(seed) ^ PLAYER_DOMAIN)
    return splitmix64_nb(base + np.uint64(2) * np.uint64(deal) + np.uint64(player))


@njit(cache=True, _nrt=False)
def sample_key_nb(seed, deal):
    """The stream that picks the decisions a positions dataset keeps from deal ``deal``."""
    return splitmix64_nb(splitmix64_nb(np.uint64(seed) ^ SAMPLE_DOMAIN) + np.uint64(deal))


@njit(cache=True, _nrt=False)
def evaluation_key_nb(seed, deal, decision):
    """The world stream of the evaluation of decision ``decision`` (0 .. 255, its number in
    the hand) of deal ``deal``; the caller keeps ``decision`` below 256, so every position
    of a seed has its own stream."""
    base = splitmix64_nb(np.uint64(seed) ^ EVALUATION_DOMAIN)
    return splitmix64_nb(base + np.uint64(256) * np.uint64(deal) + np.uint64(decision))


@njit(cache=True, _nrt=False)
def review_key_nb(seed, hand, decision):
    """The world stream of reviewed decision ``decision`` (its number in the hand, both
    players' decisions counted, below 2**20) of hand ``hand`` of a reviewed game."""
    base = splitmix64_nb(np.uint64(seed) ^ REVIEW_DOMAIN)
    return splitmix64_nb(base + np.uint64(1 << 20) * np.uint64(hand) + np.uint64(decision))


@njit(cache=True, _nrt=False)
def shuffle_deck_nb(seed, deal, deck, state):
    """Fill ``deck`` (int8[52]) with deal ``deal``'s order; ``state`` is uint64[1] scratch."""
    state[0] = deck_key_nb(seed, deal)
    for j in range(52):
        deck[j] = j
    for j in range(51, 0, -1):
        k = bounded_nb(next_nb(state, 0), j + 1)
        tmp = deck[j]
        deck[j] = deck[k]
        deck[k] = tmp
