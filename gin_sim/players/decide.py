"""Decisions from outside: any strategy's decision at a position given as plain data.

``decide(view, rules, strategy, seed)`` takes what the deciding player knows (the fields
of docs/strategies.md, "Decisions from outside"), builds a kernel position from it with
the opponent's hidden cards and the stock filled in arbitrarily (no decision reads them:
a search samples its own worlds), and asks the kernels: ``kernels.position.family_action_nb``
for a family or ``random`` strategy, ``kernels.search.search_nb`` for a search player,
whose candidates come back with their estimated values.

>>> view = {
...     "decision": "discard",
...     "hand": "AS 2S 3S 4H 4D 4C 9H TH JH QS KD",
...     "taken": "KD",
...     "taken_from_pile": False,
...     "pile": "7C",
...     "stock_left": 30,
...     "opp_turns": 0,
...     "own_turns": 1,
...     "dealer": "opponent",
... }
>>> decide(view, "hollywood", "simple").action
'knock KD'
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from gin_sim.game.cards import (
    FULL_DECK,
    N_CARDS,
    cards_of,
    format_card,
    format_cards,
    parse_card_list,
)
from gin_sim.game.config import shown
from gin_sim.game.environment import check_environment
from gin_sim.game.hollywood import HollywoodScore
from gin_sim.game.limits import check_index, check_seed
from gin_sim.game.match_start import FORMATS, N_GAMES, MatchStart, parse_start, score_text
from gin_sim.game.rng import GOLDEN_GAMMA, MASK64, player_stream_state
from gin_sim.game.rules import Rules, load_rules
from gin_sim.kernels.enums import (
    ACTION_BIG_GIN,
    ACTION_CARD,
    ACTION_KNOCK,
    N_POSITION_MASKS,
    N_POSITION_SLOTS,
    Phase,
    PositionMask,
    PositionSlot,
    StrategyKind,
    StrategyParam,
)
from gin_sim.kernels.position import family_action_nb
from gin_sim.kernels.search import (
    MEMORY_KNOWN,
    forget_nb,
    new_hand_nb,
    prior_nb,
    search_nb,
    search_scratch_nb,
)
from gin_sim.players.calibration import load_undercut_table
from gin_sim.players.search_value import NO_TABLES, searcher_table
from gin_sim.players.strategies import Strategy, load_strategy

__all__ = [
    "Candidate",
    "Decider",
    "Decision",
    "action_words",
    "candidate_table",
    "decide",
    "interval95",
    "max_draws",
    "max_turns",
    "parse_view",
    "position_from_view",
    "score_field",
    "stream_state",
    "view_of_position",
]

PHASES = {"offer": Phase.OFFER, "draw": Phase.DRAW, "discard": Phase.DISCARD}
HAND_SIZE = 10
STOCK_AFTER_DEAL = 31  # R6: 52 cards less two hands of 10 and the upcard
# Numbers a player draws from its stream at most in one turn: the random strategy's take,
# big gin, discard and knock (docs/engine.md); a search player draws one per decision.
DRAWS_PER_TURN = 4
Z95 = 1.959963984540054  # the 97.5% point of the normal distribution
# Every field of a view: (required, what it is); docs/strategies.md repeats this list.
VIEW_FIELDS = {
    "decision": (True, '"offer", "draw" or "discard"'),
    "hand": (True, "your cards: 10, or 11 when deciding a discard"),
    "pile": (True, "the discard pile, bottom first (top last)"),
    "stock_left": (True, "cards in the stock"),
    "dealer": (True, '"me" or "opponent"'),
    "opp_turns": (False, "turns the opponent has played (default 0)"),
    "own_turns": (False, "turns you have played, this one included (default 0)"),
    "pile_takes": (False, "cards taken from the discard pile so far by both (R18a, default 0)"),
    "opp_taken": (False, "cards the opponent took from the pile and still holds"),
    "opp_passed": (False, "cards the opponent showed no interest in"),
    "own_taken": (False, "cards you took from the pile and still hold"),
    "own_passed": (False, "cards you showed no interest in"),
    "knock_limit": (False, "this hand's knock limit (default: the rule set's)"),
    "taken": (False, "discard decisions: the card you just took (optional after a stock draw)"),
    "taken_from_pile": (False, "discard decisions: whether it came from the discard pile"),
    "score": (
        False,
        'the score before this hand, yours first: {"format": "game" or "hollywood", "columns": "80:40" or "80:40,30:0,0:0"} (default: a plain hand, no score)',
    ),
}
SCORE_KEYS = ("format", "columns")


@dataclass(frozen=True)
class View:
    """A parsed and checked view (card sets as masks, the pile as a list, bottom first)."""

    phase: int
    hand: int
    pile: tuple[int, ...]
    stock_left: int
    i_deal: bool
    opp_turns: int
    own_turns: int
    pile_takes: int
    opp_taken: int
    opp_passed: int
    own_taken: int
    own_passed: int
    knock_limit: int
    taken: int  # -1 before a take, or after a stock draw when the view does not name it
    taken_from_pile: bool
    # The score before the hand, the deciding player as player 0 (first); None: a plain hand.
    score: MatchStart | None = None

    @property
    def unseen(self) -> int:
        """Cards in the stock or hidden in the opponent's hand."""
        pile = sum(1 << c for c in self.pile)
        return FULL_DECK & ~self.hand & ~pile & ~self.opp_taken


@dataclass(frozen=True)
class Candidate:
    """One action a search compared: its mean hand value over the worlds (points from the
    searcher's side), the 95% interval of that mean, and its mean gain over the first
    candidate (the rollout strategy's own choice) in the same worlds."""

    action: str
    mean: float
    low: float
    high: float
    gain: float


@dataclass(frozen=True)
class Decision:
    """A decision: ``take`` at an offer or a draw (True: take the pile's top), else
    ``discard`` (a card string) and ``knock``, or ``big_gin``. ``action`` says it in
    words (``take``, ``decline``, ``draw``, ``discard 7H``, ``knock 7H``, ``big gin``).
    For a search player that searched: ``candidates`` in the search's order and the
    number of ``worlds`` their figures are over (with screening, the worlds after it);
    ``chosen`` indexes the candidate taken; ``drawn`` the random numbers it used."""

    action: str
    take: bool | None = None
    discard: str | None = None
    knock: bool = False
    big_gin: bool = False
    candidates: tuple[Candidate, ...] = ()
    worlds: int = 0
    chosen: int = 0
    # Numbers this decision drew from the player's random stream: the next decision of a
    # simulated hand reads it from ``draws + drawn`` on (0 for a deterministic strategy).
    drawn: int = 0


def interval95(total: float, squares: float, n: int) -> tuple[float, float, float]:
    """Mean and 95% interval (normal, sample standard deviation) from a sum and a sum of
    squares over ``n`` values; with fewer than 2 values the interval is unknown (nan)."""
    mean = total / n
    if n < 2:
        return mean, math.nan, math.nan
    half = Z95 * math.sqrt(max((squares - n * mean * mean) / (n - 1), 0.0) / n)
    return mean, mean - half, mean + half


def candidate_table(candidates: tuple[Candidate, ...], chosen: int, indent: int = 6) -> list[str]:
    """A compact table of a search's candidates, the chosen one marked with ``*``."""
    pad = " " * indent
    lines = [f"{pad}  {'candidate':<14}{'mean':>7}  {'95% interval':<17}{'gain':>7}"]
    for i, c in enumerate(candidates):
        interval = "n/a" if math.isnan(c.low) else f"[{c.low:6.1f}, {c.high:6.1f}]"
        mark = "*" if i == chosen else " "
        lines.append(f"{pad}{mark} {c.action:<14}{c.mean:7.1f}  {interval:<17}{c.gain:7.1f}")
    return lines


# ------------------------------------------------------------------------- the view
def _fail(message: str) -> None:
    raise ValueError(message)


def _check_seat(seat: Any) -> int:
    """A seat: 0 or 1 (a whole number: True is not a seat), else a ``ValueError``."""
    if type(seat) is not int or seat not in (0, 1):
        raise ValueError(f"seat = {shown(seat)}: allowed 0 or 1")
    return seat


def _cards(document: Mapping[str, Any], key: str) -> list[int]:
    value = document.get(key, "")
    if isinstance(value, str):
        text = value
    elif isinstance(value, list | tuple) and all(isinstance(c, str) for c in value):
        text = " ".join(value)
    else:
        raise ValueError(
            f"view field {key!r}: expected card strings such as '7H', got {shown(value)}"
        )
    try:
        return parse_card_list(text)
    except ValueError as error:
        raise ValueError(f"view field {key!r}: {error}") from None


def _count(document: Mapping[str, Any], key: str, low: int, high: int, default: int = 0) -> int:
    value = document.get(key, default)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        _fail(f"view field {key!r} = {shown(value)}: allowed a whole number {low} to {high}")
    return value


def _mask(cards: list[int]) -> int:
    return sum(1 << c for c in cards)


def parse_score(value: Any, rules: Rules) -> MatchStart:
    """A view's ``score`` field: ``{"format": "game" or "hollywood", "columns": TEXT}``,
    the columns written as ``match --start`` writes them (``match_start.parse_start``)
    but with the deciding player's score first."""
    if not isinstance(value, Mapping) or set(value) != set(SCORE_KEYS):
        _fail(
            f'view field \'score\' = {shown(value)}: allowed {{"format": "game" or "hollywood", "columns": "80:40" or "80:40,30:0,0:0"}}, your score first'
        )
    game_format, columns = value["format"], value["columns"]
    if not isinstance(game_format, str) or game_format not in FORMATS:
        _fail(f"view field 'score': format {shown(game_format)}: allowed 'game' or 'hollywood'")
    if not isinstance(columns, str):
        _fail(f"view field 'score': columns {shown(columns)}: allowed text such as '80:40'")
    where = (
        f"view field 'score': columns {score_text(repr(columns))} (yours first: you are player 1)"
    )
    return parse_start(columns, game_format, rules=rules, where=where)


def score_field(score: HollywoodScore, player: int) -> dict[str, str]:
    """The view's ``score`` field of ``player`` for a kept score: its columns from its side,
    each with its hand count (entries of 0 points, R19)."""
    columns = ",".join(
        f"{score.totals[player][g]}/{score.boxes[player][g]}:"
        f"{score.totals[1 - player][g]}/{score.boxes[1 - player][g]}"
        for g in range(score.games)
    )
    return {"format": "hollywood" if score.games == N_GAMES else "game", "columns": columns}


def parse_view(document: Mapping[str, Any], rules: Rules) -> View:
    """Check a view given as plain data (docs/strategies.md, "Decisions from outside")."""
    if not isinstance(rules, Rules):
        raise TypeError(
            f"rules = {shown(rules)}: parse_view takes a gin_sim.Rules (load_rules(name) makes one)"
        )
    if not isinstance(document, Mapping):
        _fail(f"a view is a mapping of field names to values, got {type(document).__name__}")
    for key in document:
        if key not in VIEW_FIELDS:
            _fail(f"unknown view field {shown(key)}: allowed {', '.join(VIEW_FIELDS)}")
    for key, (required, _) in VIEW_FIELDS.items():
        if required and key not in document:
            _fail(f"view field {key!r} is missing: {VIEW_FIELDS[key][1]}")
    decision = document["decision"]
    if not isinstance(decision, str) or decision not in PHASES:
        _fail(f"view field 'decision' = {shown(decision)}: allowed 'offer', 'draw' or 'discard'")
    phase = PHASES[decision]
    dealer = document["dealer"]
    if not isinstance(dealer, str) or dealer not in ("me", "opponent"):
        _fail(f"view field 'dealer' = {shown(dealer)}: allowed 'me' or 'opponent'")
    hand_cards = _cards(document, "hand")
    size = 11 if phase == Phase.DISCARD else HAND_SIZE
    if len(hand_cards) != size:
        _fail(f"view field 'hand' has {len(hand_cards)} cards: a {decision} decision needs {size}")
    hand = _mask(hand_cards)
    pile = _cards(document, "pile")
    opp_taken = _mask(_cards(document, "opp_taken"))
    opp_passed = _mask(_cards(document, "opp_passed"))
    own_taken = _mask(_cards(document, "own_taken"))
    own_passed = _mask(_cards(document, "own_passed"))
    for name, cards in (("pile", _mask(pile)), ("opp_taken", opp_taken)):
        if hand & cards:
            _fail(f"view fields 'hand' and {name!r} share {format_cards(hand & cards)}")
    if _mask(pile) & opp_taken:
        _fail(f"view fields 'pile' and 'opp_taken' share {format_cards(_mask(pile) & opp_taken)}")
    if opp_taken.bit_count() > HAND_SIZE:
        _fail(f"view field 'opp_taken' has {opp_taken.bit_count()} cards: at most {HAND_SIZE}")
    if own_taken & ~hand:
        _fail(f"view field 'own_taken': {format_cards(own_taken & ~hand)} not in your hand")
    stock_left = _count(document, "stock_left", 0, 31)
    expected = N_CARDS - size - len(pile) - HAND_SIZE
    if stock_left != expected:
        _fail(
            f"view field 'stock_left' = {stock_left}: your {size} cards, the pile's {len(pile)} and the opponent's {HAND_SIZE} leave {expected} of the 52"
        )
    if stock_left < rules.wall + (phase != Phase.DISCARD):
        _fail(f"view field 'stock_left' = {stock_left}: the hand ended at the wall (R18)")
    limit_default = None if rules.oklahoma else rules.knock_limit
    if "knock_limit" not in document and limit_default is None:
        _fail("view field 'knock_limit' is missing: under Oklahoma (R14a) the upcard sets it")
    knock_limit = _count(document, "knock_limit", 0, 10, limit_default or 0)
    cap = rules.max_upcard_takes
    # Every turn takes a card from the stock (until the wall) or from the pile (up to the
    # cap), so no hand of these rules has more turns than this.
    most_turns = max_turns(rules)
    opp_turns = _count(document, "opp_turns", 0, most_turns)
    own_turns = _count(document, "own_turns", 0, most_turns)
    pile_takes = _count(document, "pile_takes", 0, cap if phase == Phase.DISCARD else cap - 1)
    drawn = 31 - stock_left  # every turn takes one card from the stock or from the pile
    if opp_turns + own_turns != drawn + pile_takes:
        _fail(
            f"view fields 'own_turns' + 'opp_turns' = {own_turns + opp_turns}: with {drawn} cards drawn from the stock and {pile_takes} pile takes there were {drawn + pile_takes} turns"
        )
    if phase == Phase.DISCARD:
        lead = own_turns - opp_turns
        if own_turns < 1 or lead not in (0, 1):
            _fail(
                f"view fields 'own_turns' = {own_turns}, 'opp_turns' = {opp_turns}: when you discard you have played this turn and the turns alternate"
            )
    elif opp_turns - own_turns not in (0, 1):
        _fail(
            f"view fields 'own_turns' = {own_turns}, 'opp_turns' = {opp_turns}: the turns alternate"
        )
    if phase == Phase.OFFER:
        if len(pile) != 1:
            _fail(f"view field 'pile' has {len(pile)} cards: at the offer it is the upcard alone")
        declined = _mask(pile) if dealer == "me" else 0  # R8: the non-dealer declined it
        if opp_passed != declined or opp_taken or own_taken or own_passed:
            _fail(
                "at the offer only the upcard can have been passed, by the non-dealer when you deal"
            )
    elif not pile and phase == Phase.DRAW:
        _fail("view field 'pile' is empty: at a draw the opponent's discard is on it")
    taken, from_pile = -1, False
    if phase == Phase.DISCARD:
        if "taken_from_pile" not in document:
            _fail("view field 'taken_from_pile' is missing: a discard decision needs it")
        from_pile = document["taken_from_pile"]
        if not isinstance(from_pile, bool):
            _fail(f"view field 'taken_from_pile' = {shown(from_pile)}: allowed true or false")
        # After a stock draw nothing reads the card (R11 forbids only the pile's card), so
        # a host that cannot name it may leave it out.
        if from_pile and "taken" not in document:
            _fail("view field 'taken' is missing: after a take from the pile it is that card")
        if "taken" in document:
            taken_cards = _cards(document, "taken")
            if len(taken_cards) != 1 or not hand >> taken_cards[0] & 1:
                _fail(f"view field 'taken' = {shown(document['taken'])}: one card of your hand")
            taken = taken_cards[0]
        if from_pile:
            own_taken |= 1 << taken  # it is known to be in your hand (docs/strategies.md)
            if pile_takes < 1:
                _fail("view field 'pile_takes' = 0, but you just took from the pile")
    else:
        for key in ("taken", "taken_from_pile"):
            if key in document:
                _fail(f"view field {key!r}: only a discard decision has a card just taken")
    return View(
        phase=phase,
        hand=hand,
        pile=tuple(pile),
        stock_left=stock_left,
        i_deal=dealer == "me",
        opp_turns=opp_turns,
        own_turns=own_turns,
        pile_takes=pile_takes,
        opp_taken=opp_taken,
        opp_passed=opp_passed,
        own_taken=own_taken,
        own_passed=own_passed,
        knock_limit=knock_limit,
        taken=taken,
        taken_from_pile=from_pile,
        score=parse_score(document["score"], rules) if "score" in document else None,
    )


def view_of_position(masks: np.ndarray, state: np.ndarray) -> dict[str, Any]:
    """The plain-data view (what ``decide`` takes) of the player to move at a kernel
    position: only what that player may know (docs/strategies.md, "What a player knows").
    Anything but a position the kernels could hold is a ``ValueError``."""
    M, S = PositionMask, PositionSlot
    masks, state = _checked_position(masks, state)
    me = int(state[S.PLAYER])
    opponent = 1 - me
    phase = int(state[S.PHASE])
    pile = [int(c) for c in state[S.PILE : S.PILE + int(state[S.PILE_SIZE])]]
    document: dict[str, Any] = {
        "decision": next(name for name, value in PHASES.items() if value == phase),
        "hand": format_cards(int(masks[M.HAND + me])),
        "pile": format_cards(pile),
        "stock_left": N_CARDS - int(state[S.STOCK_POS]),
        "dealer": "me" if int(state[S.DEALER]) == me else "opponent",
        "opp_turns": int(state[S.TURNS_BY + opponent]),
        "own_turns": int(state[S.TURNS_BY + me]),
        "pile_takes": int(state[S.TAKES]),
        "opp_taken": format_cards(int(masks[M.TAKEN + opponent])),
        "opp_passed": format_cards(int(masks[M.PASSED + opponent])),
        "own_taken": format_cards(int(masks[M.TAKEN + me])),
        "own_passed": format_cards(int(masks[M.PASSED + me])),
        "knock_limit": int(state[S.LIMIT]),
    }
    if phase == Phase.DISCARD:
        document["taken"] = format_card(int(state[S.TAKEN_CARD]))
        document["taken_from_pile"] = bool(state[S.FROM_PILE])
    return document


def _checked_position(masks: Any, state: Any) -> tuple[np.ndarray, np.ndarray]:
    """``masks`` and ``state`` as a kernel position's arrays, or a ``ValueError`` naming
    what is not: their shapes and types, the phase, the players, the pile, the stock."""
    S = PositionSlot
    try:
        masks = np.asarray(masks)
        state = np.asarray(state)
    except (TypeError, ValueError) as error:
        raise ValueError(f"a position is two arrays, masks and state: {error}") from None
    for name, array, size in (
        ("masks", masks, N_POSITION_MASKS),
        ("state", state, N_POSITION_SLOTS),
    ):
        if array.shape != (size,) or array.dtype.kind not in "iu":
            raise ValueError(
                f"{name}: a position's {name} is a whole-number array of shape ({size},), got {array.dtype} {array.shape}"
            )
    masks = masks.astype(np.uint64, copy=False)
    state = state.astype(np.int64, copy=False)
    checks = (
        ("phase", int(state[S.PHASE]) in PHASES.values()),
        ("player", int(state[S.PLAYER]) in (0, 1)),
        ("dealer", int(state[S.DEALER]) in (0, 1)),
        ("pile size", 0 <= int(state[S.PILE_SIZE]) <= N_CARDS),
        ("stock position", 0 <= int(state[S.STOCK_POS]) <= N_CARDS),
    )
    for name, fine in checks:
        if not fine:
            raise ValueError(f"state: the {name} is not that of a position the kernels hold")
    pile = state[S.PILE : S.PILE + int(state[S.PILE_SIZE])]
    if ((pile < 0) | (pile >= N_CARDS)).any():
        raise ValueError("state: the pile holds numbers that are not cards (0 to 51)")
    if int(state[S.PHASE]) == Phase.DISCARD and not 0 <= int(state[S.TAKEN_CARD]) < N_CARDS:
        raise ValueError("state: a discard decision's card just taken is not a card (0 to 51)")
    if any(int(masks[i]) >> N_CARDS for i in range(N_POSITION_MASKS)):
        raise ValueError("masks: a card set holds bits beyond the 52 cards")
    return masks, state


def position_from_view(
    view: View, seat: int = 0, fill: list[int] | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """A kernel position (masks, state) where player ``seat`` decides as ``view`` says.

    The cards hidden from the player (the opponent's, other than those it took from the
    pile, and the stock) are ``fill`` (by default the unseen cards in increasing order):
    the opponent's first, then the stock from the top. No decision reads them."""
    if not isinstance(view, View):
        raise TypeError(f"view = {shown(view)}: position_from_view takes a View (parse_view)")
    M, S = PositionMask, PositionSlot
    me, opponent = _check_seat(seat), 1 - seat
    unseen = cards_of(view.unseen)
    if fill is None:
        fill = unseen
    if sorted(fill) != unseen:
        raise ValueError("fill must be the unseen cards in some order")
    hidden = HAND_SIZE - view.opp_taken.bit_count()
    masks = np.zeros(N_POSITION_MASKS, np.uint64)
    state = np.zeros(N_POSITION_SLOTS, np.int64)
    masks[M.HAND + me] = view.hand
    masks[M.HAND + opponent] = view.opp_taken | _mask(fill[:hidden])
    masks[M.TAKEN + me] = view.own_taken
    masks[M.TAKEN + opponent] = view.opp_taken
    masks[M.PASSED + me] = view.own_passed
    masks[M.PASSED + opponent] = view.opp_passed
    masks[M.PILE] = _mask(list(view.pile))
    stock_pos = N_CARDS - view.stock_left
    state[S.PHASE] = view.phase
    state[S.PLAYER] = me
    state[S.DEALER] = me if view.i_deal else opponent
    state[S.STOCK_POS] = stock_pos
    state[S.PILE_SIZE] = len(view.pile)
    state[S.PILE : S.PILE + len(view.pile)] = view.pile
    state[S.TAKEN_CARD] = view.taken
    state[S.FROM_PILE] = int(view.taken_from_pile)
    state[S.TAKES] = view.pile_takes
    state[S.TURNS] = view.own_turns + view.opp_turns
    state[S.TURNS_BY + me] = view.own_turns
    state[S.TURNS_BY + opponent] = view.opp_turns
    state[S.FIRST_TAKER] = -1  # read by the record only
    state[S.LIMIT] = view.knock_limit
    state[S.KNOCKER] = -1
    state[S.DECK : S.DECK + stock_pos] = -1  # dealt before the stock's top: unknown
    state[S.DECK + stock_pos : S.DECK + N_CARDS] = fill[hidden:]
    if view.score is not None:  # as kernels.position.set_score_nb writes it in a match
        state[S.SCORE_GAMES] = view.score.games
        for player, side in ((me, 0), (opponent, 1)):
            for game in range(N_GAMES):
                state[S.SCORE_POINTS + 3 * player + game] = view.score.points[side][game]
                state[S.SCORE_ENTERED + 3 * player + game] = view.score.boxes[side][game] > 0
    return masks, state


def max_turns(rules: Rules) -> int:
    """The most turns a hand of ``rules`` can have: each takes a card from the stock, which
    ends at the wall (R18), or from the discard pile, at most ``max_upcard_takes`` times (R18a)."""
    return STOCK_AFTER_DEAL - rules.wall + rules.max_upcard_takes


def max_draws(rules: Rules) -> int:
    """The most numbers a player draws from its stream in one hand of ``rules``: at the
    offer and in each of its turns (at most every turn of the hand)."""
    return 1 + DRAWS_PER_TURN * max_turns(rules)


def stream_state(seed: int, deal: int = 0, seat: int = 0, draws: int = 0) -> int:
    """The deciding player's random stream: the stream of player ``seat`` in deal ``deal``
    of ``seed`` (docs/engine.md), after ``draws`` numbers were drawn from it."""
    return (player_stream_state(seed, deal, seat) + draws * GOLDEN_GAMMA) & MASK64


# The stream's state moves by GOLDEN_GAMMA a number (a Weyl sequence, docs/engine.md), and
# the gamma is odd, so the count of numbers drawn is the state's step times its inverse.
_GAMMA_INVERSE = pow(GOLDEN_GAMMA, -1, 1 << 64)


def _drawn(before: int, after: np.uint64) -> int:
    return ((int(after) - before) * _GAMMA_INVERSE) & MASK64


def action_words(action: int, phase: int) -> str:
    """A kernel action in words: ``take``, ``decline``, ``draw``, ``discard 7H``,
    ``knock 7H``, ``big gin`` (``phase`` is the ``Phase`` it is taken in)."""
    return _describe(action, phase).action


def _describe(action: int, phase: int) -> Decision:
    if phase != Phase.DISCARD:
        words = "take" if action else ("decline" if phase == Phase.OFFER else "draw")
        return Decision(action=words, take=bool(action))
    if action == ACTION_BIG_GIN:
        return Decision(action="big gin", big_gin=True)
    card = format_card(action & ACTION_CARD)
    knock = bool(action & ACTION_KNOCK)
    return Decision(action=f"{'knock' if knock else 'discard'} {card}", discard=card, knock=knock)


def _check_kinds(rules: Any, strategy: Any) -> None:
    """What ``decide`` and ``Decider`` accept as a rule set and a strategy."""
    if not isinstance(rules, str | Path | Rules):
        raise ValueError(
            f"rules = {shown(rules)}: allowed a rule set's name, a TOML path or a gin_sim.Rules"
        )
    if not isinstance(strategy, str | Path | Strategy):
        raise ValueError(
            f"strategy = {shown(strategy)}: allowed a strategy's name, a TOML path or a gin_sim.Strategy"
        )


class Decider:
    """A strategy prepared once for a rule set: its kernel vector (with its rollout and
    opponent-model policies, whose TOML files are read here and not again), the rule
    set's vector and the undercut table. ``decide`` is then the kernels' work alone: a
    family decision costs a few tens of microseconds, a search about the search itself.

    >>> decider = Decider("simple", "hollywood")
    >>> view = {"decision": "draw", "hand": "AS 2S 3S 4H 4D 4C 9H TH JH QS",
    ...         "pile": "7C 4S", "stock_left": 30, "opp_turns": 1, "dealer": "me"}
    >>> decider.decide(view).action, decider.decide(view | {"pile": "7C 5D"}).action
    ('take', 'draw')
    """

    def __init__(
        self, strategy: str | Path | Strategy = "mc", rules: str | Path | Rules = "hollywood"
    ):
        check_environment()
        _check_kinds(rules, strategy)
        self.rules = load_rules(rules)
        self.strategy = load_strategy(strategy).for_rules(self.rules)
        self.searches = self.strategy.kind == "mc"
        self._params = self.strategy.to_kernel(self.rules)
        self._kernel_rules = self.rules.to_kernel()
        self._undercut = load_undercut_table()
        self._most_draws = max_draws(self.rules)
        self._equity: np.ndarray | None = None  # a score-aware searcher's, made when first needed

    def decide(
        self,
        view: Mapping[str, Any],
        seed: int = 0,
        *,
        deal: int = 0,
        seat: int = 0,
        draws: int = 0,
        memory: OpponentMemory | None = None,
    ) -> Decision:
        """The decision for ``view``; ``seed``, ``deal``, ``seat`` and ``draws`` place the
        random stream as ``gin_sim.players.decide`` says. Bad input is a ``ValueError``.

        ``memory``: what a search player with an opponent panel keeps between its
        decisions (``OpponentMemory``): give the same one for every decision of a player
        in a game, and its posterior learns from the opponent's turns as in a simulated
        hand. Without it every view starts from the prior."""
        _check_seat(seat)
        if memory is not None and not isinstance(memory, OpponentMemory):
            raise TypeError(
                f"memory = {shown(memory)}: allowed an OpponentMemory (Decider.memory() makes one) or None"
            )
        check_seed(seed)
        check_index(deal, "deal")  # as simulate --deals bounds a run
        if (
            isinstance(draws, bool)
            or not isinstance(draws, int)
            or not 0 <= draws <= self._most_draws
        ):
            raise ValueError(
                f"draws = {shown(draws)}: allowed a whole number 0 to {self._most_draws:,} (the most a player draws in one hand of rules {self.rules.name!r})"
            )
        parsed = parse_view(view, self.rules)
        masks, state = position_from_view(parsed, seat)
        search = None
        if memory is not None:
            search = memory.before(self, parsed, seat)
        return self._decision(masks, state, seat, stream_state(seed, deal, seat, draws), search)

    def _decision(
        self,
        masks: np.ndarray,
        state: np.ndarray,
        seat: int,
        stream: int,
        search: tuple | None = None,
    ) -> Decision:
        equity = self.equity() if state[PositionSlot.SCORE_GAMES] else NO_TABLES
        return _kernel_decision(
            self._params,
            self.rules,
            masks,
            state,
            seat,
            stream,
            self._kernel_rules,
            self._undercut,
            equity,
            search,
        )

    def memory(self) -> OpponentMemory:
        """A new ``OpponentMemory`` for one player's decisions through this Decider."""
        return OpponentMemory(self)

    def equity(self) -> np.ndarray:
        """The kernels' ``equity`` argument for this strategy, as a match gives it
        (``search_value.equity_tables``): its value vector in both seats' rows (it reads
        its own seat's), or ``NO_TABLES`` when it reads none. Made once per Decider (the
        tables take about a second, and once per process)."""
        if self._equity is None:
            table = searcher_table(self.strategy, self.rules)
            self._equity = NO_TABLES if table is None else np.stack([table, table])
        return self._equity


class OpponentMemory:
    """What a search player keeps between its decisions in a game: its opponent panel's
    posterior and its last discard (docs/strategies.md, "Opponent panel"), the kernels'
    memory row of a search scratch that lives as long as this object.

    A new hand is seen by the view (an offer after any decision, or more cards in the
    stock than at the last decision: the stock only shrinks within a hand); then the
    player forgets its last discard, and its posterior too unless it keeps it across hands
    (``panel_memory = "match"``), as in a simulated match. ``new_hand`` and ``forget``
    say it outright (a new deal; a new opponent). A player without a panel remembers
    nothing: its decisions are the same with or without a memory.
    """

    def __init__(self, decider: Decider) -> None:
        if not isinstance(decider, Decider):
            raise TypeError(
                f"OpponentMemory({shown(decider)}): it takes the Decider whose decisions it serves (Decider(strategy, rules).memory() makes one)"
            )
        self._decider = decider
        self._search = search_scratch_nb()
        # new_hand_nb reads the seat's panel_memory from a strategies matrix: this player's
        # vector in both rows, whichever seat it plays.
        self._strategies = np.stack([decider._params, decider._params])
        self._last_stock: int | None = None
        self._seat = 0  # the seat of the last decision

    def new_hand(self) -> None:
        new_hand_nb(self._search, self._strategies)
        self._last_stock = None

    def forget(self) -> None:
        forget_nb(self._search)
        self._last_stock = None

    @property
    def posterior(self) -> dict[str, float]:
        """The posterior over the panel by model name (the prior before any decision;
        empty without a panel), from the seat this memory last decided for."""
        panel = self._decider.strategy.opponent_panel
        row = self._search[17][self._seat]
        if not panel:
            return {}
        if row[MEMORY_KNOWN] == 0.0:  # no search since it was forgotten: the prior
            row = row.copy()
            prior_nb(self._decider._params, len(panel), row)  # as the next search takes it
        return {name: float(row[m]) for m, name in enumerate(panel)}

    def belongs_to(self, decider: Decider) -> bool:
        return decider is self._decider

    def before(self, decider: Decider, view: View, seat: int) -> tuple:
        """The search scratch for ``decider``'s decision at ``view``, after a new hand has
        been taken into account."""
        if decider is not self._decider:
            raise ValueError("an OpponentMemory belongs to the Decider that made it")
        _check_seat(seat)
        new_deal = self._last_stock is not None and (
            view.phase == Phase.OFFER or view.stock_left > self._last_stock
        )
        if new_deal:
            new_hand_nb(self._search, self._strategies)
        self._last_stock = view.stock_left
        self._seat = seat
        return self._search


@functools.lru_cache(maxsize=64)
def _prepared(strategy: Strategy, rules: Rules) -> Decider:
    return Decider(strategy, rules)


def decide(
    view: Mapping[str, Any],
    rules: str | Rules = "hollywood",
    strategy: str | Strategy = "mc",
    seed: int = 0,
    *,
    deal: int = 0,
    seat: int = 0,
    draws: int = 0,
) -> Decision:
    """The decision of ``strategy`` (a name, a TOML path or a ``Strategy``) under ``rules``
    for the player whose ``view`` is given (docs/strategies.md, "Decisions from outside").

    A search player (and ``random``) draws from the random stream of player ``seat`` in
    deal ``deal`` of ``seed`` after ``draws`` numbers (``stream_state``): with the
    values of a simulated hand (an mc player draws one number per searched decision)
    the decision is the one that player made there. Bad input is a ``ValueError``.

    A strategy is prepared (``Decider``) once per process for each strategy and rule set
    it is given as: a name or a path is read again on every call, its rollout and
    opponent-model strategies are not. Many calls with one strategy are fastest through a
    ``Decider`` of one's own.
    """
    check_environment()
    _check_seat(seat)
    _check_kinds(rules, strategy)
    check_seed(seed)
    check_index(deal, "deal")
    decider = _prepared(load_strategy(strategy), load_rules(rules))
    return decider.decide(view, seed, deal=deal, seat=seat, draws=draws)


def _kernel_decision(
    params: np.ndarray,
    rules: Rules,
    masks: np.ndarray,
    state: np.ndarray,
    seat: int,
    stream: int,
    kernel_rules: np.ndarray | None = None,
    table: np.ndarray | None = None,
    equity: np.ndarray = NO_TABLES,
    search: tuple | None = None,
) -> Decision:
    """The kernels' decision of player ``seat`` (strategy vector ``params``) at a position
    (masks, state), its random stream at ``stream``; ``kernel_rules`` and ``table``, when
    given, are ``rules.to_kernel()`` and the undercut table, prepared once; ``equity`` the
    value vectors of a score-aware searcher (``Decider.equity``); ``search`` a search
    scratch whose opponent memory carries over (``OpponentMemory``), None: a new one."""
    kernel_rules = rules.to_kernel() if kernel_rules is None else kernel_rules
    table = load_undercut_table() if table is None else table
    streams = np.zeros(2, np.uint64)
    streams[seat] = stream
    phase = int(state[PositionSlot.PHASE])
    with np.errstate(over="ignore"):
        if params[StrategyParam.KIND] != StrategyKind.MC:
            action = family_action_nb(params, masks, state, kernel_rules, table, streams, seat)
            return replace(_describe(int(action), phase), drawn=_drawn(stream, streams[seat]))
        search = search_scratch_nb() if search is None else search
        action = search_nb(params, masks, state, kernel_rules, table, equity, streams, seat, search)
    decision = replace(_describe(int(action), phase), drawn=_drawn(stream, streams[seat]))
    n, worlds = int(search[13][0]), int(search[13][1])
    if worlds == 0:  # one candidate: nothing searched
        return decision
    candidates = []
    for c in range(n):
        mean, low, high = interval95(float(search[6][c]), float(search[7][c]), worlds)
        words = _describe(int(search[5][c]), phase).action
        candidates.append(Candidate(words, mean, low, high, float(search[14][c]) / worlds))
    chosen = [int(a) for a in search[5][:n]].index(int(action))
    return Decision(
        **{**decision.__dict__, "candidates": tuple(candidates), "worlds": worlds, "chosen": chosen}
    )
