"""A search player's opponent memory across decisions from outside (``OpponentMemory``).

Through ``Decider.decide(..., memory=...)`` a searcher with an opponent panel keeps its
posterior and its last discard between the decisions of a hand, as in a simulated hand:
its decisions, one by one, are the reference engine's (which updates the posterior from
the opponent's turns, docs/strategies.md "Opponent panel"). Without the memory every view
starts from the prior and some decisions differ. A new deal is seen by the view.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from tiers import size

from gin_sim.game.rules import load_rules
from gin_sim.interfaces.serve import Server
from gin_sim.players.decide import Decider
from gin_sim.players.strategies import load_strategy
from gin_sim.reference.engine import decisions_reference
from gin_sim.reference.search import describe_action
from gin_sim.reference.views import view_from_situation

SEED = 9233


def _small_adaptive(memory="hand"):
    # mc's panel and prior with few worlds, so that the reference keeps up.
    return replace(load_strategy("mc"), samples=6, screen=0, name="adaptive6", panel_memory=memory)


def _searches(rules, searcher, opponent, deal):
    """(view, action in words, draws, figures) of each search of the searcher (seat 1) in a deal
    played by the reference engine; ``draws`` counts the searches before it, ``figures``
    are the reference search's."""
    events: list = []
    draws = 0
    for situation, action in decisions_reference(
        SEED, deal, rules, (opponent, searcher), trace=events
    ):
        if situation.player != 1:
            continue
        searched = [e for e in events if e[0] == "search"]
        if len(searched) > draws:
            words = describe_action(action, situation.phase)
            yield view_from_situation(situation), words, draws, searched[-1][3]
            draws += 1


@pytest.mark.parametrize(
    ("rule_set", "opponent"), [("standard", "gin-hunter"), ("hollywood", "simple")]
)
@pytest.mark.first_case
def test_a_remembering_decider_plays_the_engines_adaptive_hand(rule_set, opponent):
    rules = load_rules(rule_set)
    searcher = _small_adaptive()
    decider = Decider(searcher, rules)
    memory = decider.memory()
    compared = forgetful_differs = 0
    moved = False
    deals = size(fast=2, full=4)
    for deal in range(deals):
        for view, action, draws, figures in _searches(rules, searcher, opponent, deal):
            got = decider.decide(view, SEED, deal=deal, seat=1, draws=draws, memory=memory)
            assert got.chosen == figures.chosen
            assert [c.mean for c in got.candidates] == [s / figures.worlds for s in figures.sums]
            assert got.action == action, (deal, view)
            plain = decider.decide(view, SEED, deal=deal, seat=1, draws=draws)
            forgetful_differs += [c.mean for c in plain.candidates] != [
                c.mean for c in got.candidates
            ]
            moved |= memory.posterior != decider.memory().posterior
            compared += 1
    assert compared > 5 * deals
    assert moved and forgetful_differs > 0  # the memory is what made them equal


def test_a_player_without_a_panel_decides_the_same_with_a_memory():
    rules = load_rules("standard")
    searcher = replace(load_strategy("mc-fast"), samples=4, name="mc4")
    decider = Decider(searcher, rules)
    memory = decider.memory()
    for view, _, draws, _ in _searches(rules, searcher, "simple", 0):
        assert decider.decide(view, SEED, seat=1, draws=draws, memory=memory) == decider.decide(
            view, SEED, seat=1, draws=draws
        )
    assert memory.posterior == {}


@pytest.mark.parametrize("keeps", ["hand", "match"])
@pytest.mark.first_case
def test_a_new_deal_is_seen_from_the_view(keeps):
    """After a hand, the first search of the next deal: with ``panel_memory = "hand"`` the
    posterior is back at the prior (the decision equals a fresh memory's); with "match"
    it is kept."""
    rules = load_rules("standard")
    searcher = _small_adaptive(keeps)
    decider = Decider(searcher, rules)
    memory = decider.memory()
    for view, _, draws, _ in _searches(rules, searcher, "gin-hunter", 1):
        decider.decide(view, SEED, deal=1, seat=1, draws=draws, memory=memory)
    learned = memory.posterior
    assert learned != decider.memory().posterior
    view, _, draws, _ = next(_searches(rules, searcher, "gin-hunter", 2))
    decider.decide(view, SEED, deal=2, seat=1, draws=draws, memory=memory)
    fresh = decider.memory()
    decider.decide(view, SEED, deal=2, seat=1, draws=draws, memory=fresh)
    assert (memory.posterior == fresh.posterior) == (keeps == "hand")


def test_a_memory_belongs_to_its_strategy_and_rule_set():
    """Any Decider of the memory's strategy and rule set may use it (one prepared again
    after a cache let the first go); another strategy's or rule set's is refused."""
    rules = load_rules("standard")
    one, again = Decider(_small_adaptive(), rules), Decider(_small_adaptive(), rules)
    view = next(_searches(rules, _small_adaptive(), "simple", 0))[0]
    memory = one.memory()
    assert again.decide(view, SEED, seat=1, memory=memory) == one.decide(view, SEED, seat=1)
    for other in (
        Decider(_small_adaptive("match"), rules),
        Decider(_small_adaptive(), load_rules("hollywood")),
    ):
        with pytest.raises(ValueError, match="belongs to the strategy and rule set of the Decider"):
            other.decide(view, SEED, seat=1, memory=memory)


def test_the_server_remembers_a_game_named_in_its_requests(tmp_path):
    """``gin-sim serve`` with ``game``: each answer equals the reference engine's search
    in the hand, as the remembering Decider's; without ``game`` some answers differ."""
    rules = load_rules("standard")
    searcher = _small_adaptive()
    path = tmp_path / "adaptive6.toml"  # _small_adaptive() as a file, for the server to read
    text = (Path(__file__).parents[1] / "configs" / "strategies" / "mc.toml").read_text()
    for old, new in [
        ('name = "mc"', 'name = "adaptive6"'),
        ("samples = 96", "samples = 6"),
        ("screen = 16", "screen = 0"),
    ]:
        assert old in text
        text = text.replace(old, new)
    path.write_text(text)
    server = Server("standard", str(path))
    compared = differ = 0
    for view, _, draws, figures in _searches(rules, searcher, "gin-hunter", 3):
        request = {"view": view, "seed": SEED, "deal": 3, "seat": 1, "draws": draws}
        answer = server.answer(request | {"game": "g1"})
        assert answer["chosen"] == figures.chosen
        assert [c["mean"] for c in answer["candidates"]] == [
            s / figures.worlds for s in figures.sums
        ]
        differ += server.answer(request)["candidates"] != answer["candidates"]
        compared += 1
    assert compared > 5 and differ > 0
