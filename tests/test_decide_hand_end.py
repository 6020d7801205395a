"""The adaptive player's whole evidence through the doors (issue 26): a simulated match's
searcher against the same player driven from outside, decision by decision and hand by hand.

A simulated searcher with an opponent panel learns within a hand from the opponent's turns
and, at the end of a hand, from the cards the showdown shows (the opponent's knock; the
opponent's last turn at its own knock: ``kernels.search.showdown_update_nb``). From outside,
``Decider`` + ``OpponentMemory`` get the same evidence when the host reports each hand's end
(``OpponentMemory.hand_ended``). Here simulated matches of ``mc`` (``panel_memory =
"match"``) against every style of its panel are replayed through them: every decision and
the posterior after every hand are the simulated ones, exactly. ``serve`` and the OpenSpiel
bot do the same for some hands.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from simulated_hands import simulated_match

from gin_sim.game.cards import parse_card, parse_cards
from gin_sim.game.config import configs_dir
from gin_sim.game.melds import min_deadwood_exhaustive
from gin_sim.game.rng import deck_for_deal
from gin_sim.game.rules import load_rules
from gin_sim.interfaces.serve import Server
from gin_sim.players.decide import (
    Decider,
    hand_end_of_position,
    parse_hand_end,
    position_from_end,
)
from gin_sim.players.strategies import Strategy, load_strategy
from gin_sim.reference.engine import DISCARD, DRAW, Discard, legal_discards, start_hand
from gin_sim.reference.views import view_from_situation

ADAPTIVE = load_strategy("mc")
STYLES = ADAPTIVE.opponent_panel  # every style of its panel, random included
# panel_knock_turn (issue 26): the showdown reads the knocking turn too
KNOCK_TURN = replace(ADAPTIVE, panel_knock_turn=True, name="mc-knock-turn")
# panel_offer (issue 26, gap c): the opponent's choice at the opening offer read too
OFFER = replace(ADAPTIVE, panel_offer=True, name="mc-offer")


def _pair(style: str, seat: int, adaptive: Strategy = ADAPTIVE) -> tuple[Strategy, Strategy]:
    pair = [load_strategy(style), adaptive]
    return (pair[1], pair[0]) if seat == 0 else (pair[0], pair[1])


@pytest.mark.parametrize(
    ("style", "rule_set", "match", "seat", "adaptive"),
    [
        *[
            (style, ("standard", "hollywood")[i % 2], i, i % 2, ADAPTIVE)
            for i, style in enumerate(STYLES)
        ],
        ("gin-hunter-strong", "standard", 3, 1, KNOCK_TURN),
        ("gin-hunter-pairs", "hollywood", 4, 0, KNOCK_TURN),
        ("gin-hunter", "standard", 5, 0, OFFER),
        ("early-knocker", "hollywood", 6, 1, OFFER),
    ],
)
@pytest.mark.full
def test_a_simulated_match_replays_through_decider_and_memory(
    style, rule_set, match, seat, adaptive
):
    rules = load_rules(rule_set)
    mk, hands = simulated_match(rules, _pair(style, seat, adaptive), match, seat)
    decider = Decider(adaptive, rules)
    memory = decider.memory()
    forgetful = decider.memory()  # no hand ends reported: within hands only
    searched = ended_by_knock = forgetful_differs = 0
    for number, hand in enumerate(hands):
        for view, action, draws, means in hand.decisions:
            got = decider.decide(
                view, mk, deal=number, seat=seat, draws=draws, memory=memory, hand_number=number
            )
            assert got.action == action, (number, view)
            assert [c.mean for c in got.candidates] == means
            searched += got.worlds > 0
            plain = decider.decide(
                view, mk, deal=number, seat=seat, draws=draws, memory=forgetful, hand_number=number
            )
            forgetful_differs += plain.candidates != got.candidates
        memory.hand_ended(hand.end, hand_number=number)
        assert list(memory.posterior.values()) == hand.posterior, number
        ended_by_knock += hand.end["knocker"] != "none"
        forgetful_differs += forgetful.posterior != memory.posterior
    assert len(hands) >= 3 and searched > 20 and ended_by_knock > 0
    assert forgetful_differs > 0  # the hand ends are what keeps them equal


@pytest.mark.parametrize(("style", "seat"), [("gin-hunter", 0), ("simple", 1)])
def test_the_opening_offers_reading_replays_through_decider_and_memory(style, seat):
    """``panel_offer``: the first hands of a simulated match replayed through ``Decider``
    + ``OpponentMemory`` (hand numbers and hand ends given) make the same decisions and
    end each hand with the same posterior, exactly; and the reading changed the posterior
    (the same hands without it end elsewhere)."""
    rules = load_rules("standard")
    mk, hands = simulated_match(rules, _pair(style, seat, OFFER), 7, seat)
    _, plain = simulated_match(rules, _pair(style, seat), 7, seat)
    decider = Decider(OFFER, rules)
    memory = decider.memory()
    for number, hand in enumerate(hands[:3]):
        for view, action, draws, means in hand.decisions:
            got = decider.decide(
                view, mk, deal=number, seat=seat, draws=draws, memory=memory, hand_number=number
            )
            assert got.action == action, (number, view)
            assert [c.mean for c in got.candidates] == means
        memory.hand_ended(hand.end, hand_number=number)
        assert list(memory.posterior.values()) == hand.posterior, number
    assert any(h.posterior != p.posterior for h, p in zip(hands[:3], plain[:3], strict=True))


def test_the_server_replays_the_opening_offers_reading(tmp_path):
    """``panel_offer`` through ``serve``: a strategy file with it on, the first hands of a
    simulated match asked as JSON lines with hand numbers and hand ends, give the simulated
    decisions and posteriors."""
    path = tmp_path / "mc-offer.toml"
    text = (configs_dir() / "strategies" / "mc.toml").read_text()
    # a top-level key, so before the file's [[adapt]] tables
    path.write_text(text.replace('name = "mc"', 'name = "mc-offer"\npanel_offer = true'))
    assert load_strategy(str(path)) == OFFER
    rules = load_rules("standard")
    seat = 0
    mk, hands = simulated_match(rules, _pair("gin-hunter", seat, OFFER), 7, seat)
    server = Server("standard", str(path))
    for number, hand in enumerate(hands[:2]):
        for view, action, draws, _ in hand.decisions:
            request = {"view": view, "seed": mk, "deal": number, "seat": seat, "draws": draws}
            answer = json.loads(
                server.answer_line(json.dumps(request | {"game": "g", "hand_number": number}))
            )
            assert answer["action"] == action, answer
        end = {"hand_end": hand.end, "hand_number": number, "game": "g"}
        answer = json.loads(server.answer_line(json.dumps(end)))
        assert list(answer["posterior"].values()) == hand.posterior


def test_the_server_and_its_hand_end_requests_replay_a_simulated_match():
    rules = load_rules("standard")
    seat = 1
    mk, hands = simulated_match(rules, _pair("gin-hunter", seat), 1, seat)
    server = Server("standard", "mc")

    def ask(request: dict) -> dict:  # as JSON lines, both ways
        answer = json.loads(server.answer_line(json.dumps(request | {"game": "g"})))
        assert answer["version"] == 2 and "error" not in answer, answer
        return answer

    memories = []
    for number, hand in enumerate(hands[:4]):
        for view, action, draws, means in hand.decisions:
            request = {"view": view, "seed": mk, "deal": number, "seat": seat, "draws": draws}
            answer = ask(request | {"hand_number": number})
            assert answer["action"] == action
            assert [c["mean"] for c in answer.get("candidates", [])] == means
            memories.append(answer["memory"])
        answer = ask({"hand_end": hand.end, "hand_number": number})
        memories.append(answer["memory"])
        assert list(answer["posterior"].values()) == hand.posterior
    assert memories[0] == "new" and set(memories[1:]) == {"kept"}


# ------------------------------------------------------------------ the hand's end
def _a_knock_end(rule_set="standard", style="early-knocker", match=2, seat=0):
    rules = load_rules(rule_set)
    _, hands = simulated_match(rules, _pair(style, seat), match, seat)
    return rules, hands


def test_a_hand_end_round_trips_through_the_kernel_position():
    rules, hands = _a_knock_end()
    knocks = [h for h in hands if h.end["knocker"] != "none"]
    assert {h.end["knocker"] for h in knocks} == {"me", "opponent"}
    for hand in knocks:
        parsed = parse_hand_end(hand.end, rules)
        masks, state = position_from_end(parsed, 0)
        again = hand_end_of_position(masks, state, 0) | {"score": hand.end["score"]}
        assert again == hand.end


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"knocker": "him"}, "field 'knocker' = 'him': allowed 'me', 'opponent' or 'none'"),
        ({"colour": 1}, "unknown field 'colour'"),
        ({"opp_hand": "AS"}, "field 'opp_hand' has 1 cards"),
        ({"taken_from_pile": "yes"}, "field 'taken_from_pile' = 'yes': allowed true or false"),
        ({"stock_left": 7}, "field 'stock_left' = 7"),
        ({"own_turns": 0}, "fields 'own_turns' + 'opp_turns'"),
        ({"big_gin": True}, "big gin does not exist under rules 'standard'"),
        ({"score": {"format": "game"}}, "field 'score'"),
    ],
)
@pytest.mark.first_case
def test_a_bad_hand_end_is_one_line_naming_the_field(change, message):
    rules, hands = _a_knock_end()
    end = next(h.end for h in hands if h.end["knocker"] != "none")
    with pytest.raises(ValueError, match=r"^hand end: ") as error:
        parse_hand_end(end | change, rules)
    assert message in str(error.value) and "\n" not in str(error.value)


def test_a_drawn_hand_is_the_knocker_alone():
    rules = load_rules("standard")
    assert parse_hand_end({"knocker": "none"}, rules).knocker == "none"
    with pytest.raises(ValueError, match=r"a drawn hand .* give 'knocker' alone"):
        parse_hand_end({"knocker": "none", "hand": "AS"}, rules)


def test_a_knock_above_the_limit_and_shared_cards_are_refused():
    rules, hands = _a_knock_end()
    end = next(h.end for h in hands if h.end["knocker"] != "none")
    mine, theirs = end["hand"].split(), end["opp_hand"].split()
    swapped = end | {"hand": " ".join([*mine[:-1], theirs[0]])}
    with pytest.raises(ValueError, match="share"):
        parse_hand_end(swapped, rules)
    knock = next(
        h.end for h in hands if h.end["knocker"] == "me" and min_deadwood_exhaustive(
            parse_cards(h.end["hand"])) > 0
    )  # fmt: skip
    with pytest.raises(ValueError, match=r"above the knock limit 0 \(R12\)"):
        parse_hand_end(knock | {"knock_limit": 0}, rules)


# ----------------------------------------------------------------- hand boundaries
def _small(memory: str = "match") -> Strategy:
    return replace(ADAPTIVE, samples=6, screen=0, name="adaptive6", panel_memory=memory)


def test_hand_numbers_and_hand_ends_tell_hands_apart_and_are_checked():
    rules = load_rules("standard")
    mk, hands = simulated_match(rules, _pair("simple", 0), 0, 0)
    decider = Decider(ADAPTIVE, rules)
    memory = decider.memory()
    view, _, draws, _ = hands[0].decisions[0]
    decider.decide(view, mk, seat=0, draws=draws, memory=memory, hand_number=0)
    memory.hand_ended(hands[0].end, hand_number=0)
    with pytest.raises(ValueError, match="hand_number 0: that hand's end was reported already"):
        memory.hand_ended(hands[0].end, hand_number=0)
    with pytest.raises(ValueError, match="hand_number 0: that hand's end was reported"):
        decider.decide(view, mk, seat=0, draws=draws, memory=memory, hand_number=0)
    with pytest.raises(ValueError, match="hand_number tells a memory's hands apart"):
        decider.decide(view, mk, seat=0, draws=draws, hand_number=1)
    with pytest.raises(ValueError, match="memory = 'x': allowed an OpponentMemory"):
        decider.decide(view, mk, memory="x")
    with pytest.raises(ValueError, match="a memory is made by a Decider"):
        type(memory)("mc")


def _views_at_31(deck_seed: int, turns: int, decider: Decider, memory) -> list[dict]:
    """A hand where every take is from the pile (the stock stays at 31): the opponent (seat
    0, the non-dealer) takes the upcard (R7) and then every discard, and discards its
    lowest legal card; the searcher (seat 1, the dealer) takes every discard and discards
    as it decides (never knocking). Its views up to its ``turns``-th draw decision, each
    decided through ``memory`` as it comes (the memory sees the searcher's own discards)."""
    hand = start_hand(deck_for_deal(deck_seed, 0), decider.rules, dealer=1)
    views = []
    while True:
        view = hand.view()
        if hand.to_move == 0:
            action = True if hand.phase != DISCARD else Discard(legal_discards(view)[0], False)
        else:
            document = view_from_situation(hand.situation(view))
            views.append(document)
            decision = decider.decide(document, deck_seed, seat=1, draws=len(views), memory=memory)
            if hand.phase == DRAW and sum(v["decision"] == "draw" for v in views) == turns:
                return views
            action = True
            if hand.phase == DISCARD:
                action = Discard(parse_card(decision.discard), False)
        hand.apply(action)


def test_a_new_hand_first_drawing_at_31_after_a_hand_that_ended_at_31_is_seen():
    """The guess from the view (no hand number, no hand end): the dealer's first decision
    is a draw with 31 cards in the stock (the non-dealer took the upcard, R7) after a hand
    whose last decision was at 31 too. The stock did not grow, so only the turns and the
    cards tell; the old guess took it for the same hand and kept that hand's posterior."""
    decider = Decider(_small("hand"), load_rules("standard"))
    memory = decider.memory()
    last = _views_at_31(3, 2, decider, memory)
    assert last[-1]["stock_left"] == 31 and last[-1]["own_turns"] == 1
    moved = memory.posterior
    assert moved != decider.memory().posterior  # the opponent's answer was read
    first = _views_at_31(4, 1, decider, decider.memory())[0]
    assert first["stock_left"] == 31 and first["own_turns"] == 0
    guessed = decider.decide(first, 9, seat=1, memory=memory)
    assert guessed == decider.decide(first, 9, seat=1, memory=decider.memory())
    assert memory.posterior == decider.memory().posterior  # "hand": back at the prior
