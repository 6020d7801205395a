"""The one hidden-information probe of the test suite (docs/strategies.md, "What a player
knows"): whatever decides or evaluates for the player to move must give the same answer,
and report the same figures, whatever the fields of the position it may not see hold.

The fields hidden from the player to move (``HIDDEN_FIELDS``), at a kernel position
(``kernels/position.py``) or at a reference engine's ``Hand`` alike:
- the opponent's unseen cards: its hand less the cards it took from the pile (those are
  shown);
- the stock's order: the deck from the stock's top on;
- the deal: the first 20 cards of the deck, who was dealt what and in which order (the
  player knows its own ten cards, not the order they came in nor the other ten);
- the cards drawn from the stock so far, in the order they were drawn;
- the opponent's last stock draw: at an offer or a draw, the card of the opponent's last
  take when it came from the stock (the position's ``TAKEN_CARD``).
Everything else is public or the player's own and is kept: its hand, what either player
took from the pile or passed, the pile in order, the counters, the phase, the dealer, the
knock limit, the upcard, the score.

``probe`` plays a decision on positions and on the same positions with every hidden
field changed (``vary``), and asserts the answers are the same. It carries its own
positive control: for each field in turn, a peeking variant of the same decision (the
field's content mixed into its random stream, so its worlds depend on that field) must be
caught at several positions; so a probe that stopped varying a field, or a comparison that
stopped seeing differences, fails. A decision takes ``(position, leak)`` and mixes
``leak`` (0 for the honest decision) into its random stream.
"""

from __future__ import annotations

import copy
import dataclasses
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, NamedTuple

import numpy as np

from gin_sim.kernels.enums import Phase, PositionMask, PositionSlot
from gin_sim.kernels.playout import scratch_nb
from gin_sim.kernels.position import apply_nb, deal_nb, family_action_nb
from gin_sim.players.calibration import load_undercut_table
from gin_sim.players.strategies import Strategy, strategies_to_kernel
from gin_sim.reference.engine import DISCARD

UPCARD = 20  # the deck's slot of the upcard, which everyone sees (R6)
DEAL = 20  # the cards dealt, one at a time (R6)
LEAK_BITS = 2**63 - 1  # a leak is a 63-bit number, mixed into a 64-bit stream state


def _cards(mask: int) -> list[int]:
    return [c for c in range(52) if mask >> c & 1]


def _mask(cards: Iterable[int]) -> int:
    return sum(1 << int(c) for c in cards)


@dataclass(frozen=True)
class Hidden:
    """The fields of a position hidden from the player to move, and the public facts that
    say what they may become (the opponent's shown cards, the pile's top)."""

    deck: tuple[int, ...]  # the 52 slots of the deck order (-1 where nobody knows them)
    stock_pos: int  # the deck's slot of the stock's top
    opponent_hand: int
    opponent_shown: int  # the cards it took from the pile and holds: public
    last_take: int  # the card of the last take (-1: none yet)
    last_take_hidden: bool  # it is the opponent's draw from the stock, unseen by the player
    pile_top: int  # -1: the pile is empty
    # Other cards the last stock draw may have been: at a showdown, every card of the
    # knocker's shown hand not known to have come from the pile (``hidden_of_showdown``).
    could_draw: int = 0


def _unseen(hidden: Hidden) -> tuple[int, ...]:
    return (hidden.opponent_hand & ~hidden.opponent_shown,)


def _stock(hidden: Hidden) -> tuple[int, ...]:
    return hidden.deck[hidden.stock_pos :]


def _deal(hidden: Hidden) -> tuple[int, ...]:
    return hidden.deck[:DEAL]


def _drawn(hidden: Hidden) -> tuple[int, ...]:
    return hidden.deck[UPCARD + 1 : hidden.stock_pos]


def _last_stock_draw(hidden: Hidden) -> tuple[int, ...]:
    return (hidden.last_take,) if hidden.last_take_hidden else ()


HIDDEN_FIELDS: dict[str, Callable[[Hidden], tuple[int, ...]]] = {
    "the opponent's unseen cards": _unseen,
    "the stock's order": _stock,
    "the deal": _deal,
    "the cards drawn from the stock": _drawn,
    "the opponent's last stock draw": _last_stock_draw,
}


def vary(hidden: Hidden, rng: np.random.Generator) -> Hidden:
    """Every hidden field changed, the player's view kept: the opponent's unseen cards and
    the stock dealt again from their union, each such card renamed alike wherever the deck
    holds it; the deal, the draws and the stock each reordered; the opponent's last stock
    draw replaced by another card it may have drawn (one it now holds unseen, or the pile's
    top, which it may have drawn and discarded)."""
    unseen = _cards(_unseen(hidden)[0])
    pool = unseen + [c for c in _stock(hidden)]
    renamed = dict(zip(pool, (int(c) for c in rng.permutation(pool)), strict=True))
    opponent_hand = hidden.opponent_shown | _mask(renamed[c] for c in unseen)
    deck = [c if j == UPCARD else renamed.get(c, c) for j, c in enumerate(hidden.deck)]
    for start, stop in ((0, DEAL), (UPCARD + 1, hidden.stock_pos), (hidden.stock_pos, 52)):
        part = deck[start:stop]
        rng.shuffle(part)
        deck[start:stop] = part
    last_take = hidden.last_take
    if hidden.last_take_hidden and last_take >= 0:
        could = [*_cards(opponent_hand & ~hidden.opponent_shown), hidden.pile_top]
        could += [c for c in _cards(hidden.could_draw) if c not in could]
        last_take = int(rng.choice([c for c in could if c != last_take] or [last_take]))
    return replace(hidden, deck=tuple(deck), opponent_hand=opponent_hand, last_take=last_take)


# ------------------------------------------------------------------ kernel positions
def hidden_of_position(masks: np.ndarray, state: np.ndarray) -> Hidden:
    """The hidden fields of a kernel position (masks, state) for its player to move."""
    S, M = PositionSlot, PositionMask
    opponent = 1 - int(state[S.PLAYER])
    return Hidden(
        deck=tuple(int(c) for c in state[S.DECK : S.DECK + 52]),
        stock_pos=int(state[S.STOCK_POS]),
        opponent_hand=int(masks[M.HAND + opponent]),
        opponent_shown=int(masks[M.TAKEN + opponent]),
        last_take=int(state[S.TAKEN_CARD]),
        last_take_hidden=int(state[S.PHASE]) != Phase.DISCARD and not state[S.FROM_PILE],
        pile_top=int(state[S.PILE + state[S.PILE_SIZE] - 1]) if state[S.PILE_SIZE] else -1,
    )


def position_with(
    masks: np.ndarray, state: np.ndarray, hidden: Hidden
) -> tuple[np.ndarray, np.ndarray]:
    """A copy of the kernel position with ``hidden`` in its hidden fields."""
    masks, state = masks.copy(), state.copy()
    opponent = 1 - int(state[PositionSlot.PLAYER])
    masks[PositionMask.HAND + opponent] = np.uint64(hidden.opponent_hand)
    state[PositionSlot.DECK : PositionSlot.DECK + 52] = hidden.deck
    state[PositionSlot.TAKEN_CARD] = hidden.last_take
    return masks, state


def hidden_of_showdown(masks: np.ndarray, state: np.ndarray) -> Hidden:
    """The hidden fields of a kernel position at the end of a hand that a knock, gin or big
    gin ended (R12 to R14), for the knocker's opponent: the knocker's cards are shown
    (none of them is unseen), but not which of them it drew from the stock at its knocking
    turn (any of its cards, its knock discard included, but those it took from the pile
    and still holds); the deck's order is hidden as before."""
    S, M = PositionSlot, PositionMask
    knocker = int(state[S.KNOCKER])
    shown = int(masks[M.HAND + knocker])
    discard = -1
    if not state[S.BIG_GIN]:  # its knock discard lies on the pile
        discard = int(state[S.PILE + state[S.PILE_SIZE] - 1])
    whole = shown | (1 << discard if discard >= 0 else 0)
    return Hidden(
        deck=tuple(int(c) for c in state[S.DECK : S.DECK + 52]),
        stock_pos=int(state[S.STOCK_POS]),
        opponent_hand=shown,
        opponent_shown=shown,
        last_take=int(state[S.TAKEN_CARD]),
        last_take_hidden=not state[S.FROM_PILE],
        pile_top=discard,
        could_draw=whole & ~int(masks[M.TAKEN + knocker]),
    )


def showdown_with(
    masks: np.ndarray, state: np.ndarray, hidden: Hidden
) -> tuple[np.ndarray, np.ndarray]:
    """A copy of the showdown position with ``hidden`` in its hidden fields."""
    state = state.copy()
    state[PositionSlot.DECK : PositionSlot.DECK + 52] = hidden.deck
    state[PositionSlot.TAKEN_CARD] = hidden.last_take
    return masks.copy(), state


class Access(NamedTuple):
    """How the probe reads and writes a kind of position's hidden fields."""

    hidden: Callable[[Any], Hidden]
    put: Callable[[Any, Hidden], Any]


# A kernel position is a tuple (masks, state, *anything the decision also takes).
KERNEL = Access(
    lambda position: hidden_of_position(position[0], position[1]),
    lambda position, hidden: (*position_with(position[0], position[1], hidden), *position[2:]),
)


# A showdown position is a tuple (masks, state, *anything the update also takes); the
# opponent's unseen cards are not a field there (its cards are shown).
SHOWDOWN = Access(
    lambda position: hidden_of_showdown(position[0], position[1]),
    lambda position, hidden: (*showdown_with(position[0], position[1], hidden), *position[2:]),
)
SHOWDOWN_FIELDS = (
    "the stock's order",
    "the deal",
    "the cards drawn from the stock",
    "the opponent's last stock draw",
)


# ----------------------------------------------------------- reference engine hands
def hidden_of_hand(hand: Any) -> Hidden:
    """The hidden fields of a reference engine ``Hand`` for its player to move."""
    table, opponent = hand.table, 1 - hand.to_move
    return Hidden(
        deck=tuple(table.deck),
        stock_pos=table.stock_pos,
        opponent_hand=table.hands[opponent],
        opponent_shown=table.taken[opponent],
        last_take=hand.taken_card,
        last_take_hidden=hand.phase != DISCARD and not hand.from_pile,
        pile_top=table.pile[-1] if table.pile else -1,
    )


def hand_with(hand: Any, hidden: Hidden) -> Any:
    """A copy of the reference ``Hand`` with ``hidden`` in its hidden fields (the table
    checks its 52 cards)."""
    other = copy.deepcopy(hand)
    table = other.table
    table.hands[1 - hand.to_move] = hidden.opponent_hand
    table.deck = list(hidden.deck)
    for i in range(51, table.stock_pos - 1, -1):  # stock_masks[i]: the cards deck[i:]
        table.stock_masks[i] = table.stock_masks[i + 1] | 1 << table.deck[i]
    table.check()
    other.taken_card = hidden.last_take
    return other


REFERENCE = Access(hidden_of_hand, hand_with)


def view_decision(value: Callable[[dict, int, int, int], Any]) -> Callable[[Any, int], Any]:
    """A probe decision on reference ``Hand`` positions (``REFERENCE``) for whatever works
    from the plain view, as a record's reader does (``gin-sim review``, ``advise``):
    ``value(view, seat, played, leak)`` with the view of the player to move
    (``view_from_situation``), its seat and the action its strategy plays there (a kernel
    action code)."""
    from gin_sim.experiments.review import action_code
    from gin_sim.reference.views import view_from_situation

    def decision(hand: Any, leak: int) -> Any:
        view = view_from_situation(hand.situation(hand.view()))
        played = action_code(copy.deepcopy(hand).decide())  # deciding may draw from a stream
        return value(view, int(hand.to_move), played, leak)

    return decision


# -------------------------------------------------------------------------- the probe
def same(first: Any, second: Any) -> bool:
    """Whether two answers are equal, arrays element by element and NaN equal to NaN (a
    search over one world has no interval)."""
    if dataclasses.is_dataclass(first) and dataclasses.is_dataclass(second):
        return type(first) is type(second) and same(
            dataclasses.astuple(first), dataclasses.astuple(second)
        )
    if isinstance(first, np.ndarray) or isinstance(second, np.ndarray):
        a, b = np.asarray(first), np.asarray(second)
        return a.shape == b.shape and np.array_equal(a, b, equal_nan=a.dtype.kind == "f")
    if isinstance(first, tuple | list) and isinstance(second, tuple | list):
        return len(first) == len(second) and all(map(same, first, second))
    if isinstance(first, float) and isinstance(second, float):
        return first == second or (first != first and second != second)
    return bool(first == second)


def leak_of(content: tuple[int, ...]) -> int:
    """A peeking decision's leak: the field's content as a stream number (a tuple of ints
    hashes the same in every run)."""
    return hash(content) & LEAK_BITS


@dataclass
class Probed:
    """What a probe compared: the positions, their varied twins, the honest answers at the
    positions, how many positions each field was varied at and each peeking variant was
    caught at (the catching stops at ``least_caught``)."""

    positions: list[Any]
    others: list[Any]
    answers: list[Any]
    varied: dict[str, int]
    caught: dict[str, int]


def probe(
    decision: Callable[[Any, int], Any],
    positions: Sequence[Any],
    seed: int,
    access: Access = KERNEL,
    least_varied: int = 20,
    least_caught: int = 10,
    compare: Callable[[Any, Any], bool] = same,
    fields: Sequence[str] = tuple(HIDDEN_FIELDS),
) -> Probed:
    """Assert that ``decision(position, 0)`` is the same at every position and at its twin
    with every hidden field varied, that each field was varied at ``least_varied``
    positions or more, and that a peeking ``decision(position, leak)`` that reads one field
    (``leak_of`` its content) is caught at ``least_caught`` positions or more, for each
    field in turn (the positive control). Returns what was compared."""
    rng = np.random.default_rng(seed)
    positions = list(positions)
    hidden = [access.hidden(p) for p in positions]
    changed = [vary(h, rng) for h in hidden]
    others = [access.put(p, h) for p, h in zip(positions, changed, strict=True)]
    answers = []
    for i, (position, other) in enumerate(zip(positions, others, strict=True)):
        answer = decision(position, 0)
        assert compare(answer, decision(other, 0)), (
            f"position {i}: a field hidden from the player changed the answer"
        )
        answers.append(answer)
    checked = {name: HIDDEN_FIELDS[name] for name in fields}
    varied = {
        name: sum(read(h) != read(c) for h, c in zip(hidden, changed, strict=True))
        for name, read in checked.items()
    }
    assert min(varied.values()) >= least_varied, f"fields varied too rarely: {varied}"
    caught = dict.fromkeys(checked, 0)
    for name, read in checked.items():
        for position, other, h, c in zip(positions, others, hidden, changed, strict=True):
            if caught[name] == least_caught:
                break
            if read(h) != read(c):
                peeked = decision(position, leak_of(read(h)))
                caught[name] += not compare(peeked, decision(other, leak_of(read(c))))
        assert caught[name] >= least_caught, (
            f"the probe caught a decision that reads {name} at {caught[name]} positions only"
        )
    return Probed(positions, others, answers, varied, caught)


def decision_positions(
    rules: Any,
    players: tuple[Strategy, Strategy],
    deals: int,
    seed: int,
    seat: int = 0,
    last_decision: int = 11,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """Kernel positions where ``seat`` decides, one a deal at its k-th decision (k drawn
    from 1 to ``last_decision``), reached by playing the family strategies ``players``
    from random decks and dealers: (masks, state) copies."""
    family = strategies_to_kernel(players, rules)
    table = load_undercut_table()
    rules_vector = rules.to_kernel()
    streams, masks, state = scratch_nb()[:3]
    rng = np.random.default_rng(seed)
    found = []
    for _ in range(deals):
        deck = rng.permutation(52).astype(np.int8)
        deal_nb(deck, int(rng.integers(2)), rules_vector, masks, state)
        stop = int(rng.integers(1, last_decision + 1))
        decisions = 0
        while state[PositionSlot.PHASE] != Phase.OVER:
            player = state[PositionSlot.PLAYER]
            if player == seat:
                decisions += 1
                if decisions == stop:
                    found.append((masks.copy(), state.copy()))
                    break
            action = family_action_nb(
                family[player], masks, state, rules_vector, table, streams, player
            )
            apply_nb(masks, state, rules_vector, action)
    return found
