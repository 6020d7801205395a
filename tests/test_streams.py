"""The random streams of unrelated features have distinct domains (docs/engine.md,
"Random numbers"): two features keyed by the same domain and counter would draw the same
numbers, so, e.g., the matches a run plays would be correlated with the decisions a
positions dataset keeps."""

from __future__ import annotations

import numpy as np

from gin_sim.experiments import positions
from gin_sim.game import rng as reference_rng
from gin_sim.kernels import equity as equity_kernel
from gin_sim.kernels import match as match_kernel
from gin_sim.kernels import rng as kernel_rng
from gin_sim.reference import match as reference_match


def test_every_stream_domain_is_distinct():
    domains = kernel_rng.STREAM_DOMAINS
    assert len(set(domains.values())) == len(domains), domains
    # and none is one of SplitMix64's own constants, which the mixing already adds
    assert not {int(kernel_rng.GOLDEN), int(kernel_rng._MIX1), int(kernel_rng._MIX2)} & set(
        domains.values()
    )


def test_kernels_and_reference_key_their_streams_from_the_one_table():
    domains = kernel_rng.STREAM_DOMAINS
    used = {
        "deck": (int(kernel_rng.DECK_DOMAIN), reference_rng.DECK_KEY),
        "player": (int(kernel_rng.PLAYER_DOMAIN), reference_rng.PLAYER_KEY),
        "sample": (int(kernel_rng.SAMPLE_DOMAIN), reference_rng.SAMPLE_KEY),
        "evaluation": (int(kernel_rng.EVALUATION_DOMAIN), reference_rng.EVALUATION_KEY),
        "match": (int(match_kernel.MATCH_DOMAIN), reference_match.MATCH_KEY),
        "model": (int(equity_kernel.MODEL_DOMAIN), int(equity_kernel.MODEL_DOMAIN)),
        "check": (positions._CHECK_DOMAIN, positions._CHECK_DOMAIN),
        "review": (int(kernel_rng.REVIEW_DOMAIN), reference_rng.REVIEW_KEY),
    }
    assert set(used) == set(domains)
    for name, keys in used.items():
        assert keys == (domains[name], domains[name]), name


def test_the_streams_of_one_seed_and_counter_differ_by_feature():
    seed, counter = 2512, 7
    firsts = {
        name: reference_rng.splitmix64(
            (reference_rng.splitmix64(seed ^ domain) + counter) & reference_rng.MASK64
        )
        for name, domain in kernel_rng.STREAM_DOMAINS.items()
    }
    assert len(set(firsts.values())) == len(firsts)
    assert firsts["match"] == reference_match.match_key(seed, counter)
    assert firsts["sample"] == reference_rng.sample_stream_state(seed, counter)
    assert firsts["review"] == reference_rng.review_stream_state(seed, 0, counter)
    with np.errstate(over="ignore"):
        kernel = kernel_rng.review_key_nb(np.uint64(seed), 3, counter)
    assert int(kernel) == reference_rng.review_stream_state(seed, 3, counter)
