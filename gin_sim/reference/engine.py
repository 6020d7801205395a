"""The plain-Python reference engine: one hand of Hollywood Gin, rule by rule.

It implements docs/engine.md literally and is the oracle the numba playout is tested
against, record for record; ``replay`` uses its event trace to show a hand move by move.
Deadwood comes from the exhaustive search of ``gin_sim.melds``. After every action the
engine checks that the two hands, the stock and the discard pile hold the 52 cards once.

>>> from gin_sim.rules import Rules, load_rules
>>> record = play_deal_reference(seed=1, deal=0, rules=Rules())
>>> record["hand0"] & record["hand1"]
0
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from gin_sim.cards import FULL_DECK, N_CARDS, N_RANKS, card_index, card_value, parse_deck
from gin_sim.enums import NO_PLAYER, DrawReason
from gin_sim.melds import Arrangement, defender_result, knocker_arrangement, min_deadwood_exhaustive
from gin_sim.records import HAND_FIELDS
from gin_sim.reference.rng import Stream, bounded, deck_for_deal, player_stream_state
from gin_sim.rules import Rules, load_rules

__all__ = [
    "STRATEGY_KINDS",
    "Event",
    "completes_a_meld",
    "play_deal_reference",
    "play_hand_reference",
    "simple_discard",
    "simple_discard_bounded",
]

STRATEGY_KINDS = ("simple", "random")

# A trace event: (kind, player, *details), player -1 when none. Kinds and details:
#   ("deal", -1, dealer, nondealer_hand, dealer_hand, upcard, knock_limit)
#   ("offer", p, card, taken)           the first-turn offer (R7, R8)
#   ("take_pile", p, card)  ("take_stock", p, card)
#   ("big_gin", p, hand11)              (R14)
#   ("discard", p, card, deadwood_after)
#   ("knock", p, card, deadwood_after)  the discard that knocks (R12, R13)
#   ("draw", -1, reason)                (R18, R18a)
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
    return (-_deadwood(hand & ~_bit(card)), card_value(card), card % N_RANKS, card // N_RANKS)


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
            (-(whole - card_value(c)), card_value(c), c % N_RANKS, c // N_RANKS, c)
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


class _Simple:
    """docs/engine.md, strategy ``simple``."""

    def takes_top(self, hand: int, card: int) -> bool:
        return completes_a_meld(hand, card)

    def declares_big_gin(self) -> bool:
        return True

    def discard(self, hand: int, legal: list[int], taken_from_pile: int | None) -> int:
        return simple_discard_bounded(hand, legal, taken_from_pile)

    def knocks(self) -> bool:
        return True  # as soon as it may


class _Random:
    """docs/engine.md, strategy ``random``: every choice from the player's own stream."""

    def __init__(self, state: int) -> None:
        self.stream = Stream(state)

    def _coin(self) -> bool:
        return bounded(self.stream.next(), 2) == 1

    def takes_top(self, hand: int, card: int) -> bool:
        return self._coin()

    def declares_big_gin(self) -> bool:
        return self._coin()

    def discard(self, hand: int, legal: list[int], taken_from_pile: int | None) -> int:
        return legal[bounded(self.stream.next(), len(legal))]  # legal is ascending

    def knocks(self) -> bool:
        return self._coin()


def _strategy_kind(player: object) -> str:
    kind = getattr(player, "kind", player)
    if kind not in STRATEGY_KINDS:
        raise ValueError(
            f"unknown strategy {player!r} for the reference engine: "
            f"allowed {', '.join(STRATEGY_KINDS)}"
        )
    return str(kind)


class _Table:
    """The cards on the table during one hand: two hands, the stock, the discard pile."""

    def __init__(self, deck: list[int], dealer: int) -> None:
        self.deck = deck
        # stock_masks[i]: the cards deck[i:], i.e. the stock once i cards have left the deck
        self.stock_masks = [0] * (N_CARDS + 1)
        for i in range(N_CARDS - 1, -1, -1):
            self.stock_masks[i] = self.stock_masks[i + 1] | _bit(deck[i])
        self.hands = [0, 0]
        nondealer = 1 - dealer
        for j in range(20):  # R6: ten cards each, dealt one at a time, non-dealer first
            self.hands[nondealer if j % 2 == 0 else dealer] |= _bit(deck[j])
        self.pile = [deck[20]]  # R6: the upcard starts the discard pile
        self.pile_mask = _bit(deck[20])  # the same cards as a mask, kept in step
        self.stock_pos = 21  # R6: the other 31 cards are the stock, drawn in deck order
        self.upcard_takes = 0
        self.turns = 0
        self.check()

    @property
    def stock_left(self) -> int:
        return N_CARDS - self.stock_pos

    def take_stock(self, player: int) -> int:
        card = self.deck[self.stock_pos]
        self.stock_pos += 1
        self.hands[player] |= _bit(card)
        self.turns += 1
        self.check()
        return card

    def take_pile(self, player: int) -> int:
        card = self.pile.pop()
        self.pile_mask &= ~_bit(card)
        self.hands[player] |= _bit(card)
        self.upcard_takes += 1
        self.turns += 1
        self.check()
        return card

    def discard(self, player: int, card: int) -> None:
        assert self.hands[player] >> card & 1, "a player discards only a card they hold"
        self.hands[player] &= ~_bit(card)
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


class _Hand:
    """One hand in play: the table, the rules, the players' strategies and the record."""

    def __init__(
        self,
        deck: list[int],
        rules: Rules,
        players: tuple[str, str],
        dealer: int,
        seed: int,
        deal: int,
        trace: Trace,
    ) -> None:
        self.rules = rules
        self.dealer = dealer
        self.table = _Table(deck, dealer)
        self.strategies: list[_Simple | _Random] = [
            _Simple() if kind == "simple" else _Random(player_stream_state(seed, deal, p))
            for p, kind in enumerate(players)
        ]
        self._trace = trace
        upcard = deck[20]
        if rules.oklahoma:  # R14a: the upcard's value; an ace means gin only
            self.knock_limit = 0 if upcard % N_RANKS == 0 else card_value(upcard)
        else:
            self.knock_limit = rules.knock_limit  # R12
        self.record: dict[str, int | bool] = {
            "deal": deal,
            "hand0": 0,
            "hand1": 0,
            "dealer": dealer,
            "upcard": upcard,
            "knock_limit": self.knock_limit,
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
        hands = self.table.hands
        self.emit(
            "deal", NO_PLAYER, dealer, hands[1 - dealer], hands[dealer], upcard, self.knock_limit
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
        dealer, nondealer = self.dealer, 1 - self.dealer
        upcard = self.table.pile[-1]
        # R7: the non-dealer is offered the upcard; R8: if declined, the dealer.
        # Declined offers are not turns.
        player = NO_PLAYER
        for offered in (nondealer, dealer):
            taken = self.strategies[offered].takes_top(self.table.hands[offered], upcard)
            self.emit("offer", offered, upcard, taken)
            if taken:
                player = offered
                break
        if player != NO_PLAYER:
            self.record["first_upcard_taker"] = player
            card = self.table.take_pile(player)
            self.emit("take_pile", player, card)
            over = self.finish_turn(player, card, from_pile=True)
        else:
            # R9: both declined, the non-dealer begins from the stock.
            player = nondealer
            card = self.table.take_stock(player)
            self.emit("take_stock", player, card)
            over = self.finish_turn(player, card, from_pile=False)
        while not over:
            player = 1 - player
            # R10: a normal turn takes the top of the stock or of the discard pile.
            if self.strategies[player].takes_top(self.table.hands[player], self.table.pile[-1]):
                card = self.table.take_pile(player)
                self.emit("take_pile", player, card)
                over = self.finish_turn(player, card, from_pile=True)
            else:
                card = self.table.take_stock(player)
                self.emit("take_stock", player, card)
                over = self.finish_turn(player, card, from_pile=False)
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

    def finish_turn(self, player: int, taken: int, from_pile: bool) -> bool:
        """The rest of a turn with 11 cards (docs/engine.md steps 1 to 4); True if the hand ends."""
        rules, table, strategy = self.rules, self.table, self.strategies[player]
        hand = table.hands[player]
        # 1. R14: big gin, only when it scores something.
        if rules.big_gin_bonus > 0 and _deadwood(hand) == 0 and strategy.declares_big_gin():
            self.emit("big_gin", player, hand)
            self.showdown(player, big_gin=True)
            return True
        # 2. The discard, among the legal cards (R11).
        legal = [
            c
            for c in _cards(hand)
            if not (from_pile and c == taken and not rules.may_discard_drawn_upcard)
        ]
        card = strategy.discard(hand, legal, taken if from_pile else None)
        assert card in legal
        table.discard(player, card)
        deadwood = _deadwood(table.hands[player])
        # 3. R12: knock with at most the hand's knock limit; never compulsory.
        if deadwood <= self.knock_limit and strategy.knocks():
            self.emit("knock", player, card, deadwood)
            self.showdown(player, big_gin=False)
            return True
        self.emit("discard", player, card, deadwood)
        # 4. R18: the wall; R18a: the cap on takes from the discard pile.
        if table.stock_left <= rules.wall:
            self.end_in_draw(DrawReason.WALL)
            return True
        if table.upcard_takes >= rules.max_upcard_takes:
            self.end_in_draw(DrawReason.UPCARD_CAP)
            return True
        return False

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


def play_hand_reference(
    deck: list[int],
    rules: Rules | str,
    players: tuple[str, str] = ("simple", "simple"),
    dealer: int = 0,
    seed: int = 0,
    deal: int = 0,
    *,
    trace: Trace = None,
) -> dict[str, int | bool]:
    """Play one hand from an explicit 52-card ``deck`` order and return its record.

    ``rules`` is a rule set or the name of one (``configs/rules/``). ``players[p]`` is player ``p``'s strategy, ``"simple"`` or ``"random"``; the random
    strategy draws from the stream of ``(seed, deal, p)`` (docs/engine.md). The record has
    exactly the fields of ``gin_sim.records.HAND_FIELDS``, as ints and bools. ``trace``, a
    list or a callable, receives the events of the hand (see ``Event``).
    """
    deck = parse_deck(deck)
    if dealer not in (0, 1):
        raise ValueError(f"dealer must be 0 or 1, got {dealer!r}")
    if len(players) != 2:
        raise ValueError(f"players must name two strategies, got {players!r}")
    kinds = (_strategy_kind(players[0]), _strategy_kind(players[1]))
    return _Hand(deck, load_rules(rules), kinds, dealer, seed, deal, trace).play()


def play_deal_reference(
    seed: int,
    deal: int,
    rules: Rules | str,
    players: tuple[str, str] = ("simple", "simple"),
    *,
    trace: Trace = None,
) -> dict[str, int | bool]:
    """Play deal ``deal`` of ``seed``: its deck from ``deck_for_deal``, dealer ``deal % 2``."""
    return play_hand_reference(
        deck_for_deal(seed, deal), rules, players, deal % 2, seed, deal, trace=trace
    )
