"""Search players (kind ``mc``): the reference engine's search against the kernels'.

docs/strategies.md ("Search players") is implemented twice, by ``gin_sim/kernels/search.py``
and by ``gin_sim/reference/search.py``. With few worlds per decision (2 or 3) the two must
play every deal to the same record (same candidates, random numbers, worlds, rollout values
and choices), for search players against family players, against ``random``, with and
without opponent inference, against each other, under several rule sets. And at each
searched decision the kernels' figures, asked through ``gin_sim.players.decide``, equal the
reference's exactly.
"""

from __future__ import annotations

import copy
import math
import random
import shutil
import statistics
from dataclasses import replace

import numpy as np
import pytest
from hidden_info import REFERENCE, probe
from hypothesis import given, settings
from hypothesis import strategies as st
from tiers import size

from gin_sim.experiments.simulate import simulate_deals, simulate_matches
from gin_sim.game.cards import format_card
from gin_sim.game.config import configs_dir
from gin_sim.game.hollywood import HollywoodScore
from gin_sim.game.match_start import parse_start
from gin_sim.game.records import MATCH_FIELDS, record_to_dict
from gin_sim.game.rng import Stream, deck_for_deal, deck_stream_state
from gin_sim.game.rules import load_rules
from gin_sim.kernels.enums import ACTION_KNOCK, N_STRATEGY_PARAMS, StrategyParam
from gin_sim.kernels.match_value import value_vector
from gin_sim.kernels.search import (
    HISTORY_PASS,
    HISTORY_TAKE,
    MEMORY_DISCARD,
    MEMORY_SLOTS,
    built_hand_nb,
    choose_nb,
    credit_score_nb,
    lowering_passes_nb,
    model_built_hand_nb,
    record_history_nb,
    score_equity_nb,
    screen_nb,
    search_scratch_nb,
    timed_contradicted_passes_nb,
    update_posterior_nb,
)
from gin_sim.players.calibration import load_undercut_table
from gin_sim.players.decide import decide, parse_view, position_from_view
from gin_sim.players.strategies import SEARCH_VALUES, Strategy, load_strategy
from gin_sim.reference import search as reference_search
from gin_sim.reference.engine import (
    BIG_GIN,
    DISCARD,
    Discard,
    Hand,
    decisions_reference,
    discard_cost,
    family_discard_or_knock,
    play_deal_reference,
    simple_discard,
)
from gin_sim.reference.match import play_match_reference
from gin_sim.reference.search import (
    PassHistory,
    built_hand,
    candidate_actions,
    choose,
    contradicted_passes,
    describe_action,
    lowering_passes,
    model_built_hand,
    sample_world,
    screened,
    shuffle,
    timed_contradicted_passes,
)
from gin_sim.reference.views import view_from_situation

SEED = 20270311
C = {format_card(c): c for c in range(52)}


def mc(base: str, **changes) -> Strategy:
    return replace(load_strategy(base), **changes)


PANEL = ("simple", "expert", "gin-hunter", "random", "early-knocker", "defensive")

# (rule set, rule overrides, players, deals): every pairing the brief asks for, kept small.
# The named mc and mc-fast infer the opponent's hand; infer is set explicitly here. The fast
# tier plays the first pairing only, on fewer deals.
PAIRINGS = [
    (
        "hollywood",
        [],
        (mc("mc-fast", samples=3, infer=False, name="mcf3"), "simple"),
        size(fast=20, full=50),
    ),
    ("hollywood", [], ("simple", mc("mc-fast", samples=3, infer=True, name="mcf-infer")), 30),
    ("standard", [], (mc("mc-fixed", samples=2, infer=True, name="mc2i"), "expert"), 25),
    (
        "standard",
        [],
        (
            mc("mc-fixed", samples=2, infer=False, name="mc2"),
            mc("mc-fast", samples=2, infer=True, confidence=0.0),
        ),
        10,
    ),
    (
        "hollywood",
        [],
        (mc("mc-fixed", samples=2, infer=True, name="mc2i"), mc("mc-fast", samples=2, infer=False)),
        10,
    ),
    ("oklahoma", [], (mc("mc-fast", samples=2, infer=True, name="mcf2i"), "gin-hunter"), 30),
    # Screening (step 4b): every discard plays the first 3 worlds, then clearly worse ones drop
    # out, one discard goes on with the first and the knock, and some searches stop early.
    (
        "standard",
        [],
        (mc("mc-fast", samples=6, screen=3, candidates=1, infer=True, name="mcf-screen"), "simple"),
        15,
    ),
    (
        "hollywood",
        [],
        ("expert", mc("mc-fixed", samples=5, screen=2, infer=False, name="mc-screen")),
        20,
    ),
    # random draws from the other seat's stream; R18a cap, big gin (R14), R11 relaxed, a
    # lower knock limit and ties that do not undercut.
    (
        "hollywood",
        [
            "big_gin_bonus=31",
            "max_upcard_takes=8",
            "may_discard_drawn_upcard=true",
            "knock_limit=7",
            "undercut_on_tie=false",
        ],
        (
            mc("mc-fast", samples=2, candidates=11, confidence=0.0, infer=False, name="mcf-all"),
            "random",
        ),
        20,
    ),
    # The opponent panel (issue 19): a posterior from the opponent's turns picks each world's
    # opponent, random among the models; against a family player, a random one with big gin
    # and R11 relaxed (it may throw a taken card straight back), and two panels at once.
    (
        "hollywood",
        [],
        (mc("mc-fast", samples=3, infer=True, opponent_panel=PANEL, name="mcf-panel"), "expert"),
        12,
    ),
    (
        "standard",
        ["big_gin_bonus=31", "may_discard_drawn_upcard=true"],
        (
            "random",
            mc("mc-fixed", samples=2, infer=False, opponent_panel=PANEL[::-1], name="mc-panel"),
        ),
        8,
    ),
    # panel_worlds: after the opponent's answered turn, each world's hidden cards are drawn
    # given its model (rejection from the world stream).
    (
        "standard",
        [],
        (
            mc(
                "mc-fast",
                samples=3,
                infer=True,
                opponent_panel=PANEL,
                panel_worlds=True,
                name="mcf-worlds",
            ),
            "gin-hunter",
        ),
        6,
    ),
    # panel_infer (issue 26): each world's hidden hand built by its model's discard (random:
    # no build); with panel_worlds too, and big gin.
    (
        "standard",
        [],
        (
            mc(
                "mc-fast",
                samples=3,
                infer=True,
                opponent_panel=PANEL,
                panel_infer=True,
                name="mcf-pinfer",
            ),
            "gin-hunter-pairs",
        ),
        10,
    ),
    (
        "hollywood",
        ["big_gin_bonus=31"],
        (
            "gin-hunter-strong",
            mc(
                "mc-fast",
                samples=2,
                infer=True,
                opponent_panel=("gin-hunter-strong", "random", "expert"),
                panel_infer=True,
                panel_worlds=True,
                name="mcf-pinfer-w",
            ),
        ),
        8,
    ),
    (
        "oklahoma",
        [],
        (
            mc(
                "mc-fast",
                samples=2,
                infer=True,
                opponent_panel=PANEL[:3],
                panel_prior=(1.0, 2.0, 0.5),
                name="mcf-p3",
            ),
            mc(
                "mc-fast",
                samples=2,
                infer=True,
                opponent_panel=("gin-hunter-strong", "simple"),
                name="mcf-p2",
            ),
        ),
        10,
    ),
    # undercut_weight (issue 46): a knock's undercut counts 3 times in the search, the
    # worlds built by the panel's models, against the hunter standard undercuts most.
    (
        "standard",
        [],
        (
            mc(
                "mc-fast",
                samples=4,
                infer=True,
                opponent_panel=("gin-hunter-strong", "simple", "expert"),
                panel_infer=True,
                undercut_weight=3.0,
                name="mcf-undercut",
            ),
            "gin-hunter-strong",
        ),
        10,
    ),
    # knock_rollout (issue 46): knock decisions valued with another continuation
    (
        "standard",
        [],
        (
            mc(
                "mc-fast",
                samples=4,
                infer=True,
                opponent_panel=("gin-hunter-strong", "simple"),
                knock_rollout="defensive",
                name="mcf-knock",
            ),
            "gin-hunter-strong",
        ),
        10,
    ),
]


@pytest.mark.parametrize(("rule_set", "overrides", "players", "deals"), PAIRINGS)
@pytest.mark.first_case
def test_reference_search_plays_the_kernels_records(rule_set, overrides, players, deals):
    rules = load_rules(rule_set, overrides)
    pair = tuple(load_strategy(p) if isinstance(p, str) else p for p in players)
    kernel = simulate_deals(rules, pair, deals, seed=SEED, threads=1)
    searches = left_first = 0

    def count(event):
        nonlocal searches, left_first
        if event[0] == "search":
            searches += 1
            left_first += event[3].chosen != 0

    for deal in range(deals):
        reference = play_deal_reference(SEED, deal, rules, pair, trace=count)
        assert reference == record_to_dict(kernel[deal]), (rule_set, players, deal)
    # The searches happened, and did not always keep the rollout policy's choice: a
    # reference that ignored the search would fail the comparison above.
    assert searches > 10 * deals and left_first > deals // 5, (searches, left_first)


def test_search_changes_the_play():
    """The comparison above can fail: a search player does not play as its rollout
    strategy does (same decks, other records)."""
    rules = load_rules("hollywood")
    searcher = mc("mc-fast", samples=3)
    deals = size(fast=12, full=25)
    differ = sum(
        play_deal_reference(SEED, deal, rules, (searcher, "simple"))
        != play_deal_reference(SEED, deal, rules, ("simple", "simple"))
        for deal in range(deals)
    )
    assert differ >= deals // 5


@pytest.mark.parametrize(
    ("rule_set", "searcher"),
    [
        ("hollywood", mc("mc-fast", samples=3, infer=False)),
        ("standard", mc("mc-fixed", samples=2, infer=True, infer_weight=0.5)),
        ("standard", mc("mc-fast", samples=5, screen=2, candidates=1, infer=True)),
        # late_stock (issue 46): more worlds once the stock is short
        ("standard", mc("mc-fast", samples=2, late_stock=20, late_samples=5, infer=True)),
        # undercut_weight (issue 46): a knock's undercut priced up
        ("standard", mc("mc-fixed", samples=6, screen=0, undercut_weight=2.5)),
        # extend_samples (issue 46): an undecided choice plays more worlds
        ("standard", mc("mc-fast", samples=4, extend_samples=5, infer=True)),
        ("hollywood", mc("mc-fixed", samples=7, screen=3, candidates=2, extend_samples=4)),
        # knock_samples (issue 46): where a knock is open, more worlds
        ("standard", mc("mc-fixed", samples=5, screen=3, candidates=2, knock_samples=9)),
        # screen_discards (issue 46): the screening plays the cheapest discards only
        ("hollywood", mc("mc-fixed", samples=7, screen=3, candidates=2, screen_discards=4)),
        # knock_rollout (issue 46): where a knock is open, another continuation
        ("hollywood", mc("mc-fast", samples=4, infer=True, knock_rollout="simple")),
        # early_screen (issue 46): a first cut of the screening
        (
            "standard",
            mc("mc-fixed", samples=9, screen=5, candidates=2, early_screen=2, early_keep=3),
        ),
        # paired_draws (issue 46): the searcher draws from the stock's bottom
        ("standard", mc("mc-fixed", samples=6, screen=3, candidates=2, paired_draws=True)),
        # draw_samples (issue 46): offers and draws on other worlds than discards
        ("standard", mc("mc-fixed", samples=5, screen=3, candidates=2, draw_samples=8)),
    ],
)
@pytest.mark.first_case
def test_kernel_figures_equal_the_references_at_every_search(rule_set, searcher):
    """At each decision of the search player (seat 1 here) in some deals, ``decide`` (the
    kernels' search at a position built from the plain view) returns the reference's action
    and exactly its candidates, mean values and mean gains, and those the screening
    dropped with theirs; its stream is the player's after one number per earlier search."""
    rules = load_rules(rule_set)
    compared = screened_out = cut_out = priced = continued = loosened = lowered = paired = 0
    worlds = set()
    knock_depths = set()  # (worlds, whether a knock was open)
    phase_depths = set()  # (worlds, whether a discard was decided)

    def searched_again(situation, other, deal, draws):
        """The same search by ``other`` (one setting changed), from the same stream."""
        view = view_from_situation(situation)
        return decide(view, rules, other, SEED, deal=deal, seat=1, draws=draws - 1)

    for deal in range(6):
        events: list = []
        draws = 0
        for situation, action in decisions_reference(
            SEED, deal, rules, ("expert", searcher), trace=events
        ):
            if situation.player != 1:
                continue
            searched = [e for e in events if e[0] == "search"]
            figures = searched[-1][3] if len(searched) > draws else None
            got = decide(
                view_from_situation(situation),
                rules,
                searcher,
                SEED,
                deal=deal,
                seat=1,
                draws=draws,
            )
            assert got.worlds == (figures.worlds if figures else 0)
            if figures is not None:
                draws += 1
                assert got.chosen == figures.chosen
                assert [c.mean for c in got.candidates] == [
                    s / figures.worlds for s in figures.sums
                ]
                assert [c.gain for c in got.candidates] == [
                    g / figures.worlds for g in figures.gains
                ]
                assert figures.candidates[figures.chosen] == action
                # The candidates the screening dropped, with their figures at the screen,
                # and those its first cut dropped, with theirs at the cut.
                assert got.screen_worlds == figures.screen_worlds
                assert got.early_screen_worlds == figures.early_screen_worlds
                dropped, cut = figures.screened_out, figures.early_screened_out
                for shown, left, at in (
                    (got.screened_out, dropped, figures.screen_worlds),
                    (got.early_screened_out, cut, figures.early_screen_worlds),
                ):
                    assert [c.action for c in shown] == [
                        describe_action(d.action, situation.phase) for d in left
                    ]
                    assert [(c.mean, c.gain) for c in shown] == [
                        (d.sums / at, d.gains / at) for d in left
                    ]
                screened_out += len(dropped)
                cut_out += len(cut)
                compared += 1
                worlds.add((figures.worlds, situation.view.stock_left <= searcher.late_stock))
                if searcher.undercut_weight > 1.0:  # searches the weight changed
                    unpriced = replace(searcher, undercut_weight=1.0, undercut_stock=0)
                    kept = searched_again(situation, unpriced, deal, draws)
                    priced += kept.candidates != got.candidates
                    if situation.view.stock_left > searcher.undercut_stock > 0:
                        assert kept.candidates == got.candidates  # early: not priced
                actions = [*figures.candidates, *(d.action for d in (*dropped, *cut))]
                knock_open = any(isinstance(a, Discard) and a.knock for a in actions)
                knock_depths.add((figures.worlds, knock_open))
                phase_depths.add((figures.worlds, situation.phase == DISCARD))
                if searcher.screen_discards and situation.phase == DISCARD:
                    # the rollout policy's own discard and the knock, then the cheapest few
                    assert len(actions) <= searcher.screen_discards + 2, actions
                if searcher.late_infer_stock:  # worlds drawn otherwise at late knocks only
                    plain = replace(searcher, late_infer_stock=0, late_infer_weight=1.0)
                    kept = searched_again(situation, plain, deal, draws)
                    if knock_open and situation.view.stock_left <= searcher.late_infer_stock:
                        loosened += kept.candidates != got.candidates
                    else:
                        assert kept.candidates == got.candidates  # as by infer_weight
                if searcher.infer_lowering:  # other passes doubted: some searches differ
                    plain = replace(searcher, infer_lowering=False)
                    lowered += searched_again(situation, plain, deal, draws).candidates != (
                        got.candidates
                    )
                if searcher.paired_draws:  # the same worlds played otherwise: some differ
                    plain = replace(searcher, paired_draws=False)
                    paired += searched_again(situation, plain, deal, draws).candidates != (
                        got.candidates
                    )
                if searcher.knock_rollout:  # only where a knock is open may it differ
                    kept = searched_again(
                        situation, replace(searcher, knock_rollout=""), deal, draws
                    )
                    if knock_open:
                        continued += kept.candidates != got.candidates
                    else:
                        assert kept.candidates == got.candidates
            if isinstance(action, bool):
                assert got.take == action
            elif action == BIG_GIN:
                assert got.big_gin
            else:
                assert (got.discard, got.knock) == (format_card(action.card), action.knock)
    assert compared > 40
    assert (screened_out > 10) == (1 < searcher.screen < searcher.samples), screened_out
    if searcher.late_stock and not searcher.screen:  # both depths played, each where it should
        assert worlds == {(searcher.samples, False), (searcher.late_samples, True)}, worlds
    assert (cut_out > 10) == (searcher.early_screen > 0), cut_out
    assert (priced > 0) == (searcher.undercut_weight > 1.0), priced
    assert (continued > 0) == bool(searcher.knock_rollout), continued
    assert (loosened > 0) == bool(searcher.late_infer_stock), loosened
    assert (lowered > 0) == searcher.infer_lowering, lowered
    assert (paired > 0) == searcher.paired_draws, paired
    if searcher.knock_samples:  # knock decisions deeper, the others not
        plain = searcher.samples - (
            searcher.screen if 1 < searcher.screen < searcher.samples else 0
        )
        deep = searcher.knock_samples - (searcher.screen if searcher.screen > 1 else 0)
        assert {(plain, False), (deep, True)} <= knock_depths, knock_depths
    if searcher.draw_samples:  # offers and draws at their depth, discards at theirs
        # (a search whose screening leaves one candidate stops there: screen worlds)
        take = searcher.draw_samples - searcher.screen
        discard = searcher.samples - searcher.screen
        assert (take, False) in phase_depths and (discard, True) in phase_depths, phase_depths
        assert phase_depths <= {(take, False), (discard, True), (searcher.screen, False),
                                (searcher.screen, True)}, phase_depths  # fmt: skip
    if searcher.extend_samples:  # some choices were undecided and looked again, some not
        plain = searcher.samples - (searcher.screen if searcher.screen > 1 else 0)
        depths = {w for w, _ in worlds}
        assert {plain, plain + searcher.extend_samples} <= depths, depths


def test_an_undecided_choice_looks_again_as_the_reference_does():
    """extend_samples (issue 46) after a screening, in the fast tier too (the named
    mutations of its rule run this): the kernel and the reference extend the same
    searches, over the same worlds, to the same choice."""
    searcher = mc("mc-fixed", samples=9, screen=3, candidates=2, extend_samples=6)
    test_kernel_figures_equal_the_references_at_every_search("standard", searcher)


def test_knock_decisions_search_deeper_as_the_reference_does():
    """knock_samples (issue 46), in the fast tier too (the named mutations of its rule run
    this): the kernel and the reference play more worlds exactly where a knock is among
    the candidates, to the same figures and choices (the figures test checks that both
    depths were played, each where it should be)."""
    searcher = mc("mc-fixed", samples=5, screen=3, candidates=2, knock_samples=9)
    test_kernel_figures_equal_the_references_at_every_search("standard", searcher)


def test_the_screening_plays_the_cheapest_discards_as_the_reference_does():
    """screen_discards (issue 46), in the fast tier too (the named mutations of its rule
    run this): the kernel and the reference screen the same cheapest discards, to the same
    figures and choices, and never more of them than it says."""
    searcher = mc("mc-fixed", samples=7, screen=3, candidates=2, screen_discards=4)
    test_kernel_figures_equal_the_references_at_every_search("hollywood", searcher)


def test_the_screenings_first_cut_is_the_references():
    """early_screen and early_keep (issue 46), in the fast tier too (the named mutations of
    its rule run this): the kernel and the reference cut the same candidates after the same
    worlds, to the same figures and choices, and report the cut ones with their figures
    over the cut's worlds."""
    searcher = mc("mc-fixed", samples=9, screen=5, candidates=2, early_screen=2, early_keep=3)
    test_kernel_figures_equal_the_references_at_every_search("standard", searcher)


def test_offers_and_draws_search_their_own_worlds_as_the_reference_does():
    """draw_samples (issue 46), in the fast tier too (the named mutations of its rule run
    this): the kernel and the reference play draw_samples worlds at offers and draws and
    samples at discards, to the same figures and choices (the figures test checks that
    each depth was played where it should be)."""
    searcher = mc("mc-fixed", samples=5, screen=3, candidates=2, draw_samples=8)
    test_kernel_figures_equal_the_references_at_every_search("standard", searcher)


def test_paired_draws_are_the_references():
    """paired_draws (issue 46), in the fast tier too (the named mutations of its rule run
    this): the kernel and the reference deal the searcher its rollouts' stock cards from
    the bottom, to the same figures and choices (the figures test checks that some
    searches changed)."""
    searcher = mc("mc-fixed", samples=6, screen=3, candidates=2, paired_draws=True)
    test_kernel_figures_equal_the_references_at_every_search("standard", searcher)


def test_undercuts_are_priced_late_only_as_the_reference_does():
    """undercut_stock (issue 46), in the fast tier too (the named mutations of its rule run
    this): the kernel and the reference price a knock's undercut only with at most that
    many cards left, to the same figures and choices (the figures test checks that the
    earlier searches are as without the weight, and that some later ones changed)."""
    searcher = mc("mc-fixed", samples=6, screen=0, undercut_weight=2.5, undercut_stock=22)
    test_kernel_figures_equal_the_references_at_every_search("standard", searcher)


def test_passes_weigh_otherwise_late_as_the_reference_does():
    """late_infer_stock and late_infer_weight (issue 46), in the fast tier too (the named
    mutations of its rule run this): where a knock is open with few cards left the kernel
    and the reference keep a world with a contradicted pass by the late weight, to the
    same figures and choices (the figures test checks that every other search is as
    without it, and that some of those changed)."""
    searcher = mc("mc-fixed", samples=6, screen=0, late_infer_stock=20, late_infer_weight=1.0)
    test_kernel_figures_equal_the_references_at_every_search("standard", searcher)


def test_passes_that_would_have_lowered_the_deadwood_are_read_as_the_reference_does():
    """infer_lowering (issue 46), in the fast tier too (the named mutations of its rule run
    this): the kernel and the reference doubt a world's hand for the same passes, to the
    same figures and choices (the figures test checks that some searches changed)."""
    searcher = mc("mc-fixed", samples=6, screen=0, infer_lowering=True)
    test_kernel_figures_equal_the_references_at_every_search("standard", searcher)


@pytest.mark.parametrize(
    "panel", [("gin-hunter-strong", "simple", "expert"), ()], ids=["panel", "no-panel"]
)
@pytest.mark.first_case
def test_passes_read_by_when_they_were_made_as_the_reference_does(panel):
    """infer_timed (issue 46), in the fast tier too (the named mutations of its rule run
    this): the kernel, which dates the opponent's passes and takes in its memory at each of
    its decisions, plays the reference's hands against a gin hunter, with a panel (whose
    posterior's worlds read them too) and without; and reading passes by when they were
    made changes the play of some hands."""
    rules = load_rules("standard")
    searcher = mc("mc-fast", samples=4, infer=True, infer_timed=True, name="mcf-timed")
    if panel:
        searcher = replace(searcher, opponent_panel=panel, panel_infer=True)
    pair = (searcher, load_strategy("gin-hunter-strong"))
    deals = size(fast=6, full=16)
    kernel = simulate_deals(rules, pair, deals, seed=SEED, threads=1)
    untimed = simulate_deals(
        rules, (replace(searcher, infer_timed=False, name="mcf-untimed"), pair[1]), deals,
        seed=SEED, threads=1,
    )  # fmt: skip
    for deal in range(deals):
        reference = play_deal_reference(SEED, deal, rules, pair)
        assert reference == record_to_dict(kernel[deal]), (panel, deal)
    changed = sum(record_to_dict(kernel[d]) != record_to_dict(untimed[d]) for d in range(deals))
    assert changed >= 1, changed


def _true_dates(deal: int, rules, players, searcher_seat: int):
    """Each decision of the searcher (seat ``searcher_seat``) in a reference hand, with the
    dates of the opponent's passes and takes so far as its own decisions show them: a card
    declined at an offer or passed over at a draw, the opponent's turns then; a discard, its
    turns with that turn's; a take from the pile, its turns after the take, while it holds
    the card."""
    opponent = 1 - searcher_seat
    passed: dict[int, int] = {}
    taken: dict[int, int] = {}
    for situation, action in decisions_reference(SEED, deal, rules, players):
        view = situation.view
        if situation.player == searcher_seat:
            held = {card: turn for card, turn in taken.items() if view.opp_taken >> card & 1}
            yield situation, dict(passed), held
            continue
        assert situation.player == opponent
        turns = situation.own_turns
        if situation.phase != DISCARD:  # the offer or a draw: it took the top, or passed it
            top = situation.pile_order[-1]
            if action:
                taken[top] = turns + 1
            else:
                passed.setdefault(top, turns)
        elif isinstance(action, Discard):
            passed.setdefault(action.card, turns)


@pytest.mark.parametrize("rule_set", ["standard", "hollywood"])
@pytest.mark.first_case
def test_the_passes_are_dated_as_they_were_made_in_kernel_and_reference(rule_set):
    """At each of a searcher's decisions, the dates ``record_history_nb`` (at the position
    the view gives) and the reference's ``PassHistory`` keep equal the true turns of the
    opponent's passes, discards and takes from its trace: a card passed over at the
    opponent's draw of turn t (or declined at the offer) is dated t - 1 (the turns it had
    played then), its discard of turn t is dated t, a take of turn t is dated t."""
    rules = load_rules(rule_set)
    players = ("gin-hunter-strong", "expert")
    compared = discards = 0
    for deal in range(size(fast=6, full=20)):
        for seat in (0, 1):
            history = PassHistory.empty()
            row = np.zeros(MEMORY_SLOTS)
            for situation, passed, taken in _true_dates(deal, rules, players, seat):
                history.record(situation)
                masks, state = position_from_view(
                    parse_view(view_from_situation(situation), rules), seat=seat
                )
                record_history_nb(masks, state, seat, row)
                assert history.passed == passed, (deal, seat, situation.phase)
                assert history.taken == taken, (deal, seat)
                kernel_passed = {
                    c: int(row[HISTORY_PASS + c]) - 1 for c in range(52) if row[HISTORY_PASS + c]
                }
                kernel_taken = {
                    c: int(row[HISTORY_TAKE + c]) - 1 for c in range(52) if row[HISTORY_TAKE + c]
                }
                assert kernel_passed == passed and kernel_taken == taken, (deal, seat)
                compared += 1
                discards += sum(1 for t in passed.values() if t > 0)
    assert compared > 100 and discards > 100, (compared, discards)


def test_a_pass_reads_only_the_cards_held_when_it_was_made():
    """The build holds the known 7D and 7H 2C 3C 9S KS 4H 5H JD QD from the start (9
    hidden), then the 7C comes in at its first turn (the KS goes out) and the 8S at its
    second (the QD goes out). The 4C passed at the opening offer (stage 0) melds with 2C
    3C, held then, and the 6H with 4H 5H: counted. The 7D was taken from the pile at turn
    2, so at stage 0 only the 7H of the three sevens was held: the 7S passed then is not
    counted; passed at stage 2 it is. Undated passes read the hand now."""
    names = ("7H", "2C", "3C", "9S", "KS", "4H", "5H", "JD", "QD", "7C", "8S")
    cards = [C[c] for c in names]
    known = 1 << C["7D"]
    hand = built_hand(known, cards, 9, 2)  # 7D known; 9 hidden; two turns
    assert hand >> C["7C"] & 1 and hand >> C["7H"] & 1 and hand >> C["2C"] & 1
    passed = (1 << C["7S"]) | (1 << C["4C"]) | (1 << C["6H"])
    early = PassHistory({C["7S"]: 0, C["4C"]: 0, C["6H"]: 0}, {C["7D"]: 2})
    # 7S: at stage 0 only 7H of the three sevens held (7D taken at 2, 7C came at 1): no meld
    assert timed_contradicted_passes(hand, passed, known, cards, 9, 2, early) == 2
    late = PassHistory({C["7S"]: 2, C["4C"]: 0, C["6H"]: 0}, {C["7D"]: 2})
    assert timed_contradicted_passes(hand, passed, known, cards, 9, 2, late) == 3
    assert timed_contradicted_passes(hand, passed, known, cards, 9, 2, PassHistory.empty()) == (
        contradicted_passes(hand, passed)
    )


@settings(max_examples=300, deadline=None)
@given(
    st.permutations(range(52)),
    st.integers(0, 3),
    st.integers(0, 12),
    st.lists(st.integers(-1, 14), min_size=52, max_size=52),
    st.lists(st.integers(-1, 14), min_size=52, max_size=52),
    st.integers(0, 2**52 - 1),
)
def test_the_kernels_timed_passes_are_the_references(deck, n_known, extra, passes, takes, bits):
    """timed_contradicted_passes_nb (stages scanned in turn, prefix masks) counts what the
    reference counts card by card, for any dates (-1: not recorded)."""
    known = sum(1 << c for c in deck[:n_known])
    cards = list(deck[n_known:])
    hidden = 10 - n_known
    hand = built_hand(known, cards, hidden, extra)
    passed = bits & ~hand & ((1 << 52) - 1)
    history = PassHistory(
        {c: t for c, t in enumerate(passes) if t >= 0},
        {c: t for c, t in enumerate(takes) if t >= 0},
    )
    row = np.zeros(MEMORY_SLOTS)
    for c in range(52):
        row[HISTORY_PASS + c] = passes[c] + 1
        row[HISTORY_TAKE + c] = takes[c] + 1
    kernel = timed_contradicted_passes_nb(
        np.uint64(hand), np.uint64(passed), np.uint64(known), np.array(cards, np.int64), hidden,
        extra, row,
    )  # fmt: skip
    assert kernel == timed_contradicted_passes(hand, passed, known, cards, hidden, extra, history)


def test_knock_decisions_take_their_own_continuation_as_the_reference_does():
    """knock_rollout (issue 46), in the fast tier too (the named mutations of its rule run
    this): where a knock is open the kernel and the reference play the searcher's later
    moves by it, to the same figures and choices, and elsewhere by rollout (the figures
    test checks that the searches with a knock open, and only those, changed)."""
    searcher = mc("mc-fixed", samples=6, screen=3, candidates=2, knock_rollout="simple")
    test_kernel_figures_equal_the_references_at_every_search("standard", searcher)


def test_undercut_weight_prices_only_the_knocks_undercuts():
    """undercut_weight (issue 46) lowers a knock candidate's mean by (weight - 1) times its
    undercut losses and leaves every other candidate's figures as they were: in the same
    worlds, weight 3 moves the knock's mean twice as far as weight 2, never up, and down
    where an undercut was possible."""
    rules = load_rules("standard")
    plain = mc("mc-fixed", samples=24, screen=0)
    knocks = lowered = 0
    for deal in range(size(fast=6, full=16)):
        for situation, _action in decisions_reference(SEED, deal, rules, ("expert", "expert")):
            if situation.phase != DISCARD or situation.player != 1:
                continue
            view = view_from_situation(situation)
            got = [
                decide(view, rules, replace(plain, undercut_weight=w), SEED, deal=deal, seat=1)
                for w in (1.0, 2.0, 3.0)
            ]
            knock = [c.action.startswith("knock") for c in got[0].candidates]
            if not any(knock):
                continue
            knocks += 1
            for c, is_knock in enumerate(knock):
                means = [g.candidates[c].mean for g in got]
                assert [g.candidates[c].action for g in got] == [got[0].candidates[c].action] * 3
                if not is_knock:
                    assert means[1] == means[0] and means[2] == means[0]
                    continue
                assert means[1] <= means[0]
                assert means[2] - means[0] == pytest.approx(2 * (means[1] - means[0]))
                lowered += means[1] < means[0]
    assert knocks > 5 and lowered > 0, (knocks, lowered)


# ------------------------------------------------------------------ the parts
def test_the_kernels_screening_keeps_the_references_survivors_then_the_dropped_in_order():
    """``screen_nb`` against ``reference.search.screened`` on random figures: the survivors
    first, in order, then every dropped candidate in order with its figures unchanged (what
    ``advise`` lists as screened out)."""
    rng = np.random.default_rng(8)
    dropped_any = 0
    for _ in range(300):
        n = int(rng.integers(2, 13))
        worlds, keep = int(rng.integers(2, 20)), int(rng.integers(1, 4))
        codes = [int(c) for c in rng.choice(52, n, replace=False)]
        knocks = rng.random(n) < 0.15
        candidates = np.array(
            [c | ACTION_KNOCK if k else c for c, k in zip(codes, knocks, strict=True)], np.int64
        )
        sums = rng.normal(0, 30, n).round()
        gains = sums - sums[0]
        gain_squares = gains**2 / worlds + rng.random(n) * 400 * worlds
        squares = sums**2 + rng.random(n) * 900
        actions = [Discard(int(c), bool(k)) for c, k in zip(codes, knocks, strict=True)]
        kept = screened(actions, list(sums), list(gains), list(gain_squares), worlds, keep)
        order = kept + [c for c in range(n) if c not in kept]
        figures = [a.copy() for a in (candidates, sums, squares, gains, gain_squares)]
        m = screen_nb(n, keep, worlds, *figures)
        assert m == len(kept)
        originals = (candidates, sums, squares, gains, gain_squares)
        for array, original in zip(figures, originals, strict=True):
            assert array.tolist() == original[order].tolist()
        dropped_any += m < n
    assert dropped_any > 100


def test_the_world_shuffle_is_the_deck_shuffle():
    cards = list(range(52))
    shuffle(cards, Stream(deck_stream_state(5, 9)))
    assert cards == deck_for_deal(5, 9)


def test_built_hand_drops_by_the_least_deadwood_rule():
    known = 1 << C["KS"]
    cards = [C[c] for c in ("AC", "2C", "9D", "5H", "6H", "7H", "TD", "JD", "QD", "3C", "8S", "4C")]
    # No extra turns: the known card and the first 9.
    assert built_hand(known, cards, 9, 0) == known | sum(1 << c for c in cards[:9])
    # One turn: 3C comes in and the card whose removal leaves the least deadwood (ties to
    # the higher value, rank, suit) goes out, never the known KS.
    hand = built_hand(known, cards, 9, 1)
    start = known | sum(1 << c for c in cards[:10])
    droppable = [c for c in range(52) if start >> c & 1 and c != C["KS"]]
    assert hand == start & ~(1 << simple_discard(start, droppable, None))
    assert hand >> C["KS"] & 1 and hand.bit_count() == 10
    # Two turns: 8S in, and the known card never goes out even when it is the worst.
    hand2 = built_hand(known, cards, 9, 2)
    assert hand2 >> C["KS"] & 1 and hand2.bit_count() == 10


def test_model_built_hands_equal_the_references_and_keep_what_the_model_keeps():
    """``panel_infer``'s build (issue 26): at the decisions of some expert hands, with the
    unseen cards shuffled, each family model's built hand is the same in the kernel
    (``model_built_hand_nb``) and the reference (``model_built_hand``); ``simple``'s is the
    least-deadwood build, and the weighted models' differ from it in some worlds."""
    rules = load_rules("standard")
    models = ["simple", "expert", "gin-hunter", "gin-hunter-strong", "gin-hunter-pairs"]
    vectors = {m: load_strategy(m).for_rules(rules).to_kernel() for m in models}
    strategies = {m: load_strategy(m).for_rules(rules) for m in models}
    rng = random.Random(26)
    compared, differ = 0, dict.fromkeys(models, 0)
    for deal in range(4):
        for situation, _ in decisions_reference(SEED, deal, rules, ("expert", "expert")):
            view = situation.view
            cards = [c for c in range(52) if view.unseen >> c & 1]
            hidden = 10 - view.opp_taken.bit_count()
            extra = min(view.opp_turns, len(cards) - hidden)
            if extra < 2:
                continue
            rng.shuffle(cards)
            array = np.array(cards + [0] * (52 - len(cards)), np.int64)
            plain = built_hand(view.opp_taken, cards, hidden, extra)
            assert plain == int(built_hand_nb(np.uint64(view.opp_taken), array, hidden, extra))
            for m in models:
                shown = [view.opp_taken, view.pile, situation.own_taken, situation.own_passed]
                known, pile, own_taken, own_passed = (np.uint64(x) for x in shown)
                built = model_built_hand_nb(
                    vectors[m], known, array, hidden, extra, pile, own_taken, own_passed
                )
                ours = int(built)
                theirs = model_built_hand(
                    strategies[m], view.opp_taken, cards, hidden, extra, situation
                )
                assert ours == theirs, (deal, m)
                assert theirs & view.opp_taken == view.opp_taken and theirs.bit_count() == 10
                differ[m] += theirs != plain
            compared += 1
    assert compared > 40 and differ["simple"] == 0
    assert min(differ[m] for m in models[1:]) > compared // 4, (compared, differ)


def test_lowering_passes_count_the_passes_that_would_have_lowered_the_deadwood():
    """7H 7D 7C, then 2C 3C 9S KS unmatched: 24 deadwood. Kept instead of the KS, the
    passed 4C (a run with 2C 3C) and 7S (a fourth 7) meld and the 2S, melding with
    nothing, is worth less than the king: all three lower it. The TD, melding with
    nothing, is worth what the king is: no. The 2C is held. With the KS known to be held
    (taken from the pile) the 9S makes room instead: still three. Nothing droppable:
    none."""
    hand = sum(1 << C[c] for c in ("7H", "7D", "7C", "2C", "3C", "9S", "KS"))
    passed = sum(1 << C[c] for c in ("4C", "2S", "7S", "TD", "2C"))
    assert lowering_passes(hand, passed, 0) == 3
    assert lowering_passes(hand, passed, 1 << C["KS"]) == 3
    assert lowering_passes(hand, 1 << C["TD"], 0) == 0
    assert lowering_passes(hand, 1 << C["9D"], 0) == 1  # 9 below the king's 10
    assert lowering_passes(hand, 1 << C["9D"], 1 << C["KS"]) == 0  # 9 saves no more than 9S
    assert lowering_passes(hand, passed, hand) == 0
    assert contradicted_passes(hand, passed) == 2  # the melding ones only: 4C, 7S


@settings(max_examples=400, deadline=None)
@given(
    st.lists(st.integers(0, 51), min_size=10, max_size=10, unique=True),
    st.integers(0, 2**52 - 1),
    st.integers(0, 1023),
)
def test_the_kernels_lowering_passes_are_the_references(cards, passed, known_bits):
    """lowering_passes_nb's shortcut (a card that melds with nothing is tried by its value
    against one gap) counts exactly what the reference counts by trying every drop."""
    hand = sum(1 << c for c in cards)
    known = sum(1 << c for i, c in enumerate(cards) if known_bits >> i & 1)
    kernel = lowering_passes_nb(np.uint64(hand), np.uint64(passed), np.uint64(known))
    assert kernel == lowering_passes(hand, passed, known)


def test_contradicted_passes_count_melding_passes_outside_the_hand():
    hand = sum(1 << C[c] for c in ("7H", "7D", "2C", "3C", "KS"))
    passed = sum(1 << C[c] for c in ("7S", "4C", "9D", "2C"))  # 7S and 4C meld; 2C is held
    assert contradicted_passes(hand, passed) == 2


def _expected_choice(confidence: float, per_world: list[list[float]]) -> int:
    """The choice rule of docs/strategies.md, step 5, computed from each world's gains
    with the statistics module (two-pass standard deviation), not from sums of squares."""
    means = [statistics.fmean(g) for g in per_world]
    best = means.index(max(means))  # the earliest of the greatest
    if best == 0 or len(per_world[0]) < 2:
        return best
    error = statistics.stdev(per_world[best]) / math.sqrt(len(per_world[best]))
    return best if means[best] > confidence * error else 0


def test_choose_follows_the_paired_confidence_rule():
    """Random per-world gains (integers, as rollouts give): the reference's and the
    kernel's choice from the sums equal the rule computed world by world. Cases within
    1e-9 of the rule's boundary are left out (the two ways of computing a standard error
    may round differently there)."""
    rng = random.Random(4)
    checked = chosen = 0
    for _ in range(400):
        worlds, n = rng.choice([1, 2, 3, 5, 16]), rng.randint(2, 5)
        spread = rng.choice([0, 1, 3, 10])
        per_world = [[0.0] * worlds] + [
            [float(rng.randint(-spread, spread) + rng.randint(-1, 2)) for _ in range(worlds)]
            for _ in range(n - 1)
        ]
        confidence = rng.choice([0.0, 0.5, 1.0, 2.0, 3.0])
        if worlds >= 2:
            means = [statistics.fmean(g) for g in per_world]
            best = means.index(max(means))
            error = statistics.stdev(per_world[best]) / math.sqrt(worlds)
            if best and abs(means[best] - confidence * error) < 1e-9:
                continue
        gains = [sum(g) for g in per_world]
        squares = [sum(x * x for x in g) for g in per_world]
        expected = _expected_choice(confidence, per_world)
        assert choose(confidence, worlds, gains, squares) == expected, (confidence, per_world)
        params = np.zeros(N_STRATEGY_PARAMS)
        params[StrategyParam.MC_CONFIDENCE] = confidence
        kernel = choose_nb(params, n, worlds, np.array(gains), np.array(squares))
        assert kernel == expected, (confidence, per_world)
        checked += 1
        chosen += expected != 0
    assert checked > 300 and 50 < chosen < checked - 50  # both outcomes well represented


# --------------------------------------------- the choice after screening (step 4b)
class _ScriptedWorlds:
    """Rollout values from a script instead of playing: ``values[c][w]`` for the search's
    original candidate ``c`` in world ``w``. The world is counted by the first candidate's
    rollouts (it plays first in every world); the calls are recorded."""

    def __init__(self, actions, values) -> None:
        self.actions, self.values = list(actions), values
        self.world, self.calls = -1, []

    def __call__(
        self, situation, opp_hand, stock, action, policies, random_state=0, bottom=None
    ) -> int:
        if action == self.actions[0]:
            self.world += 1
        self.calls.append((self.world, action))
        return self.values[self.actions.index(action)][self.world]


def _screening_situation():
    """A discard decision where a screening searcher compares several discards."""
    rules = load_rules("hollywood")
    searcher = mc("mc-fast", samples=8, screen=4, candidates=1, confidence=1.0)
    rollout = load_strategy(searcher.rollout).for_rules(rules)
    for situation, _ in decisions_reference(SEED, 0, rules, ("simple", "simple")):
        actions = candidate_actions(searcher, rollout, situation)
        if situation.phase == DISCARD and len(actions) >= 4:
            return searcher, rollout, situation, actions
    raise AssertionError("no discard decision with several candidates")


@pytest.mark.parametrize(
    ("screening", "after", "confidence", "picked"),
    [
        # Best on the screening worlds, worse than the first after: not chosen (counting the
        # screening worlds again, its mean gain would be +4.5 at 2.6 errors: chosen).
        ([10, 12, 10, 12], [-1, -3, -1, -3], 1.0, False),
        # Even on the screening worlds, clearly better after: chosen.
        ([-1, 1, -1, 1], [5, 7, 5, 7], 1.0, True),
        # The confidence rule on the worlds after screening alone: mean gain 2, standard
        # error stdev(1, 3, 1, 3) / 2 = 0.577, so 3.46 errors: kept at 3, not at 4. (Over
        # all 8 worlds it would be 1.0 at 2.9 errors: not kept at 3.)
        ([0, 0, 0, 0], [1, 3, 1, 3], 3.0, True),
        ([0, 0, 0, 0], [1, 3, 1, 3], 4.0, False),
    ],
)
def test_the_choice_after_screening_uses_only_the_worlds_it_did_not_see(
    monkeypatch, screening, after, confidence, picked
):
    """Scripted rollout values: the first candidate scores 0 everywhere, one discard
    (``screening`` then ``after``), every other candidate -100 (clearly worse, dropped by
    the screening). The survivor's figures and the choice come from worlds 4 to 7 alone."""
    searcher, rollout, situation, actions = _screening_situation()
    searcher = replace(searcher, confidence=confidence)
    contender = next(c for c in range(1, len(actions)) if not actions[c].knock)
    values = [[-100 - w for w in range(8)] for _ in actions]
    values[0] = [0] * 8
    values[contender] = screening + after
    script = _ScriptedWorlds(actions, values)
    monkeypatch.setattr(reference_search, "rollout_value", script)
    action, figures = reference_search.search(searcher, rollout, rollout, situation, Stream(SEED))
    assert figures.candidates == (actions[0], actions[contender])
    assert figures.worlds == 4
    assert figures.sums == (0.0, float(sum(after)))
    assert figures.gains == (0.0, float(sum(after)))
    assert figures.gain_squares == (0.0, float(sum(x * x for x in after)))
    assert action == (actions[contender] if picked else actions[0])
    # The others, dropped, with their figures over the 4 screening worlds, in order.
    assert figures.screen_worlds == 4
    assert [d.action for d in figures.screened_out] == [
        a for c, a in enumerate(actions) if c not in (0, contender)
    ]
    for d in figures.screened_out:
        assert d.sums == d.gains == -100 - 101 - 102 - 103
        assert d.squares == d.gain_squares == sum((100 + w) ** 2 for w in range(4))
    # Every candidate played the 4 screening worlds, the two survivors the 4 others.
    assert len(script.calls) == 4 * len(actions) + 4 * 2


def test_candidates_start_with_the_rollout_choice_then_knock_then_cheapest():
    rules = load_rules("hollywood")
    expert = load_strategy("expert").for_rules(rules)
    searcher = mc("mc-fixed", candidates=3, screen=0)  # the heuristic pre-selects the discards
    screener = mc("mc-fixed", candidates=3, screen=16)
    shapes = set()
    for deal in range(12):
        for situation, _ in decisions_reference(SEED, deal, rules, ("simple", "simple")):
            if situation.phase != DISCARD:
                continue
            view = situation.view
            actions = candidate_actions(searcher, expert, situation)
            assert actions[0] == Discard(*family_discard_or_knock(expert, view))
            assert len(actions) == len(set(actions)) <= 5
            assert all(a.card != view.taken_from_pile for a in actions)
            plain = [a.card for a in actions[1:] if not a.knock]
            costs = [discard_cost(expert, view, c) for c in plain]
            assert costs == sorted(costs) and len(plain) <= 3
            shapes.add((len(actions), any(a.knock for a in actions)))
            # With screening every legal discard is a candidate, in the same order.
            screened = candidate_actions(screener, expert, situation)
            assert screened[: len(actions)] == actions or len(actions) == 1
            legal = {c for c in range(52) if view.hand >> c & 1} - {view.taken_from_pile}
            if len(actions) > 1:
                assert {a.card for a in screened if not a.knock} == legal
    # Gin (one candidate), a knock among the candidates, and plain discards only (the
    # expert's own choice is usually one of the three cheapest) were all seen.
    assert {(1, True), (4, True), (3, False)} <= shapes, shapes


def test_worlds_keep_the_view_and_deal_the_unseen_cards():
    rules = load_rules("hollywood")
    for infer in (False, True):
        searcher = mc("mc-fast", infer=infer)
        for deal in range(8):
            for situation, _ in decisions_reference(SEED, deal, rules, ("simple", "simple")):
                if situation.view.opp_turns < 3:
                    continue
                view = situation.view
                opp_hand, stock = sample_world(searcher, situation, Stream(deal))
                assert opp_hand & view.opp_taken == view.opp_taken
                assert opp_hand.bit_count() == 10 and len(stock) == view.stock_left
                assert opp_hand | sum(1 << c for c in stock) == view.unseen | view.opp_taken
                # A world is a table: the engine checks its 52 cards.
                Hand.in_world(situation, opp_hand, stock, (searcher, searcher))
                break


def _searched(hand: Hand, leak: int = 0) -> tuple:
    """The action of the player to move in (a copy of) ``hand`` and its search's figures;
    ``leak`` is mixed into the searcher's stream (a peeking variant, tests/hidden_info.py)."""
    hand = copy.deepcopy(hand)  # deciding draws from the searcher's stream
    hand.players[hand.to_move].stream.state ^= leak
    events: list = []
    hand._trace = events
    return hand.decide(), [e[3] for e in events if e[0] == "search"]


def _searcher_positions() -> list[Hand]:
    """Copies of the hands of a few deals at each decision of seat 0, a search player."""
    rules = load_rules("hollywood")
    pair = (mc("mc-fast", samples=2, infer=True), load_strategy("simple"))
    positions = []
    for deal in range(6):
        hand = Hand.dealt(deck_for_deal(SEED, deal), rules, pair, deal % 2, SEED, deal, None)
        while hand.phase != "over":
            if hand.to_move == 0:
                positions.append(copy.deepcopy(hand))
            hand.apply(hand.decide())
    return positions


def test_a_search_reads_only_what_its_player_may_know():
    """The probe of tests/hidden_info.py on the reference engine's search: the action and
    the figures are the same with every field hidden from the searcher varied, and a
    peeking variant for each field is caught."""
    probed = probe(_searched, _searcher_positions(), 3, REFERENCE, least_varied=10, least_caught=5)
    assert sum(bool(answer[1]) for answer in probed.answers) > 15  # searches, not gin


def test_the_probe_catches_a_search_whose_situation_shows_the_opponents_hand(monkeypatch):
    """A leaky situation (the opponent's whole hand counted as cards it is known to hold):
    the reference probe fails on it."""
    honest = Hand.situation

    def leaky(hand: Hand, view):
        hidden = hand.table.hands[1 - hand.to_move]
        return honest(hand, replace(view, opp_taken=view.opp_taken | hidden))

    monkeypatch.setattr(Hand, "situation", leaky)
    with pytest.raises(AssertionError, match="a field hidden from the player changed"):
        probe(_searched, _searcher_positions(), 3, REFERENCE, least_varied=10, least_caught=5)


def test_reference_matches_with_a_search_player_equal_the_kernels():
    """Whole Hollywood matches (R19 to R23): the searcher's stream is keyed by the match's
    key and the hand's index there, in both engines."""
    rules = load_rules("hollywood")
    # One world per search: the choice takes the best gain without a standard error.
    pair = (mc("mc-fast", samples=1, infer=False, name="mcf1"), load_strategy("simple"))
    kernel, _ = simulate_matches(rules, pair, 2, seed=SEED)
    for m in range(2):
        reference = play_match_reference(SEED, m, rules, pair)
        assert {f: int(kernel[m][f]) for f in MATCH_FIELDS} == reference


# Score-aware searchers (value game or match) from score states: each hand's position
# carries the score before it, and a rollout is worth the change in the searcher's equity.
SCORE_STATES = [
    ("game", "85:70", 1, "standard", "game"),
    ("game", "40:90", None, "hollywood", "match"),
    ("hollywood", "95:60,60:30,20:0", 2, "hollywood", "match"),
    ("hollywood", "100:70,55:90,0:35", None, "hollywood", "game"),
]


@pytest.mark.parametrize(("game_format", "text", "dealer", "rule_set", "value"), SCORE_STATES)
@pytest.mark.first_case
def test_score_aware_searchers_play_the_kernels_hands_from_a_score(
    game_format, text, dealer, rule_set, value
):
    """Kernel against reference, hand by hand, with a score-aware searcher on each side
    (the other plays for the hand), from states near the end of a game or a match."""
    rules = load_rules(rule_set)
    start = parse_start(text, game_format, dealer, rules)
    searcher = mc("mc-fast", samples=3, infer=True, value=value, name=f"mcf3-{value}")
    for pair in ((searcher, load_strategy("expert")), (mc("mc-fast", samples=2), searcher)):
        kernel, kernel_hands = simulate_matches(
            rules, pair, 2, seed=SEED, start=start, with_hands=True
        )
        row = 0
        for m in range(2):
            hands: list[dict] = []
            reference = play_match_reference(SEED, m, rules, pair, hands=hands, start=start)
            assert {f: int(kernel[m][f]) for f in MATCH_FIELDS} == reference
            for hand in hands:
                got = record_to_dict(kernel_hands[row])
                assert got == hand, {f: (got[f], hand[f]) for f in got if got[f] != hand[f]}
                row += 1


def test_playing_for_the_score_changes_the_play_only_where_there_is_a_score():
    """The same searcher with value match and with value hand: the same records on plain
    hands (no score), different play in some games from a score."""
    rules = load_rules("standard")
    by_hand = mc("mc-fast", samples=8, name="mcf8")
    by_match = mc("mc-fast", samples=8, value="match", name="mcf8-match")
    plain = [
        simulate_deals(rules, (p, load_strategy("expert")), 40, seed=SEED)
        for p in (by_hand, by_match)
    ]
    assert np.array_equal(plain[0], plain[1])
    start = parse_start("90:60", "game", 1, rules)
    games = [
        simulate_matches(
            rules, (p, load_strategy("expert")), 30, seed=SEED, start=start, with_hands=True
        )[1]
        for p in (by_hand, by_match)
    ]
    assert not np.array_equal(games[0], games[1])


def test_score_equity_kernel_equals_reference_and_credits_as_the_match():
    """``score_equity_nb`` and ``credit_score_nb`` against the reference's
    ``score_equity`` and ``HollywoodScore.credit`` on random open states, both values:
    the game table's chances, and the joint match table interpolated between lattice
    points (off-lattice scores, scores in the last step, 0-point entries, hand-made
    states the phases do not hold)."""
    rng = random.Random(5)
    game = np.random.default_rng(5).random((100, 100, 2))
    win_points = np.array([0, 10, 25, 37, 61])
    win_prob = np.random.default_rng(6).dirichlet(np.ones(11), 2)[:, :10].reshape(2, 2, 5)
    table = value_vector(100, 5, win_points, win_prob, game)
    for case in range(400):
        score = HollywoodScore(target=100, games=rng.choice((1, 3, 3)))
        for _ in range(rng.randint(0, 12)):
            score.credit(rng.randint(0, 1), rng.choice((0, 5, 12, 25, 40, 3, 98)))
            if score.finished:
                break
        vector = np.array(
            [score.totals[p][g] for p in (0, 1) for g in range(3)]
            + [int(score.entered[p][g]) for p in (0, 1) for g in range(3)],
            np.int64,
        )
        if case % 10 == 9 and score.games == 3 and not score.finished:
            # no match reaches this: game 2 entered before game 1 (independent columns)
            score.entered[0] = [False, True, False]
            vector[6:9] = (0, 1, 0)
        player, dealer, winner = rng.randint(0, 1), rng.randint(0, 1), rng.randint(0, 1)
        points = rng.choice((0, 7, 30, 55))
        for value in ("game", "match"):
            code = SEARCH_VALUES[value]
            expected = reference_search.score_equity(score, table, player, dealer, value)
            got = score_equity_nb(vector, score.games, 100, table, player, dealer, code)
            assert got == expected
        if not score.finished:
            credited = copy.deepcopy(score)
            credited.credit(winner, points)
            after = vector.copy()
            credit_score_nb(after, score.games, 100, winner, points)
            assert list(after[:6]) == [credited.totals[p][g] for p in (0, 1) for g in range(3)]
            assert list(after[6:]) == [
                int(credited.entered[p][g]) for p in (0, 1) for g in range(3)
            ]


@pytest.mark.full
def test_the_panels_posterior_after_each_turn_equals_the_references(monkeypatch):
    """At every update of a panel searcher's posterior in some reference hands (against
    each kind of opponent), the kernel's update from the same position, memory and stream
    gives exactly the reference's posterior."""
    rules = load_rules("standard", ["big_gin_bonus=31", "may_discard_drawn_upcard=true"])
    searcher = mc("mc-fast", samples=2, infer=True, opponent_panel=PANEL, name="mcf-panel")
    opponents = ("random", "gin-hunter", "expert", "early-knocker")
    check_posteriors(monkeypatch, rules, searcher, opponents, 8)


# A take rule by stock depth that flips between taking for any gain and never taking at
# 24, 23 and 17 cards: a model that read the stock at the opponent's discard instead of
# at its take (one more after a stock draw) would judge some of its takes by the wrong phase.
TAKE_PHASES_MODEL = """description = "a take schedule, for the panel tests"
take_schedule = [[24, true, 0.01], [23, false, 0.0], [17, true, 0.01], [0, false, 0.0]]
improve_weight = 0.5
"""


@pytest.mark.full
def test_a_panel_model_with_a_take_schedule_reads_the_stock_at_the_take(monkeypatch, tmp_path):
    """A panel model with a take schedule (issue 25): the kernel's posterior after each
    update equals the reference's, and whole deals play to the same records, the opponent
    playing by that model."""
    configs = tmp_path / "configs"
    shutil.copytree(configs_dir(), configs)
    (configs / "strategies" / "take-phases-panel.toml").write_text(TAKE_PHASES_MODEL)
    monkeypatch.setenv("GIN_SIM_CONFIGS", str(configs))
    rules = load_rules("hollywood")
    panel = ("take-phases-panel", "simple", "expert")
    searcher = mc("mc-fast", samples=2, infer=True, opponent_panel=panel, name="mcf-takes")
    check_posteriors(monkeypatch, rules, searcher, ("take-phases-panel",), 10)
    pair = (searcher, load_strategy("take-phases-panel"))
    kernel = simulate_deals(rules, pair, 6, seed=SEED, threads=1)
    for deal in range(6):
        assert play_deal_reference(SEED, deal, rules, pair) == record_to_dict(kernel[deal])


def check_posteriors(monkeypatch, rules, searcher, opponents, deals) -> None:
    """The kernel's posterior update against the reference's at every update of
    ``searcher`` (seat 1) in ``deals`` reference deals against ``opponents`` in turn."""
    panel = searcher.opponent_panel
    params = searcher.for_rules(rules).to_kernel(rules)
    updates = []
    update = reference_search.OpponentPanel.update

    def recorded(panel, strategy, situation, stream, history=None):
        before = (list(panel.posterior), panel.discard, stream.state)
        update(panel, strategy, situation, stream, history)
        updates.append((situation, *before, list(panel.posterior)))

    monkeypatch.setattr(reference_search.OpponentPanel, "update", recorded)
    for deal in range(deals):
        opponent = opponents[deal % len(opponents)]
        play_deal_reference(SEED, deal, rules, (opponent, searcher))
    assert len(updates) > 30
    took = 0
    for situation, prior, discard, stream, posterior in updates:
        masks, state = position_from_view(parse_view(view_from_situation(situation), rules), 1)
        search = search_scratch_nb()
        memory = search[17]
        memory[1, : len(prior)] = prior
        memory[1, MEMORY_DISCARD] = discard
        search[9][0] = stream
        with np.errstate(over="ignore"):
            update_posterior_nb(
                params, masks, state, rules.to_kernel(), load_undercut_table(), 1, search,
                len(panel),
            )  # fmt: skip
        assert list(memory[1, : len(panel)]) == posterior
        took += bool(situation.view.opp_taken >> discard & 1)
    assert took > 0  # the opponent took some of the searcher's discards


@pytest.mark.full
def test_panels_kept_across_a_matchs_hands_play_the_kernels_matches():
    """Kernel against reference, hand by hand, over whole games with a searcher that keeps
    its opponent panel across hands (and one that starts each hand from its prior): the
    records agree, and keeping the posterior changes some hands."""
    rules = load_rules("standard", ["game_target=60"])
    keeps = mc("mc-fast", samples=2, infer=True, opponent_panel=PANEL, panel_memory="match")
    forgets = replace(keeps, panel_memory="hand")
    start = parse_start("0:0", "game", None, rules)
    played = {}
    for searcher in (keeps, forgets):
        pair = (searcher, load_strategy("gin-hunter"))
        kernel, kernel_hands = simulate_matches(
            rules, pair, 3, seed=SEED, start=start, with_hands=True
        )
        row = 0
        for m in range(3):
            hands: list[dict] = []
            reference = play_match_reference(SEED, m, rules, pair, hands=hands, start=start)
            assert {f: int(kernel[m][f]) for f in MATCH_FIELDS} == reference
            for hand in hands:
                assert record_to_dict(kernel_hands[row]) == hand
                row += 1
        played[searcher.panel_memory] = kernel_hands
    assert len(played["match"]) > 6
    assert not np.array_equal(played["match"], played["hand"])


def _match_searcher(name: str, **key) -> Strategy:
    """A cheap panel searcher that keeps its posterior across a match's hands, with one
    reading ``key`` on."""
    return mc(
        "mc-fast", samples=2, infer=True, opponent_panel=(*PANEL, "gin-hunter-strong"),
        panel_memory="match", name=name, **key,
    )  # fmt: skip


def _hand_starts(monkeypatch) -> list:
    """(panel, posterior) at each new hand of every reference panel made from now on."""
    starts = []
    new_hand = reference_search.OpponentPanel.new_hand

    def remembered(panel):
        starts.append((panel, list(panel.posterior)))
        new_hand(panel)

    monkeypatch.setattr(reference_search.OpponentPanel, "new_hand", remembered)
    return starts


def _posteriors_after_hands(starts) -> list:
    """The kept panel's posterior after each hand of a match (``_hand_starts``): the panel
    made first is the one kept across the hands; its first two starts are before hand 1."""
    kept = starts[0][0]
    after = [posterior for panel, posterior in starts if panel is kept][2:]
    after.append(kept.posterior)
    return after


@pytest.mark.parametrize(
    ("rule_set", "overrides", "opponent", "match", "pile_taken"),
    [
        ("standard", ["game_target=40"], "gin-hunter", 0, False),
        ("hollywood", ["game_target=40", "big_gin_bonus=31"], "gin-hunter-pairs", 0, False),
        ("standard", ["game_target=40", "may_discard_drawn_upcard=true"], "simple", 0, True),
    ],
)
@pytest.mark.first_case
def test_the_knocking_turn_read_at_the_showdown_gives_the_references_posteriors(
    monkeypatch, rule_set, overrides, opponent, match, pile_taken
):
    """``panel_knock_turn`` (issue 26): at the opponent's showdown the posterior also reads
    its knocking turn (its take, and whether it would have knocked the turn before, over
    the cards it may have drawn). Kernel against reference over whole Hollywood matches
    with the posterior kept from hand to hand: after every hand the posteriors are equal,
    exactly; both ways of taking (the pile, the stock) and the turn before were read; and
    the reading moves the posterior (the same matches without it end elsewhere)."""
    from simulated_hands import SEED as MATCH_SEED
    from simulated_hands import simulated_match

    rules = load_rules(rule_set, overrides)
    searcher = _match_searcher("mcf-knock-turn", panel_knock_turn=True)
    read = []
    likelihoods = reference_search.OpponentPanel.knock_turn_likelihoods

    def recorded(panel, view, discard, knocker_taken):
        read.append((view.taken_from_pile is not None, panel.evidence is not None))
        return likelihoods(panel, view, discard, knocker_taken)

    monkeypatch.setattr(reference_search.OpponentPanel, "knock_turn_likelihoods", recorded)
    starts = _hand_starts(monkeypatch)
    seat = 1
    pair = (load_strategy(opponent), searcher)
    without = (load_strategy(opponent), replace(searcher, panel_knock_turn=False))
    _, kernel_hands = simulated_match(rules, pair, match, seat)
    _, plain_hands = simulated_match(rules, without, match, seat)
    play_match_reference(MATCH_SEED, match, rules, pair)
    assert [h.posterior for h in kernel_hands] == _posteriors_after_hands(starts)
    assert len(kernel_hands) >= 4
    assert kernel_hands[-1].posterior != plain_hands[-1].posterior
    assert False in {took for took, _ in read}  # a knock after a stock draw
    assert (True in {took for took, _ in read}) == pile_taken  # one after a pile take
    assert any(last for _, last in read)  # with the turn before read


@pytest.mark.parametrize(
    ("rule_set", "overrides", "opponent", "match", "seat"),
    [
        ("standard", ["game_target=40"], "gin-hunter", 0, 1),
        ("hollywood", ["game_target=40"], "gin-hunter-strong", 2, 0),
        ("standard", ["game_target=40", "may_discard_drawn_upcard=true"], "simple", 2, 1),
    ],
)
@pytest.mark.first_case
def test_the_opening_offer_read_gives_the_references_posteriors(
    monkeypatch, rule_set, overrides, opponent, match, seat
):
    """``panel_offer`` (issue 26, gap c): the posterior reads the opponent's choice at the
    opening upcard offer (R7, R8), averaged over the hands it may have held then. Kernel
    against reference over whole Hollywood matches with the posterior kept from hand to
    hand: after every hand the posteriors are equal, exactly; most hands showed an offer
    of the opponent's; and the reading moves the posterior (the same matches without it
    end elsewhere). Which facts show each case: the test after this one."""
    from simulated_hands import SEED as MATCH_SEED
    from simulated_hands import simulated_match

    rules = load_rules(rule_set, overrides)
    searcher = _match_searcher("mcf-offer", panel_offer=True)
    read = []
    seen = reference_search.offer_seen

    def recorded(situation):
        got = seen(situation)
        if got is not None and got is not reference_search.NOTHING_OFFERED:
            read.append(got)
        return got

    monkeypatch.setattr(reference_search, "offer_seen", recorded)
    starts = _hand_starts(monkeypatch)
    pair = [load_strategy(opponent), load_strategy(opponent)]
    pair[seat] = searcher
    without = list(pair)
    without[seat] = replace(searcher, panel_offer=False)
    _, kernel_hands = simulated_match(rules, tuple(pair), match, seat)
    _, plain_hands = simulated_match(rules, tuple(without), match, seat)
    play_match_reference(MATCH_SEED, match, rules, tuple(pair))
    assert [h.posterior for h in kernel_hands] == _posteriors_after_hands(starts)
    assert len(kernel_hands) >= 4
    assert len(read) >= len(kernel_hands) // 2  # most hands show an offer of the opponent's
    assert kernel_hands[-1].posterior != plain_hands[-1].posterior


def test_the_opening_offer_reads_the_same_facts_in_kernel_and_reference():
    """``offer_seen_nb`` against the reference's ``offer_seen`` at every search position of
    deals between ``mc-fast`` players: the same (status, upcard, took),
    and every case turns up (the dealer's offer, a decline and a take by the opponent
    before the searcher's first turn, the non-dealer's own take, a hand past it)."""
    from gin_sim.kernels.search import offer_seen_nb

    rules = load_rules("standard", ["may_discard_drawn_upcard=true"])
    positions = []
    decide = reference_search.Searcher.decide

    def recorded(searcher, situation):
        positions.append(situation)
        return decide(searcher, situation)

    monkeypatch = pytest.MonkeyPatch()
    monkeypatch.setattr(reference_search.Searcher, "decide", recorded)
    try:
        searcher = mc("mc-fast", samples=2, candidates=2)
        for deal in range(8):
            opponent = ("simple", "gin-hunter")[deal % 2]
            play_deal_reference(SEED, deal, rules, (searcher, opponent))
    finally:
        monkeypatch.undo()
    cases = set()
    for situation in positions:
        masks, state = position_from_view(parse_view(view_from_situation(situation), rules), 1)
        status, upcard, took = offer_seen_nb(masks, state, 1)
        want = reference_search.offer_seen(situation)
        if want is None:
            assert status == 0
        elif want is reference_search.NOTHING_OFFERED:
            assert status == 2
        else:
            assert (status, upcard, took) == (1, *want)
        cases.add((status, took, situation.own_turns, situation.view.opp_turns))
    assert {(1, False, 0, 0), (0, False, 0, 0), (2, False, 1, 1)} <= cases
    assert any(c[0] == 1 and c[1] for c in cases) and any(c[0] == 1 and c[2] == 1 for c in cases)
