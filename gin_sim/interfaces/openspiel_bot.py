"""Any gin-sim strategy as a bot in OpenSpiel's ``gin_rummy`` (the ``openspiel`` extra).

``GinSimBot(game, player_id, strategy)`` is a ``pyspiel.Bot``: it plays OpenSpiel's
``gin_rummy`` (one hand per game) with the decisions of any gin-sim strategy (a family
member, ``random`` or a search player such as ``mc``), through ``gin_sim.players.decide``.

What the bot reads: only ``state.information_state_string(player_id)`` (OpenSpiel's
action-observation history of its own player: its own cards and actions, and the public
observations after every step) and ``state.legal_actions(player_id)``. From that history
it replays the public record of the hand (who took which discard, who passed which card,
the turn counts, the pile takes: docs/strategies.md, "What a player knows") and builds
``decide``'s view. It never reads the opponent's hidden cards, the stock or the chance
outcomes (tests re-deal them and check that nothing changes), with one exception at the end:
when an action (its own in ``step``, the opponent's in ``inform_action``) ends the hand, it
reads from the final state what a showdown at a table shows, both hands whole (OpenSpiel
shows a player's unmatched cards to nobody), and reports the hand's end to its search
player's opponent memory (``OpponentMemory.hand_ended``), as a simulated match shows it.
Besides that memory, the bot keeps a cache of the parsed history and the random numbers
each of its decisions drew, so a framework may call ``step`` on any state.

How OpenSpiel's phases map to gin-sim's (``R`` numbers are RULES.md):

- ``FirstUpcard``: the offer (R7, R8): ``take`` is OpenSpiel's draw-upcard, ``decline``
  its pass; after both passed, the non-dealer's forced stock draw is R9. OpenSpiel's
  player 0 is the non-dealer and always acts first, so player 1 is the dealer.
- ``Draw``: the draw decision (R10). ``Discard``: the discard decision after a take;
  ``knock X`` is OpenSpiel's knock action, then ``X`` as the knock discard in its
  ``Knock`` phase (the decision is asked again there: same view, same random numbers,
  same answer).
- ``Knock`` (the bot knocked): the melds of R16's arrangement (least deadwood, then the
  fewest layoff spots given the cards the knocker has seen; ``melds.knocker_arrangement``),
  one meld action each, runs longer than 5 cards split into OpenSpiel's melds of 3 to 5.
- ``Layoff`` (the opponent knocked): the layoffs and melds that leave the least deadwood,
  chosen jointly and exactly (R15, R16; ``melds.defender_layoffs``), laid off one card at a
  time in an order OpenSpiel accepts, then the melds of the rest.

Where OpenSpiel's rules differ from gin-sim's, and how the bot copes:

- Ties: OpenSpiel scores a knock that the defender ties as 0 for both, not as an undercut
  (R17 ``undercut_on_tie = true``). The strategy plays under ``rules_for_game(game)``, a
  rule set with ``undercut_on_tie = false`` and OpenSpiel's bonuses and knock card, so its
  searches value ties as OpenSpiel scores them.
- Layoffs: OpenSpiel lets the defender extend a run by at most 2 cards beyond each end
  (the run's own spot, then one more), and asks for the layoffs before the defender's
  melds; R15 allows any number, after the melds. Neither changes the least deadwood:
  3 or more cards in a row beyond a run are a run of their own, which the defender can
  meld instead, and ``melds.defender_layoffs`` already does (of equal results it lays off
  the least value), so its choice is always one OpenSpiel accepts (tested), and the
  showdowns of a search's rollouts score as OpenSpiel does. The bot lays off a run's
  nearest card first.
- The wall: after the discard that leaves 2 cards in the stock, OpenSpiel lets the next
  player take the upcard to knock (its ``Wall`` phase); under R18 the hand is already a
  draw. The bot asks its strategy the discard decision it would face after taking that
  card with 2 cards left: a knock is played as OpenSpiel's wall knock, any other answer
  as a pass (which ends the hand as a draw, as a discard would under R18).
- Pile takes: OpenSpiel ends the hand as a draw at the 50th draw-phase upcard take (the
  taker may not knock), not counting a take of the first upcard; R18a ends it after the
  discard of the ``max_upcard_takes``-th take of any kind. The rule set uses 51, so that
  every position OpenSpiel reaches is one gin-sim can describe; no real hand comes near.
- Knocks: OpenSpiel decides whether an 11-card hand may knock with its own deadwood count
  (the best meld group, then the highest unmatched card discarded). Should it refuse a
  knock that R12 allows, the bot discards the same card without knocking.
- OpenSpiel lets a player discard the upcard it just took (and declares a draw when both
  players do that in succession); gin-sim's strategies never do (R11), so the bot never
  starts such a sequence. Big gin (R14) does not exist there: the rule set has it off.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

try:
    import pyspiel
except ImportError as error:  # pragma: no cover - depends on the environment
    raise ImportError(
        "gin_sim.interfaces.openspiel_bot needs OpenSpiel: pip install -e '.[openspiel]' (package open_spiel)"
    ) from error

from gin_sim.game.cards import N_CARDS, N_RANKS, RANKS, card_rank, cards_of, format_cards
from gin_sim.game.cards import parse_card as gin_card
from gin_sim.game.limits import check_index, check_seed
from gin_sim.game.melds import Arrangement, best_arrangement, defender_layoffs, knocker_arrangement
from gin_sim.game.rules import Rules
from gin_sim.players.decide import Decider, Decision
from gin_sim.players.strategies import Strategy, load_strategy

__all__ = [
    "GinSimBot",
    "card_from_openspiel",
    "card_to_openspiel",
    "openspiel_deal_order",
    "openspiel_melds",
    "play_deck",
    "rules_for_game",
]

_GIN = pyspiel.gin_rummy
DRAW_UPCARD = _GIN.DRAW_UPCARD_ACTION
DRAW_STOCK = _GIN.DRAW_STOCK_ACTION
PASS = _GIN.PASS_ACTION
KNOCK = _GIN.KNOCK_ACTION
MELD_BASE = _GIN.MELD_ACTION_BASE
# OpenSpiel numbers a card suit * 13 + rank with its suits in this order (gin-sim: C, D, H, S).
OPENSPIEL_SUITS = "scdh"
LONGEST_OPENSPIEL_RUN = 5  # its meld actions are runs of 3 to 5 cards
FULL_GAME = {"num_ranks": 13, "num_suits": 4, "hand_size": 10}

# OpenSpiel's card names in its card order ("As", "2s", ..., "Kh"); gin-sim reads them.
_OPENSPIEL_NAMES = [RANKS[c % N_RANKS] + OPENSPIEL_SUITS[c // N_RANKS] for c in range(N_CARDS)]
_TO_GIN = [gin_card(name) for name in _OPENSPIEL_NAMES]
_FROM_GIN = [_TO_GIN.index(card) for card in range(N_CARDS)]
_TOKEN = dict(zip(_OPENSPIEL_NAMES, _TO_GIN, strict=True))
_UTILS = _GIN.GinRummyUtils(*FULL_GAME.values())  # (num_ranks, num_suits, hand_size)
# OpenSpiel's meld ids (185 melds of 3 to 5 cards) by the gin-sim mask of their cards, and back.
_MELD_ID = {
    sum(1 << _TO_GIN[c] for c in cards): meld_id for meld_id, cards in _UTILS.int_to_meld.items()
}
_MELD_MASK = {meld_id: mask for mask, meld_id in _MELD_ID.items()}


def card_from_openspiel(card: int) -> int:
    """The gin-sim card index of OpenSpiel card (or card action) ``card``."""
    return _TO_GIN[card]


def card_to_openspiel(card: int) -> int:
    """The OpenSpiel card index (and discard action) of gin-sim card ``card``."""
    return _FROM_GIN[card]


def _mask(cards: Sequence[int]) -> int:
    return sum(1 << c for c in cards)


def rules_for_game(game: Any) -> Rules:
    """The gin-sim rule set that OpenSpiel's ``gin_rummy`` game plays (module docstring).

    >>> rules = rules_for_game(pyspiel.load_game("gin_rummy"))
    >>> rules.gin_bonus, rules.undercut_bonus, rules.undercut_on_tie, rules.knock_limit
    (25, 25, False, 10)
    """
    short_name = game.get_type().short_name
    if short_name != "gin_rummy":
        raise ValueError(f"game {short_name!r}: a GinSimBot plays only OpenSpiel's gin_rummy")
    params = game.get_parameters()
    for key, full in FULL_GAME.items():
        if params[key] != full:
            raise ValueError(
                f"gin_rummy {key} = {params[key]}: gin-sim plays only the full game ({key} = {full})"
            )
    return Rules(
        name="openspiel-gin_rummy",
        knock_limit=params["knock_card"],
        gin_bonus=params["gin_bonus"],
        undercut_bonus=params["undercut_bonus"],
        undercut_on_tie=False,
        big_gin_bonus=0,
        oklahoma=params["oklahoma"],
        wall=_GIN.WALL_STOCK_SIZE,
        max_upcard_takes=_GIN.MAX_NUM_DRAW_UPCARD_ACTIONS + 1,
        may_discard_drawn_upcard=False,
    )


def openspiel_melds(meld: int) -> list[int]:
    """A gin-sim meld (card mask) as OpenSpiel meld actions: a run longer than 5 cards is
    split into runs of 3 to 5 (which offer the same layoff spots).

    >>> from gin_sim.game.cards import parse_cards
    >>> [_UTILS.int_to_meld[a - MELD_BASE] for a in openspiel_melds(parse_cards("AS 2S 3S 4S 5S 6S"))]
    [[0, 1, 2], [3, 4, 5]]
    """
    cards = sorted(cards_of(meld), key=card_rank)
    pieces = []
    while len(cards) > LONGEST_OPENSPIEL_RUN:
        pieces.append(cards[:3])
        cards = cards[3:]
    pieces.append(cards)
    return [MELD_BASE + _MELD_ID[_mask(piece)] for piece in pieces]


# --------------------------------------------------------------- reading the history
_ENTRY = re.compile(r'\(action=(None|\d+), observation="([^"]*)"\)')
_CARD = re.compile(r"[A2-9TJQK][scdh]")
_HEADER = re.compile(
    r"Knock card: (\d+)\n.*?Current player: (-?\d+)\nPhase: (\w+)\n.*?"
    r"Stock size: (\d+)  Upcard: (\w\w)\nDiscard pile: ([^\n]*)",
    re.S,
)


@dataclass(frozen=True)
class Observation:
    """One of OpenSpiel's observation strings of a player, as gin-sim cards (masks)."""

    knock_card: int
    current_player: int
    phase: str
    hands: tuple[int, int]  # the observer's own cards; the other hand is empty (hidden)
    laid: tuple[tuple[int, ...], tuple[int, ...]]  # melds each player has laid
    layoffs: int  # cards the defender has laid off
    stock_size: int
    upcard: int  # -1: none
    discard_pile: tuple[int, ...]  # bottom first

    @property
    def pile(self) -> list[int]:
        """gin-sim's discard pile, bottom first: OpenSpiel keeps the top (its upcard) apart."""
        return list(self.discard_pile) + ([self.upcard] if self.upcard >= 0 else [])


def _cards(text: str) -> list[int]:
    return [_TOKEN[token] for token in _CARD.findall(text)]


def _section(text: str) -> tuple[int, tuple[int, ...], int]:
    """(hand, laid melds, layoffs) of one player's part of an observation string."""
    hand, melds, layoffs = 0, (), 0
    for line in text.split("\n"):
        if line.startswith("|"):
            hand |= _mask(_cards(line))
        elif line.startswith("Layed melds:"):
            melds = tuple(_mask(_cards(word)) for word in line.split()[2:])
        elif line.startswith("Layoffs:"):
            layoffs = _mask(_cards(line[len("Layoffs:") :]))
    return hand, melds, layoffs


def parse_observation(text: str) -> Observation:
    """Parse ``state.observation_string(player)`` of ``gin_rummy``."""
    header = _HEADER.search(text)
    if header is None:
        raise ValueError(f"not a gin_rummy observation string: {text[:80]!r}")
    limit, player, phase, stock, upcard, pile = header.groups()
    first, second = text.split("\nStock size:")[0], text.split("\n\nPlayer1:")[1]
    hand0, laid0, layoffs0 = _section(first.split("\nPlayer0:")[1])
    hand1, laid1, layoffs1 = _section(second)
    return Observation(
        knock_card=int(limit),
        current_player=int(player),
        phase=phase,
        hands=(hand0, hand1),
        laid=(laid0, laid1),
        layoffs=layoffs0 | layoffs1,
        stock_size=int(stock),
        upcard=-1 if upcard == "XX" else _TOKEN[upcard],
        discard_pile=tuple(_cards(pile)),
    )


def _opponent_action(before: Observation, after: Observation) -> int | None:
    """The opponent's action between two observations, as far as the record needs it
    (every such action is public; the opponent's own history would hold it)."""
    if before.phase in ("FirstUpcard", "Draw"):
        if after.phase in ("Discard", "GameOver"):  # GameOver: OpenSpiel's 50th take
            return DRAW_UPCARD
        return DRAW_STOCK if after.phase == "Deal" else PASS
    if before.phase == "Discard":
        return KNOCK if after.phase == "Knock" else card_to_openspiel(after.upcard)
    if before.phase == "Wall":
        return KNOCK if after.phase == "Knock" else PASS
    return None  # melds and layoffs: read from the observation when needed


@dataclass
class PublicRecord:
    """What one player knows of the hand so far (docs/strategies.md, "What a player
    knows"), replayed from its action-observation history."""

    player: int
    now: Observation | None = None
    taken: list[int] = field(default_factory=lambda: [0, 0])
    passed: list[int] = field(default_factory=lambda: [0, 0])
    turns: list[int] = field(default_factory=lambda: [0, 0])
    pile_takes: int = 0
    last_taken: int = -1  # the player's latest card taken (from the pile or the stock)
    last_from_pile: bool = False
    hand_before_stock: int = -1  # the player's hand while its stock card is on the way
    # Each player's last take: the card when it came from the pile (else -1), and whether.
    takes: list[tuple[int, bool]] = field(default_factory=lambda: [(-1, False), (-1, False)])

    def advance(self, action: int | None, after: Observation) -> None:
        """Take one step of the history: ``action`` is the player's own (None for the
        opponent's and chance's), ``after`` the observation that followed."""
        before, self.now = self.now, after
        if before is None:
            return
        me, actor = self.player, before.current_player
        if actor < 0:  # chance: a card dealt or drawn; only the player's own are visible
            if self.hand_before_stock >= 0 and after.hands[me] != self.hand_before_stock:
                self.last_taken = (after.hands[me] & ~self.hand_before_stock).bit_length() - 1
                self.hand_before_stock = -1
            return
        if actor != me:
            action = _opponent_action(before, after)
        if action is None:
            return
        top = before.upcard
        if before.phase in ("FirstUpcard", "Draw", "Wall") and action in (DRAW_UPCARD, KNOCK):
            self._take(actor, top)  # in the Wall phase a knock takes the upcard
        elif before.phase in ("FirstUpcard", "Draw") and action == DRAW_STOCK:
            if top >= 0:
                self.passed[actor] |= 1 << top
            self.turns[actor] += 1
            self.takes[actor] = (-1, False)
            if actor == me:
                self.last_from_pile = False
                self.hand_before_stock = before.hands[me]
        elif before.phase == "FirstUpcard" and action == PASS:
            self.passed[actor] |= 1 << top
        elif before.phase == "Discard" and action < N_CARDS:
            card = card_from_openspiel(action)
            self.taken[actor] &= ~(1 << card)
            self.passed[actor] |= 1 << card

    def _take(self, actor: int, card: int) -> None:
        self.taken[actor] |= 1 << card
        self.turns[actor] += 1
        self.pile_takes += 1
        self.takes[actor] = (card, True)
        if actor == self.player:
            self.last_taken, self.last_from_pile = card, True


class _HistoryReader:
    """Replays information-state strings into a ``PublicRecord``, resuming from the last
    string read when the new one extends it (a cache: the replay is the same either way)."""

    def __init__(self, player: int) -> None:
        self.player = player
        self.text = ""
        self.record = PublicRecord(player)

    def read(self, text: str) -> PublicRecord:
        if not (self.text and text.startswith(self.text)):
            self.text, self.record = "", PublicRecord(self.player)
        for action, observation in _ENTRY.findall(text, len(self.text)):
            self.record.advance(
                None if action == "None" else int(action), parse_observation(observation)
            )
        self.text = text
        return self.record


# ------------------------------------------------------------------------- the bot
class GinSimBot(pyspiel.Bot):
    """A gin-sim strategy playing seat ``player_id`` of OpenSpiel's ``gin_rummy``.

    ``strategy``: a name, a TOML path or a ``Strategy``; it plays under
    ``rules_for_game(game)``. A search player's random numbers are those of seat
    ``player_id`` in deal ``deal`` of ``seed`` (``gin_sim.players.decide``): ``restart`` (which
    ``pyspiel.evaluate_bots`` calls before every game) moves to the next deal, so that a
    series of games is reproducible from ``seed`` and the first ``deal``. Each decision
    reads the stream where the bot's earlier decisions of the hand left it (their ``drawn``),
    as a simulated hand does, so a game of two gin-sim strategies is the simulated hand on
    the same deck while no hand reaches OpenSpiel's Wall phase (tested). A bot asked in the
    middle of a hand whose earlier decisions it did not make starts at number 0.

    A search player with an opponent panel keeps its posterior across the games of the
    series (``panel_memory = "match"``), each game a hand: ``restart`` starts a new hand,
    and the end of each hand is reported to it (module docstring).

    >>> game = pyspiel.load_game("gin_rummy")
    >>> bots = [GinSimBot(game, 0, "simple"), pyspiel.make_simple_gin_rummy_bot(game.get_parameters(), 1)]
    >>> returns = pyspiel.evaluate_bots(game.new_initial_state(), bots, 7)
    >>> returns[0] == -returns[1]
    True
    """

    def __init__(
        self,
        game: Any,
        player_id: int,
        strategy: str | Strategy = "mc",
        *,
        seed: int = 0,
        deal: int = 0,
    ) -> None:
        pyspiel.Bot.__init__(self)
        if type(player_id) is not int or player_id not in (0, 1):
            raise ValueError(f"player_id = {player_id!r}: allowed 0 or 1")
        self.rules = rules_for_game(game)
        # Loaded and checked against the rules once, so that bad input fails here.
        self.strategy = load_strategy(strategy)
        self.strategy.for_rules(self.rules)
        # Prepared once (its rollout and opponent-model files read here, not per decision).
        self._decider = Decider(self.strategy, self.rules)
        self.player = player_id
        self.seed = check_seed(seed)
        self.deal = check_index(deal, "deal")
        self._first_deal = deal
        self._restarts = 0
        self._reader = _HistoryReader(player_id)
        # A search player's opponent panel learns across the decisions of a game, and
        # across games with panel_memory = "match" (the opponent stays the same).
        self._memory = self._decider.memory()
        # The numbers each decision of this hand drew, by its information-state string.
        self._drawn: dict[str, int] = {}
        self._reported: tuple[int, ...] | None = None  # the last hand end reported

    @property
    def posterior(self) -> dict[str, float]:
        """A search player's posterior over its opponent panel now (empty without one)."""
        return self._memory.posterior

    # pyspiel.Bot ------------------------------------------------------------
    def restart(self) -> None:
        self.deal = self._first_deal + self._restarts
        self._restarts += 1
        self._memory.new_hand()
        self._drawn.clear()

    def restart_at(self, state: Any) -> None:
        self.restart()

    def step(self, state: Any) -> int:
        legal = state.legal_actions(self.player)
        if len(legal) == 1:  # forced: R9's stock draw, a pass with nothing to lay
            self._see_end(state, legal[0])
            return legal[0]
        record = self._reader.read(state.information_state_string(self.player))
        action = self._action(record, legal)
        if action not in legal:  # a bug of the adapter: say everything about it
            raise RuntimeError(
                f"GinSimBot chose {state.action_to_string(self.player, action)!r}, not legal in phase {record.now.phase if record.now else '?'}: {[state.action_to_string(self.player, a) for a in legal]}"
            )
        self._see_end(state, action)
        return action

    def inform_action(self, state: Any, player_id: int, action: int) -> None:
        self._see_end(state, action)

    # the hand's end ----------------------------------------------------------
    def _see_end(self, state: Any, action: int) -> None:
        """When ``action`` ends the hand, report its end to the opponent memory (once)."""
        if not self.strategy.opponent_panel:
            return  # nothing remembers it
        after = state.child(action)
        if not after.is_terminal():
            return
        history = tuple(after.history())
        if history == self._reported:
            return
        self._reported = history
        end = self._hand_end(after)
        try:
            self._memory.hand_ended(end)
        except ValueError as error:  # the adapter described the end wrongly
            raise RuntimeError(
                f"GinSimBot built a hand end the memory refused: {error}: {end}"
            ) from error

    def _hand_end(self, final: Any) -> dict[str, Any]:
        """The hand's end (``gin_sim.players.decide.END_FIELDS``) at the final state: the
        public record from the bot's own history; both hands whole (the melds laid, the
        cards laid off and the unmatched ones), as a showdown at a table shows them."""
        record = self._reader.read(final.information_state_string(self.player))
        knocked = final.knocked()
        if not any(knocked):
            return {"knocker": "none"}  # the wall, or OpenSpiel's draws (module docstring)
        now = record.now
        assert now is not None
        me, opponent = self.player, 1 - self.player
        knocker = 0 if knocked[0] else 1
        layoffs = _mask([card_from_openspiel(c) for c in final.layoffs()])
        shown = []
        for player in (0, 1):
            cards = _mask([card_from_openspiel(c) for c in final.hands()[player]])
            for meld in final.layed_melds()[player]:
                cards |= _MELD_MASK[meld]
            shown.append(cards | (layoffs if player != knocker else 0))
        pile = now.pile
        discard = pile[-1]  # the knock's, face up on the pile (no big gin in OpenSpiel)
        taken, passed = list(record.taken), list(record.passed)
        taken[knocker] &= ~(1 << discard)
        passed[knocker] |= 1 << discard
        card, from_pile = record.takes[knocker]
        end: dict[str, Any] = {
            "knocker": "me" if knocker == me else "opponent",
            "hand": format_cards(shown[me]),
            "opp_hand": format_cards(shown[opponent]),
            "pile": format_cards(pile),
            "stock_left": now.stock_size,
            "dealer": "me" if me == 1 else "opponent",  # OpenSpiel's player 1 deals
            "taken_from_pile": from_pile,
            "opp_turns": record.turns[opponent],
            "own_turns": record.turns[me],
            "pile_takes": record.pile_takes,
            "opp_taken": format_cards(taken[opponent]),
            "opp_passed": format_cards(passed[opponent]),
            "own_taken": format_cards(taken[me]),
            "own_passed": format_cards(passed[me]),
            "knock_limit": now.knock_card,
        }
        if from_pile:
            end["taken"] = format_cards([card])
        return end

    # decisions ---------------------------------------------------------------
    def _action(self, record: PublicRecord, legal: list[int]) -> int:
        now = record.now
        assert now is not None
        phase = now.phase
        if phase == "FirstUpcard":
            return DRAW_UPCARD if self._decide(record, "offer").take else PASS
        if phase == "Draw":
            return DRAW_UPCARD if self._decide(record, "draw").take else DRAW_STOCK
        if phase == "Discard":
            decision = self._decide(record, "discard")
            assert decision.discard is not None
            card = card_to_openspiel(gin_card(decision.discard))
            return KNOCK if decision.knock and KNOCK in legal else card
        if phase == "Wall":
            knock = self._decide(record, "discard", wall=True).knock
            return KNOCK if knock and KNOCK in legal else PASS
        if phase == "Knock":
            if now.hands[self.player].bit_count() == 11:  # the knock's discard
                decision = self._decide(record, "discard", again=True)
                assert decision.discard is not None and decision.knock
                return card_to_openspiel(gin_card(decision.discard))
            return self._knocker_meld(now)
        if phase == "Layoff":
            return self._defender_action(now, legal)
        raise RuntimeError(f"GinSimBot asked to act in phase {phase}")

    def _decide(
        self, record: PublicRecord, decision: str, wall: bool = False, again: bool = False
    ) -> Decision:
        """The strategy's decision at ``record``'s position. ``again``: the knock decision
        asked again in OpenSpiel's Knock phase, at the numbers it read the first time."""
        view = self._view(record, decision, wall)
        text = self._reader.text
        # The decisions of this hand before this one: those whose history this extends.
        self._drawn = {t: n for t, n in self._drawn.items() if text.startswith(t)}
        earlier = sorted(t for t in self._drawn if t != text)
        if again and earlier:
            earlier.pop()  # the longest: the knock decision itself
        try:
            answer = self._decider.decide(
                view,
                self.seed,
                deal=self.deal,
                seat=self.player,
                draws=sum(self._drawn[t] for t in earlier),
                memory=self._memory,
            )
        except ValueError as error:  # the adapter described the position wrongly
            raise RuntimeError(f"GinSimBot built a view decide refused: {error}: {view}") from error
        if not again:
            self._drawn[text] = answer.drawn
        return answer

    def _view(self, record: PublicRecord, decision: str, wall: bool) -> dict[str, Any]:
        """``decide``'s view of the player (docs/strategies.md, "Decisions from outside").
        ``wall``: the decision after taking the upcard in OpenSpiel's Wall phase."""
        now = record.now
        assert now is not None
        me, opponent = self.player, 1 - self.player
        hand, pile = now.hands[me], now.pile
        own_turns, pile_takes, own_taken = record.turns[me], record.pile_takes, record.taken[me]
        taken, from_pile = record.last_taken, record.last_from_pile
        if wall:  # as if the upcard were taken: the record has not seen that step
            taken, from_pile = pile.pop(), True
            hand |= 1 << taken
            own_turns, pile_takes, own_taken = own_turns + 1, pile_takes + 1, own_taken | 1 << taken
        view: dict[str, Any] = {
            "decision": decision,
            "hand": format_cards(hand),
            "pile": format_cards(pile),
            "stock_left": now.stock_size,
            "dealer": "me" if me == 1 else "opponent",  # OpenSpiel's player 1 deals
            "opp_turns": record.turns[opponent],
            "own_turns": own_turns,
            "pile_takes": pile_takes,
            "opp_taken": format_cards(record.taken[opponent]),
            "opp_passed": format_cards(record.passed[opponent]),
            "own_taken": format_cards(own_taken),
            "own_passed": format_cards(record.passed[me]),
            "knock_limit": now.knock_card,
        }
        if decision == "discard":
            view["taken"] = format_cards([taken])
            view["taken_from_pile"] = from_pile
        return view

    def _knocker_meld(self, now: Observation) -> int:
        """The next meld of R16's arrangement to lay, or PASS when all are laid."""
        laid = now.laid[self.player]
        hand10 = now.hands[self.player] | _mask_union(laid)
        seen = hand10 | _mask(now.pile)  # R16: its own cards and the discard pile
        arrangement = knocker_arrangement(hand10, seen)
        return _next_meld(arrangement.melds, laid)

    def _defender_action(self, now: Observation, legal: list[int]) -> int:
        me = self.player
        laid = now.laid[me]
        if any(a < N_CARDS for a in legal):  # laying off, one card at a time
            before = now.hands[me] | now.layoffs | _mask_union(laid)
            knocker = Arrangement(tuple(sorted(now.laid[1 - me])), 0, 0)
            _, _, plan = defender_layoffs(before, knocker)
            todo = plan & ~now.layoffs
            for card in cards_of(todo):
                if card_to_openspiel(card) in legal:  # a run is extended end first
                    return card_to_openspiel(card)
            if todo:
                raise RuntimeError(f"GinSimBot cannot lay off {format_cards(todo)} here")
            return PASS
        if any(a >= MELD_BASE for a in legal):  # then its melds
            rest = now.hands[me] | _mask_union(laid)
            return _next_meld(best_arrangement(rest).melds, laid)
        return PASS


def _mask_union(masks: Sequence[int]) -> int:
    total = 0
    for mask in masks:
        total |= mask
    return total


def _next_meld(melds: Sequence[int], laid: Sequence[int]) -> int:
    """The first OpenSpiel meld action of ``melds`` not yet laid, or PASS."""
    for meld in sorted(melds):
        for action in openspiel_melds(meld):
            if _MELD_MASK[action - MELD_BASE] not in laid:
                return action
    return PASS


# ------------------------------------------------------------------- playing decks
def openspiel_deal_order(deck: Sequence[int]) -> list[int]:
    """The chance outcomes (OpenSpiel cards) that deal gin-sim deck order ``deck`` in
    ``gin_rummy``: gin-sim deals the cards alternately from the non-dealer (cards 0, 2, ...,
    18) and the dealer (1, 3, ..., 19), OpenSpiel ten to player 0 (the non-dealer) and then
    ten to player 1; then the upcard (card 20) and the stock in order, as both draw it."""
    order = [*deck[0:20:2], *deck[1:20:2], *deck[20:]]
    return [card_to_openspiel(card) for card in order]


def play_deck(game: Any, bots: Sequence[Any], deck: Sequence[int]) -> Any:
    """Play one game of ``gin_rummy`` between ``bots`` (player 0's first) on gin-sim deck
    order ``deck`` (``openspiel_deal_order``), as ``pyspiel.evaluate_bots`` does but with
    the chance outcomes given and only the players' actions shown to the other bot. An
    illegal action is a ``RuntimeError``. Returns the final state.

    >>> from gin_sim.game.rng import deck_for_deal
    >>> game = pyspiel.load_game("gin_rummy")
    >>> bots = [GinSimBot(game, 0, "expert"), GinSimBot(game, 1, "simple")]
    >>> play_deck(game, bots, deck_for_deal(7, 0)).is_terminal()
    True
    """
    state = game.new_initial_state()
    for bot in bots:
        bot.restart()
    outcomes = iter(openspiel_deal_order(deck))
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_action(next(outcomes))
            continue
        player = state.current_player()
        action = bots[player].step(state)
        if action not in state.legal_actions():
            raise RuntimeError(f"player {player} chose an illegal action {action} in:\n{state}")
        bots[1 - player].inform_action(state, player, action)
        state.apply_action(action)
    return state
