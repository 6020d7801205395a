"""Search players (kind ``mc``) in plain Python, written to be read next to the spec.

docs/strategies.md ("Search players") is the specification; the numba kernels
(``gin_sim/kernels/search.py``) implement it too, and tests compare the two decision for
decision: the same candidates in the same order, the same random numbers, the same worlds,
the same rollout values summed in the same order, the same choice.

A search player decides from its ``Situation`` (its view and the public facts of the
position), never from the table: each world is a new table made of the situation and
sampled cards (``Hand.in_world``), so the opponent's real cards cannot reach a rollout.

>>> from gin_sim.reference.engine import play_deal_reference
>>> record = play_deal_reference(3, 0, "hollywood", ("mc-fast", "simple"))
>>> record["deal"], record["hand0"] & record["hand1"]
(0, 0)
"""

from __future__ import annotations

import copy
import functools
import itertools
import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

from gin_sim.game.cards import format_card
from gin_sim.game.hollywood import HollywoodScore
from gin_sim.game.rng import Stream, bounded, splitmix64
from gin_sim.game.rules import Rules
from gin_sim.kernels import match_value
from gin_sim.players.search_value import searcher_table
from gin_sim.players.strategies import Strategy, load_strategy
from gin_sim.reference.engine import (
    BIG_GIN,
    DISCARD,
    DRAW,
    FULL_DECK,
    NO_CARD,
    OFFER,
    SEARCH_PLAYER,
    Action,
    Discard,
    Hand,
    Situation,
    View,
    _cards,
    _deadwood,
    _tie_break,
    completes_a_meld,
    discard_cost,
    family_discard_or_knock,
    family_takes,
    legal_discards,
    points_to_close,
    simple_discard,
    simple_discard_bounded,
    weighted_discard,
)

__all__ = [
    "HAND_SIZE",
    "MAX_WORLD_TRIES",
    "SearchFigures",
    "Searcher",
    "built_hand",
    "candidate_actions",
    "choose",
    "contradicted_passes",
    "describe_action",
    "lowering_passes",
    "model_built_hand",
    "rollout_value",
    "sample_world",
    "score_equity",
    "search",
]

HAND_SIZE = 10  # R6: the opponent holds 10 cards whenever a search player decides
MAX_WORLD_TRIES = 16  # with infer: worlds drawn at most, the last always kept
TWO_TO_MINUS_53 = 2.0**-53
DROP_ERRORS = 2.0  # screening drops a candidate this many standard errors below the first
EXTEND_BAND = 1.0  # extend_samples: undecided within this many standard errors of the line
POINT_TIE_BREAK = 1e-6  # a score-aware rollout's value per point of the hand, besides equity
# The opponent panel (docs/strategies.md, "Opponent panel"):
EVIDENCE_WORLDS = 16  # worlds in which each model's likelihood of the opponent's turn is taken
PANEL_EPSILON = 0.1  # a deterministic model's likelihood of an action it would not take
GOLDEN_STEP = 0.6180339887498949  # world w's model: the posterior quantile frac(0.5 + w * this)
PANEL_WORLD_TRIES = 8  # panel_worlds: hidden hands drawn at most per world, the last kept


# ---------------------------------------------------------------- 1. candidates
def candidate_actions(strategy: Strategy, rollout: Strategy, situation: Situation) -> list[Action]:
    """The actions the search compares, in order, duplicates dropped: first the decision
    of the ``rollout`` strategy here, then the other choice of a take, or the knock with
    the least-deadwood discard and the ``strategy.candidates`` cheapest discards by the
    rollout strategy's discard cost. One candidate: no search."""
    view = situation.view
    # The rollout strategy's own decision (as the engine asks a family player).
    if situation.phase != DISCARD:
        own_take = family_takes(rollout, view)
        return [own_take, not own_take]  # offer (R7, R8) or draw (R10)
    if view.rules.big_gin_bonus > 0 and _deadwood(view.hand) == 0:
        return [BIG_GIN]  # R14: declared whenever allowed, as the family does
    own = Discard(*family_discard_or_knock(rollout, view))
    # Never the card just taken from the pile (even when R11 allows it).
    cards = [c for c in _cards(view.hand) if c != view.taken_from_pile]
    best = simple_discard(view.hand, cards, view.taken_from_pile)
    deadwood = _deadwood(view.hand & ~(1 << best))
    if deadwood == 0:
        return [Discard(best, True)]  # gin (R13): nothing can beat it
    candidates = [own]

    def add(action: Action) -> None:
        if action not in candidates:
            candidates.append(action)

    if deadwood <= view.knock_limit:  # R12: knocking is a candidate
        add(Discard(best, True))
    by_cost = sorted(cards, key=lambda c: (discard_cost(rollout, view, c), *_tie_break(c)))
    # With screening every discard is a candidate (or the screen_discards cheapest); the
    # first worlds pick the few that go on.
    screened = by_cost[: strategy.screen_discards or len(by_cost)]
    for card in screened if strategy.screen else by_cost[: strategy.candidates]:
        add(Discard(card, False))
    return candidates


# -------------------------------------------------------------------- 3. worlds
def shuffle(cards: list[int], stream: Stream) -> None:
    """Fisher-Yates from the top, in place, as the deck shuffle (docs/engine.md)."""
    for j in range(len(cards) - 1, 0, -1):
        k = bounded(stream.next(), j + 1)
        cards[j], cards[k] = cards[k], cards[j]


def built_hand(
    known: int,
    cards: Sequence[int],
    hidden: int,
    extra: int,
    drop: Callable[[int, list[int]], int] | None = None,
) -> int:
    """The opponent's hand as its model would have built it: the cards it is known to
    hold and ``cards[:hidden]``; then, for each of ``extra`` turns, the next card comes in
    and ``drop(hand, droppable)`` of the cards not known goes out: by default the card whose
    removal leaves the least deadwood, ties to the higher value, rank, suit (the ``simple``
    discard)."""
    hand = known
    for card in cards[:hidden]:
        hand |= 1 << card
    for card in cards[hidden : hidden + extra]:
        hand |= 1 << card
        droppable = [c for c in _cards(hand) if not known >> c & 1]
        if drop is None:
            # The bounded search finds the same card as simple_discard (tested), faster.
            hand &= ~(1 << simple_discard_bounded(hand, droppable, None))
        else:
            hand &= ~(1 << drop(hand, droppable))
    return hand


def model_built_hand(
    model: Strategy, known: int, cards: Sequence[int], hidden: int, extra: int, situation: Situation
) -> int:
    """``built_hand`` with the family strategy ``model``'s discard in place of the
    least-deadwood rule (``panel_infer``): each turn it drops the card (not known) of least
    ``discard_cost``, ties as the family breaks them, from its view as the searcher's
    view shows it: the pile, the searcher's taken and passed cards."""
    view = situation.view

    def drop(hand: int, droppable: list[int]) -> int:
        seen = View(
            hand=hand,
            pile=view.pile,
            top=view.top,
            opp_taken=situation.own_taken,
            opp_passed=situation.own_passed,
            stock_left=view.stock_left,
            opp_turns=0,
            knock_limit=view.knock_limit,
            rules=view.rules,
        )
        return weighted_discard(model, seen, droppable)

    return built_hand(known, cards, hidden, extra, drop)


def pass_weight(strategy: Strategy, stock_left: int, knock_open: bool) -> float:
    """The weight of a world's contradicted pass at a search: ``late_infer_weight`` where a
    knock is among the candidates with at most ``late_infer_stock`` cards left, else
    ``infer_weight``. A pass tells against the hand held when it passed, and late in the
    hand many of the opponent's cards came after its passes (issue 46)."""
    late = strategy.late_infer_stock
    if knock_open and late and stock_left <= late:
        return strategy.late_infer_weight
    return strategy.infer_weight


def contradicted_passes(opp_hand: int, opp_passed: int) -> int:
    """The cards the opponent passed over or discarded, not in ``opp_hand``, that make a
    meld with it (R3): each one a pass that this hand makes unlikely."""
    return sum(
        1
        for card in _cards(opp_passed)
        if not opp_hand >> card & 1 and completes_a_meld(opp_hand, card)
    )


@dataclass
class PassHistory:
    """``infer_timed``: when the opponent made each pass and take its searcher saw, kept
    from public facts at each of the searcher's decisions of a hand (``record``). A pass's
    stage is the opponent's turns played before it passed the card over, or with it when
    it discarded the card; a take's, its turns when it took the card from the pile."""

    passed: dict[int, int]
    taken: dict[int, int]

    @classmethod
    def empty(cls) -> PassHistory:
        return cls({}, {})

    def record(self, situation: Situation) -> None:
        """What the searcher sees at this decision: a card first seen passed at its draw
        that lies on the pile's top is the opponent's last discard (stage: its turns); any
        other was passed over before its last draw (its turns less one; at the opening
        offer, 0). A card first seen taken was taken at its last turn; a card it no longer
        holds is forgotten as taken."""
        view = situation.view
        turns = view.opp_turns
        latest = situation.pile_order[-1] if situation.phase == DRAW else None
        for card in _cards(view.opp_passed):
            if card not in self.passed:
                self.passed[card] = turns if card == latest else max(turns - 1, 0)
        self.taken = {card: self.taken.get(card, turns) for card in _cards(view.opp_taken)}


def timed_contradicted_passes(
    opp_hand: int,
    opp_passed: int,
    known: int,
    cards: Sequence[int],
    hidden: int,
    extra: int,
    history: PassHistory,
) -> int:
    """``contradicted_passes`` by when each pass was made (``infer_timed``): a card the
    opponent passed over or discarded, not in the built ``opp_hand``, counts if it makes a
    meld (R3) with the cards of the hand held then. The build holds ``cards[:hidden]``
    from the start and ``cards[hidden + j - 1]`` from its j-th turn; a pass of stage s
    (not recorded: ``extra``, the hand now) reads those of stage at most s and the
    ``known`` cards taken from the pile by then (not recorded: from the start)."""
    count = 0
    for card in _cards(opp_passed):
        if opp_hand >> card & 1:
            continue
        stage = min(history.passed.get(card, extra), extra)
        then = 0
        for c in cards[: hidden + stage]:
            then |= 1 << c
        then &= opp_hand
        for c in _cards(known):
            if history.taken.get(c, 0) <= stage:
                then |= 1 << c
        if completes_a_meld(then, card):
            count += 1
    return count


def lowering_passes(opp_hand: int, opp_passed: int, known: int) -> int:
    """The cards the opponent passed over or discarded, not in ``opp_hand``, that it
    could have kept instead of a card of the hand not ``known`` to be held (those it
    took to keep) for less deadwood than the hand holds: each one a pass that cost it
    deadwood, which this hand makes unlikely (``infer_lowering``)."""
    whole = _deadwood(opp_hand)
    droppable = _cards(opp_hand & ~known)
    return sum(
        1
        for card in _cards(opp_passed)
        if not opp_hand >> card & 1
        and any(_deadwood((opp_hand | 1 << card) & ~(1 << drop)) < whole for drop in droppable)
    )


def sample_world(
    strategy: Strategy,
    situation: Situation,
    stream: Stream,
    model: Strategy | None = None,
    weight: float | None = None,
    history: PassHistory | None = None,
) -> tuple[int, list[int]]:
    """One world consistent with the view: the opponent's hand and the stock, top first.
    ``model``: the panel model playing the world; with ``panel_infer`` the hand is built by
    its discard (``model_built_hand``; a ``random`` model: as without ``infer``).
    ``weight``: of each contradicted pass (None: ``infer_weight``; a search passes
    ``pass_weight``). ``history``: the searcher's dates of the opponent's passes and
    takes this hand, read with ``infer_timed`` (None: nothing recorded)."""
    view = situation.view
    known = view.opp_taken
    cards = _cards(view.unseen)  # in increasing card order
    hidden = HAND_SIZE - known.bit_count()
    by_model = strategy.panel_infer and model is not None
    infer = strategy.infer and not (by_model and model is not None and model.kind == "random")
    extra = min(view.opp_turns, len(cards) - hidden) if infer else 0
    if weight is None:
        weight = strategy.infer_weight
    opp_hand = known
    for attempt in range(MAX_WORLD_TRIES):
        shuffle(cards, stream)  # each try shuffles the previous try's order again
        if not infer:
            for card in cards[:hidden]:
                opp_hand |= 1 << card
            break
        if by_model and model is not None:
            opp_hand = model_built_hand(model, known, cards, hidden, extra, situation)
        else:
            opp_hand = built_hand(known, cards, hidden, extra)
        if attempt == MAX_WORLD_TRIES - 1:
            break  # the last is always kept
        keep = 1.0
        if strategy.infer_lowering:
            doubted = lowering_passes(opp_hand, view.opp_passed, known)
        elif strategy.infer_timed:
            doubted = timed_contradicted_passes(
                opp_hand, view.opp_passed, known, cards, hidden, extra,
                history if history is not None else PassHistory.empty(),
            )  # fmt: skip
        else:
            doubted = contradicted_passes(opp_hand, view.opp_passed)
        for _ in range(doubted):
            keep *= weight
        if (stream.next() >> 11) * TWO_TO_MINUS_53 < keep:
            break
    stock = [c for c in cards if not opp_hand >> c & 1]  # in shuffled order
    if infer:  # the cards the build dropped must not sit on the stock's top
        shuffle(stock, stream)
    return opp_hand, stock


# ------------------------------------------------------------------ 4. rollouts
def rollout_value(
    situation: Situation,
    opp_hand: int,
    stock: Sequence[int],
    action: Action,
    policies: tuple[Strategy, Strategy],
    random_state: int = 0,
    bottom: int | None = None,
) -> int:
    """Apply ``action`` in the world and play the hand to its end with the family
    ``policies`` (per seat): the hand's points from the searcher's side (R17). A
    ``random`` policy (an opponent panel's) draws from a stream at ``random_state``.
    ``bottom``: the seat that draws from the stock's bottom (``paired_draws``)."""
    return hand_points(
        situation.player,
        rollout_record(situation, opp_hand, stock, action, policies, random_state, bottom),
    )


def rollout_record(
    situation: Situation,
    opp_hand: int,
    stock: Sequence[int],
    action: Action,
    policies: tuple[Strategy, Strategy],
    random_state: int = 0,
    bottom: int | None = None,
) -> dict[str, int | bool]:
    """The record of the hand played to its end in the world after ``action``; the seat
    ``bottom`` (None: neither) draws from the stock's bottom, the other from its top."""
    hand = Hand.in_world(situation, opp_hand, stock, policies, random_state, bottom)
    hand.apply(action)
    return hand.play()


def hand_points(player: int, record: dict[str, int | bool]) -> int:
    """A finished hand's points from ``player``'s side: won +, lost -, drawn 0."""
    if record["winner"] < 0:
        return 0
    return int(record["points"]) if record["winner"] == player else -int(record["points"])


def score_equity(score: HollywoodScore, table: Any, player: int, dealer: int, value: str) -> float:
    """``player``'s equity at ``score`` with ``dealer`` to deal next, from its value vector
    ``table`` (``kernels/match_value.py``): "game" sums each column's chance (1 or 0 once
    the game has ended, else the game table's): the games expected to be won; "match" is
    the chance of winning the match from the joint table of the three columns (a plain
    game: its one chance; a score the match's phases do not hold: two of three columns
    taken as independent)."""
    side = 0 if dealer == player else 1
    if value == "match" and score.games == 3:
        equity = match_equity(table, score, player, side)
        if equity is not None:
            return equity
    opponent = 1 - player
    chances = []
    for game in range(score.games):
        if score.game_winner[game] >= 0:
            chances.append(1.0 if score.game_winner[game] == player else 0.0)
        else:
            mine, theirs = score.totals[player][game], score.totals[opponent][game]
            chances.append(_game_chance(table, score.target, mine, theirs, side))
    if value == "game" or score.games != 3:
        total = 0.0
        for chance in chances:
            total += chance
        return total
    first, second, third = chances
    both = first * second
    return both + first * third + second * third - 2.0 * both * third


def _game_chance(table: Any, target: int, mine: int, theirs: int, side: int) -> float:
    return float(table[int(table[match_value.H_GAME]) + (mine * target + theirs) * 2 + side])


def match_equity(table: Any, score: HollywoodScore, player: int, side: int) -> float | None:
    """The joint match table's chance (``kernels/match_value.py``, as
    ``match_equity_nb``): decided matches 1 or 0, game 3 alone its game chance, else the
    multilinear interpolation between the lattice points around every entered open
    column; None where the phases do not hold the score."""
    mv = match_value
    won = [score.games_won(player), score.games_won(1 - player)]
    if won[0] >= 2:
        return 1.0
    if won[1] >= 2:
        return 0.0
    open_games = [g for g in range(3) if score.is_open(g)]
    if not open_games or open_games != list(range(open_games[0], 3)):
        return None
    first_open = open_games[0]
    if first_open == 2:
        return _game_chance(
            table, score.target, score.totals[player][2], score.totals[1 - player][2], side
        )
    step, cells = int(table[mv.H_STEP]), int(table[mv.H_CELLS])
    # Per side (me, then the opponent): the entered open columns' points.
    columns = []
    for who in (player, 1 - player):
        entered = [score.entered[who][g] for g in open_games]
        count = sum(entered)
        if entered != [True] * count + [False] * (len(entered) - count):
            return None
        points = [score.totals[who][g] for g in open_games[:count]]
        if any(later > earlier for earlier, later in itertools.pairwise(points)):
            return None
        columns.append(points)
    # Each column's two lattice points with their weights (the last step: its last point).
    choices = []
    for points in columns:
        for p in points:
            low = p // step
            if low >= cells - 1:
                choices.append([(cells - 1, 1.0), (cells - 1, 0.0)])
            else:
                fraction = (p - low * step) / step
                choices.append([(low, 1.0 - fraction), (low + 1, fraction)])
    n_a, n_b = int(table[mv.H_STATES_A]), int(table[mv.H_STATES_B])
    phase_a = first_open == 0
    total = 0.0
    for corner in range(1 << len(choices)):
        weight = 1.0
        states = []
        bit = 0
        for points in columns:
            lattice = [0, 0, 0]
            for c in range(len(points)):
                point, w = choices[bit][(corner >> bit) & 1]
                bit += 1
                weight *= w
                lattice[c] = point if c == 0 else min(point, lattice[c - 1])
            entered = len(points)
            if phase_a:
                flat = ((entered * cells + lattice[0]) * cells + lattice[1]) * cells + lattice[2]
                states.append(int(table[int(table[mv.H_INDEX_A]) + flat]))
            else:
                flat = (entered * cells + lattice[0]) * cells + lattice[1]
                states.append(int(table[int(table[mv.H_INDEX_B]) + flat]))
        if weight == 0.0:
            continue
        if phase_a:
            at = int(table[mv.H_VALUE_A]) + (side * n_a + states[0]) * n_a + states[1]
        else:
            w1 = 0 if score.game_winner[0] == player else 1
            at = int(table[mv.H_VALUE_B]) + ((w1 * 2 + side) * n_b + states[0]) * n_b + states[1]
        total += weight * float(table[at])
    return total


def score_change(
    situation: Situation, table: Any, value: str, record: dict[str, int | bool], before: float
) -> float:
    """The change in the searcher's equity from ``before`` once the hand of ``record`` is
    credited (R19, R20): its winner deals next (R5), else the same dealer deals again."""
    assert situation.score is not None
    after = copy.deepcopy(situation.score)
    dealer = situation.dealer
    if record["winner"] >= 0:
        after.credit(int(record["winner"]), int(record["points"]))
        dealer = int(record["winner"])
    return score_equity(after, table, situation.player, dealer, value) - before


# ------------------------------------------------------------ the opponent panel
@dataclass(frozen=True)
class TurnEvidence:
    """The opponent's turn that answered the searcher's discard ``answered``, as the public
    facts at its discard: it took ``answered`` from the pile (``took``) or drew from the
    stock, then discarded ``discard`` without knocking, with the pile's cards ``pile``
    (without ``discard``), the searcher's shown cards, the stock, the searcher's turns, the
    knock limit and the points it needed to close (public). ``turn``: the searcher's own
    turns after the take of the draw that read it; its discard decision reads it too."""

    answered: int
    discard: int
    took: bool
    pile: int
    own_taken: int
    own_passed: int
    stock_left: int
    own_turns: int
    knock_limit: int
    to_close: int | None
    rules: Rules
    turn: int

    @classmethod
    def read(cls, situation: Situation, answered: int) -> TurnEvidence:
        """At the searcher's draw: the turn since its discard ``answered``."""
        view = situation.view
        discard = situation.pile_order[-1]
        # It took the searcher's discard if it holds it, or threw it straight back.
        took = bool(view.opp_taken >> answered & 1) or discard == answered
        return cls(
            answered=answered,
            discard=discard,
            took=took,
            pile=view.pile & ~(1 << discard),
            own_taken=situation.own_taken,
            own_passed=situation.own_passed,
            stock_left=view.stock_left,
            own_turns=situation.own_turns,
            knock_limit=view.knock_limit,
            to_close=points_to_close(situation.score, 1 - situation.player),
            rules=view.rules,
            turn=situation.own_turns + 1,
        )

    def opponent_view(
        self, cards: int, top: int, pile: int, taken: int | None, stock_left: int | None = None
    ) -> View:
        """What the opponent saw then, holding ``cards``, with ``stock_left`` cards in the
        stock (default: the stock at its discard)."""
        return View(
            hand=cards,
            pile=pile,
            top=top,
            opp_taken=self.own_taken,
            opp_passed=self.own_passed,
            stock_left=self.stock_left if stock_left is None else stock_left,
            opp_turns=self.own_turns,
            knock_limit=self.knock_limit,
            rules=self.rules,
            taken_from_pile=taken,
            to_close=self.to_close,
        )


class OpponentPanel:
    """A searcher's posterior over its opponent models, and what it remembers within the
    hand to update it: its last discard and its own turns then, and the opponent's turn
    last read (docs/strategies.md, "Opponent panel"). A new hand starts from the prior (a
    new ``Searcher``) unless the panel is kept across hands."""

    def __init__(
        self,
        models: Sequence[Strategy],
        prior: Sequence[float],
        knock_turn: bool = False,
        offer: bool = False,
    ) -> None:
        self.models = list(models)
        self.knock_turn = knock_turn  # panel_knock_turn: read the knocking turn too
        self.offer = offer  # panel_offer: read the opponent's choice at the opening offer
        weights = list(prior) if prior else [1.0] * len(self.models)
        total = 0.0
        for weight in weights:
            total += weight
        self.posterior = [weight / total for weight in weights]
        self.new_hand()

    def new_hand(self) -> None:
        """A new hand: the posterior stays, the last discard and turn read are forgotten."""
        self.discard = NO_DISCARD
        self.turn: int | None = None  # own turns at that discard; None: nothing to read
        self.evidence: TurnEvidence | None = None
        self.offer_read = False  # the opening offer read (or found absent) this hand

    def model_for_world(self, world: int) -> int:
        """The model playing the opponent in world ``world``: the first whose cumulative
        posterior passes the quantile frac(0.5 + world * GOLDEN_STEP)."""
        u = 0.5 + world * GOLDEN_STEP
        u -= math.floor(u)
        cumulative = 0.0
        for m, chance in enumerate(self.posterior):
            cumulative += chance
            if u < cumulative:
                return m
        return len(self.posterior) - 1  # rounding: the sum may fall a little short of 1

    def update(
        self,
        strategy: Strategy,
        situation: Situation,
        stream: Stream,
        history: PassHistory | None = None,
    ) -> None:
        """Bayes' rule after the opponent's turn, at the searcher's draw: each model's
        likelihood of the turn is its mean over EVIDENCE_WORLDS sampled worlds."""
        self.evidence = evidence = TurnEvidence.read(situation, self.discard)
        likes = [0.0] * len(self.models)
        for _ in range(EVIDENCE_WORLDS):
            opp_hand, _stock = sample_world(strategy, situation, stream, history=history)
            for m, model in enumerate(self.models):
                likes[m] += turn_likelihood(model, evidence, opp_hand)
        self._multiply([like / EVIDENCE_WORLDS for like in likes])

    def read_offer(self, situation: Situation) -> None:
        """Bayes' rule on the opponent's choice at the opening offer (R7 to R9), once a
        hand, at the first search that shows it (``offer_seen``): each model's likelihood
        (a family model: 1 if it would have chosen the same, else PANEL_EPSILON; ``random``:
        1/2) averaged over OFFER_WORLDS hands of 10 of the cards that are neither the
        searcher's now nor the upcard, shuffled from a stream keyed by those cards
        (``offer_stream_state``)."""
        if self.offer_read:
            return
        seen = offer_seen(situation)
        if seen is None:
            return
        self.offer_read = True
        if seen is NOTHING_OFFERED:
            return
        upcard, took = seen
        view = situation.view
        pool = _cards(FULL_DECK & ~view.hand & ~(1 << upcard))
        stream = Stream(offer_stream_state(view.hand, upcard))
        likes = [0.0] * len(self.models)
        for _ in range(OFFER_WORLDS):
            shuffle(pool, stream)
            hand = 0
            for card in pool[:HAND_SIZE]:
                hand |= 1 << card
            at_offer = View(
                hand=hand, pile=1 << upcard, top=upcard, opp_taken=0, opp_passed=0,
                stock_left=STOCK_AT_DEAL, opp_turns=0, knock_limit=view.knock_limit,
                rules=view.rules, to_close=view.to_close,
            )  # fmt: skip
            for m, model in enumerate(self.models):
                if model.kind == "random":
                    likes[m] += 0.5  # a coin for the take, either way
                elif family_takes(model, at_offer) == took:
                    likes[m] += 1.0
                else:
                    likes[m] += PANEL_EPSILON
        self._multiply([like / OFFER_WORLDS for like in likes])

    def showdown(self, view: View, discard: int | None, knocker_taken: int = 0) -> None:
        """Bayes' rule on the knock (``discard``; None: big gin) that ended the hand, from
        the knocker's ``view`` at that decision: every card of it is public then. With
        ``knock_turn``, then on its knocking turn (``knock_turn_likelihoods``; the cards it
        took from the pile and holds, ``knocker_taken``, are public)."""
        self._multiply([knock_likelihood(model, view, discard) for model in self.models])
        if self.knock_turn:
            self._multiply(self.knock_turn_likelihoods(view, discard, knocker_taken))

    def knock_turn_likelihoods(
        self, view: View, discard: int | None, knocker_taken: int
    ) -> list[float]:
        """Each model's likelihood of the opponent's knocking turn, from its 11 cards shown
        (``view``, its view at the knock): its hand at the take was them less the card
        ``c`` it took, the pile's top if it took it, else any of its cards not known to come
        from the pile (the knock's discard always counted), each alike. Given ``c``: the
        take (a family model PANEL_EPSILON if it would have done the other; ``random``
        1/2), times, if its turn before was read at the searcher's last draw, its not
        knocking then (``last_turn_likelihood``); the mean over the possible ``c``."""
        from_pile = view.taken_from_pile is not None
        if view.taken_from_pile is not None:
            top = view.taken_from_pile
            pile_then = view.pile | 1 << top  # the pile then held the card it took
            possible = 1 << top
        else:  # the top it declined is the top at its knock (its discard not yet on it)
            top = view.top
            pile_then = view.pile
            taken = knocker_taken & ~(1 << discard) if discard is not None else knocker_taken
            possible = view.hand & ~taken
        evidence = self.evidence
        read_last = evidence is not None and evidence.turn == view.opp_turns
        stock_then = view.stock_left + (0 if from_pile else 1)
        likes = [0.0] * len(self.models)
        n = 0
        for c in _cards(possible):
            before = view.hand & ~(1 << c)
            at_take = replace(
                view, hand=before, pile=pile_then, top=top, stock_left=stock_then,
                taken_from_pile=None,
            )  # fmt: skip
            n += 1
            for m, model in enumerate(self.models):
                like = 1.0
                if top != NO_CARD:
                    if model.kind == "random":
                        like = 0.5  # a coin for the take, either way
                    elif family_takes(model, at_take) != from_pile:
                        like = PANEL_EPSILON
                if read_last:
                    assert evidence is not None
                    like *= last_turn_likelihood(model, evidence, before)
                likes[m] += like
        if n == 0:
            return [1.0] * len(self.models)
        return [like / n for like in likes]

    def own_knock(self, hand: int, own_turns: int) -> None:
        """The searcher knocked at its discard decision with ``own_turns`` turns: the
        opponent's 10 cards ``hand`` are shown; if its answered turn was read this turn,
        Bayes' rule on its not knocking then (``last_turn_likelihood``)."""
        evidence = self.evidence
        if evidence is None or evidence.turn != own_turns:
            return
        self._multiply([last_turn_likelihood(m, evidence, hand) for m in self.models])

    def _multiply(self, likes: Sequence[float]) -> None:
        total = 0.0
        for m in range(len(self.models)):
            self.posterior[m] *= likes[m]
            total += self.posterior[m]
        self.posterior = [chance / total for chance in self.posterior]


NO_DISCARD = -1
OFFER_WORLDS = 32  # hands of the opponent over which the offer's likelihood is averaged
STOCK_AT_DEAL = 31  # R6: the stock when the upcard is offered
NOTHING_OFFERED = (NO_CARD, False)  # offer_seen: no choice of the opponent's to read


def offer_stream_state(own: int, upcard: int) -> int:
    """The stream of the offer's hands: SplitMix64 of the searcher's cards (below 2**52)
    with the upcard plus 1 above them, its own and public only."""
    return splitmix64(own | (upcard + 1) << 52)


def offer_seen(situation: Situation) -> tuple[int, bool] | None:
    """The opponent's choice at the opening offer as the searcher's position shows it:
    (upcard, took); None: not yet known (the searcher is the non-dealer at its own
    offer); NOTHING_OFFERED: nothing to read (it took the upcard first as the non-dealer,
    or the hand is past its first turns). The kernel's ``offer_seen_nb``, from the same
    public facts."""
    view = situation.view
    own, opp = situation.own_turns, view.opp_turns
    dealer = situation.dealer == situation.player
    if own == 0 and opp == 0:
        if not dealer:
            return None
        return situation.pile_order[0], False
    if own == 1 and opp == 0 and situation.phase == DISCARD:
        if view.taken_from_pile is None:  # R9: the non-dealer's stock draw
            return situation.pile_order[0], False
        if dealer:
            return _cards(situation.own_taken)[0], False
        return NOTHING_OFFERED
    if own == 0 and opp == 1:
        if situation.upcard_takes == 0:
            return situation.pile_order[0], False
        held = _cards(view.opp_taken)
        upcard = held[0] if held else situation.pile_order[0]
        return upcard, True
    return NOTHING_OFFERED


def turn_likelihood(model: Strategy, evidence: TurnEvidence, hand: int) -> float:
    """The likelihood under ``model`` of the opponent's turn ``evidence``, had it held
    ``hand`` (10 cards, now): its take and its discard, not whether it knocked (read at
    the showdown from the shown cards, ``last_turn_likelihood``: with a sampled hand that
    evidence is biased against every model that knocks early)."""
    e = evidence
    whole = hand | 1 << e.discard  # its 11 cards before the discard
    big_gin = e.rules.big_gin_bonus > 0 and _deadwood(whole) == 0
    at_discard = e.opponent_view(whole, e.discard, e.pile, e.answered if e.took else None)
    if model.kind == "random":
        chance = 0.5  # a coin for the take, either way
        if big_gin:
            chance *= 0.5  # a coin declined big gin
        return chance / len(legal_discards(at_discard))
    chance = 1.0
    # After a stock draw its hand at the take is unknown: its hand now stands in. The stock
    # then held the card it drew, if it drew (a take schedule reads it).
    before = whole & ~(1 << e.answered) if e.took else hand
    at_take = e.opponent_view(
        before, e.answered, e.pile | 1 << e.answered, None, e.stock_left + (0 if e.took else 1)
    )
    if family_takes(model, at_take) != e.took:
        chance *= PANEL_EPSILON
    if big_gin:  # the family declares it whenever it may
        return chance * PANEL_EPSILON
    card, _knock = family_discard_or_knock(model, at_discard)
    if card != e.discard:  # a model that would knock discards its knock card
        chance *= PANEL_EPSILON
    return chance


def last_turn_likelihood(model: Strategy, evidence: TurnEvidence, hand: int) -> float:
    """The likelihood under ``model`` that the opponent did not knock at its turn
    ``evidence``, from its 10 cards ``hand`` shown at the searcher's knock (exact: it has
    not drawn since). A family model: PANEL_EPSILON if it would have knocked (or declared
    big gin, R14), else 1; ``random``: 1/2 for a coin that declined a knock (R12)."""
    e = evidence
    whole = hand | 1 << e.discard
    if model.kind == "random":
        return 0.5 if _deadwood(hand) <= e.knock_limit else 1.0
    if e.rules.big_gin_bonus > 0 and _deadwood(whole) == 0:
        return PANEL_EPSILON  # counted at the draw already: the family declares big gin
    at_discard = e.opponent_view(whole, e.discard, e.pile, e.answered if e.took else None)
    _card, knock = family_discard_or_knock(model, at_discard)
    return PANEL_EPSILON if knock else 1.0


def knock_likelihood(model: Strategy, view: View, discard: int | None) -> float:
    """The likelihood under ``model`` of the knock that ended the hand, from the knocker's
    ``view`` at that decision (11 cards): knocking with ``discard``, or big gin (None). A
    family model: 1 if it would also knock (or declare big gin), else PANEL_EPSILON; not
    the card, which is the same for every family member (the least-deadwood discard).
    ``random``: its odds."""
    big_gin_open = view.rules.big_gin_bonus > 0 and _deadwood(view.hand) == 0
    if model.kind == "random":
        if discard is None:
            return 0.5  # a coin declared big gin
        chance = 0.5 if big_gin_open else 1.0  # a coin declined big gin
        return chance / len(legal_discards(view)) * 0.5  # its discard, then a coin to knock
    if discard is None or big_gin_open:  # the family declares big gin whenever it may
        return 1.0 if discard is None else PANEL_EPSILON
    _card, knock = family_discard_or_knock(model, view)
    return 1.0 if knock else PANEL_EPSILON


# -------------------------------------------------------------------- 5. choice
def leader(
    worlds: int, gains: Sequence[float], gain_squares: Sequence[float]
) -> tuple[int, tuple[float, float] | None]:
    """The candidate with the greatest summed gain over the first (the earliest on ties),
    and its (mean, standard error) gain; None where there is none (the leader is the
    first, or one world)."""
    best = 0
    for c in range(1, len(gains)):
        if gains[c] > gains[best]:
            best = c
    if best == 0 or worlds < 2:
        return best, None
    return best, mean_gain(gains[best], gain_squares[best], worlds)


def choose(
    confidence: float, worlds: int, gains: Sequence[float], gain_squares: Sequence[float]
) -> int:
    """The leader if its mean gain is above ``confidence`` standard errors; else the
    first. With one world there is no standard error and the best is taken (as the kernel
    does)."""
    best, figures = leader(worlds, gains, gain_squares)
    if figures is None:
        return best
    mean, error = figures
    return best if mean > confidence * error else 0


def undecided(
    confidence: float, worlds: int, gains: Sequence[float], gain_squares: Sequence[float]
) -> bool:
    """Whether the choice is undecided (``extend_samples``): the leader is not the first,
    and its mean gain is within EXTEND_BAND standard errors of ``confidence`` standard
    errors."""
    _, figures = leader(worlds, gains, gain_squares)
    if figures is None:
        return False
    mean, error = figures
    return abs(mean - confidence * error) < EXTEND_BAND * error


def mean_gain(gain: float, gain_square: float, worlds: int) -> tuple[float, float]:
    """(mean, standard error) of a candidate's gain over the first, paired by world, from
    the sums of the gain and of its square over ``worlds`` (2 or more) worlds."""
    mean = gain / worlds
    variance = (gain_square - worlds * mean * mean) / (worlds - 1)
    return mean, math.sqrt(max(variance, 0.0) / worlds)


def clearly_worse(gain: float, gain_square: float, worlds: int) -> bool:
    """A mean gain over the first candidate below 0 by more than DROP_ERRORS standard
    errors (paired by world)."""
    mean, error = mean_gain(gain, gain_square, worlds)
    return mean + DROP_ERRORS * error < 0.0


def screened(
    candidates: Sequence[Action],
    sums: Sequence[float],
    gains: Sequence[float],
    gain_squares: Sequence[float],
    worlds: int,
    keep: int,
) -> list[int]:
    """Which candidates go on after the ``worlds`` screening worlds, in order: the first
    (the rollout policy's own); of the others, those not clearly worse than it, and of
    these the knock and the ``keep`` discards with the highest value sums (ties to the
    earlier candidate)."""
    alive = [0] + [
        c for c in range(1, len(candidates)) if not clearly_worse(gains[c], gain_squares[c], worlds)
    ]
    plain = [c for c in alive[1:] if not _is_knock(candidates[c])]
    best = sorted(plain, key=lambda c: (-sums[c], c))[:keep]
    return [c for c in alive if c == 0 or c in best or _is_knock(candidates[c])]


def left_out(
    candidates: Sequence[Action],
    sums: Sequence[float],
    squares: Sequence[float],
    gains: Sequence[float],
    gain_squares: Sequence[float],
    kept: Sequence[int],
) -> tuple[ScreenedOut, ...]:
    """The candidates a screening did not keep, in order, with their figures as they are."""
    return tuple(
        ScreenedOut(candidates[c], sums[c], squares[c], gains[c], gain_squares[c])
        for c in range(len(candidates))
        if c not in kept
    )


def _is_knock(action: Action) -> bool:
    return isinstance(action, Discard) and action.knock


@dataclass(frozen=True)
class ScreenedOut:
    """A candidate the screening dropped (step 4b), with its figures over the screening
    worlds: the sums of its value and of the value's square, of its gain over the first
    candidate and of that gain's square."""

    action: Action
    sums: float
    squares: float
    gains: float
    gain_squares: float


@dataclass(frozen=True)
class SearchFigures:
    """What one search found: its candidates in order, and per candidate the sums over
    the worlds of its rollout value and of the value's square, and of its gain over the
    first candidate in the same world and of that gain's square; ``chosen`` indexes the
    action taken. With screening, ``screened_out`` are the candidates it dropped, in the
    search's order, with their figures over the ``screen_worlds`` screening worlds; with
    its first cut (``early_screen``), ``early_screened_out`` those the cut dropped, their
    figures over its ``early_screen_worlds`` worlds. ``screened_on``: the worlds the
    screening played where it ran (whether or not it dropped a candidate), else 0."""

    phase: str
    candidates: tuple[Action, ...]
    sums: tuple[float, ...]
    squares: tuple[float, ...]
    gains: tuple[float, ...]
    gain_squares: tuple[float, ...]
    worlds: int
    chosen: int
    screened_out: tuple[ScreenedOut, ...] = ()
    screen_worlds: int = 0
    early_screened_out: tuple[ScreenedOut, ...] = ()
    early_screen_worlds: int = 0
    screened_on: int = 0


def search(
    strategy: Strategy,
    rollout: Strategy,
    opponent_model: Strategy,
    situation: Situation,
    player_stream: Stream,
    table: Any = None,
    panel: OpponentPanel | None = None,
    knock_rollout: Strategy | None = None,
    history: PassHistory | None = None,
) -> tuple[Action, SearchFigures | None]:
    """docs/strategies.md, "The decision", steps 1 to 5. ``table``: the game table of a
    score-aware searcher (``gin_sim.players.search_value``); ``panel``: its opponent panel;
    ``knock_rollout``: the policy of its own later moves where a knock is a candidate
    (None: ``rollout`` there too); ``history``: its dates of the opponent's passes and
    takes this hand (``infer_timed``)."""
    candidates = candidate_actions(strategy, rollout, situation)
    if len(candidates) == 1:
        return candidates[0], None  # no search, no random number
    world_stream = Stream(player_stream.next())  # 2. one number per search
    evidence = None  # the worlds' hidden cards drawn given the opponent's answered turn
    if panel is not None:
        # The opponent's turn since this searcher's last discard.
        if panel.offer:  # the opponent's choice at the opening offer
            panel.read_offer(situation)
        if situation.phase == DRAW and panel.turn == situation.own_turns:
            panel.update(strategy, situation, world_stream, history)
        panel.turn = None
        # That turn's draw and, after the take, its discard decision.
        own_turns = situation.own_turns + (1 if situation.phase == DRAW else 0)
        if (
            strategy.panel_worlds
            and situation.phase != OFFER
            and panel.evidence is not None
            and panel.evidence.turn == own_turns
        ):
            evidence = panel.evidence
    opponent = 1 - situation.player
    policies = [opponent_model, opponent_model]
    policies[situation.player] = rollout
    knock_open = any(_is_knock(action) for action in candidates)
    if knock_rollout is not None and knock_open:
        # step 4: a knock is open, so every candidate's later moves by the knock continuation
        policies[situation.player] = knock_rollout
    contradicted = pass_weight(strategy, situation.view.stock_left, knock_open)
    n = len(candidates)
    sums, squares, gains, gain_squares = [0.0] * n, [0.0] * n, [0.0] * n, [0.0] * n
    # A plain hand has no score: there every searcher plays for the hand's points.
    by_score = strategy.value != "hand" and situation.score is not None
    before = 0.0
    if by_score:
        assert situation.score is not None
        before = score_equity(
            situation.score, table, situation.player, situation.dealer, strategy.value
        )
    samples = strategy.samples
    if strategy.draw_samples and situation.phase != DISCARD:
        samples = strategy.draw_samples  # take the pile's top or not (issue 46)
    # undercut_stock: the weight only with at most that many cards left (0: at every depth).
    stock_left, late_only = situation.view.stock_left, strategy.undercut_stock
    undercut_priced = not late_only or stock_left <= late_only
    if strategy.late_stock and stock_left <= strategy.late_stock:
        samples = strategy.late_samples  # few cards left: a deeper search (issue 46)
    if strategy.knock_samples and knock_open:
        samples = strategy.knock_samples  # a knock decision: a deeper search (issue 46)
    worlds = samples  # the worlds the figures (and the choice) are over
    dropped: tuple[ScreenedOut, ...] = ()
    cut: tuple[ScreenedOut, ...] = ()  # dropped by the screening's first cut
    early = strategy.early_screen
    screened_on = 0  # the screening's worlds, where it runs (this decision's samples allowing)
    total = samples  # the worlds to play: more if the choice is undecided after these
    world = -1
    while True:
        world += 1
        if world == total:
            # 5b. extend_samples: a choice undecided after its worlds plays that many more
            more = world == samples and len(candidates) > 1 and strategy.extend_samples > 0
            if more and undecided(strategy.confidence, worlds, gains, gain_squares):
                total += strategy.extend_samples
                worlds += strategy.extend_samples
            else:
                break
        if 0 < early == world < strategy.screen and world < samples:
            # 4b. the screening's first cut: the early_keep best discards (and every knock)
            # play the rest of it, their sums going on from these worlds
            kept = screened(candidates, sums, gains, gain_squares, world, strategy.early_keep)
            cut = left_out(candidates, sums, squares, gains, gain_squares, kept)
            candidates = [candidates[c] for c in kept]
            sums, squares = [sums[c] for c in kept], [squares[c] for c in kept]
            gains, gain_squares = [gains[c] for c in kept], [gain_squares[c] for c in kept]
            n = len(candidates)
            if n == 1:  # the first is clearly best: stop here
                worlds = world
                break
        if world == strategy.screen > 1 and world < samples:  # 4b. screening
            screened_on = world
            kept = screened(candidates, sums, gains, gain_squares, world, strategy.candidates)
            dropped = left_out(candidates, sums, squares, gains, gain_squares, kept)
            candidates = [candidates[c] for c in kept]
            if len(candidates) == 1:  # the first is clearly best: stop here
                sums, squares, gains, gain_squares = sums[:1], squares[:1], [0.0], [0.0]
                worlds = world
                break
            # The survivors were picked on these worlds: the choice (step 5) is made on
            # the worlds still to come, which the screening did not see.
            worlds = samples - world
            n = len(candidates)
            sums, squares, gains, gain_squares = [0.0] * n, [0.0] * n, [0.0] * n, [0.0] * n
        model = None
        if panel is not None:  # this world's opponent: a model drawn from the posterior
            model = panel.models[panel.model_for_world(world)]
        opp_hand, stock = sample_world(
            strategy, situation, world_stream, model, contradicted, history
        )
        random_state = 0
        if panel is not None and model is not None:
            policies[opponent] = model
            if evidence is not None and model.kind != "random":
                # (model, hidden cards) from the joint posterior: a world is kept with its
                # likelihood of the opponent's turn under the model (at most 1).
                for _ in range(PANEL_WORLD_TRIES - 1):
                    like = turn_likelihood(model, evidence, opp_hand)
                    if (world_stream.next() >> 11) * TWO_TO_MINUS_53 < like:
                        break
                    opp_hand, stock = sample_world(
                        strategy, situation, world_stream, model, contradicted, history
                    )
            random_state = world_stream.next()  # a random model's, the same for every candidate
        first = 0.0
        # paired_draws (issue 46): the searcher draws from the stock's bottom, so each
        # player draws the same cards whichever candidate is played.
        bottom = situation.player if strategy.paired_draws else None
        for c, action in enumerate(candidates):  # the same world for every candidate
            pair = (policies[0], policies[1])
            # undercut_weight (issue 46): a knock undercut (R17) counts that many times its loss.
            priced = strategy.undercut_weight > 1.0 and _is_knock(action) and undercut_priced
            if by_score:  # where the score no longer moves the equity, the points decide
                record = rollout_record(
                    situation, opp_hand, stock, action, pair, random_state, bottom
                )
                change = score_change(situation, table, strategy.value, record, before)
                value = change + POINT_TIE_BREAK * float(hand_points(situation.player, record))
                priced = priced and bool(record["undercut"])
            elif priced:
                record = rollout_record(
                    situation, opp_hand, stock, action, pair, random_state, bottom
                )
                value = float(hand_points(situation.player, record))
                priced = bool(record["undercut"])
            else:
                value = float(
                    rollout_value(situation, opp_hand, stock, action, pair, random_state, bottom)
                )
            if priced:
                value *= strategy.undercut_weight
            if c == 0:
                first = value
            sums[c] += value
            squares[c] += value * value
            gains[c] += value - first
            gain_squares[c] += (value - first) * (value - first)
    chosen = choose(strategy.confidence, worlds, gains, gain_squares)
    figures = SearchFigures(
        situation.phase,
        tuple(candidates),
        tuple(sums),
        tuple(squares),
        tuple(gains),
        tuple(gain_squares),
        worlds,
        chosen,
        dropped,
        screened_on if dropped else 0,
        cut,
        strategy.early_screen if cut else 0,
        screened_on,
    )
    return candidates[chosen], figures


@functools.lru_cache(maxsize=64)
def _policy(name: str, rules: Rules) -> Strategy:
    """A named family strategy as played under ``rules`` (its ``[[adapt]]`` tables)."""
    return load_strategy(name).for_rules(rules)


class Searcher:
    """A search player in the reference engine: it draws from its player stream (seed,
    deal, seat) one number per searched decision."""

    def __init__(self, strategy: Strategy, rules: Rules, stream_state: int) -> None:
        self.strategy = strategy
        self.rollout = _policy(strategy.rollout, rules)
        self.opponent_model = _policy(strategy.opponent_model, rules)
        self.knock_rollout = (
            _policy(strategy.knock_rollout, rules) if strategy.knock_rollout else None
        )
        self.stream = Stream(stream_state)
        self.history = PassHistory.empty()  # a Searcher plays one hand
        self.table = searcher_table(strategy, rules)
        self.panel = None
        if strategy.opponent_panel:
            models = [_policy(name, rules) for name in strategy.opponent_panel]
            self.panel = OpponentPanel(
                models,
                strategy.panel_prior,
                knock_turn=strategy.panel_knock_turn,
                offer=strategy.panel_offer,
            )

    def saw_showdown(self, view: View, discard: int | None, knocker_taken: int = 0) -> None:
        """The opponent ended the hand by a knock with ``discard`` (None: big gin), from
        ``view``, its view at that decision, shown at the showdown; ``knocker_taken``: the
        cards it took from the pile and holds (public)."""
        if self.panel is not None:
            self.panel.showdown(view, discard, knocker_taken)

    def saw_own_knock(self, hand: int, own_turns: int) -> None:
        """It knocked (or declared big gin) at its discard decision with ``own_turns``
        turns, and the opponent's 10 cards ``hand`` are shown."""
        if self.panel is not None:
            self.panel.own_knock(hand, own_turns)

    def decide(self, situation: Situation) -> tuple[Action, SearchFigures | None]:
        if self.strategy.infer_timed:  # at every decision, searched or not
            self.history.record(situation)
        action, figures = search(
            self.strategy,
            self.rollout,
            self.opponent_model,
            situation,
            self.stream,
            self.table,
            self.panel,
            self.knock_rollout,
            self.history,
        )
        if self.panel is not None and situation.phase == DISCARD:
            # For the next search to read the opponent's answer to this discard.
            assert isinstance(action, Discard | str)
            self.panel.discard = action.card if isinstance(action, Discard) else NO_DISCARD
            self.panel.turn = situation.own_turns
        return action, figures


def describe_action(action: Action, phase: str) -> str:
    """An action in words: ``take``, ``decline``, ``draw``, ``discard 7H``, ``knock 7H``,
    ``big gin``."""
    if action == BIG_GIN:
        return "big gin"
    if isinstance(action, Discard):
        return f"{'knock' if action.knock else 'discard'} {format_card(action.card)}"
    if action:
        return "take"
    return "decline" if phase == OFFER else "draw"


SEARCH_PLAYER.append(Searcher)  # the engine's search players are these
