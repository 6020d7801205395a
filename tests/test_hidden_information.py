"""A player decides on what it may know (docs/strategies.md, "What a player knows"), never
on the opponent's hidden cards: a probe on the numba kernel and on the reference engine.

The probe plays a deck, then the same deck with one of the opponent's unshown cards (dealt
to it, or drawn by it from the stock, and never discarded, so the observer never sees it)
swapped with a stock card that nobody draws in the first play. Until the opponent's public behaviour changes (what it
takes from the pile, what it discards, whether it knocks; not which stock card it draws),
everything the observer may know is the same in both plays, so every decision of the
observer (take or draw, discard, knock) must be the same too. The probe runs over many
random deals with every named family strategy as the observer, and is shown to catch
deliberately leaky players: one whose view includes the opponent's hidden cards, and one
that reads the opponent's last stock draw. (The probe that varies every hidden field of a
position at once, for searches, posteriors and evaluations, is tests/hidden_info.py.)

The kernel keeps no list of moves, so the kernel's moves are recovered from records only:
the same deck played again with an earlier wall (R18) or a lower cap on takes from the
pile (R18a) stops after a chosen turn, and no decision reads those two rules, so that hand
is a prefix of the full one and its record shows both hands after that turn. The moves so
recovered are checked against the reference engine's trace.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from gin_sim.game.records import HAND_RECORD
from gin_sim.game.rules import Rules, load_rules
from gin_sim.kernels.enums import RuleParam
from gin_sim.kernels.playout import play_deck
from gin_sim.players.calibration import load_undercut_table
from gin_sim.players.strategies import Strategy, load_strategy, strategies_to_kernel
from gin_sim.reference import engine as reference_engine
from gin_sim.reference.engine import View, play_hand_reference

FAMILY = ["simple", "basic", "expert", "defensive", "gin-hunter", "early-knocker"]
KERNEL_DEALS = 300  # per observing strategy
REFERENCE_DEALS = 60  # per observing strategy: the reference engine is slower

# A move: ("offer", player, card, taken), ("take_pile" | "take_stock", player, card),
# ("discard" | "knock", player, card), ("big_gin", player), ("draw", -1, reason).
Move = tuple


def _bit(card: int) -> int:
    return 1 << int(card)


# ------------------------------------------------------------- moves of the reference
def reference_moves(
    deck: list[int], rules: Rules, players: tuple[Strategy, Strategy], dealer: int
) -> list[Move]:
    events: list = []
    play_hand_reference(deck, rules, players, dealer, trace=events)
    moves: list[Move] = []
    for kind, player, *details in events:
        if kind == "offer":
            moves.append((kind, player, details[0], details[1]))
        elif kind in ("take_pile", "take_stock", "discard", "knock"):
            moves.append((kind, player, details[0]))  # the deadwood of a discard is private
        elif kind == "big_gin":
            moves.append((kind, player))
        elif kind == "draw":
            moves.append((kind, -1, details[0]))
    return moves


# ---------------------------------------------------------------- moves of the kernel
class KernelPlayer:
    """Plays decks with ``play_deck`` and recovers the moves from the records."""

    def __init__(self, rules: Rules, players: tuple[Strategy, Strategy]) -> None:
        self.rules = rules
        self.vector = rules.to_kernel()
        self.strategies = strategies_to_kernel(players, rules)
        self.table = load_undercut_table()

    def record(self, deck: np.ndarray, dealer: int, wall: int, cap: int) -> np.void:
        rules = self.vector.copy()
        rules[RuleParam.WALL] = wall
        rules[RuleParam.MAX_UPCARD_TAKES] = cap
        out = np.zeros(1, dtype=HAND_RECORD)
        play_deck(deck, dealer, rules, self.strategies, self.table, np.uint64(0), 0, out)
        return out[0]

    def moves(self, deck_list: list[int], dealer: int) -> list[Move]:
        deck = np.array(deck_list, dtype=np.int8)
        wall, cap = self.rules.wall, self.rules.max_upcard_takes
        full = self.record(deck, dealer, wall, cap)
        last = int(full["turns"])
        # After each turn t < last: a stock draw that leaves s cards ends the hand under
        # wall = s, a take from the pile that makes m takes ends it under cap = m.
        after: dict[int, np.void] = {}
        cuts = [(w, cap) for w in range(30, wall, -1)]
        cuts += [(wall, m) for m in range(1, int(full["upcard_takes"]) + 1)]
        for w, m in cuts:
            record = self.record(deck, dealer, w, m)
            turns = int(record["turns"])
            if turns < last:
                assert record["draw"], "a shortened hand is a prefix of the full one"
                after[turns] = record
        assert sorted(after) == list(range(1, last)), "every turn recovered"
        after[last] = full

        nondealer = 1 - dealer
        upcard = deck_list[20]
        first = int(full["first_upcard_taker"])
        moves: list[Move] = [("offer", nondealer, upcard, first == nondealer)]
        if first != nondealer:
            moves.append(("offer", dealer, upcard, first == dealer))
        hands = [0, 0]
        for j in range(20):
            hands[nondealer if j % 2 == 0 else dealer] |= _bit(deck_list[j])
        pile, stock_pos, takes = [upcard], 21, 0
        player = first if first >= 0 else nondealer
        for turn in range(1, last + 1):
            record = after[turn]
            if int(record["upcard_takes"]) > takes:
                takes += 1
                card = pile.pop()
                moves.append(("take_pile", player, card))
            else:
                card = deck_list[stock_pos]
                stock_pos += 1
                moves.append(("take_stock", player, card))
            assert int(record["stock_left"]) == 52 - stock_pos
            assert int(record[f"hand{1 - player}"]) == hands[1 - player], "only the mover moves"
            held = hands[player] | _bit(card)
            if turn == last and full["big_gin"]:
                assert int(record[f"hand{player}"]) == held
                moves.append(("big_gin", player))
                break
            discarded = held & ~int(record[f"hand{player}"])
            assert discarded.bit_count() == 1, "one card discarded per turn"
            discard = discarded.bit_length() - 1
            hands[player] = held & ~discarded
            pile.append(discard)
            knocks = turn == last and int(full["knocker"]) == player
            moves.append(("knock" if knocks else "discard", player, discard))
            player = 1 - player
        if full["draw"]:
            moves.append(("draw", -1, int(full["draw_reason"])))
        return moves


# ------------------------------------------------------------------------ the probe
def public(move: Move) -> Move:
    """What the other player sees of a move: everything but the card drawn from the stock."""
    return move[:2] if move[0] == "take_stock" else move


def swapped_deck(
    deck: list[int], moves: list[Move], dealer: int, observer: int, rng: np.random.Generator
) -> list[int]:
    """The deck with one of the opponent's unshown cards swapped with an undrawn stock card:
    in half the deals (when it drew any) a card it drew from the stock and still holds (at
    the observer's next decision, the opponent's last stock draw), else one dealt to it."""
    opponent = 1 - observer
    dealt = range(0, 20, 2) if opponent != dealer else range(1, 20, 2)
    shown = {m[2] for m in moves if m[1] == opponent and m[0] in ("discard", "knock")}
    stock_draws = [m for m in moves if m[0] == "take_stock"]  # the k-th is deck[21 + k]
    drawn = [21 + k for k, m in enumerate(stock_draws) if m[1] == opponent]
    kinds = [[i for i in places if deck[i] not in shown] for places in (dealt, drawn)]
    kinds = [hidden for hidden in kinds if hidden]
    undrawn = range(21 + len(stock_draws), 52)
    assert kinds and undrawn, (kinds, stock_draws)
    hidden = kinds[int(rng.integers(len(kinds)))]
    i, j = int(rng.choice(hidden)), int(rng.choice(undrawn))
    other = list(deck)
    other[i], other[j] = other[j], other[i]
    return other


def observer_decisions_before_divergence(
    first: list[Move], second: list[Move], observer: int
) -> tuple[int, Move | None]:
    """Walk both plays until the opponent's public behaviour differs; return how many of
    the observer's moves were compared and the first of them that differs (None if none)."""
    compared = 0
    for a, b in zip(first, second, strict=False):
        if a[1] == observer:
            if a != b:
                return compared, (a, b)
            compared += 1
        elif public(a) != public(b):
            return compared, None  # the opponent has shown something new: stop here
    return compared, None


def probe(play, strategy_names, deals: int, seed: int, rules: Rules):
    """Run the probe with each named strategy as the observer; return, per observer, the
    observer's decisions compared and the differences found."""
    rng = np.random.default_rng(seed)
    results = {}
    for name in strategy_names:
        compared, leaks = 0, []
        for _ in range(deals):
            deck = [int(c) for c in rng.permutation(52)]
            dealer, observer = int(rng.integers(2)), int(rng.integers(2))
            opponent_name = FAMILY[int(rng.integers(len(FAMILY)))]
            players = [load_strategy(opponent_name)] * 2
            players[observer] = name if isinstance(name, Strategy) else load_strategy(name)
            pair = (players[0], players[1])
            moves = play(deck, pair, dealer)
            other = swapped_deck(deck, moves, dealer, observer, rng)
            n, leak = observer_decisions_before_divergence(
                moves, play(other, pair, dealer), observer
            )
            compared += n
            if leak is not None:
                leaks.append((deck, other, dealer, observer, opponent_name, leak))
        results[getattr(name, "name", name)] = (compared, leaks)
    return results


@pytest.fixture(scope="module")
def hollywood() -> Rules:
    return load_rules("hollywood")


def kernel_play(rules: Rules):
    players: dict[tuple[str, str], KernelPlayer] = {}

    def play(deck, pair, dealer):
        key = (pair[0].name, pair[1].name)
        if key not in players:
            players[key] = KernelPlayer(rules, pair)
        return players[key].moves(deck, dealer)

    return play


def reference_play(rules: Rules):
    def play(deck, pair, dealer):
        return reference_moves(deck, rules, pair, dealer)

    return play


@pytest.mark.parametrize("rules_name", ["hollywood", "standard"])
def test_kernel_moves_recovered_from_records_are_the_reference_moves(rules_name):
    """The recovery of the kernel's moves is exact: the reference engine's trace, move for
    move (every named family pairing of the probe, both dealers)."""
    rules = load_rules(rules_name)
    rng = np.random.default_rng(5)
    kernel = kernel_play(rules)
    kinds = set()
    for i in range(24):
        deck = [int(c) for c in rng.permutation(52)]
        pair = (load_strategy(FAMILY[i % 6]), load_strategy(FAMILY[(i * 5 + 1) % 6]))
        expected = reference_moves(deck, rules, pair, i % 2)
        assert kernel(deck, pair, i % 2) == expected, (deck, pair, i % 2)
        kinds |= {m[0] for m in expected}
    assert {"offer", "take_pile", "take_stock", "discard", "knock"} <= kinds


@pytest.mark.full
def test_the_kernel_never_reads_the_opponents_hidden_cards(hollywood):
    results = probe(kernel_play(hollywood), FAMILY, KERNEL_DEALS, seed=12, rules=hollywood)
    for name, (compared, leaks) in results.items():
        assert not leaks, (name, leaks[:3])
        # the probe has something to compare: several decisions per deal on average
        assert compared >= 3 * KERNEL_DEALS, (name, compared)


def test_the_kernel_never_reads_the_opponents_hidden_cards_under_standard_scoring():
    """expert adapts to undercut bonuses of 20 or more (docs/strategies.md)."""
    rules = load_rules("standard")
    results = probe(kernel_play(rules), FAMILY, KERNEL_DEALS // 3, seed=13, rules=rules)
    for name, (compared, leaks) in results.items():
        assert not leaks and compared >= KERNEL_DEALS, (name, compared, leaks[:3])


def test_the_reference_never_reads_the_opponents_hidden_cards(hollywood):
    results = probe(reference_play(hollywood), FAMILY, REFERENCE_DEALS, seed=14, rules=hollywood)
    for name, (compared, leaks) in results.items():
        assert not leaks and compared >= 3 * REFERENCE_DEALS, (name, compared, leaks[:3])


@pytest.mark.full
def test_a_searcher_that_dates_the_opponents_passes_never_reads_its_hidden_cards():
    """A search player that keeps a memory of the hand (infer_timed dates the opponent's
    passes and takes at each of its decisions, and an opponent panel reads its turns) as
    the observer in the reference engine, under standard scoring: its decisions never
    change with the opponent's hidden cards until the opponent shows something new."""
    rules = load_rules("standard")
    searcher = replace(
        load_strategy("mc-fast"), samples=3, infer=True, infer_timed=True,
        opponent_panel=("gin-hunter-strong", "simple"), panel_infer=True, name="mcf-timed",
    )  # fmt: skip
    results = probe(reference_play(rules), [searcher], REFERENCE_DEALS // 4, seed=15, rules=rules)
    compared, leaks = results["mcf-timed"]
    assert not leaks and compared >= REFERENCE_DEALS // 2, (compared, leaks[:3])


def test_the_probe_catches_a_player_that_peeks(hollywood, monkeypatch):
    """A deliberately leaky view (the opponent's whole hand counted as cards it took from
    the pile, as a kernel passing the opponent's hand for ``taken_by`` would): the probe
    finds observers whose decisions change with the opponent's hidden cards. Strategies
    that never read the opponent's cards (simple) cannot leak them."""
    honest_view = reference_engine.player_view

    def peeking_view(table, player: int, taken_from_pile: int | None = None, score=None) -> View:
        view = honest_view(table, player, taken_from_pile, score)
        opponent_hand = table.hands[1 - player]
        return View(**{**view.__dict__, "opp_taken": view.opp_taken | opponent_hand})

    monkeypatch.setattr(reference_engine, "player_view", peeking_view)
    results = probe(
        reference_play(hollywood),
        ["defensive", "simple"],
        REFERENCE_DEALS,
        seed=14,
        rules=hollywood,
    )
    leaks = results["defensive"][1]
    assert leaks, "the probe must catch the peeking defensive player"
    assert not results["simple"][1]


def test_the_probe_catches_a_player_that_reads_the_opponents_last_stock_draw(
    hollywood, monkeypatch
):
    """A leaky player: at a draw decision it reads the card the opponent last drew from
    the stock (the hand's ``taken_card``, hidden from it) and takes the pile's top instead
    of drawing, or the reverse, when that card is odd. Caught, because the probe also swaps
    cards the opponent drew; with only its dealt cards swapped, it never is."""
    honest_decide = reference_engine.Hand.decide

    def peeking_decide(hand):
        action = honest_decide(hand)
        if hand.phase == reference_engine.DRAW and not hand.from_pile and hand.taken_card % 2:
            return not action
        return action

    monkeypatch.setattr(reference_engine.Hand, "decide", peeking_decide)
    results = probe(reference_play(hollywood), ["basic"], REFERENCE_DEALS, 14, hollywood)
    assert len(results["basic"][1]) >= 5, "the probe must catch a player that reads the draw"
