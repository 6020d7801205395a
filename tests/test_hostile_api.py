"""Issue 29, class 10: the Python API says what it takes. Wrong types and values raise
``TypeError`` or ``ValueError`` with a message naming the argument, never an
AttributeError or IndexError from deep inside; a seat is 0 or 1."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import gin_sim
from gin_sim.kernels.enums import N_POSITION_MASKS, N_POSITION_SLOTS, PositionSlot
from gin_sim.players.decide import (
    Decider,
    OpponentMemory,
    parse_view,
    position_from_view,
    view_of_position,
)

VIEW = {
    "decision": "draw",
    "hand": "AS 2S 3S 4H 4D 4C 9H TH JH QS",
    "pile": "7C 4S",
    "stock_left": 30,
    "opp_turns": 1,
    "dealer": "me",
}
GARBAGE = ["x", 7, 2.5, None, True, [1, 2], {"a": 1}, b"bytes", object(), Path("x")]


@pytest.fixture(scope="module")
def decider() -> Decider:
    return Decider("simple", "hollywood")


@pytest.fixture(scope="module")
def adaptive() -> Decider:
    return Decider("mc", "hollywood")


def _clear(call, *fragments: str) -> str:
    with pytest.raises((TypeError, ValueError)) as caught:
        call()
    message = str(caught.value)
    assert message and "\n" not in message, message
    for fragment in fragments:
        assert fragment in message, (fragment, message)
    return message


@pytest.mark.parametrize("memory", [v for v in GARBAGE if v is not None] + ["mc"])
def test_decide_with_a_memory_that_is_none(decider, adaptive, memory):
    _clear(lambda: decider.decide(VIEW, memory=memory), "memory")
    _clear(lambda: adaptive.decide(VIEW, memory=memory), "memory")


def test_a_memory_of_another_decider(decider, adaptive):
    _clear(lambda: decider.decide(VIEW, memory=adaptive.memory()), "Decider")


@pytest.mark.parametrize("made_from", ["mc", None, 5, gin_sim.load_strategy("mc-fixed")])
def test_opponent_memory_takes_a_decider(made_from):
    _clear(lambda: OpponentMemory(made_from), "OpponentMemory", "Decider")


@pytest.mark.parametrize("rules", [None, "hollywood", 5, {"knock_limit": 10}])
def test_parse_view_takes_rules(rules):
    _clear(lambda: parse_view(VIEW, rules), "rules")


@pytest.mark.parametrize("seat", [7, 2, -1, True, False, 1.0, "0", None, np.int64(5)])
def test_a_seat_is_0_or_1_everywhere(decider, adaptive, seat):
    _clear(lambda: decider.decide(VIEW, seat=seat), "seat")
    _clear(lambda: gin_sim.decide(VIEW, "hollywood", "simple", seat=seat), "seat")
    parsed = parse_view(VIEW, decider.rules)
    _clear(lambda: position_from_view(parsed, seat), "seat")
    memory = adaptive.memory()
    _clear(lambda: memory.before(adaptive, parsed, seat), "seat")


def _position(decider):
    return position_from_view(parse_view(VIEW, decider.rules), 0)


def test_view_of_position_round_trips(decider):
    masks, state = _position(decider)
    view = view_of_position(masks, state)
    assert parse_view(view, decider.rules).hand == parse_view(VIEW, decider.rules).hand


@pytest.mark.parametrize(
    "spoil",
    [
        lambda m, s: ("garbage", s),
        lambda m, s: (m, None),
        lambda m, s: (m[:3], s),
        lambda m, s: (m, s[:10]),
        lambda m, s: (m.astype(float), s),
        lambda m, s: (m, s.astype(str)),
        lambda m, s: (np.stack([m, m]), s),
        lambda m, s: (m, _set(s, PositionSlot.PHASE, 9)),
        lambda m, s: (m, _set(s, PositionSlot.PLAYER, 7)),
        lambda m, s: (m, _set(s, PositionSlot.PLAYER, -1)),
        lambda m, s: (m, _set(s, PositionSlot.DEALER, 2)),
        lambda m, s: (m, _set(s, PositionSlot.PILE_SIZE, 500)),
        lambda m, s: (m, _set(s, PositionSlot.PILE_SIZE, -3)),
        lambda m, s: (m, _set(s, PositionSlot.PILE, 99)),
        lambda m, s: (m, _set(s, PositionSlot.STOCK_POS, 99)),
        lambda m, s: (_set(m, 0, np.uint64(1) << np.uint64(60)), s),
        lambda m, s: ([[1]], [[2]]),
        lambda m, s: (np.zeros(N_POSITION_MASKS, np.uint64), np.full(N_POSITION_SLOTS, -5)),
    ],
)
def test_view_of_position_on_garbage(decider, spoil):
    masks, state = _position(decider)
    _clear(lambda: view_of_position(*spoil(masks.copy(), state.copy())))


def _set(array, index, value):
    array[index] = value
    return array


@pytest.mark.parametrize(
    "call",
    [
        lambda: gin_sim.parse_cards(5),
        lambda: gin_sim.parse_cards(None),
        lambda: gin_sim.parse_cards(["7H", "8H"]),
        lambda: gin_sim.format_cards("7H"),
        lambda: gin_sim.format_cards(None),
        lambda: gin_sim.load_rules(5),
        lambda: gin_sim.load_rules(None),
        lambda: gin_sim.load_rules("hollywood", "knock_limit=5"),
        lambda: gin_sim.load_rules("hollywood", [5]),
        lambda: gin_sim.load_strategy(None),
        lambda: gin_sim.load_strategy(3.5),
        lambda: gin_sim.load_strategy("mc-fixed", "samples=5"),
        lambda: gin_sim.simulate_deals("hollywood", ("simple", "simple"), 10, 1),
        lambda: gin_sim.simulate_deals(gin_sim.load_rules(), ("simple", "simple"), 10, 1),
        lambda: gin_sim.simulate_deals(
            gin_sim.load_rules(), (gin_sim.load_strategy("simple"),), 10, 1
        ),
        lambda: gin_sim.decide(None),
        lambda: gin_sim.decide(VIEW, rules=5),
        lambda: gin_sim.decide(VIEW, strategy=None),
        lambda: gin_sim.decide(VIEW, seed="x"),
        lambda: gin_sim.decide(VIEW, deal=-1),
        lambda: gin_sim.Decider(None),
        lambda: gin_sim.Decider("simple", rules=[]),
        lambda: gin_sim.Rules(knock_limit="x"),
        lambda: gin_sim.Rules(oklahoma=1),
        lambda: gin_sim.Rules(game_target=None),
        lambda: gin_sim.play_hand(" ".join(gin_sim.format_cards((1 << 52) - 1).split()), players=5),
        lambda: gin_sim.min_deadwood("7H"),
        lambda: gin_sim.best_arrangement("7H"),
    ],
)
def test_the_public_api_names_what_it_takes(call):
    _clear(call)


@pytest.mark.parametrize("value", GARBAGE)
def test_decide_arguments_of_any_type(decider, value):
    for keyword in ("seed", "deal", "draws", "seat"):
        if type(value) is int and keyword != "seat":  # 7 is a seed, a deal, draws
            continue
        _clear(lambda keyword=keyword: decider.decide(VIEW, **{keyword: value}))
    if not isinstance(value, dict):
        _clear(lambda: decider.decide(value))
