"""``gin_sim.players.decide``: any strategy's decision from a plain-data view, through the kernels.

- Family decisions through ``decide`` equal the decisions played at the same positions
  (the reference engine's, which plays the kernels' records: checked here too).
- No field hidden from the player changes a decision nor a search's figures (the probe of
  tests/hidden_info.py, with its peeking variants), and the cards ``decide`` fills in for
  them from a view give the decision at the played position.
- Bad views are one-line ValueErrors; the example of docs/python.md runs as written.
"""

from __future__ import annotations

import doctest
import re
from dataclasses import replace
from pathlib import Path

import pytest
from hidden_info import decision_positions, probe, same

import gin_sim
from gin_sim.experiments.simulate import simulate_deals
from gin_sim.game.cards import parse_card_list
from gin_sim.game.melds import min_deadwood_exhaustive
from gin_sim.game.records import record_to_dict
from gin_sim.game.rules import load_rules
from gin_sim.players.decide import (
    Decider,
    _kernel_decision,
    decide,
    max_draws,
    max_turns,
    parse_view,
    position_from_view,
    stream_state,
    view_of_position,
)
from gin_sim.players.strategies import Strategy, load_strategy
from gin_sim.reference.engine import BIG_GIN, decisions_reference, play_deal_reference
from gin_sim.reference.search import describe_action
from gin_sim.reference.views import view_from_situation

SEED = 404
PYTHON_PAGE = Path(__file__).resolve().parents[1] / "docs" / "python.md"
VIEW = {
    "decision": "discard",
    "hand": "AS 2S 3S 4H 4D 4C 9H TH JH QS KD",
    "taken": "KD",
    "taken_from_pile": False,
    "pile": "7C",
    "opp_passed": "7C",
    "own_passed": "7C",
    "stock_left": 30,
    "opp_turns": 0,
    "own_turns": 1,
    "dealer": "opponent",
}


@pytest.mark.parametrize(
    ("rule_set", "players"),
    [
        ("hollywood", ("expert", "simple")),
        ("standard", ("gin-hunter", "defensive")),
        ("oklahoma", ("early-knocker", "basic")),
    ],
)
@pytest.mark.first_case
def test_family_decisions_through_decide_equal_the_played_ones(rule_set, players):
    rules = load_rules(rule_set)
    deals = 12
    kernel = simulate_deals(rules, tuple(load_strategy(p) for p in players), deals, seed=SEED)
    kinds = set()
    for deal in range(deals):
        # The reference plays the kernels' hand ...
        assert play_deal_reference(SEED, deal, rules, players) == record_to_dict(kernel[deal])
        # ... and decide() takes the reference's decision at each of its positions.
        for situation, action in decisions_reference(SEED, deal, rules, players):
            view = view_from_situation(situation)
            got = decide(view, rules, players[situation.player], seed=7)
            assert got.action == describe_action(action, situation.phase), (deal, view)
            assert got.candidates == () and got.worlds == 0
            kinds.add(got.action.split()[0])
    assert {"take", "draw", "discard", "knock"} <= kinds


def _positions(players, rules, deals):
    for deal in range(deals):
        for situation, _ in decisions_reference(SEED, deal, rules, players):
            yield deal, situation


STRATEGIES = {
    "expert": load_strategy("expert"),
    "mc-fast": replace(load_strategy("mc-fast"), samples=4),
    "mc-infer": replace(load_strategy("mc-fixed"), samples=3, infer=True),
}


def _decide_positions(rules):
    """Positions where seat 0 decides, each with a random stream of its own."""
    expert = load_strategy("expert")
    positions = decision_positions(rules, (expert, expert), 150, seed=6)
    return [(m, s, stream_state(SEED, deal, 0, 0)) for deal, (m, s) in enumerate(positions)]


@pytest.mark.parametrize("name", ["mc-fast", "mc-infer"])
def test_hidden_fields_never_change_a_decision(name):
    """The probe of tests/hidden_info.py on the decision ``decide`` takes from the kernels
    (the action, every candidate's interval and gain): every field hidden from the player
    varied, a peeking variant for each field caught."""
    rules = load_rules("hollywood")
    params = STRATEGIES[name].for_rules(rules).to_kernel(rules)

    def decided(position, leak):
        masks, state, stream = position
        return _kernel_decision(params, rules, masks, state, 0, stream ^ leak)

    probed = probe(decided, _decide_positions(rules), seed=1)
    assert sum(bool(answer.candidates) for answer in probed.answers) > 40  # searches


@pytest.mark.parametrize("name", STRATEGIES)
def test_a_decision_from_the_view_is_the_decision_at_the_position(name):
    """``decide`` fills the cards hidden from the player in itself (``position_from_view``:
    no deal, no draws, the unseen cards in increasing order): its decision from the view
    of a played position is the decision at that position, hidden cards and all."""
    rules = load_rules("hollywood")
    params = STRATEGIES[name].for_rules(rules).to_kernel(rules)
    for masks, state, stream in _decide_positions(rules):
        view = parse_view(view_of_position(masks, state), rules)
        expected = _kernel_decision(params, rules, masks, state, 0, stream)
        filled = position_from_view(view)
        assert same(_kernel_decision(params, rules, *filled, 0, stream), expected)


def test_decide_returns_a_search_with_intervals():
    decision = decide(VIEW, "hollywood", "mc", seed=3)
    mc = load_strategy("mc-fixed")  # the choice is made on the worlds after screening
    assert decision.worlds == mc.samples - mc.screen and decision.discard is not None
    actions = [c.action for c in decision.candidates]
    assert len(actions) == len(set(actions)) >= 3
    assert actions[decision.chosen] == decision.action
    for c in decision.candidates:
        assert c.low < c.mean < c.high
    assert decision.candidates[0].gain == 0.0
    # The seed keys the search: another seed, other worlds; the same seed, the same figures.
    assert decide(VIEW, "hollywood", "mc", seed=3) == decision
    assert decide(VIEW, "hollywood", "mc", seed=4).candidates != decision.candidates
    # Families do not search.
    assert decide(VIEW, "hollywood", "simple") == gin_sim.Decision(
        action="knock KD", discard="KD", knock=True
    )


def test_decide_offer_draw_and_big_gin():
    offer = {
        "decision": "offer",
        "hand": "AS 2S 4H 4D 6C 8H TH JH QS KD",
        "pile": "3S",
        "stock_left": 31,
        "dealer": "opponent",
    }
    assert decide(offer, "hollywood", "simple").take is True  # AS 2S 3S
    assert decide({**offer, "pile": "9C"}, "hollywood", "simple").action == "decline"
    dealer = {**offer, "pile": "9C", "dealer": "me", "opp_passed": "9C"}
    search = decide(dealer, "hollywood", "mc-fast", seed=1)
    assert [c.action for c in search.candidates] == ["decline", "take"]
    draw = {
        "decision": "draw",
        "hand": "AS 2S 4H 4D 6C 8H TH JH QS KD",
        "pile": "9C 7C 8D",  # both declined 9C; you drew and discarded 7C; so did they, 8D
        "stock_left": 29,
        "dealer": "opponent",
        "own_turns": 1,
        "opp_turns": 1,
        "own_passed": "9C 7C",
        "opp_passed": "9C 7C 8D",
    }
    assert decide(draw, "hollywood", "simple").action == "draw"
    big = {
        "decision": "discard",
        "hand": "AS 2S 3S 4H 4D 4C 9H TH JH QH KH",
        "taken": "KH",
        "taken_from_pile": False,
        "pile": "7C",
        "stock_left": 30,
        "own_turns": 1,
        "dealer": "opponent",
    }
    gin = decide(big, "hollywood", "mc-fast")
    assert gin.action == "knock KH" and gin.worlds == 0  # gin: one candidate, no search
    assert decide(big, load_rules("hollywood", ["big_gin_bonus=31"]), "mc-fast").big_gin
    assert BIG_GIN == "big gin"


BAD = [
    ({"hand": "AS"}, "'hand' has 1 cards"),
    ({"hand": "AS 2S 3S 4H 4D 4C 9H TH JH QS XX"}, "unknown rank"),
    ({"pile": "AS"}, "share AS"),
    ({"decision": "knock"}, "'decision'"),
    ({"dealer": "you"}, "'dealer'"),
    ({"stock_left": 29}, "'stock_left' = 29"),
    ({"own_turns": 2}, "'own_turns' + 'opp_turns' = 2"),
    ({"opp_turns": 1, "own_turns": 0}, "'own_turns'"),
    ({"colour": "red"}, "unknown view field 'colour'"),
    ({"taken": "7C"}, "'taken'"),
    ({"taken_from_pile": True}, "'pile_takes' = 0"),
    ({"own_taken": "5C"}, "not in your hand"),
    ({"knock_limit": 11}, "'knock_limit' = 11"),
    ({"opp_taken": "AC 2C 3C 5C 6C 7C 8C 9C TC JC QC"}, None),
    # values of the wrong type (issue 18): a ValueError naming the field, never a TypeError
    ({"decision": ["discard"]}, "'decision' = ['discard']"),
    ({"dealer": {"me": 1}}, "'dealer'"),
    ({"stock_left": True}, "'stock_left' = True"),
    ({"own_turns": 1.0}, "'own_turns' = 1.0"),
    ({"taken_from_pile": "no"}, "'taken_from_pile' = 'no'"),
    ({"hand": [1, 2, 3]}, "'hand'"),
    ({"pile": None}, "'pile'"),
    ({"x" * 100_000: 1}, "unknown view field"),
    ({"hand": "X" * 100_000}, "(100,000 characters)"),
]


@pytest.mark.parametrize(("change", "message"), BAD)
def test_bad_views_are_one_line_errors(change, message):
    view = {**VIEW, **change}
    with pytest.raises(ValueError) as error:
        decide(view, "hollywood", "simple")
    text = str(error.value)
    assert "\n" not in text and len(text) < 300  # a huge value is never quoted in full
    if message is not None:
        assert message in text, text


def test_missing_fields_and_bad_arguments():
    # the upcard taken at the offer, its card not named
    from_pile = {k: v for k, v in VIEW.items() if k not in ("taken", "opp_passed", "own_passed")}
    from_pile |= {"taken_from_pile": True, "pile_takes": 1, "pile": "", "stock_left": 31}
    assert decide(from_pile | {"taken": "KD"}, "hollywood", "simple").discard != "KD"  # R11
    with pytest.raises(ValueError, match="'taken' is missing: after a take from the pile"):
        decide(from_pile, "hollywood", "simple")
    with pytest.raises(ValueError, match="'taken_from_pile' is missing"):
        decide({k: v for k, v in VIEW.items() if k != "taken_from_pile"}, "hollywood", "simple")
    with pytest.raises(ValueError, match="'knock_limit' is missing"):
        decide(VIEW, "oklahoma", "simple")
    with pytest.raises(ValueError, match="seat"):
        decide(VIEW, "hollywood", "simple", seat=2)


HOLLYWOOD_DRAWS = max_draws(load_rules("hollywood"))


@pytest.mark.parametrize(
    ("argument", "value"),
    [
        ("seat", True),
        ("seat", 1.0),
        ("seat", "0"),
        ("seat", 2),
        ("rules", None),
        ("rules", 5),
        ("strategy", None),
        ("strategy", ["simple"]),
        ("seed", -1),
        ("seed", 2**64),
        pytest.param("seed", 10**5000, id="seed-10**5000"),
        ("seed", True),
        ("deal", -1),
        ("deal", 1.5),
        ("deal", 10**10),
        ("deal", 2**63),  # used to play deal 0
        ("draws", -1),
        ("draws", True),
        ("draws", HOLLYWOOD_DRAWS + 1),
        ("draws", 2**64),  # used to play draws 0
    ],
)
def test_every_bad_argument_is_one_value_error_naming_it(argument, value):
    arguments = {"view": VIEW, "rules": "hollywood", "strategy": "random"} | {argument: value}
    with pytest.raises(ValueError) as error:
        decide(**arguments)
    text = str(error.value)
    assert text.startswith(argument) and "\n" not in text, text
    assert "allowed" in text or "expected a whole number" in text, text
    assert len(text) < 300


def test_the_largest_deal_and_draws_are_accepted_and_draws_matter():
    rules = load_rules("hollywood")
    last = decide(VIEW, rules, "random", seed=3, deal=10**10 - 1, draws=HOLLYWOOD_DRAWS)
    assert last.action.startswith(("discard", "knock"))
    picks = {decide(VIEW, rules, "random", seed=3, draws=d).action for d in range(12)}
    assert len(picks) > 3
    assert max_draws(load_rules("hollywood", ["max_upcard_takes=500"])) > HOLLYWOOD_DRAWS


def test_the_turn_bound_follows_the_rules_cap_on_pile_takes():
    """150 pile takes is a legitimate hand when ``max_upcard_takes`` is 200 (it used to be
    refused by a fixed bound of 60 turns), and not under the default cap of 50."""
    long_hand = {**VIEW, "pile_takes": 150, "own_turns": 76, "opp_turns": 75}
    wide = load_rules("hollywood", ["max_upcard_takes=200"])
    assert max_turns(wide) == 31 - wide.wall + 200
    for strategy in ("simple", "mc-fast"):
        assert decide(long_hand, wide, strategy).action.startswith(("discard", "knock"))
    with pytest.raises(ValueError, match="'pile_takes' = 150: allowed a whole number 0 to 50"):
        decide(long_hand, "hollywood", "simple")
    too_many = {**long_hand, "own_turns": max_turns(wide) + 1}
    with pytest.raises(ValueError, match=f"'own_turns' = {max_turns(wide) + 1}: allowed"):
        decide(too_many, wide, "simple")


def test_the_python_page_example_runs_as_written():
    text = PYTHON_PAGE.read_text()
    blocks = re.findall(r"```pycon\n(.*?)```", text, flags=re.S)
    example = [b for b in blocks if "gin_sim.decide(" in b]
    assert len(example) == 1
    parser = doctest.DocTestParser()
    test = parser.get_doctest(example[0], {}, "docs/python.md decide", str(PYTHON_PAGE), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.NORMALIZE_WHITESPACE)
    runner.run(test)
    assert runner.summarize(verbose=False).failed == 0
    assert len(test.examples) >= 3


def test_strategy_objects_and_family_kinds():
    rules = load_rules("hollywood")
    assert decide(VIEW, rules, Strategy(name="x")).action == "knock KD"
    assert decide(VIEW, rules, Strategy(knock_threshold=5)).action == "discard KD"
    # random draws from the seat's stream: the same seed, deal, seat and draws, the same card.
    first = decide(VIEW, rules, "random", seed=5, seat=1)
    assert first == decide(VIEW, rules, "random", seed=5, seat=1)
    picks = {decide(VIEW, rules, "random", seed=s).action for s in range(12)}
    assert len(picks) > 3


def test_the_module_doctests_run():
    import importlib

    assert all(
        doctest.testmod(importlib.import_module(f"gin_sim.players.{name}")).failed == 0
        for name in ("decide", "view", "hand_end", "prepared", "memory", "decision")
    )


@pytest.mark.parametrize("rule_set", ["hollywood", "oklahoma"])
@pytest.mark.first_case
def test_a_prepared_decider_decides_as_a_fresh_preparation_and_needs_no_stock_card(rule_set):
    """One ``Decider`` per strategy, used for every position of a few hands, gives the
    decision (and a search's figures) of a strategy prepared afresh for each position, as
    ``decide`` did before it prepared once; a view after a stock draw without ``taken``
    gives the same decision."""
    rules = load_rules(rule_set)
    strategies = [
        load_strategy("expert"),
        load_strategy("random"),
        replace(load_strategy("mc-fixed"), samples=8, screen=3),
    ]
    deciders = [Decider(s, rules) for s in strategies]
    without_taken = 0
    for deal, situation in _positions(("expert", "simple"), rules, 3):
        view = view_from_situation(situation)
        seat = situation.player
        masks, state = position_from_view(parse_view(view, rules), seat)
        stream = stream_state(SEED, deal, seat, 5)
        for strategy, decider in zip(strategies, deciders, strict=True):
            fresh = _kernel_decision(
                strategy.for_rules(rules).to_kernel(rules), rules, masks, state, seat, stream
            )
            prepared = decider.decide(view, SEED, deal=deal, seat=seat, draws=5)
            assert prepared == fresh, (deal, view, strategy.name)
            if view["decision"] == "discard" and not view["taken_from_pile"]:
                unnamed = {k: v for k, v in view.items() if k != "taken"}
                assert decider.decide(unnamed, SEED, deal=deal, seat=seat, draws=5) == fresh
                without_taken += 1
    assert without_taken > 10


def test_a_prepared_decider_reads_no_file_per_decision(monkeypatch):
    """Prepared once: deciding reads no strategy or rule file (the rollout and opponent
    model of a search player included), so a file read would fail here."""
    import gin_sim.game.rules
    import gin_sim.players.strategies

    deciders = [Decider("mc", "hollywood"), Decider("expert", "standard")]

    def no_reading(*args, **kwargs):
        raise AssertionError("a file was read while deciding")

    monkeypatch.setattr(gin_sim.players.strategies, "read_named_config", no_reading)
    monkeypatch.setattr(gin_sim.game.rules, "read_named_config", no_reading)
    for decider in deciders:
        assert decider.decide(VIEW, 1).discard == "KD"
    with pytest.raises(AssertionError, match="a file was read"):  # the patch does bite
        Decider("expert", "hollywood")


def test_decide_prepares_a_strategy_once_per_rule_set():
    from gin_sim.players.decide import _prepared

    mc = load_strategy("mc-fixed")
    decide(VIEW, "standard", mc)
    before = _prepared.cache_info()
    decide(VIEW, "standard", mc, seed=2)
    decide(VIEW, "standard", "mc", seed=3)  # the same strategy read again by name
    after = _prepared.cache_info()
    assert (after.hits - before.hits, after.misses - before.misses) == (2, 0)
    with pytest.raises(ValueError, match="rules = 3"):
        Decider("expert", 3)
    with pytest.raises(ValueError, match="draws = -1"):
        Decider("expert").decide(VIEW, draws=-1)


def test_drawn_counts_the_numbers_a_decision_took_from_its_stream():
    """``Decision.drawn``: a family player draws no number, a search one (``mc``: one a
    searched decision), ``random`` one for its card and one more for the knock's coin when
    that card leaves a deadwood it may knock with (R12)."""
    hand = "AS 2S 3S 4H 4D 4C 9H TH JH QS 2C"  # QS or 2C out: deadwood 2 or 10
    view = VIEW | {"hand": hand, "taken": "2C"}
    assert decide(view, strategy="simple").drawn == 0
    assert decide(view, strategy=replace(load_strategy("mc-fast"), samples=4)).drawn == 1
    kinds = set()
    for seed in range(60):
        decision = decide(view, strategy="random", seed=seed)
        left = parse_card_list(hand).copy()
        left.remove(parse_card_list(decision.discard)[0])
        may_knock = min_deadwood_exhaustive(sum(1 << c for c in left)) <= 10
        assert decision.drawn == 1 + may_knock, (seed, decision)
        kinds.add(decision.drawn)
    assert kinds == {1, 2}
    draw = VIEW | {"decision": "draw", "hand": "AS 2S 3S 4H 4D 4C 9H TH JH QS"}
    del draw["taken"], draw["taken_from_pile"]
    assert decide(draw | {"stock_left": 31, "own_turns": 0}, strategy="random").drawn == 1
