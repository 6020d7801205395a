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
from gin_sim.game.melds import min_deadwood_exhaustive
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
    showdown_update_nb,
)
from gin_sim.players.calibration import load_undercut_table
from gin_sim.players.search_value import NO_TABLES, searcher_table
from gin_sim.players.strategies import Strategy, load_strategy

__all__ = [
    "Candidate",
    "Decider",
    "Decision",
    "HandEnd",
    "OpponentMemory",
    "action_words",
    "candidate_table",
    "decide",
    "hand_end_of_position",
    "interval95",
    "max_decisions",
    "max_draws",
    "max_turns",
    "parse_hand_end",
    "parse_view",
    "position_from_end",
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
    ``chosen`` indexes the candidate taken; ``drawn`` the random numbers it used. With
    screening, ``screened_out`` are the candidates it dropped, in the search's order, with
    their figures over the ``screen_worlds`` screening worlds (why they went)."""

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
    screened_out: tuple[Candidate, ...] = ()
    screen_worlds: int = 0


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
    stock_pos = _set_public(masks, state, view, me)
    state[S.PHASE] = view.phase
    state[S.PLAYER] = me
    state[S.KNOCKER] = -1
    state[S.DECK : S.DECK + stock_pos] = -1  # dealt before the stock's top: unknown
    state[S.DECK + stock_pos : S.DECK + N_CARDS] = fill[hidden:]
    _set_score(state, view.score, me)
    return masks, state


def _set_score(state: np.ndarray, score: MatchStart | None, me: int) -> None:
    """The score before the hand (``me``'s first) into a position's score slots, as
    ``kernels.position.set_score_nb`` writes it in a match; None: a plain hand."""
    if score is None:
        return
    S = PositionSlot
    state[S.SCORE_GAMES] = score.games
    for player, side in ((me, 0), (1 - me, 1)):
        for game in range(N_GAMES):
            state[S.SCORE_POINTS + 3 * player + game] = score.points[side][game]
            state[S.SCORE_ENTERED + 3 * player + game] = score.boxes[side][game] > 0


# -------------------------------------------------------------------- the hand's end
# What a host reports when a hand ends (``OpponentMemory.hand_ended``; docs/strategies.md,
# "The end of a hand"): who ended it, the cards the showdown shows and the public facts of
# the position after the last action, named as a view names them, from the side of the
# player whose memory it is. (required, what it is); a drawn hand gives "knocker" alone.
END_FIELDS = {
    "knocker": (True, '"me", "opponent", or "none" when the hand was drawn (R18, R18a)'),
    "big_gin": (False, "true when the knocker declared big gin (R14; default false)"),
    "hand": (True, "your cards at the end: 10, or 11 after your big gin"),
    "opp_hand": (
        True,
        "the opponent's cards shown at the showdown, melded, laid off or not: 10, or 11 after its big gin",
    ),
    "pile": (True, "the discard pile at the end, bottom first (the knock's discard on top)"),
    "stock_left": (True, "cards in the stock"),
    "dealer": (True, '"me" or "opponent"'),
    "taken_from_pile": (True, "whether the knocker took its last card from the discard pile"),
    "taken": (False, "that card (required when it came from the discard pile)"),
    "opp_turns": VIEW_FIELDS["opp_turns"],
    "own_turns": (False, "turns you have played (default 0)"),
    "pile_takes": VIEW_FIELDS["pile_takes"],
    "opp_taken": VIEW_FIELDS["opp_taken"],
    "opp_passed": VIEW_FIELDS["opp_passed"],
    "own_taken": VIEW_FIELDS["own_taken"],
    "own_passed": VIEW_FIELDS["own_passed"],
    "knock_limit": VIEW_FIELDS["knock_limit"],
    "score": VIEW_FIELDS["score"],
}
KNOCKERS = ("me", "opponent", "none")


@dataclass(frozen=True)
class HandEnd:
    """A parsed and checked hand end (``parse_hand_end``): card sets as masks, the pile as
    a list, bottom first. A drawn hand (``knocker`` "none") carries nothing else."""

    knocker: str  # "me", "opponent" or "none"
    big_gin: bool = False
    hand: int = 0
    opp_hand: int = 0
    pile: tuple[int, ...] = ()
    stock_left: int = 0
    i_deal: bool = False
    opp_turns: int = 0
    own_turns: int = 0
    pile_takes: int = 0
    opp_taken: int = 0
    opp_passed: int = 0
    own_taken: int = 0
    own_passed: int = 0
    knock_limit: int = 0
    taken: int = -1  # -1: not named (a draw from the stock)
    taken_from_pile: bool = False
    score: MatchStart | None = None


def _end_fail(message: str) -> None:
    raise ValueError(f"hand end: {message}")


def parse_hand_end(document: Mapping[str, Any], rules: Rules) -> HandEnd:
    """Check a hand's end given as plain data (``END_FIELDS``; docs/strategies.md, "The
    end of a hand"): the cards add up to 52, the knock was one the rules allow (R12 to
    R14), the turns and takes agree. Bad input is a one-line ``ValueError``."""
    if not isinstance(document, Mapping):
        _end_fail(f"a mapping of field names to values, got {type(document).__name__}")
    for key in document:
        if key not in END_FIELDS:
            _end_fail(f"unknown field {shown(key)}: allowed {', '.join(END_FIELDS)}")
    if "knocker" not in document:
        _end_fail(f"field 'knocker' is missing: {END_FIELDS['knocker'][1]}")
    knocker = document["knocker"]
    if not isinstance(knocker, str) or knocker not in KNOCKERS:
        _end_fail(f"field 'knocker' = {shown(knocker)}: allowed 'me', 'opponent' or 'none'")
    if knocker == "none":
        others = [key for key in document if key != "knocker"]
        if others:
            _end_fail(
                f"field {others[0]!r}: a drawn hand (knocker 'none') shows no cards (R18): give 'knocker' alone"
            )
        return HandEnd(knocker="none")
    for key, (required, what) in END_FIELDS.items():
        if required and key not in document:
            _end_fail(f"field {key!r} is missing: {what}")
    try:
        return _parse_knock_end(document, rules, knocker)
    except ValueError as error:
        message = str(error)
        if message.startswith("view field"):  # the helpers shared with views say "view field"
            message = message.replace("view field", "field", 1)
        if not message.startswith("hand end: "):
            message = "hand end: " + message
        raise ValueError(message) from None


def _parse_knock_end(document: Mapping[str, Any], rules: Rules, knocker: str) -> HandEnd:
    big_gin = document.get("big_gin", False)
    if not isinstance(big_gin, bool):
        _end_fail(f"field 'big_gin' = {shown(big_gin)}: allowed true or false")
    if big_gin and rules.big_gin_bonus <= 0:
        _end_fail(f"big gin does not exist under rules {rules.name!r} (R14: big_gin_bonus = 0)")
    dealer = document["dealer"]
    if not isinstance(dealer, str) or dealer not in ("me", "opponent"):
        _end_fail(f"field 'dealer' = {shown(dealer)}: allowed 'me' or 'opponent'")
    hand = _mask(_cards(document, "hand"))
    opp_hand = _mask(_cards(document, "opp_hand"))
    pile = _cards(document, "pile")
    for name, cards, mine in (("hand", hand, "me"), ("opp_hand", opp_hand, "opponent")):
        size = 11 if big_gin and knocker == mine else HAND_SIZE
        if cards.bit_count() != size:
            _end_fail(f"field {name!r} has {cards.bit_count()} cards: {END_FIELDS[name][1]}")
    pile_mask = _mask(pile)
    for (one, a), (other, b) in (
        (("hand", hand), ("opp_hand", opp_hand)),
        (("hand", hand), ("pile", pile_mask)),
        (("opp_hand", opp_hand), ("pile", pile_mask)),
    ):
        if a & b:
            _end_fail(f"fields {one!r} and {other!r} share {format_cards(a & b)}")
    stock_left = _count(document, "stock_left", 0, STOCK_AFTER_DEAL)
    expected = N_CARDS - hand.bit_count() - opp_hand.bit_count() - len(pile)
    if stock_left != expected:
        _end_fail(
            f"field 'stock_left' = {stock_left}: the hands' {hand.bit_count() + opp_hand.bit_count()} cards and the pile's {len(pile)} leave {expected} of the 52"
        )
    if stock_left < rules.wall:
        _end_fail(f"field 'stock_left' = {stock_left}: the hand ended at the wall before (R18)")
    limit_default = None if rules.oklahoma else rules.knock_limit
    if "knock_limit" not in document and limit_default is None:
        _end_fail("field 'knock_limit' is missing: under Oklahoma (R14a) the upcard sets it")
    knock_limit = _count(document, "knock_limit", 0, 10, limit_default or 0)
    knocks = hand if knocker == "me" else opp_hand
    deadwood = min_deadwood_exhaustive(knocks)
    if big_gin and deadwood:
        _end_fail(f"big gin with deadwood {deadwood}: all 11 cards must be in melds (R14)")
    if not big_gin and deadwood > knock_limit:
        _end_fail(f"a knock with deadwood {deadwood}, above the knock limit {knock_limit} (R12)")
    if not big_gin and not pile:
        _end_fail("field 'pile' is empty: the knock's discard lies on it (R12)")
    opp_taken = _mask(_cards(document, "opp_taken"))
    own_taken = _mask(_cards(document, "own_taken"))
    if opp_taken & ~opp_hand:
        _end_fail(f"field 'opp_taken': {format_cards(opp_taken & ~opp_hand)} not in 'opp_hand'")
    if own_taken & ~hand:
        _end_fail(f"field 'own_taken': {format_cards(own_taken & ~hand)} not in 'hand'")
    cap = rules.max_upcard_takes
    most_turns = max_turns(rules)
    opp_turns = _count(document, "opp_turns", 0, most_turns)
    own_turns = _count(document, "own_turns", 0, most_turns)
    pile_takes = _count(document, "pile_takes", 0, cap)
    turns = STOCK_AFTER_DEAL - stock_left + pile_takes
    if own_turns + opp_turns != turns:
        _end_fail(
            f"fields 'own_turns' + 'opp_turns' = {own_turns + opp_turns}: with {STOCK_AFTER_DEAL - stock_left} cards drawn from the stock and {pile_takes} pile takes there were {turns} turns"
        )
    lead = own_turns - opp_turns if knocker == "me" else opp_turns - own_turns
    if lead not in (0, 1) or turns < 1:
        _end_fail(
            f"fields 'own_turns' = {own_turns}, 'opp_turns' = {opp_turns}: the knocker played the last turn and the turns alternate"
        )
    from_pile = document["taken_from_pile"]
    if not isinstance(from_pile, bool):
        _end_fail(f"field 'taken_from_pile' = {shown(from_pile)}: allowed true or false")
    if from_pile and "taken" not in document:
        _end_fail("field 'taken' is missing: the knocker took that card from the pile")
    if from_pile and pile_takes < 1:
        _end_fail("field 'pile_takes' = 0, but the knocker took from the pile")
    taken = -1
    whole = knocks | (0 if big_gin else 1 << pile[-1])  # its 11 cards before the knock
    if "taken" in document:
        taken_cards = _cards(document, "taken")
        if len(taken_cards) != 1 or not whole >> taken_cards[0] & 1:
            _end_fail(
                f"field 'taken' = {shown(document['taken'])}: one of the knocker's cards (its hand and its knock's discard)"
            )
        taken = taken_cards[0]
        if from_pile and not big_gin and taken == pile[-1] and not rules.may_discard_drawn_upcard:
            _end_fail("the knock's discard is the card just taken from the pile (R11)")
    return HandEnd(
        knocker=knocker,
        big_gin=big_gin,
        hand=hand,
        opp_hand=opp_hand,
        pile=tuple(pile),
        stock_left=stock_left,
        i_deal=dealer == "me",
        opp_turns=opp_turns,
        own_turns=own_turns,
        pile_takes=pile_takes,
        opp_taken=opp_taken,
        opp_passed=_mask(_cards(document, "opp_passed")),
        own_taken=own_taken,
        own_passed=_mask(_cards(document, "own_passed")),
        knock_limit=knock_limit,
        taken=taken,
        taken_from_pile=from_pile,
        score=parse_score(document["score"], rules) if "score" in document else None,
    )


def _set_public(masks: np.ndarray, state: np.ndarray, facts: View | HandEnd, me: int) -> int:
    """The table's public facts of a view or a hand end in a kernel position, ``me`` the
    reporting player's seat: cards taken and passed, the pile, the dealer, the counters
    and the knock limit. Returns the stock's position in the deck."""
    M, S = PositionMask, PositionSlot
    opponent = 1 - me
    masks[M.TAKEN + me] = facts.own_taken
    masks[M.TAKEN + opponent] = facts.opp_taken
    masks[M.PASSED + me] = facts.own_passed
    masks[M.PASSED + opponent] = facts.opp_passed
    masks[M.PILE] = _mask(list(facts.pile))
    stock_pos = N_CARDS - facts.stock_left
    state[S.DEALER] = me if facts.i_deal else opponent
    state[S.STOCK_POS] = stock_pos
    state[S.PILE_SIZE] = len(facts.pile)
    state[S.PILE : S.PILE + len(facts.pile)] = facts.pile
    state[S.TAKEN_CARD] = facts.taken
    state[S.FROM_PILE] = int(facts.taken_from_pile)
    state[S.TAKES] = facts.pile_takes
    state[S.TURNS] = facts.own_turns + facts.opp_turns
    state[S.TURNS_BY + me] = facts.own_turns
    state[S.TURNS_BY + opponent] = facts.opp_turns
    state[S.FIRST_TAKER] = -1  # read by the record only
    state[S.LIMIT] = facts.knock_limit
    return stock_pos


def position_from_end(end: HandEnd, seat: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """The kernel position (masks, state) after the knock that ended ``end``'s hand, the
    reporting player in seat ``seat``: as ``kernels.position.apply_nb`` leaves it (phase
    OVER, the knocker's seat in KNOCKER and PLAYER), the stock's unknown order its cards
    in increasing order (nothing after a hand reads it)."""
    if end.knocker == "none":
        raise ValueError("hand end: a drawn hand has no showdown position")
    M, S = PositionMask, PositionSlot
    me, opponent = seat, 1 - seat
    knocker = me if end.knocker == "me" else opponent
    pile = _mask(list(end.pile))
    stock = cards_of(FULL_DECK & ~end.hand & ~end.opp_hand & ~pile)
    masks = np.zeros(N_POSITION_MASKS, np.uint64)
    state = np.zeros(N_POSITION_SLOTS, np.int64)
    masks[M.HAND + me] = end.hand
    masks[M.HAND + opponent] = end.opp_hand
    stock_pos = _set_public(masks, state, end, me)
    state[S.PHASE] = Phase.OVER
    state[S.PLAYER] = knocker
    state[S.KNOCKER] = knocker
    state[S.BIG_GIN] = int(end.big_gin)
    state[S.DECK : S.DECK + stock_pos] = -1
    state[S.DECK + stock_pos : S.DECK + N_CARDS] = stock
    _set_score(state, end.score, me)
    return masks, state


def hand_end_of_position(masks: np.ndarray, state: np.ndarray, seat: int) -> dict[str, Any]:
    """The plain-data hand end (what ``OpponentMemory.hand_ended`` takes) of player
    ``seat`` at a kernel position whose hand is over: what the table shows it then."""
    M, S = PositionMask, PositionSlot
    if int(state[S.PHASE]) != Phase.OVER:
        raise ValueError("hand_end_of_position: the hand is not over")
    knocker = int(state[S.KNOCKER])
    if knocker < 0:
        return {"knocker": "none"}
    me, opponent = seat, 1 - seat
    pile = [int(c) for c in state[S.PILE : S.PILE + int(state[S.PILE_SIZE])]]
    from_pile = bool(state[S.FROM_PILE])
    document: dict[str, Any] = {
        "knocker": "me" if knocker == me else "opponent",
        "hand": format_cards(int(masks[M.HAND + me])),
        "opp_hand": format_cards(int(masks[M.HAND + opponent])),
        "pile": format_cards(pile),
        "stock_left": N_CARDS - int(state[S.STOCK_POS]),
        "dealer": "me" if int(state[S.DEALER]) == me else "opponent",
        "taken_from_pile": from_pile,
        "opp_turns": int(state[S.TURNS_BY + opponent]),
        "own_turns": int(state[S.TURNS_BY + me]),
        "pile_takes": int(state[S.TAKES]),
        "opp_taken": format_cards(int(masks[M.TAKEN + opponent])),
        "opp_passed": format_cards(int(masks[M.PASSED + opponent])),
        "own_taken": format_cards(int(masks[M.TAKEN + me])),
        "own_passed": format_cards(int(masks[M.PASSED + me])),
        "knock_limit": int(state[S.LIMIT]),
    }
    if state[S.BIG_GIN]:
        document["big_gin"] = True
    if from_pile:  # after a stock draw the drawn card is the knocker's secret
        document["taken"] = format_card(int(state[S.TAKEN_CARD]))
    return document


def max_turns(rules: Rules) -> int:
    """The most turns a hand of ``rules`` can have: each takes a card from the stock, which
    ends at the wall (R18), or from the discard pile, at most ``max_upcard_takes`` times (R18a)."""
    return STOCK_AFTER_DEAL - rules.wall + rules.max_upcard_takes


def max_decisions(rules: Rules) -> int:
    """The most decisions a hand of ``rules`` can have: the two upcard offers (R7, R8),
    then at most two a turn (its take, or the offer that took, and its discard or knock)."""
    return 2 + 2 * max_turns(rules)


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
        hand_number: int | None = None,
    ) -> Decision:
        """The decision for ``view``; ``seed``, ``deal``, ``seat`` and ``draws`` place the
        random stream as ``gin_sim.players.decide`` says. Bad input is a ``ValueError``.

        ``memory``: what a search player with an opponent panel keeps between its
        decisions (``OpponentMemory``): give the same one for every decision of a player
        in a game, and its posterior learns from the opponent's turns as in a simulated
        hand; report each hand's end to it (``OpponentMemory.hand_ended``) for what the
        showdown shows. Without it every view starts from the prior. ``hand_number``
        (with a memory only): the hand's number in the game, the same for every decision
        of a hand, another for the next; without it a new hand is guessed from the view."""
        if memory is not None and not isinstance(memory, OpponentMemory):
            raise ValueError(
                f"memory = {shown(memory)}: allowed an OpponentMemory (Decider.memory()) or None"
            )
        if hand_number is not None:
            if memory is None:
                raise ValueError("hand_number tells a memory's hands apart: give it with memory")
            check_index(hand_number, "hand_number")
        _check_seat(seat)
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
            search = memory.before(self, parsed, seat, hand_number)
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


@dataclass(frozen=True)
class _Moment:
    """What the new-hand guess compares between a player's consecutive reports."""

    stock_left: int
    own_turns: int
    opp_turns: int
    pile_takes: int
    hand: int

    def follows(self, last: _Moment) -> bool:
        """Whether this can come after ``last`` in the same hand: the stock only shrinks,
        the turns and takes only grow, and between two of its decisions a player's cards
        change by at most one take and one discard."""
        kept = (self.hand & last.hand).bit_count()
        least = min(self.hand.bit_count(), last.hand.bit_count())
        return (
            self.stock_left <= last.stock_left
            and self.own_turns >= last.own_turns
            and self.opp_turns >= last.opp_turns
            and self.pile_takes >= last.pile_takes
            and kept >= least - 1
        )


# Where an OpponentMemory stands in the current hand.
_FRESH, _PLAYING, _ENDED = "fresh", "playing", "ended"


class OpponentMemory:
    """What a search player keeps between its decisions in a game: its opponent panel's
    posterior and its last discard (docs/strategies.md, "Opponent panel"), the kernels'
    memory row of a search scratch that lives as long as this object.

    A simulated searcher also learns at the end of a hand, from the cards the showdown
    shows: ``hand_ended`` gives a memory that evidence (docs/strategies.md, "The end of a
    hand"). Hands are told apart, in this order: by ``hand_number`` (a new number is a new
    hand), by ``hand_ended`` (the next report belongs to the next hand) and ``new_hand``,
    and else by a guess from the view (an offer, or a position that cannot follow the last
    one: more cards in the stock, fewer turns or takes, or cards that one take and one
    discard do not explain). At a new hand the player forgets its last discard, and its
    posterior too unless it keeps it across hands (``panel_memory = "match"``), as in a
    simulated match; ``forget`` starts over (a new opponent). A player without a panel
    remembers nothing: its decisions are the same with or without a memory.

    A memory holds its strategy's and rule set's vectors, not its ``Decider``: any
    ``Decider`` of the same strategy and rule set may use it (one prepared again after
    a cache let the first go), and it keeps no prepared strategy or tables alive.
    """

    def __init__(self, decider: Decider) -> None:
        if not isinstance(decider, Decider):
            raise ValueError(
                f"OpponentMemory({shown(decider)}): a memory is made by a Decider: Decider(strategy, rules).memory()"
            )
        self.rules = decider.rules
        self.strategy = decider.strategy
        self._params = decider._params.copy()
        self._kernel_rules = decider._kernel_rules
        self._undercut = decider._undercut  # the process's one table (load_undercut_table)
        self._search = search_scratch_nb()
        self._seat = 0  # the seat of the last report: its row holds the memory
        self._stage = _FRESH
        self._hand_number: int | None = None
        self._last: _Moment | None = None

    def new_hand(self) -> None:
        """A new hand starts (a new deal of the same game or match)."""
        self._new_hand()
        self._hand_number = None

    def forget(self) -> None:
        """Back to nothing: the prior at the next search (a new opponent)."""
        forget_nb(self._search)
        self._stage = _FRESH
        self._hand_number = None
        self._last = None

    @property
    def posterior(self) -> dict[str, float]:
        """The posterior over the panel by model name (the prior before any decision;
        empty without a panel)."""
        panel = self.strategy.opponent_panel
        row = self._search[17][self._seat]
        if not panel:
            return {}
        if row[MEMORY_KNOWN] == 0.0:  # no search since it was forgotten: the prior
            row = row.copy()
            prior_nb(self._params, len(panel), row)  # as the next search takes it
        return {name: float(row[m]) for m, name in enumerate(panel)}

    def belongs_to(self, decider: Decider) -> bool:
        """Whether ``decider`` plays this memory's strategy under its rule set."""
        return (
            isinstance(decider, Decider)
            and decider.rules == self.rules
            and np.array_equal(decider._params, self._params)
        )

    def before(
        self, decider: Decider, view: View, seat: int, hand_number: int | None = None
    ) -> tuple:
        """The search scratch for ``decider``'s decision at ``view``, after a new hand has
        been taken into account."""
        _check_seat(seat)
        if not self.belongs_to(decider):
            raise ValueError(
                "an OpponentMemory belongs to the strategy and rule set of the Decider that made it"
            )
        moment = _Moment(
            view.stock_left, view.own_turns, view.opp_turns, view.pile_takes, view.hand
        )
        self._begin(moment, hand_number, offer=view.phase == Phase.OFFER)
        self._take_seat(seat)
        self._stage = _PLAYING
        self._last = moment
        return self._search

    def hand_ended(self, end: Mapping[str, Any], *, hand_number: int | None = None) -> None:
        """The hand ended as ``end`` says (plain data, ``END_FIELDS``; docs/strategies.md,
        "The end of a hand"): after a knock, gin or big gin, the posterior reads the cards
        shown as a simulated searcher's does (``kernels.search.showdown_update_nb``: the
        opponent's knock, or the opponent's last turn at the player's own knock). The next
        report belongs to the next hand. ``hand_number``: the hand's number, as given to
        its decisions (a new one: a hand in which this player made no decision). Bad input
        is a one-line ``ValueError``, and the memory is then as it was.

        The opponent took the upcard (KD) and knocked at once with deadwood 10: a gin
        hunter would have waited.

        >>> memory = Decider("mc", "standard").memory()
        >>> round(memory.posterior["gin-hunter"], 3)
        0.11
        >>> memory.hand_ended({
        ...     "knocker": "opponent", "hand": "2C 3C 9C TC JC 2D 3D 9D TD JD",
        ...     "opp_hand": "AS 2S 3S 4H 5H 6H 7C 7D 7S KD", "pile": "QH", "stock_left": 31,
        ...     "dealer": "me", "taken_from_pile": True, "taken": "KD", "opp_turns": 1,
        ...     "pile_takes": 1, "opp_taken": "KD", "opp_passed": "QH"})
        >>> round(memory.posterior["gin-hunter"], 3)
        0.014
        """
        if hand_number is not None:
            check_index(hand_number, "hand_number")
        parsed = parse_hand_end(end, self.rules)
        if hand_number is not None and hand_number == self._hand_number and self._stage == _ENDED:
            raise ValueError(f"hand_number {hand_number}: that hand's end was reported already")
        moment = None
        if parsed.knocker != "none":
            moment = _Moment(
                parsed.stock_left,
                parsed.own_turns,
                parsed.opp_turns,
                parsed.pile_takes,
                parsed.hand,
            )
        self._begin(moment, hand_number, offer=False)
        if parsed.knocker != "none":
            masks, state = position_from_end(parsed, self._seat)
            # showdown_update_nb updates each seat whose vector has a panel: this player's
            # alone (the other row is a family vector without one).
            strategies = np.zeros((2, len(self._params)))
            strategies[self._seat] = self._params
            with np.errstate(over="ignore"):
                showdown_update_nb(
                    masks, state, self._kernel_rules, strategies, self._undercut, self._search
                )
        self._stage = _ENDED
        self._last = None

    # ------------------------------------------------------------------ internals
    def _new_hand(self) -> None:
        # new_hand_nb reads the seat's panel_memory from a strategies matrix: this player's
        # vector in both rows, whichever seat it plays.
        new_hand_nb(self._search, np.stack([self._params, self._params]))
        self._stage = _FRESH
        self._last = None

    def _begin(self, moment: _Moment | None, hand_number: int | None, offer: bool) -> None:
        """Start a new hand before this report if it belongs to one."""
        if hand_number is not None and hand_number == self._hand_number and self._stage == _ENDED:
            raise ValueError(
                f"hand_number {hand_number}: that hand's end was reported; the next hand needs another number"
            )
        if hand_number is not None and self._hand_number is not None:
            new = hand_number != self._hand_number and self._stage != _FRESH
        elif self._stage == _ENDED:
            new = True
        elif self._stage == _PLAYING:  # no number to compare: the guess (a drawn hand's
            # end shows nothing to compare, and ends the hand being played)
            new = offer or (
                moment is not None and (self._last is None or not moment.follows(self._last))
            )
        else:
            new = False
        if new:
            self._new_hand()
        if hand_number is not None or new:
            self._hand_number = hand_number

    def _take_seat(self, seat: int) -> None:
        """The memory belongs to the player, whichever seat it has: its row moves along."""
        if seat != self._seat:
            rows = self._search[17]
            rows[seat] = rows[self._seat]
            rows[self._seat] = 0.0
            self._seat = seat


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

    def candidate(c: int, over: int) -> Candidate:
        mean, low, high = interval95(float(search[6][c]), float(search[7][c]), over)
        words = _describe(int(search[5][c]), phase).action
        return Candidate(words, mean, low, high, float(search[14][c]) / over)

    # The screened-out candidates follow the survivors, their figures over the screening
    # worlds (kernels.search.screen_nb).
    before, screen = int(search[13][3]), int(params[StrategyParam.MC_SCREEN])
    chosen = [int(a) for a in search[5][:n]].index(int(action))
    return replace(
        decision,
        candidates=tuple(candidate(c, worlds) for c in range(n)),
        worlds=worlds,
        chosen=chosen,
        screened_out=tuple(candidate(c, screen) for c in range(n, before)),
        screen_worlds=screen if before > n else 0,
    )
