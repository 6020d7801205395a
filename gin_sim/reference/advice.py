"""Decision positions and their deep evaluation in plain Python (docs/advice.md).

The twin of ``gin_sim/kernels/advice.py``, written from the specification: the same
positions kept from the same deals (the reference engine's play, one sampling stream per
deal, each decision of a kind kept with that kind's probability), and the same evaluation (the same actions in the same order, the worlds of
``reference.search.sample_world`` from the same stream, the rollout values summed in the
same order). Tests compare the two number for number.

>>> kept = sample_deal(1, 0, "hollywood", ("expert", "expert"))  # every decision kept
>>> kept[0].decision, kept[0].kind  # every hand starts with an offer
(0, 0)
>>> [k.decision for k in kept] == list(range(len(kept))) and all(k.probability == 1 for k in kept)
True
"""

from __future__ import annotations

from dataclasses import dataclass

from gin_sim.game.rng import Stream, bounded, sample_stream_state
from gin_sim.game.rules import Rules, load_rules
from gin_sim.kernels.enums import KEEP_SCALE, DecisionKind
from gin_sim.players.strategies import Strategy, load_strategy
from gin_sim.reference.engine import (
    DISCARD,
    DRAW,
    OFFER,
    Action,
    Discard,
    Situation,
    _cards,
    _deadwood,
    decisions_reference,
    play_deal_reference,
    simple_discard,
)
from gin_sim.reference.search import rollout_value, sample_world

__all__ = ["Evaluated", "Sampled", "decision_kind", "evaluate", "evaluation_actions", "sample_deal"]


def _least_deadwood_discard(situation: Situation) -> tuple[int, int]:
    """The ``simple`` discard (never the card just taken from the pile) and what it leaves."""
    view = situation.view
    cards = [c for c in _cards(view.hand) if c != view.taken_from_pile]
    best = simple_discard(view.hand, cards, view.taken_from_pile)
    return best, _deadwood(view.hand & ~(1 << best))


def decision_kind(situation: Situation) -> int | None:
    """The ``DecisionKind`` of a decision; None when big gin can be declared (R14)."""
    if situation.phase == OFFER:
        return DecisionKind.OFFER
    if situation.phase == DRAW:
        return DecisionKind.DRAW
    view = situation.view
    if view.rules.big_gin_bonus > 0 and _deadwood(view.hand) == 0:
        return None
    deadwood = _least_deadwood_discard(situation)[1]
    return DecisionKind.KNOCK if deadwood <= view.knock_limit else DecisionKind.DISCARD


@dataclass(frozen=True)
class Sampled:
    """A kept position: the decider's situation, its decision number in the hand (from 0),
    its kind, how many decisions of its kind the hand had, the kind's keep rate (kept with
    probability ``rate / KEEP_SCALE``), the action taken there, the pile takes of the
    decider and of its opponent so far, and the hand's final points from its side."""

    situation: Situation
    decision: int
    kind: int
    count: int
    rate: int
    action: Action
    own_takes: int
    opp_takes: int
    points: int

    @property
    def probability(self) -> float:
        return self.rate / KEEP_SCALE


def sample_deal(
    seed: int,
    deal: int,
    rules: Rules | str,
    players: tuple[str | Strategy, str | Strategy],
    rates: tuple[int, ...] = (KEEP_SCALE,) * len(DecisionKind),
) -> list[Sampled]:
    """The positions kept from deal ``deal`` of ``seed``, in the order of play: the sampling
    stream gives one number per decision that has a kind, and the decision is kept when
    ``bounded(number, KEEP_SCALE) < rates[kind]`` (``rates`` by kind; all kept by default)."""
    rule_set = load_rules(rules)
    stream = Stream(sample_stream_state(seed, deal))
    counts = [0] * len(DecisionKind)
    takes = [0, 0]
    kept: list[tuple] = []
    decisions = decisions_reference(seed, deal, rule_set, players)
    for decision, (situation, action) in enumerate(decisions):
        player = situation.player
        kind = decision_kind(situation)
        if kind is not None:
            counts[kind] += 1
            if bounded(stream.next(), KEEP_SCALE) < rates[kind]:
                kept.append((situation, decision, kind, action, takes[player], takes[1 - player]))
        if situation.phase != DISCARD and action is True:
            takes[player] += 1
    record = play_deal_reference(seed, deal, rule_set, players)
    result = []
    for situation, decision, kind, action, own, opp in kept:
        points = 0
        if record["winner"] >= 0:
            won = record["winner"] == situation.player
            points = int(record["points"]) if won else -int(record["points"])
        result.append(
            Sampled(situation, decision, kind, counts[kind], rates[kind], action, own, opp, points)
        )
    return result


def evaluation_actions(situation: Situation) -> list[Action]:
    """At an offer or a draw: decline or draw, then take. After taking: knocking with the
    least-deadwood discard if allowed (R12), then every card but the one just taken from
    the pile, ascending, as a discard without knocking."""
    if situation.phase != DISCARD:
        return [False, True]
    view = situation.view
    best, deadwood = _least_deadwood_discard(situation)
    actions: list[Action] = [Discard(best, True)] if deadwood <= view.knock_limit else []
    return actions + [Discard(c, False) for c in _cards(view.hand) if c != view.taken_from_pile]


@dataclass(frozen=True)
class Evaluated:
    """The actions of a position, each one's value sum and sum of squares over every
    world, its gain over the baseline summed over the measuring worlds (and squared), and
    the baseline's index."""

    actions: tuple[Action, ...]
    sums: tuple[float, ...]
    squares: tuple[float, ...]
    gains: tuple[float, ...]
    gain_squares: tuple[float, ...]
    baseline: int


def evaluate(
    situation: Situation, searcher: Strategy, select: int, key: int, rules: Rules
) -> Evaluated:
    """docs/advice.md, "The evaluation": ``searcher`` is the evaluation as an ``mc``
    strategy (its worlds, inference, rollout and opponent policies); worlds come from the
    stream ``key``."""
    rollout = load_strategy(searcher.rollout).for_rules(rules)
    opponent = load_strategy(searcher.opponent_model).for_rules(rules)
    policies = [opponent, opponent]
    policies[situation.player] = rollout
    actions = evaluation_actions(situation)
    n = len(actions)
    sums, squares, gains, gain_squares = [0.0] * n, [0.0] * n, [0.0] * n, [0.0] * n
    choosing = situation.phase == DISCARD
    baseline = -1 if choosing else 0
    stream = Stream(key)
    for world in range(searcher.samples):
        if choosing and world == select:  # the best plain discard on the first worlds
            plain = [c for c in range(n) if not actions[c].knock]  # type: ignore[union-attr]
            baseline = max(plain, key=lambda c: (sums[c], -c))
        opp_hand, stock = sample_world(searcher, situation, stream)
        values = [
            float(rollout_value(situation, opp_hand, stock, a, (policies[0], policies[1])))
            for a in actions
        ]
        for c in range(n):
            sums[c] += values[c]
            squares[c] += values[c] * values[c]
        if baseline >= 0:
            for c in range(n):
                gain = values[c] - values[baseline]
                gains[c] += gain
                gain_squares[c] += gain * gain
    return Evaluated(
        tuple(actions), tuple(sums), tuple(squares), tuple(gains), tuple(gain_squares), baseline
    )
