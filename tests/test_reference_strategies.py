"""The strategy family in the reference engine (docs/strategies.md).

- The helper quantities and the fast (bounded) searches against their plain definitions.
- What a player knows: every decision reads only the ``View`` that ``player_view`` builds.
  Views are captured at every decision of many seeded deals; the view must equal the one
  recomputed from the public events of the hand and the player's own cards, and it, and
  every decision, must stay the same when the cards hidden from the player (the
  opponent's cards it has not seen taken, and the stock) are shuffled.
"""

from __future__ import annotations

import copy
import inspect
import random
from dataclasses import fields, replace
from typing import Any

import pytest
from named import FAMILY_STYLES
from tiers import size

import gin_sim.reference.engine as engine
from gin_sim.game.cards import FULL_DECK, N_CARDS, cards_of, hand_from_cards
from gin_sim.game.rules import Rules, load_rules
from gin_sim.players.strategies import Strategy, load_strategy
from gin_sim.reference.engine import (
    NO_CARD,
    View,
    danger,
    discard_cost,
    disinterest,
    family_discard_or_knock,
    family_takes,
    knock_threshold,
    live,
    pair_value,
    play_deal_reference,
    player_view,
    take_gain,
    take_gain_bounded,
    weighted_discard,
    weighted_discard_bounded,
)

NAMED = list(FAMILY_STYLES)
EXTREMES = [
    Strategy(name="grabber", take_melds=False, take_min_gain=1.0, improve_weight=2.0),
    Strategy(name="timid", safety_weight=3.0, undercut_risk=0.05, keep_weight=0.5),
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
]
FAMILY = [load_strategy(name) for name in NAMED] + EXTREMES


# --------------------------------------------- helper quantities by their definitions
def is_three_card_meld(a: int, b: int, c: int) -> bool:
    """R3 for three distinct cards: one rank, or one suit at three consecutive ranks."""
    ranks = sorted(x % 13 for x in (a, b, c))
    if ranks[0] == ranks[2]:
        return True
    same_suit = a // 13 == b // 13 == c // 13
    return same_suit and ranks[1] == ranks[0] + 1 and ranks[2] == ranks[1] + 1


def live_by_definition(card: int, hand: int, unseen: int) -> int:
    return sum(
        1
        for x in cards_of(unseen)
        if x != card
        and any(y not in (card, x) and is_three_card_meld(card, x, y) for y in cards_of(hand))
    )


def danger_by_definition(card: int, opp_taken: int) -> int:
    same_rank = sum(1 for t in cards_of(opp_taken) if t % 13 == card % 13)
    near = sum(
        1
        for t in cards_of(opp_taken)
        if t // 13 == card // 13 and abs(t % 13 - card % 13) in (1, 2)
    )
    return same_rank + near


def disinterest_by_definition(card: int, opp_passed: int) -> int:
    return sum(
        1
        for t in cards_of(opp_passed)
        if t != card
        and (t % 13 == card % 13 or (t // 13 == card // 13 and abs(t % 13 - card % 13) == 1))
    )


def pair_by_definition(card: int, hand: int) -> int:
    """``pair(c, h)``: c's value (R2) for each other card of c's rank in h."""
    value = min(card % 13 + 1, 10)
    return sum(value for t in cards_of(hand) if t != card and t % 13 == card % 13)


def random_hand(rng: random.Random, size: int, pool: list[int] | None = None) -> int:
    return hand_from_cards(rng.sample(pool or range(N_CARDS), size))


def clustered_pool(rng: random.Random) -> list[int]:
    """Cards of 2 or 3 suits over 7 ranks: hands drawn from it are rich in melds."""
    suits = rng.sample(range(4), rng.choice([2, 3]))
    low = rng.randrange(7)
    return [s * 13 + r for s in suits for r in range(low, low + 7)]


def test_helper_quantities_match_their_definitions() -> None:
    rng = random.Random(11)
    for _ in range(size(fast=1000, full=3000)):
        order = rng.sample(range(N_CARDS), N_CARDS)
        hand = hand_from_cards(order[:11])
        card = rng.choice(order[:11])
        unseen = hand_from_cards(order[11 : 11 + rng.randrange(42)])
        others = hand_from_cards(order[11 : 11 + rng.randrange(42)])
        rest = hand & ~(1 << card)
        assert live(card, rest, unseen) == live_by_definition(card, rest, unseen)
        assert live(card, hand, unseen) == live_by_definition(card, hand, unseen)
        assert danger(card, others) == danger_by_definition(card, others)
        # opp_passed may hold the card itself (a card the opponent threw and we took)
        passed = others | (1 << card) if rng.random() < 0.3 else others
        assert disinterest(card, passed) == disinterest_by_definition(card, passed)
        assert pair_value(card, hand) == pair_by_definition(card, hand)


def test_take_gain_bounded_equals_the_definition() -> None:
    rng = random.Random(12)
    for _ in range(size(fast=700, full=2000)):
        pool = clustered_pool(rng) if rng.random() < 0.5 else list(range(N_CARDS))
        cards = rng.sample(pool, 11)
        hand, top = hand_from_cards(cards[:10]), cards[10]
        assert take_gain_bounded(hand, top) == take_gain(hand, top)


def random_view(rng: random.Random, hand_size: int) -> View:
    pool = clustered_pool(rng) if rng.random() < 0.5 else list(range(N_CARDS))
    hand = random_hand(rng, hand_size, pool)
    rest = [c for c in range(N_CARDS) if not hand >> c & 1]
    rng.shuffle(rest)
    pile = hand_from_cards(rest[: rng.randrange(12)])
    opp_taken = hand_from_cards(rest[12 : 12 + rng.randrange(5)])
    opp_passed = hand_from_cards(rng.sample(rest, rng.randrange(20)))
    return View(
        hand=hand,
        pile=pile,
        top=cards_of(pile)[0] if pile else NO_CARD,
        opp_taken=opp_taken,
        opp_passed=opp_passed,
        stock_left=rng.randrange(3, 32),
        opp_turns=rng.randrange(30),
        knock_limit=rng.choice([0, 4, 10]),
        rules=Rules(),
        taken_from_pile=rng.choice([None, *cards_of(hand)]),
    )


def test_weighted_discard_bounded_equals_the_definition() -> None:
    rng = random.Random(13)
    weights = [0.0, 0.1, 0.3, 0.5, 1.0, 2.0, 3.0, 0.7]
    for _ in range(1500):
        view = random_view(rng, 11)
        strategy = Strategy(
            keep_weight=rng.choice(weights),
            safety_weight=rng.choice(weights),
            disinterest_weight=rng.choice(weights),
            pair_weight=rng.choice(weights),
        )
        candidates = [c for c in cards_of(view.hand) if c != view.taken_from_pile]
        fast = weighted_discard_bounded(strategy, view, candidates)
        assert fast == weighted_discard(strategy, view, candidates)


def test_discard_cost_follows_the_spec_expression() -> None:
    """``float(deadwood) + keep*live + safety*danger - disinterest*disinterest +
    pair*pair``, evaluated left to right (fractional weights, where the grouping can change
    the rounding)."""
    rng = random.Random(14)
    for _ in range(size(fast=150, full=500)):
        view = random_view(rng, 11)
        kw, sw, dw, pw = (rng.choice([0.1, 0.2, 0.3, 0.7, 1.1]) for _ in range(4))
        strategy = Strategy(keep_weight=kw, safety_weight=sw, disinterest_weight=dw, pair_weight=pw)
        for card in cards_of(view.hand):
            rest = view.hand & ~(1 << card)
            expected = float(engine._deadwood(rest))
            expected += kw * live_by_definition(card, rest, view.unseen)
            expected += sw * danger_by_definition(card, view.opp_taken)
            expected -= dw * disinterest_by_definition(card, view.opp_passed)
            expected += pw * pair_by_definition(card, view.hand)
            assert discard_cost(strategy, view, card) == expected


def test_knock_threshold_by_schedule_and_limit() -> None:
    view = random_view(random.Random(1), 11)
    for strategy in [*FAMILY, load_strategy("simple", ["knock_threshold=4"])]:
        for stock_left in range(32):
            for limit in range(11):
                v = replace(view, stock_left=stock_left, knock_limit=limit)
                assert knock_threshold(strategy, v) == strategy.threshold_at(stock_left, limit)
    gin_hunter = load_strategy("gin-hunter")
    assert [
        knock_threshold(gin_hunter, replace(view, stock_left=s, knock_limit=10))
        for s in (31, 6, 5, 0)
    ] == [
        0,
        0,
        10,
        10,
    ]


# ----------------------------------------------------------- what a player knows
def test_decisions_read_only_the_view() -> None:
    """Each decision of the family is a function of (strategy, view); each player's
    method of the view alone."""
    for function in (family_takes, family_discard_or_knock):
        assert list(inspect.signature(function).parameters) == ["strategy", "view"]
    for cls in (engine._Family, engine._Random):
        for method in ("takes", "declares_big_gin", "discard_or_knock"):
            assert list(inspect.signature(getattr(cls, method)).parameters) == ["self", "view"]
    assert [f.name for f in fields(View)] == [
        "hand",
        "pile",
        "top",
        "opp_taken",
        "opp_passed",
        "stock_left",
        "opp_turns",
        "knock_limit",
        "rules",
        "taken_from_pile",
        "to_close",  # public: the points to win the first open game (docs/strategies.md)
    ]


PAIRINGS = [
    ("expert", "gin-hunter"),
    ("defensive", "random"),  # random takes from the pile often: opp_taken gets busy
    ("early-knocker", "expert"),
    (EXTREMES[0], EXTREMES[2]),
]


def capture_states(
    monkeypatch: pytest.MonkeyPatch, deals: int
) -> list[tuple[Any, int, int | None, View, list[tuple]]]:
    """(table copy, player, taken_from_pile, view, public events so far) at every
    decision of the first ``deals`` deals of each pairing."""
    states: list[tuple[Any, int, int | None, View, list[tuple]]] = []
    events: list[tuple] = []
    real = engine.player_view

    def spy(table: Any, player: int, taken_from_pile: int | None = None, score=None) -> View:
        view = real(table, player, taken_from_pile, score)
        states.append((copy.deepcopy(table), player, taken_from_pile, view, list(events)))
        return view

    monkeypatch.setattr(engine, "player_view", spy)
    rules = load_rules("hollywood", ["big_gin_bonus=30"])
    for players in PAIRINGS:
        for deal in range(deals):
            events.clear()
            play_deal_reference(31, deal, rules, players, trace=events)
    monkeypatch.undo()
    return states


def view_from_events(events: list[tuple], player: int, taken_from_pile: int | None, rules: Rules):
    """The view recomputed from public events (docs/strategies.md, "Updates") and the
    player's own cards only: the opponent's stock draws count, their cards do not."""
    kind, _, dealer, nondealer_hand, dealer_hand, upcard, knock_limit = events[0]
    assert kind == "deal"
    hand = dealer_hand if player == dealer else nondealer_hand
    pile = [upcard]
    taken, passed, turns = [0, 0], [0, 0], [0, 0]
    stock_left = 31
    for kind, who, *details in events[1:]:
        if kind == "offer":
            card, took = details
            if not took:
                passed[who] |= 1 << card
        elif kind == "take_pile":
            card = pile.pop()
            assert card == details[0]
            taken[who] |= 1 << card
            turns[who] += 1
            if who == player:
                hand |= 1 << card
        elif kind == "take_stock":
            passed[who] |= 1 << pile[-1]
            stock_left -= 1
            turns[who] += 1
            if who == player:
                hand |= 1 << details[0]  # the player sees its own draw
        elif kind in ("discard", "knock"):
            card = details[0]
            pile.append(card)
            taken[who] &= ~(1 << card)
            passed[who] |= 1 << card
            if who == player:
                hand &= ~(1 << card)
        else:
            raise AssertionError(f"no decision follows a {kind} event")
    opponent = 1 - player
    return View(
        hand=hand,
        pile=sum(1 << c for c in pile),
        top=pile[-1] if pile else NO_CARD,
        opp_taken=taken[opponent],
        opp_passed=passed[opponent],
        stock_left=stock_left,
        opp_turns=turns[opponent],
        knock_limit=knock_limit,
        rules=rules,
        taken_from_pile=taken_from_pile,
    )


def shuffle_hidden(table: Any, player: int, rng: random.Random) -> tuple[Any, bool]:
    """A copy of ``table`` where the cards hidden from ``player`` (the opponent's cards
    not in its known takes, and the stock) are dealt again at random, sizes kept."""
    table = copy.deepcopy(table)
    opponent = 1 - player
    known = table.taken[opponent]
    hidden = cards_of(table.hands[opponent] & ~known)
    stock = table.deck[table.stock_pos :]
    pool = hidden + stock
    rng.shuffle(pool)
    table.hands[opponent] = known | hand_from_cards(pool[: len(hidden)])
    table.deck = table.deck[: table.stock_pos] + pool[len(hidden) :]
    for i in range(N_CARDS - 1, -1, -1):
        table.stock_masks[i] = table.stock_masks[i + 1] | 1 << table.deck[i]
    table.check()
    moved = pool[len(hidden) :] != stock or sorted(pool[: len(hidden)]) != hidden
    return table, moved


def decisions(view: View) -> list[Any]:
    if view.taken_from_pile is None and view.hand.bit_count() == 10:
        return [family_takes(s, view) for s in FAMILY]
    return [family_discard_or_knock(s, view) for s in FAMILY]


def test_views_hold_only_what_the_player_may_know(monkeypatch: pytest.MonkeyPatch) -> None:
    states = capture_states(monkeypatch, 40)
    assert len(states) > 1000
    kinds = set()
    for table, player, taken_from_pile, view, events in states:
        assert view == view_from_events(events, player, taken_from_pile, table.rules)
        # And so: the opponent's known cards are in its hand, and what it passed was
        # face up at some time (the upcard or a discard).
        opponent = 1 - player
        assert view.opp_taken & ~table.hands[opponent] == 0
        face_up = 1 << events[0][5]
        for kind, _, *details in events:
            if kind in ("discard", "knock"):
                face_up |= 1 << details[0]
        assert view.opp_passed & ~face_up == 0
        assert view.unseen == FULL_DECK & ~(table.hands[player] | table.pile_mask | view.opp_taken)
        kinds.add((view.hand.bit_count(), view.opp_taken != 0, taken_from_pile is not None))
    assert kinds >= {(10, True, False), (11, True, True), (11, False, False)}


def test_hidden_cards_change_no_view_and_no_decision(monkeypatch: pytest.MonkeyPatch) -> None:
    states = capture_states(monkeypatch, 12)
    rng = random.Random(5)
    changed = 0
    for table, player, taken_from_pile, view, _ in states:
        expected = decisions(view)
        for _ in range(2):
            other, moved = shuffle_hidden(table, player, rng)
            changed += moved
            other_view = player_view(other, player, taken_from_pile)
            assert other_view == view
            assert decisions(other_view) == expected
    assert changed > len(states)  # the shuffles did move hidden cards
    # The capture itself sees both kinds of decision.
    assert {v.hand.bit_count() for _, _, _, v, _ in states} == {10, 11}


def test_simple_is_the_family_with_default_parameters() -> None:
    """docs/strategies.md: simple is Strategy() by another name; the engine treats both
    the same (its record does not depend on the name)."""
    rules = load_rules("hollywood")
    assert replace(load_strategy("simple"), description="") == Strategy(name="simple")
    for deal in range(50):
        named = play_deal_reference(2, deal, rules, ("simple", "simple"))
        assert named == play_deal_reference(2, deal, rules, (Strategy(name="x"), Strategy()))
