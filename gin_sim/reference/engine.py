"""The plain-Python reference engine: one hand of Hollywood Gin, rule by rule.

It implements docs/engine.md and docs/strategies.md literally and is the oracle the numba
playout is tested against, record for record; ``replay`` uses its event trace to show a
hand move by move. Deadwood comes from the exhaustive search of ``gin_sim.game.melds``. After
every action the engine checks that the two hands, the stock and the discard pile hold the
52 cards once.

Every decision of a strategy reads only a ``View``: the small frozen object that
``player_view`` builds from the table for one player (docs/strategies.md, "What a player
knows"). The family's decisions (``family_takes``, ``family_discard_or_knock``) are plain
functions of the strategy's parameters and that view, written from the spec, not from the
kernels.

>>> from gin_sim.game.rules import Rules, load_rules
>>> record = play_deal_reference(seed=1, deal=0, rules=Rules())
>>> record["hand0"] & record["hand1"]
0
>>> play_deal_reference(1, 0, "hollywood", ("expert", "gin-hunter"))["deal"]
0
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple, Protocol

from gin_sim.game.cards import (
    FULL_DECK,
    N_CARDS,
    N_RANKS,
    N_SUITS,
    card_index,
    card_value,
    parse_deck,
)
from gin_sim.game.hollywood import HollywoodScore
from gin_sim.game.melds import (
    Arrangement,
    defender_result,
    knocker_arrangement,
    min_deadwood_exhaustive,
)
from gin_sim.game.records import HAND_FIELDS
from gin_sim.game.rng import Stream, bounded, deck_for_deal, player_stream_state
from gin_sim.game.rules import Rules, load_rules
from gin_sim.kernels.enums import NO_PLAYER, DrawReason
from gin_sim.players.calibration import load_undercut_table
from gin_sim.players.strategies import Strategy, load_strategy

__all__ = [
    "BIG_GIN",
    "DISCARD",
    "DRAW",
    "NO_CARD",
    "OFFER",
    "Action",
    "Discard",
    "Event",
    "Hand",
    "Situation",
    "View",
    "completes_a_meld",
    "danger",
    "decisions_reference",
    "disinterest",
    "family_discard_or_knock",
    "family_takes",
    "knock_threshold",
    "legal_discards",
    "live",
    "load_players",
    "pair_value",
    "play_deal_reference",
    "play_hand_reference",
    "player_view",
    "simple_discard",
    "simple_discard_bounded",
    "start_hand",
    "take_gain",
    "take_gain_bounded",
    "take_rule",
    "take_score",
    "undercut_risk",
    "weighted_discard",
    "weighted_discard_bounded",
]

NO_CARD = -1  # the top of an empty discard pile

# A trace event: (kind, player, *details), player -1 when none. Kinds and details:
#   ("deal", -1, dealer, nondealer_hand, dealer_hand, upcard, knock_limit)
#   ("offer", p, card, taken)           the first-turn offer (R7, R8)
#   ("take_pile", p, card)  ("take_stock", p, card)
#   ("big_gin", p, hand11)              (R14)
#   ("discard", p, card, deadwood_after)
#   ("knock", p, card, deadwood_after)  the discard that knocks (R12, R13)
#   ("draw", -1, reason)                (R18, R18a)
#   ("search", p, phase, figures)       before a search player's action when it searched:
#                                       the SearchFigures of gin_sim.reference.search
#   ("showdown", knocker, arrangement, defender_deadwood, defender_deadwood_after,
#    laid_off_points, winner, points)   after a knock; arrangement is the knocker's
#                                       Arrangement (R16), None after gin or big gin
Event = tuple[Any, ...]
Trace = list[Event] | Callable[[Event], None] | None


def _bit(card: int) -> int:
    return 1 << card


def _cards(hand: int) -> list[int]:
    """The cards of a hand, ascending."""
    cards = []
    while hand:
        low = hand & -hand
        cards.append(low.bit_length() - 1)
        hand ^= low
    return cards


def _deadwood(hand: int) -> int:
    return min_deadwood_exhaustive(hand)


_VALUE = tuple(card_value(c) for c in range(N_CARDS))  # R2, looked up in the hot loops


def _rank(card: int) -> int:
    return card % N_RANKS


def _suit(card: int) -> int:
    return card // N_RANKS


def completes_a_meld(hand: int, card: int) -> bool:
    """The simple strategy's take test: ``card`` is part of some meld (R3) made of it and
    cards of ``hand``: two more of its rank, or two of its suit at ranks (r-2, r-1),
    (r-1, r+1) or (r+1, r+2), never past the ace or the king (R1)."""
    rank, suit = card % N_RANKS, card // N_RANKS
    same_rank = sum(1 for s in range(4) if s != suit and hand >> card_index(rank, s) & 1)
    if same_rank >= 2:
        return True
    for first, second in ((rank - 2, rank - 1), (rank - 1, rank + 1), (rank + 1, rank + 2)):
        if first >= 0 and second < N_RANKS:
            pair = _bit(card_index(first, suit)) | _bit(card_index(second, suit))
            if hand & pair == pair:
                return True
    return False


def _simple_discard_key(hand: int, card: int) -> tuple[int, int, int, int]:
    return (-_deadwood(hand & ~_bit(card)), _VALUE[card], card % N_RANKS, card // N_RANKS)


def simple_discard(hand: int, legal: list[int], taken_from_pile: int | None) -> int:
    """The simple strategy's discard, by its definition: among the legal cards other than
    the one just taken from the pile (even when R11 would allow it), the card maximising
    (-deadwood after, value, rank, suit): least deadwood, then the higher value, the
    higher rank, suit S first."""
    candidates = [c for c in legal if c != taken_from_pile]
    return max(candidates, key=lambda c: _simple_discard_key(hand, c))


def simple_discard_bounded(hand: int, legal: list[int], taken_from_pile: int | None) -> int:
    """The same card as ``simple_discard``, with about a third of the deadwood searches.

    Removing card c leaves at least ``deadwood(hand) - value(c)`` (c put back as an
    unmatched card gives an arrangement of ``hand``), so that bound gives the best key c
    could reach. Candidates are tried from the best bound down; once the best exact key
    found beats the next bound, no card left can win. Tests check it against the plain one.
    """
    whole = _deadwood(hand)
    bounds = sorted(
        (
            (-(whole - _VALUE[c]), _VALUE[c], c % N_RANKS, c // N_RANKS, c)
            for c in legal
            if c != taken_from_pile
        ),
        reverse=True,
    )
    best_key: tuple[int, int, int, int] | None = None
    best_card = -1
    for *bound, card in bounds:
        if best_key is not None and tuple(bound) < best_key:
            break
        key = _simple_discard_key(hand, card)
        if best_key is None or key > best_key:
            best_key, best_card = key, card
    return best_card


# ---------------------------------------------------------------- what a player knows
@dataclass(frozen=True)
class View:
    """Everything one player knows when it decides (docs/strategies.md, "What a player
    knows"), built from the table by ``player_view`` and by nothing else. Every decision
    reads only this: never the opponent's other cards nor the order of the stock."""

    hand: int  # its own cards: 10 when deciding a take, 11 when deciding a discard
    pile: int  # the cards now in the discard pile (public)
    top: int  # the pile's top card, NO_CARD when the pile is empty
    opp_taken: int  # cards the opponent took from the pile and has not discarded since
    opp_passed: int  # cards the opponent showed no interest in (kept for the whole hand)
    stock_left: int  # cards in the stock (after this turn's take, when deciding a discard)
    opp_turns: int  # turns the opponent has played so far in this hand
    knock_limit: int  # this hand's knock limit (R12, R14a)
    rules: Rules
    # The player's own move: the card this turn took from the discard pile, which it may
    # not discard (R11; the family never does), None before a take or after a stock draw.
    taken_from_pile: int | None = None
    # The points it needs to win the first open game of the score (public, R19, R20), None
    # in a plain hand (no score).
    to_close: int | None = None

    @property
    def unseen(self) -> int:
        """The cards in the stock or hidden in the opponent's hand."""
        return FULL_DECK & ~self.hand & ~self.pile & ~self.opp_taken


def player_view(
    table: _Table,
    player: int,
    taken_from_pile: int | None = None,
    score: HollywoodScore | None = None,
) -> View:
    """The view of ``player``: the one place where the table's state becomes knowledge.

    It reads the player's own hand, the public pile, and what the opponent has shown
    (``_Table.taken``, ``passed``, ``turns_of``, kept by the update rules of
    docs/strategies.md); of the hidden cards only their number in the stock."""
    opponent = 1 - player
    return View(
        hand=table.hands[player],
        pile=table.pile_mask,
        top=table.pile[-1] if table.pile else NO_CARD,
        opp_taken=table.taken[opponent],
        opp_passed=table.passed[opponent],
        stock_left=table.stock_left,
        opp_turns=table.turns_of[opponent],
        knock_limit=table.knock_limit,
        rules=table.rules,
        taken_from_pile=taken_from_pile,
        to_close=points_to_close(score, player),
    )


def points_to_close(score: HollywoodScore | None, player: int) -> int | None:
    """The points ``player`` needs to win the first open game (in a Hollywood match the
    one it is closest to winning, R19), None without a score."""
    if score is None:
        return None
    for game in range(score.games):
        if score.is_open(game):
            return score.target - score.totals[player][game]
    return None


# Which decision a position waits for (the kernels' ``Phase``), and the actions.
OFFER, DRAW, DISCARD, OVER = "offer", "draw", "discard", "over"


class Discard(NamedTuple):
    """A discard action: put ``card`` on the pile, knocking with it if ``knock`` (R12)."""

    card: int
    knock: bool


BIG_GIN = "big gin"  # the action declaring big gin (R14)
# An action: at an offer or a draw, True takes the pile's top (the upcard) and False
# declines it or draws from the stock; after taking, a Discard or BIG_GIN.
Action = bool | Discard | str


@dataclass(frozen=True)
class Situation:
    """What a search player knows when it decides (docs/strategies.md, "Search players",
    "The decision"): its ``View`` and the public facts of the position that a world needs
    to be played on: which decision and whose, the dealer, the discard pile in order
    (bottom first), what the player itself has shown (the cards it took from the pile and
    still holds, the cards it passed), its own turns, and the takes from the pile so far
    (R18a), and the score before the hand when one is kept (a game to the target or a
    Hollywood match; None for a plain hand). Built by ``Hand.situation``; worlds are made
    of it and sampled cards only."""

    view: View
    phase: str  # OFFER, DRAW or DISCARD
    player: int
    dealer: int
    pile_order: tuple[int, ...]
    own_taken: int
    own_passed: int
    own_turns: int
    upcard_takes: int
    taken_card: int = NO_CARD  # phase DISCARD: the card taken this turn (from either source)
    score: HollywoodScore | None = None  # public (R19, R20); a search must not change it


def legal_discards(view: View) -> list[int]:
    """The cards the rules allow to discard (R11), ascending: every card, except the one
    just taken from the discard pile unless ``may_discard_drawn_upcard``."""
    return [
        c
        for c in _cards(view.hand)
        if not (c == view.taken_from_pile and not view.rules.may_discard_drawn_upcard)
    ]


# ------------------------------------------------- helper quantities (docs/strategies.md)
def _meld_partners(card: int) -> tuple[tuple[int, int], ...]:
    """The pairs (x, y) with {card, x, y} a 3-card meld (R3): two more cards of its rank,
    or two of its suit at ranks (r-2, r-1), (r-1, r+1), (r+1, r+2), with no wrap (R1)."""
    rank, suit = _rank(card), _suit(card)
    others = [card_index(rank, s) for s in range(N_SUITS) if s != suit]
    pairs = [(a, b) for i, a in enumerate(others) for b in others[i + 1 :]]
    for low, high in ((rank - 2, rank - 1), (rank - 1, rank + 1), (rank + 1, rank + 2)):
        if low >= 0 and high < N_RANKS:
            pairs.append((card_index(low, suit), card_index(high, suit)))
    return tuple(pairs)


def _same_suit_at_distance(card: int, distance: int) -> int:
    """The cards of ``card``'s suit whose rank differs from its rank by ``distance``."""
    rank, suit = _rank(card), _suit(card)
    return sum(
        _bit(card_index(r, suit)) for r in (rank - distance, rank + distance) if 0 <= r < N_RANKS
    )


_MELD_PARTNERS = tuple(_meld_partners(c) for c in range(N_CARDS))
# The other cards of each card's rank, and of its suit at rank distance 1 and 2.
_SAME_RANK = tuple(
    sum(_bit(card_index(_rank(c), s)) for s in range(N_SUITS) if s != _suit(c))
    for c in range(N_CARDS)
)
_NEXT_TO = tuple(_same_suit_at_distance(c, 1) for c in range(N_CARDS))
_TWO_AWAY = tuple(_same_suit_at_distance(c, 2) for c in range(N_CARDS))


def live(card: int, hand: int, unseen: int) -> int:
    """``live(c, h)``: the distinct cards x in ``unseen``, x != c, such that {c, x, y} is a
    3-card meld for some y in ``hand``, y != c (the meld chances of c with the hand)."""
    hand &= ~_bit(card)
    unseen &= ~_bit(card)
    xs = 0
    for a, b in _MELD_PARTNERS[card]:
        if unseen >> a & 1 and hand >> b & 1:
            xs |= _bit(a)
        if unseen >> b & 1 and hand >> a & 1:
            xs |= _bit(b)
    return xs.bit_count()


def danger(card: int, opp_taken: int) -> int:
    """``danger(c)``: cards the opponent took of c's rank, plus those of c's suit whose rank
    differs by 1 or 2. (c itself is never in ``opp_taken``: it is in the player's hand.)"""
    return (opp_taken & _SAME_RANK[card]).bit_count() + (
        opp_taken & (_NEXT_TO[card] | _TWO_AWAY[card])
    ).bit_count()


def disinterest(card: int, opp_passed: int) -> int:
    """``disinterest(c)``: cards t != c the opponent passed that share c's rank, or its suit
    with rank differing by exactly 1."""
    return (opp_passed & (_SAME_RANK[card] | _NEXT_TO[card])).bit_count()


def pair_value(card: int, hand: int) -> int:
    """``pair(c, h)``: c's value (R2) times the cards of c's rank in ``hand`` other than c
    (what breaking a pair costs a player who keeps its high pairs)."""
    return _VALUE[card] * (hand & _SAME_RANK[card] & ~_bit(card)).bit_count()


def knock_threshold(strategy: Strategy, view: View) -> int:
    """Knock or discard, step 2: the threshold of the first schedule pair whose
    ``min_stock <= stock_left``, else ``knock_threshold`` (absent: the knock limit),
    capped by the hand's knock limit (R12, R14a)."""
    by_stock = view.knock_limit if strategy.knock_threshold is None else strategy.knock_threshold
    for min_stock, threshold in strategy.knock_schedule:
        if min_stock <= view.stock_left:
            by_stock = threshold
            break
    return min(by_stock, view.knock_limit)


def undercut_risk(k: int, view: View) -> float:
    """``risk(k) = UNDERCUT_TABLE[min(opp_turns, 20), k]`` (configs/models/undercut.csv)."""
    table = _undercut_table()
    return table[min(view.opp_turns, len(table) - 1)][k]


_UNDERCUT_TABLE: list[tuple[tuple[float, ...], ...]] = []


def _undercut_table() -> tuple[tuple[float, ...], ...]:
    """The calibrated table as Python floats (the float64 values of the CSV, unchanged)."""
    if not _UNDERCUT_TABLE:
        _UNDERCUT_TABLE.append(tuple(tuple(row) for row in load_undercut_table().tolist()))
    return _UNDERCUT_TABLE[0]


# ------------------------------------------------------ decisions of a family member
def take_gain(hand: int, top: int) -> int:
    """Take, step 2: ``deadwood(h) - min over d in h of deadwood(h | t & ~d)``, the gain of
    the best discard after taking ``top`` (never ``top`` itself), by its definition."""
    with_top = hand | _bit(top)
    return _deadwood(hand) - min(_deadwood(with_top & ~_bit(d)) for d in _cards(hand))


def take_gain_bounded(hand: int, top: int) -> int:
    """The same gain, with fewer deadwood searches: the simple discard of the 11 cards with
    ``top`` forbidden leaves the least deadwood first of all (its key starts with it), so
    its branch and bound (``simple_discard_bounded``) finds the minimum. Tests check it
    against ``take_gain``."""
    with_top = hand | _bit(top)
    best = simple_discard_bounded(with_top, _cards(hand), top)
    return _deadwood(hand) - _deadwood(with_top & ~_bit(best))


def take_score(strategy: Strategy, view: View) -> float:
    """Take, step 2: ``gain + improve_weight * live(t, h)``, a float, in this order."""
    gain = take_gain_bounded(view.hand, view.top)
    return gain + strategy.improve_weight * live(view.top, view.hand, view.unseen)


def take_rule(strategy: Strategy, view: View) -> tuple[bool, float]:
    """Take, step 0: ``(take_melds, take_min_gain)`` of the first ``take_schedule`` phase
    whose ``min_stock <= stock_left``, else the strategy's own two parameters."""
    for min_stock, take_melds, take_min_gain in strategy.take_schedule:
        if min_stock <= view.stock_left:
            return take_melds, take_min_gain
    return strategy.take_melds, strategy.take_min_gain


def family_takes(strategy: Strategy, view: View) -> bool:
    """docs/strategies.md, "Take": take the top card ``t`` of the discard pile (the
    first-turn offer, R7 and R8, or a normal turn, R10) into the 10-card hand ``h``?"""
    take_melds, take_min_gain = take_rule(strategy, view)
    # 1. The simple test: t is part of a meld with cards of h.
    if take_melds and completes_a_meld(view.hand, view.top):
        return True
    # 2. A score of at least take_min_gain; 0 turns this rule off.
    if take_min_gain > 0:
        return take_score(strategy, view) >= take_min_gain
    # 3. Else draw from the stock (or decline the offer).
    return False


def discard_cost(strategy: Strategy, view: View, card: int) -> float:
    """Knock or discard, step 4: ``deadwood(h & ~c) + keep_weight * live(c, h & ~c) +
    safety_weight * danger(c) - disinterest_weight * disinterest(c) + pair_weight *
    pair(c, h)``, a float computed in exactly this order, from the integer deadwood
    converted to float."""
    rest = view.hand & ~_bit(card)
    return (
        float(_deadwood(rest))
        + strategy.keep_weight * live(card, rest, view.unseen)
        + strategy.safety_weight * danger(card, view.opp_taken)
        - strategy.disinterest_weight * disinterest(card, view.opp_passed)
        + strategy.pair_weight * pair_value(card, view.hand)
    )


def _tie_break(card: int) -> tuple[int, int, int]:
    """Smaller is better: the higher value, then the higher rank, then suit S, H, D, C."""
    return _TIE_BREAK[card]


_TIE_BREAK = tuple((-_VALUE[c], -_rank(c), -_suit(c)) for c in range(N_CARDS))


def weighted_discard(strategy: Strategy, view: View, candidates: Sequence[int]) -> int:
    """Knock or discard, step 4, by its definition: the candidate of least
    ``discard_cost``, ties broken as for the simple discard."""
    return min(candidates, key=lambda c: (discard_cost(strategy, view, c), *_tie_break(c)))


def weighted_discard_bounded(strategy: Strategy, view: View, candidates: Sequence[int]) -> int:
    """The same card as ``weighted_discard``, with fewer deadwood searches.

    ``deadwood(h & ~c) >= max(0, deadwood(h) - value(c))`` (as in
    ``simple_discard_bounded``), and each float operation of the cost is monotone in its
    operands (IEEE rounding is), so the cost computed the same way from that bound never
    exceeds the exact cost. Candidates are tried from the least bound up; once the best
    exact key found is below the next bound, no card left can win. Tests check it
    against the plain one.
    """
    whole = _deadwood(view.hand)
    # The four weighted terms of each candidate, each computed once; the cost adds them
    # to the deadwood in the order of discard_cost.
    terms = {
        c: (
            strategy.keep_weight * live(c, view.hand & ~_bit(c), view.unseen),
            strategy.safety_weight * danger(c, view.opp_taken),
            strategy.disinterest_weight * disinterest(c, view.opp_passed),
            strategy.pair_weight * pair_value(c, view.hand),
        )
        for c in candidates
    }

    def cost(deadwood: int, card: int) -> float:
        keep, safety, interest, pair = terms[card]
        return float(deadwood) + keep + safety - interest + pair

    bounds = sorted((cost(max(0, whole - _VALUE[c]), c), *_TIE_BREAK[c], c) for c in candidates)
    best_key: tuple[float, int, int, int] | None = None
    best_card = NO_CARD
    for *bound, card in bounds:
        if best_key is not None and tuple(bound) > best_key:
            break
        key = (cost(_deadwood(view.hand & ~_bit(card)), card), *_TIE_BREAK[card])
        if best_key is None or key < best_key:
            best_key, best_card = key, card
    return best_card


def family_discard_or_knock(strategy: Strategy, view: View) -> tuple[int, bool]:
    """docs/strategies.md, "Knock or discard", with the 11-card hand ``h`` after taking:
    the card to put on the pile and whether the player knocks with it."""
    # Never the card just taken from the pile, even when R11 allows it.
    candidates = [c for c in _cards(view.hand) if c != view.taken_from_pile]
    # 1. The simple discard and the deadwood it leaves.
    best = simple_discard_bounded(view.hand, candidates, view.taken_from_pile)
    k = _deadwood(view.hand & ~_bit(best))
    # 2. The threshold, by schedule or knock_threshold, at most the hand's knock limit.
    threshold = knock_threshold(strategy, view)
    # 3. Gin always knocks (R13); otherwise knock within the threshold unless the
    #    estimated chance of an undercut is above undercut_risk.
    if k == 0:
        return best, True
    # 3a. Close to winning a game (closing_distance, 0: off): knock whenever the hand's
    #     limit allows, whatever the threshold and the undercut risk.
    closing = strategy.closing_distance
    near_the_end = closing > 0 and view.to_close is not None and view.to_close <= closing
    if near_the_end and k <= view.knock_limit:
        return best, True
    if k <= threshold and not (
        strategy.undercut_risk < 1 and undercut_risk(k, view) > strategy.undercut_risk
    ):
        return best, True
    # 4. Discard: the simple one, or the one of least weighted cost.
    weights = (strategy.keep_weight, strategy.safety_weight, strategy.disinterest_weight)
    if weights == (0, 0, 0) and strategy.pair_weight == 0:
        return best, False
    return weighted_discard_bounded(strategy, view, candidates), False


# ------------------------------------------------------------------------ the players
class _Player(Protocol):
    """A player's decisions, each a function of its view only."""

    def takes(self, view: View) -> bool: ...

    def declares_big_gin(self, view: View) -> bool: ...

    def discard_or_knock(self, view: View) -> tuple[int, bool]: ...


class _Searching(Protocol):
    """A search player (``gin_sim.reference.search.Searcher``): its action from its
    ``Situation``, with the figures of the search (None when nothing was searched)."""

    def decide(self, situation: Situation) -> tuple[Action, Any]: ...

    def saw_showdown(self, view: View, discard: int | None, knocker_taken: int) -> None: ...

    def saw_own_knock(self, hand: int, own_turns: int) -> None: ...


# The search player's class, ``gin_sim.reference.search.Searcher``, which plays its worlds
# with this engine: search.py puts it here when it is imported (``gin_sim.reference`` imports
# it), so that the engine does not import the module that imports the engine.
SEARCH_PLAYER: list[Callable[[Strategy, Rules, int], _Searching]] = []


class _Family:
    """docs/strategies.md: a member of the strategy family (``simple`` is its default)."""

    def __init__(self, strategy: Strategy) -> None:
        self.strategy = strategy

    def takes(self, view: View) -> bool:
        return family_takes(self.strategy, view)

    def declares_big_gin(self, view: View) -> bool:
        return True  # R14: whenever allowed, as simple

    def discard_or_knock(self, view: View) -> tuple[int, bool]:
        return family_discard_or_knock(self.strategy, view)


class _Random:
    """docs/engine.md, strategy ``random``: every choice from the player's own stream."""

    def __init__(self, state: int) -> None:
        self.stream = Stream(state)

    def _coin(self) -> bool:
        return bounded(self.stream.next(), 2) == 1

    def takes(self, view: View) -> bool:
        return self._coin()

    def declares_big_gin(self, view: View) -> bool:
        return self._coin()

    def discard_or_knock(self, view: View) -> tuple[int, bool]:
        legal = legal_discards(view)  # ascending
        card = legal[bounded(self.stream.next(), len(legal))]
        may_knock = _deadwood(view.hand & ~_bit(card)) <= view.knock_limit  # R12
        return card, may_knock and self._coin()


# -------------------------------------------------------------------------- the table
class _Table:
    """The cards on the table during one hand: two hands, the stock, the discard pile,
    and what each player has shown (docs/strategies.md, "Updates")."""

    def __init__(self, deck: list[int], dealer: int, rules: Rules) -> None:
        self.deck = deck
        self.rules = rules
        upcard = deck[20]
        if rules.oklahoma:  # R14a: the upcard's value; an ace means gin only
            self.knock_limit = 0 if upcard % N_RANKS == 0 else card_value(upcard)
        else:
            self.knock_limit = rules.knock_limit  # R12
        # stock_masks[i]: the cards deck[i:], i.e. the stock once i cards have left the deck
        self.stock_masks = [0] * (N_CARDS + 1)
        for i in range(N_CARDS - 1, -1, -1):
            self.stock_masks[i] = self.stock_masks[i + 1] | _bit(deck[i])
        self.hands = [0, 0]
        nondealer = 1 - dealer
        for j in range(20):  # R6: ten cards each, dealt one at a time, non-dealer first
            self.hands[nondealer if j % 2 == 0 else dealer] |= _bit(deck[j])
        self.pile = [upcard]  # R6: the upcard starts the discard pile
        self.pile_mask = _bit(upcard)  # the same cards as a mask, kept in step
        self.stock_pos = 21  # R6: the other 31 cards are the stock, drawn in deck order
        self.bottom: int | None = None  # a seat drawing from the stock's bottom (searches)
        self.upcard_takes = 0
        self.turns = 0
        # Public knowledge, per player q: taken[q], the cards q took from the pile and has
        # not discarded since; passed[q], the cards q showed no interest in; turns_of[q].
        self.taken = [0, 0]
        self.passed = [0, 0]
        self.turns_of = [0, 0]
        self.check()

    @classmethod
    def in_play(
        cls,
        situation: Situation,
        opponent_hand: int,
        stock: Sequence[int],
    ) -> _Table:
        """A table in mid-hand made of a player's ``situation`` (everything public, and
        its own hand) and the cards hidden from it: the opponent's hand and the stock
        order (``stock[0]`` on top). This is a search's world; the cards dealt before the
        stock's top are unknown (``NO_CARD`` in ``deck``)."""
        view, player = situation.view, situation.player
        table = cls.__new__(cls)
        table.rules = view.rules
        table.knock_limit = view.knock_limit
        table.stock_pos = N_CARDS - len(stock)
        table.bottom = None
        table.deck = [NO_CARD] * table.stock_pos + list(stock)
        table.stock_masks = [0] * (N_CARDS + 1)
        for i in range(N_CARDS - 1, table.stock_pos - 1, -1):
            table.stock_masks[i] = table.stock_masks[i + 1] | _bit(table.deck[i])
        table.hands = [0, 0]
        table.hands[player], table.hands[1 - player] = view.hand, opponent_hand
        table.pile = list(situation.pile_order)
        table.pile_mask = view.pile
        table.upcard_takes = situation.upcard_takes
        table.taken, table.passed, table.turns_of = [0, 0], [0, 0], [0, 0]
        table.taken[player], table.taken[1 - player] = situation.own_taken, view.opp_taken
        table.passed[player], table.passed[1 - player] = situation.own_passed, view.opp_passed
        table.turns_of[player], table.turns_of[1 - player] = situation.own_turns, view.opp_turns
        table.turns = sum(table.turns_of)
        table.check()
        return table

    @property
    def stock_left(self) -> int:
        return N_CARDS - self.stock_pos

    def decline(self, player: int) -> None:
        """A declined first-turn offer (R7, R8): the upcard is passed."""
        self.passed[player] |= _bit(self.pile[-1])

    def take_stock(self, player: int) -> int:
        self.passed[player] |= _bit(self.pile[-1])  # the top it did not take is passed
        if player == self.bottom:  # its card is the bottom one: the others move down a place
            self.deck[self.stock_pos :] = [self.deck[-1], *self.deck[self.stock_pos : -1]]
            for i in range(N_CARDS - 1, self.stock_pos - 1, -1):
                self.stock_masks[i] = self.stock_masks[i + 1] | _bit(self.deck[i])
        card = self.deck[self.stock_pos]
        self.stock_pos += 1
        self.hands[player] |= _bit(card)
        self.turns += 1
        self.turns_of[player] += 1
        self.check()
        return card

    def take_pile(self, player: int) -> int:
        card = self.pile.pop()
        self.pile_mask &= ~_bit(card)
        self.hands[player] |= _bit(card)
        self.taken[player] |= _bit(card)
        self.upcard_takes += 1
        self.turns += 1
        self.turns_of[player] += 1
        self.check()
        return card

    def discard(self, player: int, card: int) -> None:
        assert self.hands[player] >> card & 1, "a player discards only a card they hold"
        self.hands[player] &= ~_bit(card)
        self.taken[player] &= ~_bit(card)
        self.passed[player] |= _bit(card)
        self.pile.append(card)
        self.pile_mask |= _bit(card)
        self.check()

    def check(self) -> None:
        """Hands, stock and discard pile hold the 52 cards, each exactly once."""
        hand0, hand1 = self.hands
        stock = self.stock_masks[self.stock_pos]
        pile = self.pile_mask
        # The mask holds the pile's cards (it follows every push and pop), so as many bits
        # as pile entries means no card is twice in the pile.
        assert pile.bit_count() == len(self.pile), "a card is twice in the discard pile"
        assert pile >> self.pile[-1] & 1 if self.pile else not pile
        assert not (hand0 & hand1 or (hand0 | hand1) & (stock | pile) or stock & pile)
        assert hand0 | hand1 | stock | pile == FULL_DECK, "a card is missing"
        # What a player took from the pile and still holds is in its hand.
        assert not (self.taken[0] & ~hand0 or self.taken[1] & ~hand1)


def _new_record(deal: int, dealer: int, upcard: int, knock_limit: int) -> dict[str, int | bool]:
    """A hand's record before play: the fields of ``HAND_FIELDS`` at their defaults."""
    return {
        "deal": deal,
        "hand0": 0,
        "hand1": 0,
        "dealer": dealer,
        "upcard": upcard,
        "knock_limit": knock_limit,
        "first_upcard_taker": NO_PLAYER,
        "knocker": NO_PLAYER,
        "gin": False,
        "big_gin": False,
        "undercut": False,
        "draw": False,
        "draw_reason": DrawReason.NONE,
        "winner": NO_PLAYER,
        "stock_left": 0,
        "knocker_deadwood": -1,
        "defender_deadwood": -1,
        "defender_deadwood_after": -1,
        "laid_off_points": 0,
        "points": 0,
        "turns": 0,
        "upcard_takes": 0,
    }


def _make_player(
    strategy: Strategy,
    rules: Rules,
    stream_state: int,
    panels: list[Any] | None = None,
    seat: int = 0,
) -> _Player | _Searching:
    """Player ``p``'s decision maker; ``stream_state`` starts its random stream (seed,
    deal, p), which ``random`` and search players draw from (docs/engine.md). A search
    player that keeps its opponent panel across hands takes it from ``panels[seat]``
    (and puts it there at the first hand)."""
    if strategy.kind == "random":
        return _Random(stream_state)
    if strategy.kind == "mc":
        searcher = SEARCH_PLAYER[0](strategy, rules, stream_state)
        if panels is not None and searcher.panel is not None and strategy.panel_memory == "match":
            if panels[seat] is None:
                panels[seat] = searcher.panel
            searcher.panel = panels[seat]
            searcher.panel.new_hand()
        return searcher
    return _Family(strategy)


class Hand:
    """One hand in play: the table, the rules, the players and the record.

    The hand is a position: ``phase`` says which decision it waits for and ``to_move``
    whose. ``play`` asks the player to move for its action (``decide``) and carries it
    out (``apply``) until the hand is over; a search copies a position into a world
    (``in_world``), applies a candidate and plays the rest with family players.
    """

    def __init__(
        self,
        table: _Table,
        dealer: int,
        players: list[_Player | _Searching],
        record: dict[str, int | bool],
        trace: Trace,
        phase: str,
        to_move: int,
        taken_card: int = NO_CARD,
        from_pile: bool = False,
        score: HollywoodScore | None = None,
    ) -> None:
        self.table = table
        self.rules = table.rules
        self.dealer = dealer
        self.players = players
        self.record = record
        self._trace = trace
        self.knock_limit = table.knock_limit
        self.phase = phase
        self.to_move = to_move
        self.taken_card = taken_card  # the card taken this turn (phase DISCARD)
        self.from_pile = from_pile  # ... and whether it came from the discard pile
        self.score = score  # the score before the hand, None for a plain hand

    @classmethod
    def dealt(
        cls,
        deck: list[int],
        rules: Rules,
        players: tuple[Strategy, Strategy],
        dealer: int,
        seed: int,
        deal: int,
        trace: Trace,
        score: HollywoodScore | None = None,
        panels: list[Any] | None = None,
    ) -> Hand:
        """A new hand from a deck order (R6): the upcard is offered to the non-dealer (R7);
        ``score``: the score before it, if one is kept; ``panels``: the opponent panels kept
        across hands (``play_hand_reference``)."""
        choosers = [
            _make_player(strategy, rules, player_stream_state(seed, deal, p), panels, p)
            for p, strategy in enumerate(players)
        ]
        return cls.started(deck, rules, dealer, choosers, deal, trace, score)

    @classmethod
    def started(
        cls,
        deck: list[int],
        rules: Rules,
        dealer: int,
        choosers: list[_Player | _Searching],
        deal: int = 0,
        trace: Trace = None,
        score: HollywoodScore | None = None,
    ) -> Hand:
        """A new hand from a deck order (R6) whose players are ``choosers`` (none: the
        caller chooses every action and carries it out with ``apply``)."""
        table = _Table(deck, dealer, rules)
        record = _new_record(deal, dealer, deck[20], table.knock_limit)
        hand = cls(table, dealer, choosers, record, trace, OFFER, 1 - dealer, score=score)
        hands = table.hands
        hand.emit(
            "deal", NO_PLAYER, dealer, hands[1 - dealer], hands[dealer], deck[20], table.knock_limit
        )
        return hand

    @classmethod
    def in_world(
        cls,
        situation: Situation,
        opponent_hand: int,
        stock: Sequence[int],
        policies: tuple[Strategy, Strategy],
        random_state: int = 0,
        bottom: int | None = None,
    ) -> Hand:
        """The position of ``situation`` with the hidden cards of one sampled world, played
        on by the family strategies ``policies`` (per seat); no trace. Only a ``random``
        policy (an opponent panel's model) draws random numbers, from ``random_state``.
        The seat ``bottom`` (None: neither) draws from the stock's bottom, the other from
        its top (a search's ``paired_draws``)."""
        table = _Table.in_play(situation, opponent_hand, stock)
        table.bottom = bottom
        view = situation.view
        taken = NO_CARD if view.taken_from_pile is None else view.taken_from_pile
        players: list[_Player | _Searching] = [
            _Random(random_state) if policy.kind == "random" else _Family(policy)
            for policy in policies
        ]
        return cls(
            table,
            situation.dealer,
            players,
            _new_record(0, situation.dealer, NO_CARD, view.knock_limit),
            None,
            situation.phase,
            situation.player,
            taken,
            view.taken_from_pile is not None,
            score=situation.score,
        )

    def emit(self, kind: str, player: int, *details: Any) -> None:
        if self._trace is None:
            return
        event = (kind, player, *details)
        if callable(self._trace):
            self._trace(event)
        else:
            self._trace.append(event)

    def play(self) -> dict[str, int | bool]:
        """Play to the end of the hand and return its record."""
        while self.phase != OVER:
            self.apply(self.decide())
        return self.result()

    def result(self) -> dict[str, int | bool]:
        """The record of a hand that is over."""
        assert self.phase == OVER, "the hand is not over"
        table = self.table
        self.record.update(
            hand0=table.hands[0],
            hand1=table.hands[1],
            stock_left=table.stock_left,
            turns=table.turns,
            upcard_takes=table.upcard_takes,
        )
        assert set(self.record) == set(HAND_FIELDS)
        return {name: self.record[name] for name in HAND_FIELDS}

    def view(self) -> View:
        """The view of the player to move (with the card it took from the pile, if any)."""
        from_pile = self.phase == DISCARD and self.from_pile
        taken = self.taken_card if from_pile else None
        return player_view(self.table, self.to_move, taken, self.score)

    def situation(self, view: View) -> Situation:
        """What a search player to move knows: ``view`` and the public facts of the position."""
        table, player = self.table, self.to_move
        return Situation(
            view=view,
            phase=self.phase,
            player=player,
            dealer=self.dealer,
            pile_order=tuple(table.pile),
            own_taken=table.taken[player],
            own_passed=table.passed[player],
            own_turns=table.turns_of[player],
            upcard_takes=table.upcard_takes,
            taken_card=self.taken_card if self.phase == DISCARD else NO_CARD,
            score=self.score,
        )

    def decide(self) -> Action:
        """The action of the player to move, from what it knows only."""
        player, chooser = self.to_move, self.players[self.to_move]
        view = self.view()
        if not isinstance(chooser, _Family | _Random):  # a search player
            action, figures = chooser.decide(self.situation(view))
            if figures is not None:
                self.emit("search", player, self.phase, figures)
            return action
        if self.phase != DISCARD:
            return chooser.takes(view)
        # R14: big gin, only when it scores something.
        if (
            self.rules.big_gin_bonus > 0
            and _deadwood(view.hand) == 0
            and chooser.declares_big_gin(view)
        ):
            return BIG_GIN
        # The discard, among the legal cards (R11), and whether to knock with it.
        return Discard(*chooser.discard_or_knock(view))

    def apply(self, action: Action) -> None:
        """Carry out the action of the player to move; the hand moves to its next decision."""
        table, player = self.table, self.to_move
        if self.phase == OFFER:
            # R7: the non-dealer is offered the upcard; R8: if declined, the dealer.
            # Declined offers are not turns.
            assert isinstance(action, bool)
            self.emit("offer", player, table.pile[-1], action)
            if action:
                self.record["first_upcard_taker"] = player
                self._take(player, from_pile=True)
            else:
                table.decline(player)
                if player != self.dealer:
                    self.to_move = self.dealer
                else:  # R9: both declined, the non-dealer begins from the stock.
                    self._take(1 - self.dealer, from_pile=False)
        elif self.phase == DRAW:
            # R10: a normal turn takes the top of the stock or of the discard pile.
            assert isinstance(action, bool)
            self._take(player, from_pile=action)
        else:
            assert self.phase == DISCARD
            self._finish_turn(player, action)

    def _take(self, player: int, from_pile: bool) -> None:
        card = self.table.take_pile(player) if from_pile else self.table.take_stock(player)
        self.emit("take_pile" if from_pile else "take_stock", player, card)
        self.phase, self.to_move, self.taken_card, self.from_pile = DISCARD, player, card, from_pile

    def _finish_turn(self, player: int, action: Action) -> None:
        """The rest of a turn with 11 cards (docs/engine.md steps 1 to 4)."""
        rules, table = self.rules, self.table
        watcher = self.players[1 - player] if self.players else None
        searching = watcher is not None and not isinstance(watcher, _Family | _Random)
        knocks = action == BIG_GIN or (isinstance(action, Discard) and action.knock)
        if searching and knocks:
            # The knocker's cards are shown (its knock discard face up): a searcher's
            # opponent panel reads the knock from the knocker's view at this decision.
            watcher.saw_showdown(
                self.view(), None if action == BIG_GIN else action.card, table.taken[player]
            )
        knocker = self.players[player] if self.players else None
        if knocks and knocker is not None and not isinstance(knocker, _Family | _Random):
            # A searcher's own knock shows the opponent's cards: its panel reads whether
            # the opponent would have knocked at its last turn.
            own_turns = self.situation(self.view()).own_turns
            knocker.saw_own_knock(table.hands[1 - player], own_turns)
        self.phase = OVER
        # 1. R14: big gin, only when it scores something.
        if action == BIG_GIN:
            hand = table.hands[player]
            assert rules.big_gin_bonus > 0 and _deadwood(hand) == 0, "R14: not a big gin"
            self.emit("big_gin", player, hand)
            self.showdown(player, big_gin=True)
            return
        # 2. The discard, among the legal cards (R11), and whether to knock with it.
        assert isinstance(action, Discard)
        card, knocks = action
        forbidden = self.taken_card if self.from_pile else None
        assert table.hands[player] >> card & 1 and not (
            card == forbidden and not rules.may_discard_drawn_upcard
        ), "R11: not a legal discard"
        table.discard(player, card)
        deadwood = _deadwood(table.hands[player])
        # 3. R12: knock with at most the hand's knock limit; never compulsory.
        if knocks:
            assert deadwood <= self.knock_limit, "R12: a knock above the knock limit"
            self.emit("knock", player, card, deadwood)
            self.showdown(player, big_gin=False)
            return
        self.emit("discard", player, card, deadwood)
        # 4. R18: the wall; R18a: the cap on takes from the discard pile.
        if table.stock_left <= rules.wall:
            self.end_in_draw(DrawReason.WALL)
        elif table.upcard_takes >= rules.max_upcard_takes:
            self.end_in_draw(DrawReason.UPCARD_CAP)
        else:
            self.phase, self.to_move = DRAW, 1 - player

    def end_in_draw(self, reason: int) -> None:
        self.record.update(draw=True, draw_reason=reason)  # nobody scores (R18)
        self.emit("draw", NO_PLAYER, reason)

    def showdown(self, knocker: int, big_gin: bool) -> None:
        rules, record = self.rules, self.record
        defender = 1 - knocker
        knocker_hand, defender_hand = self.table.hands[knocker], self.table.hands[defender]
        before = _deadwood(defender_hand)
        knocker_deadwood = 0 if big_gin else _deadwood(knocker_hand)
        record.update(knocker=knocker, knocker_deadwood=knocker_deadwood, defender_deadwood=before)
        arrangement: Arrangement | None = None
        if knocker_deadwood == 0:
            # R13, R14: gin or big gin; no layoffs after either (R15).
            bonus = rules.big_gin_bonus if big_gin else rules.gin_bonus
            record.update(
                gin=True,
                big_gin=big_gin,
                defender_deadwood_after=before,
                laid_off_points=0,
                winner=knocker,
                points=bonus + before,  # R17
            )
        else:
            # R16: the knocker has seen its own cards and the whole discard pile.
            seen = knocker_hand | self.table.pile_mask
            arrangement = knocker_arrangement(knocker_hand, seen)
            after, laid_off = defender_result(defender_hand, arrangement)  # R15, R16
            record.update(defender_deadwood_after=after, laid_off_points=laid_off)
            k, d = knocker_deadwood, after
            if k < d:  # R17
                record.update(winner=knocker, points=d - k)
            elif k > d or rules.undercut_on_tie:
                record.update(undercut=True, winner=defender, points=rules.undercut_bonus + k - d)
            # else: a tie without undercut_on_tie scores nothing for either player
        self.emit(
            "showdown",
            knocker,
            arrangement,
            before,
            record["defender_deadwood_after"],
            record["laid_off_points"],
            record["winner"],
            record["points"],
        )


Players = Sequence[str | Strategy]


@functools.lru_cache(maxsize=64)
def _named_strategy(name: str) -> Strategy:
    """``load_strategy(name)``, read once per process: a hand is too short to read TOML."""
    return load_strategy(name)


def load_players(players: Players, rules: Rules) -> tuple[Strategy, Strategy]:
    """Two strategies from names (any that ``load_strategy`` knows) or ``Strategy``
    objects, as played under ``rules`` (``Strategy.for_rules``: adaptations to the rule
    set, and a knock threshold above its knock limit is an error, R12)."""
    if isinstance(players, str) or len(players) != 2:
        raise ValueError(f"players must name two strategies, got {players!r}")
    loaded = []
    for player in players:
        if not isinstance(player, str | Strategy):
            raise ValueError(f"a strategy is a name or a Strategy, got {player!r}")
        strategy = _named_strategy(player) if isinstance(player, str) else player
        loaded.append(strategy.for_rules(rules))  # its adaptations, then the R12 check
    return loaded[0], loaded[1]


def play_hand_reference(
    deck: list[int],
    rules: Rules | str,
    players: Players = ("simple", "simple"),
    dealer: int = 0,
    seed: int = 0,
    deal: int = 0,
    *,
    trace: Trace = None,
    score: HollywoodScore | None = None,
    panels: list[Any] | None = None,
) -> dict[str, int | bool]:
    """Play one hand from an explicit 52-card ``deck`` order and return its record.

    ``rules`` is a rule set or the name of one (``configs/rules/``). ``players[p]`` is
    player ``p``'s strategy: a name (``configs/strategies/``, e.g. ``"expert"``) or a
    ``Strategy``. The ``random`` strategy draws from the stream of ``(seed, deal, p)``
    (docs/engine.md); every other one is a member of the family of docs/strategies.md.
    The record has exactly the fields of ``gin_sim.game.records.HAND_FIELDS``, as ints and
    bools. ``trace``, a list or a callable, receives the events of the hand (see ``Event``).
    ``score``: the score before the hand in a game or a match, which score-aware search
    players read (None: a plain hand). ``panels``: per seat, the opponent panel a search
    player keeps across the hands of a match (``panel_memory`` match; a list the match
    passes from hand to hand, None at first); None: every panel starts from its prior.
    """
    deck = parse_deck(deck)
    if dealer not in (0, 1):
        raise ValueError(f"dealer must be 0 or 1, got {dealer!r}")
    rule_set = load_rules(rules)
    pair = load_players(players, rule_set)
    return Hand.dealt(deck, rule_set, pair, dealer, seed, deal, trace, score, panels).play()


def start_hand(
    deck: Sequence[int | str] | str,
    rules: Rules | str,
    dealer: int,
    *,
    deal: int = 0,
    trace: Trace = None,
    score: HollywoodScore | None = None,
) -> Hand:
    """A hand dealt from ``deck`` (R6) whose every action the caller chooses (a person at
    the table, a recorded game): while ``hand.phase != OVER`` it reads the position of the
    player to move (``hand.to_move``, ``hand.view()``, ``hand.situation(hand.view())``) and
    carries out an action with ``hand.apply``, which asserts that the rules allow it (R11,
    R12, R14: check first); then ``hand.result()`` is the hand's record."""
    if dealer not in (0, 1):
        raise ValueError(f"dealer must be 0 or 1, got {dealer!r}")
    return Hand.started(parse_deck(deck), load_rules(rules), dealer, [], deal, trace, score)


def decisions_reference(
    seed: int,
    deal: int,
    rules: Rules | str,
    players: Players = ("simple", "simple"),
    *,
    trace: Trace = None,
    score: HollywoodScore | None = None,
) -> Iterator[tuple[Situation, Action]]:
    """Deal ``deal`` of ``seed`` played as ``play_deal_reference`` plays it, one decision
    at a time: the situation of the player to move (``situation.player``), then its action.
    ``score``: the score before the hand, as in a game or a match (None: a plain hand)."""
    rule_set = load_rules(rules)
    pair = load_players(players, rule_set)
    deck = deck_for_deal(seed, deal)
    hand = Hand.dealt(deck, rule_set, pair, deal % 2, seed, deal, trace, score)
    while hand.phase != OVER:
        situation = hand.situation(hand.view())
        action = hand.decide()
        yield situation, action
        hand.apply(action)


def play_deal_reference(
    seed: int,
    deal: int,
    rules: Rules | str,
    players: Players = ("simple", "simple"),
    *,
    trace: Trace = None,
) -> dict[str, int | bool]:
    """Play deal ``deal`` of ``seed``: its deck from ``deck_for_deal``, dealer ``deal % 2``."""
    return play_hand_reference(
        deck_for_deal(seed, deal), rules, players, deal % 2, seed, deal, trace=trace
    )
