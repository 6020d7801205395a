"""A view given as plain data: its fields (``VIEW_FIELDS``; docs/strategies.md,
"Decisions from outside"), its parsing and checks (``parse_view``), and the kernel position it
stands for (``position_from_view``) or that stands for it (``view_of_position``)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
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
from gin_sim.game.hollywood import HollywoodScore
from gin_sim.game.limits import whole_number
from gin_sim.game.match_start import FORMATS, N_GAMES, MatchStart, parse_start, score_text
from gin_sim.game.rules import Rules
from gin_sim.kernels.enums import (
    N_POSITION_MASKS,
    N_POSITION_SLOTS,
    Phase,
    PositionMask,
    PositionSlot,
)

PHASES = {"offer": Phase.OFFER, "draw": Phase.DRAW, "discard": Phase.DISCARD}
HAND_SIZE = 10
STOCK_AFTER_DEAL = 31  # R6: 52 cards less two hands of 10 and the upcard
# Numbers a player draws from its stream at most in one turn: the random strategy's take,
# big gin, discard and knock (docs/engine.md); a search player draws one per decision.
DRAWS_PER_TURN = 4
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


def _fail(message: str) -> None:
    raise ValueError(message)


def _check_seat(seat: Any) -> int:
    """A seat: 0 or 1 (a whole number: True is not a seat), else a ``ValueError``."""
    number = whole_number(seat)
    if number is None or number not in (0, 1):
        raise ValueError(f"seat = {shown(seat)}: allowed 0 or 1")
    return number


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
    number = whole_number(value)  # a numpy integer is a whole number, True is not
    if number is None or not low <= number <= high:
        _fail(f"view field {key!r} = {shown(value)}: allowed a whole number {low} to {high}")
    return number


def truth(value: Any) -> bool | None:
    """``value`` as a Python bool when it is one (``True`` or ``np.True_``), else None."""
    return bool(value) if isinstance(value, bool | np.bool_) else None


def _mask(cards: list[int]) -> int:
    mask = 0
    for card in cards:
        mask |= 1 << card
    return mask


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
        from_pile = truth(document["taken_from_pile"])
        if from_pile is None:
            _fail(
                f"view field 'taken_from_pile' = {shown(document['taken_from_pile'])}: allowed true or false"
            )
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


def _set_public(masks: np.ndarray, state: np.ndarray, facts: Any, me: int) -> int:
    """The table's public facts of a view or a hand end (a ``View`` or a ``HandEnd``: the
    same field names) in a kernel position, ``me`` the
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
    me = _check_seat(seat)
    opponent = 1 - me
    unseen = cards_of(view.unseen)
    if fill is None:
        fill = unseen
    elif sorted(fill) != unseen:
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
