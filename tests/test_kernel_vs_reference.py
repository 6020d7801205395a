"""The numba playout against the plain-Python reference engine, record for record.

Seeded deals (DEALS: 2,500 in the full tier, make test-all; 250 in the fast tier, make
test) for every named rule set and the pairings simple-simple, simple-random and
random-random, plus variants that the named sets leave off (big gin, R11 relaxed, no
undercut on ties, a low wall; VARIANT_DEALS). The strategy family (docs/strategies.md):
DEALS for each named family strategy against simple, against expert and against itself
(18 pairings), and VARIANT_DEALS for extreme parameter sets and for family pairings under
rule variants. Every pairing and variant runs in both tiers, on fewer deals in the fast
one. The reference runs in a process pool so the suite stays within its time on 2 cores.
"""

from __future__ import annotations

import os
from concurrent.futures import ProcessPoolExecutor

import numpy as np
import pytest
from named import FAMILY_STYLES
from tiers import size

from gin_sim.experiments.simulate import records_to_frame, simulate_deals
from gin_sim.game.records import HAND_FIELDS
from gin_sim.game.rules import Rules, load_rules
from gin_sim.players.strategies import Strategy, parse_players
from gin_sim.reference.engine import play_deal_reference

# Deals per pairing: every pairing stays, each on fewer decks (the suite's time budget;
# 2,500 deals reach every rule branch the invariants check, pairing by pairing; 250 still
# reach most, and the full tier runs the rest).
DEALS = size(fast=250, full=2_500)
VARIANT_DEALS = size(fast=250, full=2_000)
SEED = 20261129
PAIRINGS = ["simple,simple", "simple,random", "random,random"]
FAMILY = list(FAMILY_STYLES)


def family_pairings() -> list[str]:
    """Each named family strategy against simple, against expert and against itself,
    each pair once whatever the seat order (the dealer alternates with the deal)."""
    seen: set[frozenset[str]] = set()
    out = []
    for name in FAMILY:
        for other in ("simple", "expert", name):
            if frozenset((name, other)) not in seen:
                seen.add(frozenset((name, other)))
                out.append(f"{name},{other}")
    return out


FAMILY_PAIRINGS = family_pairings()
# Deliberately extreme members of the family: takes for gain only, with a heavy weight on
# live cards; a very cautious knocker that hates feeding the opponent; a three-phase
# schedule; a four-phase take schedule; fractional weights everywhere (where the order of
# the float sums matters).
EXTREMES = [
    Strategy(name="grabber", take_melds=False, take_min_gain=1.0, improve_weight=2.0),
    Strategy(name="timid", safety_weight=3.0, undercut_risk=0.05),
    Strategy(
        name="three-phase",
        knock_schedule=((20, 0), (8, 5), (0, 10)),
        keep_weight=0.1,
        safety_weight=0.7,
        disinterest_weight=0.3,
    ),
    # A take rule by stock depth, four phases: melds and a low gain early, nothing but a
    # large gain in mid-hand, melds alone late, a fractional gain at the end.
    Strategy(
        name="take-phases",
        take_schedule=((24, True, 1.0), (14, False, 6.0), (6, True, 0.0), (0, False, 2.5)),
        improve_weight=0.5,
        keep_weight=0.2,
    ),
    Strategy(
        name="fractions",
        knock_threshold=3,
        undercut_risk=0.02,
        take_min_gain=0.5,
        improve_weight=0.3,
        keep_weight=0.3,
        safety_weight=0.2,
        disinterest_weight=0.1,
    ),
    # High pairs kept against every other discard weight (fractional: the float order).
    Strategy(
        name="pair-keeper",
        knock_schedule=((27, 10), (0, 0)),
        keep_weight=0.3,
        safety_weight=1.7,
        disinterest_weight=0.6,
        pair_weight=0.35,
    ),
]


def _reference_block(args: tuple[Rules, tuple[Strategy, Strategy], int, int, int]) -> list[dict]:
    rules, players, seed, start, stop = args
    return [play_deal_reference(seed, deal, rules, players) for deal in range(start, stop)]


def reference_records(
    rules: Rules, players: tuple[Strategy, Strategy], seed: int, deals: int
) -> list[dict]:
    workers = min(4, os.cpu_count() or 1)
    step = max(1, deals // (workers * 4))
    jobs = [(rules, players, seed, s, min(deals, s + step)) for s in range(0, deals, step)]
    with ProcessPoolExecutor(workers) as pool:
        return [record for block in pool.map(_reference_block, jobs) for record in block]


def compare(
    rules: Rules, players: str | tuple[Strategy, Strategy], deals: int, seed: int = SEED
) -> np.ndarray:
    pair = parse_players(players)
    kernel = simulate_deals(rules, pair, deals, seed)
    frame = records_to_frame(kernel)
    expected = reference_records(rules, pair, seed, deals)
    players = f"{pair[0].name},{pair[1].name}"
    assert len(expected) == deals
    got = frame[list(HAND_FIELDS)].to_dict("records")
    for deal, (k, r) in enumerate(zip(got, expected, strict=True)):
        k = {name: (bool(v) if isinstance(v, bool | np.bool_) else int(v)) for name, v in k.items()}
        if k != r:
            diff = {name: (k[name], r[name]) for name in HAND_FIELDS if k[name] != r[name]}
            pytest.fail(f"deal {deal} ({rules.name}, {players}): kernel != reference on {diff}")
    return kernel


def check_invariants(records: np.ndarray, rules: Rules) -> None:
    """Cards conserved in the final hands, scores follow R17 from the record's own fields."""
    for r in records:
        h0, h1 = int(r["hand0"]), int(r["hand1"])
        assert h0 & h1 == 0
        sizes = sorted([h0.bit_count(), h1.bit_count()])
        assert sizes == ([10, 11] if r["big_gin"] else [10, 10])
        if r["draw"]:
            assert r["knocker"] == -1 and r["winner"] == -1 and r["points"] == 0
            assert r["stock_left"] <= rules.wall or r["upcard_takes"] >= rules.max_upcard_takes
            continue
        k, d, d0 = (
            int(r["knocker_deadwood"]),
            int(r["defender_deadwood_after"]),
            int(r["defender_deadwood"]),
        )
        assert 0 <= k <= r["knock_limit"] and d <= d0
        if r["gin"]:
            bonus = rules.big_gin_bonus if r["big_gin"] else rules.gin_bonus
            assert (r["winner"], r["points"], d, r["laid_off_points"]) == (
                r["knocker"],
                bonus + d0,
                d0,
                0,
            )
        elif k < d:
            assert (r["winner"], r["points"], r["undercut"]) == (r["knocker"], d - k, False)
        elif k > d or rules.undercut_on_tie:
            assert (r["winner"], r["points"], r["undercut"]) == (
                1 - r["knocker"],
                rules.undercut_bonus + k - d,
                True,
            )
        else:
            assert (r["winner"], r["points"], r["undercut"]) == (-1, 0, False)


@pytest.mark.parametrize("players", PAIRINGS)
@pytest.mark.parametrize("rule_set", ["hollywood", "hollywood-gin20", "standard", "oklahoma"])
@pytest.mark.first_case
def test_kernel_equals_reference_on_many_deals(rule_set, players):
    rules = load_rules(rule_set)
    records = compare(rules, players, DEALS)
    check_invariants(records, rules)


@pytest.mark.parametrize(
    "overrides",
    [
        ["big_gin_bonus=31"],
        ["may_discard_drawn_upcard=true"],
        ["undercut_on_tie=false", "knock_limit=4"],
        ["wall=0", "max_upcard_takes=5"],
        ["knock_limit=0"],
    ],
)
@pytest.mark.parametrize("players", ["simple,simple", "random,simple"])
@pytest.mark.first_case
def test_kernel_equals_reference_on_variants(overrides, players):
    rules = load_rules("hollywood", overrides)
    records = compare(rules, players, VARIANT_DEALS, seed=5)
    check_invariants(records, rules)


@pytest.mark.parametrize("players", FAMILY_PAIRINGS)
@pytest.mark.first_case
def test_family_kernel_equals_reference_on_many_deals(players):
    rules = load_rules("hollywood")
    records = compare(rules, players, DEALS)
    check_invariants(records, rules)


@pytest.mark.parametrize("opponent", ["expert", "self"])
@pytest.mark.parametrize("extreme", EXTREMES, ids=[s.name for s in EXTREMES])
@pytest.mark.first_case
def test_extreme_family_members_on_variant_deals(extreme, opponent):
    rules = load_rules("hollywood")
    other = extreme if opponent == "self" else parse_players(f"{opponent},simple")[0]
    records = compare(rules, (extreme, other), VARIANT_DEALS, seed=7)
    check_invariants(records, rules)


@pytest.mark.parametrize(
    ("rule_set", "overrides", "players"),
    [
        ("oklahoma", [], "expert,gin-hunter"),
        (
            "hollywood",
            ["big_gin_bonus=31", "may_discard_drawn_upcard=true"],
            "defensive,early-knocker",
        ),
        ("hollywood", ["undercut_on_tie=false", "knock_limit=4"], "expert,basic"),
        ("standard", ["wall=0", "max_upcard_takes=5"], "expert,random"),
    ],
)
@pytest.mark.first_case
def test_family_under_rule_variants_on_variant_deals(rule_set, overrides, players):
    rules = load_rules(rule_set, overrides)
    records = compare(rules, players, VARIANT_DEALS, seed=9)
    check_invariants(records, rules)
