"""The opponent panel's evidence from showdowns, and worlds drawn from its posterior
(issue 19; docs/strategies.md, "Opponent panel"): the kernels against the reference
engine, and what the showdown teaches.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from gin_sim.game.records import HAND_RECORD, record_to_dict
from gin_sim.game.rng import deck_for_deal
from gin_sim.game.rules import load_rules
from gin_sim.kernels.playout import play_hand_nb, scratch_nb
from gin_sim.kernels.rng import player_key_nb, shuffle_deck_nb
from gin_sim.players.calibration import load_undercut_table
from gin_sim.players.strategies import Strategy, load_strategy, strategies_to_kernel
from gin_sim.reference import search as reference_search
from gin_sim.reference.engine import play_hand_reference

SEED = 20271201
PANEL = ("simple", "gin-hunter", "expert", "random", "early-knocker")


def searcher(**changes) -> Strategy:
    """A small panel searcher that keeps its posterior across hands."""
    base = dict(samples=2, infer=True, opponent_panel=PANEL, panel_memory="match", name="p")
    return replace(load_strategy("mc-fast"), **(base | changes))


def play_hands(rules, pair, hands, seed=SEED):
    """``hands`` hands of one opponent, dealt as deals 0.. under ``seed`` (dealers
    alternating), by the kernel with one scratch (so the panels are kept) and by the
    reference with its kept panels: per hand the two records, and each seat's posterior
    after the hand (kernel, reference; None for a seat without a panel)."""
    strategies = strategies_to_kernel(pair, rules)
    rules_vector, table = rules.to_kernel(), load_undercut_table()
    scratch = scratch_nb()
    panels: list = [None, None]
    deck = np.empty(52, np.int8)
    deck_state = np.empty(1, np.uint64)
    record = np.zeros(1, HAND_RECORD)
    played = []
    for deal in range(hands):
        with np.errstate(over="ignore"):
            shuffle_deck_nb(seed, deal, deck, deck_state)
            for p in (0, 1):
                scratch[0][p] = player_key_nb(seed, deal, p)
            play_hand_nb(
                deck, deal % 2, rules_vector, strategies, table, np.zeros((2, 1)), scratch,
                record[0],
            )  # fmt: skip
        reference = play_hand_reference(
            deck_for_deal(seed, deal), rules, pair, deal % 2, seed=seed, deal=deal, panels=panels
        )
        memory = scratch[5][17]
        posteriors = []
        for seat in (0, 1):
            size = len(pair[seat].opponent_panel) if isinstance(pair[seat], Strategy) else 0
            if size and panels[seat] is not None:
                posteriors.append((list(memory[seat, :size]), list(panels[seat].posterior)))
            else:
                posteriors.append(None)
        record[0]["deal"] = deal
        played.append((record_to_dict(record[0]), reference, posteriors))
    return played


@pytest.mark.parametrize(
    ("rule_set", "overrides", "pair", "hands"),
    [
        ("standard", [], (searcher(), "simple"), 6),
        ("hollywood", [], ("gin-hunter-strong", searcher(panel_worlds=True)), 5),
        # big gin (R14) and a card taken from the pile thrown straight back (R11 relaxed)
        (
            "standard",
            ["big_gin_bonus=31", "may_discard_drawn_upcard=true"],
            ("early-knocker", searcher(panel_worlds=True)),
            4,
        ),
        # two panels at once, each reading the other's knocks
        (
            "oklahoma",
            [],
            (searcher(panel_worlds=True), searcher(opponent_panel=PANEL[:3], name="q")),
            4,
        ),
    ],
)
@pytest.mark.first_case
def test_the_posterior_after_each_showdown_equals_the_references(
    rule_set, overrides, pair, hands, monkeypatch
):
    """Hand by hand with the panel kept across hands: the kernel's records and each
    searcher's posterior at the end of every hand (after the showdown's update) equal the
    reference's exactly, and some showdowns moved a posterior."""
    rules = load_rules(rule_set, overrides)
    pair = tuple(load_strategy(p) if isinstance(p, str) else p for p in pair)
    moved = []
    showdown = reference_search.OpponentPanel.showdown

    def counted(panel, view, discard, *more):
        before = list(panel.posterior)
        showdown(panel, view, discard, *more)
        moved.append(before != panel.posterior)

    monkeypatch.setattr(reference_search.OpponentPanel, "showdown", counted)
    for kernel, reference, posteriors in play_hands(rules, pair, hands):
        assert kernel == reference
        for seat in (0, 1):
            if posteriors[seat] is not None:
                assert posteriors[seat][0] == posteriors[seat][1], (kernel["deal"], seat)
    assert sum(moved) >= 1, moved


def _ratio_changes(opponent, hands, update="showdown"):
    """Against ``opponent``, at each of the panel's updates ``update`` (``showdown``: the
    opponent's knocks; ``own_knock``: the searcher's, showing the opponent's cards): how it
    changed the odds of ``simple`` against ``gin-hunter`` in a (simple, gin-hunter) panel."""
    rules = load_rules("standard")
    pair = (searcher(opponent_panel=("simple", "gin-hunter")), load_strategy(opponent))
    changes = []
    original = getattr(reference_search.OpponentPanel, update)

    def recorded(panel, *evidence):
        before = panel.posterior[0] / panel.posterior[1]
        original(panel, *evidence)
        changes.append(panel.posterior[0] / panel.posterior[1] / before)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(reference_search.OpponentPanel, update, recorded)
        panels: list = [None, None]
        for deal in range(hands):
            play_hand_reference(
                deck_for_deal(SEED, deal), rules, pair, deal % 2, seed=SEED, deal=deal,
                panels=panels,
            )  # fmt: skip
    return changes


@pytest.mark.full
def test_simples_knocks_move_the_posterior_towards_simple_and_a_gin_hunters_do_not():
    """``simple`` knocks as soon as it may: a knock a gin hunter would not make (not gin,
    stock above 6) multiplies the odds of simple by 1 / PANEL_EPSILON. A gin hunter knocks
    with gin or late, where simple knocks too: its knocks never favour simple."""
    towards = _ratio_changes("simple", 8)
    assert any(c == pytest.approx(1 / reference_search.PANEL_EPSILON) for c in towards), towards
    assert all(c >= 1.0 - 1e-12 for c in towards), towards
    hunted = _ratio_changes("gin-hunter", 8)
    assert hunted and all(c <= 1.0 + 1e-12 for c in hunted), hunted


@pytest.mark.full
def test_a_gin_hunters_shown_cards_at_the_searchers_knock_move_the_posterior_away_from_simple():
    """When the searcher knocks, the opponent's cards are shown: a gin hunter that held a
    hand it could have knocked with at its last turn (and did not) multiplies the odds of
    simple by PANEL_EPSILON, and nothing favours simple. Against ``simple`` itself the
    cards never tell them apart (simple would have knocked: it did not, so it could not,
    and neither would the gin hunter)."""
    hunted = _ratio_changes("gin-hunter", 10, "own_knock")
    assert any(c == pytest.approx(reference_search.PANEL_EPSILON) for c in hunted), hunted
    assert all(c <= 1.0 + 1e-12 for c in hunted), hunted
    simple = _ratio_changes("simple", 10, "own_knock")
    assert simple and all(c == pytest.approx(1.0) for c in simple), simple
