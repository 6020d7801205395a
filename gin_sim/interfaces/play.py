"""A game at the terminal against any strategy, and the record it leaves (``gin-sim play``).

The rules are the reference engine's: a hand is ``reference.engine.start_hand``, each move is
carried out by its ``apply``. This module reads a person's moves forgivingly (``parse_move``),
explains the ones the rules refuse (``move_problem``) and asks the strategy for its own
(``decide.Decider``). Deals are those of a match (``reference.match``): hand ``h`` of seed
``s`` is ``deck_for_deal(match_key(s, 0), h)``, the first dealer drawn from that key (R5), the
winner of a hand dealing the next. So a seed and the moves make the whole game again, and the
saved record (``save_record``) holds both: ``gin-sim replay --record FILE`` plays its moves
through the engine again (``replay_record``) and checks that every hand ends as recorded.

>>> parse_move("10h", DISCARD), parse_move(" K 7H", DISCARD), parse_move("Draw", DRAW)
(Discard(card=35, knock=False), Discard(card=32, knock=True), False)
"""

from __future__ import annotations

import contextlib
import dataclasses
import errno
import fcntl
import json
import os
import stat
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gin_sim.experiments.review import Decision as ReviewDecision
from gin_sim.experiments.review import ReviewSettings, action_code, value_decisions
from gin_sim.game.cards import format_card, format_cards, parse_card, parse_deck
from gin_sim.game.config import (
    ConfigError,
    parse_json,
    read_user_file,
    shown,
)
from gin_sim.game.hollywood import N_GAMES, HollywoodScore
from gin_sim.game.limits import check_seed
from gin_sim.game.melds import min_deadwood_exhaustive
from gin_sim.game.rng import bounded, deck_for_deal, splitmix64
from gin_sim.game.rules import Rules, rules_from_dict
from gin_sim.interfaces.advise import advice_lines
from gin_sim.interfaces.replay import describe_events, show_hand
from gin_sim.players.decide import Decider
from gin_sim.players.strategies import Strategy
from gin_sim.reference.engine import (
    BIG_GIN,
    DISCARD,
    DRAW,
    OFFER,
    OVER,
    Action,
    Discard,
    legal_discards,
    start_hand,
)
from gin_sim.reference.match import match_key
from gin_sim.reference.search import describe_action
from gin_sim.reference.views import hand_end_from_hand, view_from_situation

FORMATS = ("hand", "game", "hollywood")
RECORD_KIND = "gin-sim play record"
RECORD_VERSION = 1
# The bounds of a record, which the writer keeps (``record_text``) and the reader reads
# (``load_record``), so that every record written can be replayed: a hand takes about 2 KB
# and 80 keys and items, far more when neither player draws from the stock (R18a), so a
# game of MOST_HANDS ordinary hands fits; one that does not stops when its record is full.
MAX_RECORD = 64 << 20  # bytes
MAX_RECORD_VALUES = 2_000_000
YOU, BOT = 0, 1  # seats: you are player 1
MOST_HANDS = 10_000  # as a simulated match: a game that could never end stops here
TAKE_WORDS = ("t", "take", "pile", "y", "yes")
PASS_WORDS = ("p", "pass", "decline", "n", "no")
DRAW_WORDS = ("d", "draw", "s", "stock")
QUIT_WORDS = ("q", "quit", "exit")
TUTOR_MARKS = ("mistake", "blunder")  # what the tutor stops you before
HELP_WORDS = ("?", "h", "help")
MOVES_HELP = {
    OFFER: "t (take the upcard) or p (pass)",
    DRAW: "d (draw from the stock) or t (take the discard)",
    DISCARD: "a card to discard (7h, 10h, Th), k and a card to knock with it (k 7h), or g (big gin)",
}


class MoveError(ValueError):
    """A move that cannot be read or that the rules refuse; the message says why."""


def parse_move(text: str, phase: str) -> Action:
    """A move typed by a person at decision ``phase`` (``describe_action``'s words too):
    ``t``/``take``, ``p``/``pass``, ``d``/``draw``; at a discard a card (``7h``, ``7H``,
    ``10h``, ``Th``), ``k 7h``/``knock 7h``, ``g``/``big gin``."""
    words = text.strip().lower().replace(",", " ").split()
    if phase in (OFFER, DRAW):
        word = words[0] if len(words) == 1 else ""
        if word in TAKE_WORDS:
            return True
        if word in (PASS_WORDS if phase == OFFER else DRAW_WORDS):
            return False
        where = "at the offer of the upcard" if phase == OFFER else "at your draw"
        raise MoveError(f"{shown(text.strip())} is not a move {where}: {MOVES_HELP[phase]}")
    if words in (["g"], ["gin"], ["big", "gin"], ["bg"]):
        return BIG_GIN
    knock = False
    if words and words[0] in ("k", "knock"):
        knock, words = True, words[1:]
    elif words and words[-1] in ("k", "knock"):
        knock, words = True, words[:-1]
    elif words and words[0] in ("d", "discard"):
        words = words[1:]
    if len(words) != 1:
        hint = "knock with which card? say k and the card (k 7h)" if knock else MOVES_HELP[DISCARD]
        raise MoveError(f"{shown(text.strip())}: {hint}")
    try:
        return Discard(parse_card(words[0]), knock)
    except ValueError as error:
        raise MoveError(f"{error}; {MOVES_HELP[DISCARD]}") from None


def move_problem(hand: Any, action: Action) -> str | None:
    """Why the rules do not allow ``action`` to the player to move in ``hand`` (a hand
    of ``start_hand``), None if they do."""
    if hand.phase != DISCARD:
        return None
    view = hand.view()
    if action == BIG_GIN:
        if hand.rules.big_gin_bonus <= 0:
            return "big gin does not score under these rules (R14): discard a card"
        deadwood = min_deadwood_exhaustive(view.hand)
        if deadwood:
            return f"big gin needs all 11 cards in melds (R14): yours leave deadwood {deadwood}"
        return None
    assert isinstance(action, Discard)
    card = format_card(action.card)
    if not view.hand >> action.card & 1:
        return f"you do not hold {card}"
    if action.card not in legal_discards(view):
        return f"you took {card} from the discard pile: it may not go back this turn (R11)"
    if action.knock:
        left = min_deadwood_exhaustive(view.hand & ~(1 << action.card))
        if left > hand.knock_limit:
            return f"a knock needs deadwood {hand.knock_limit} or less (R12): without {card} yours is {left}"
    return None


# ---------------------------------------------------------------------------- the game
@dataclass(frozen=True)
class GameSettings:
    rules: Rules
    opponent: Strategy  # as played under the rules
    format: str = "game"
    seed: int = 0
    hints: Strategy | None = None
    # The tutor: before a move the review would mark a mistake or a blunder is made, say so
    # with the better move and the loss, and ask to confirm (docs/review.md, "The tutor").
    tutor: bool = False

    @property
    def key(self) -> int:
        return match_key(self.seed, 0)

    @property
    def first_dealer(self) -> int:
        return bounded(splitmix64(self.key), 2)  # R5, as a simulated match draws it

    def names(self) -> list[str]:
        return ["player 1 (you)", f"player 2 ({self.opponent.name})"]


class InputEnded(Exception):
    """The person left: the end of the input (``quit`` False), or ``quit``."""

    def __init__(self, quit: bool = False) -> None:
        super().__init__("quit" if quit else "end of input")
        self.quit = quit


class Game:
    """One game: hands dealt from the seed, your moves read by ``read_line`` (None at the
    end of the input), everything said through ``say``; saved after every hand to ``save``
    (a path or None)."""

    def __init__(
        self,
        settings: GameSettings,
        read_line: Callable[[str], str | None],
        say: Callable[[str], None],
        save: Path | RecordFile | None = None,
    ) -> None:
        self.settings = settings
        self.rules = settings.rules
        self.read_line = read_line
        self.say = say
        self.save = save
        self.opponent = Decider(settings.opponent, settings.rules)
        # An adaptive opponent learns how you play, within a hand and, with panel_memory
        # "match", from hand to hand, the showdowns included (each hand's end is reported
        # to its memory, as a simulated match shows it). The hints get no memory: a memory
        # takes its own choices for the moves played, and you need not follow them.
        self.opponent_memory = self.opponent.memory()
        self.hinter = None if settings.hints is None else Decider(settings.hints, settings.rules)
        self.tutor_settings = ReviewSettings() if settings.tutor else None
        games = 1 if settings.format != "hollywood" else N_GAMES
        self.score = HollywoodScore(target=self.rules.game_target, games=games)
        self.hands: list[dict[str, Any]] = []
        # The hand being played (its deal, dealer, deck and moves so far), saved with the
        # finished ones when you leave in the middle of it.
        self.unfinished: dict[str, Any] | None = None
        self.left = ""  # how you left a game before its end
        self._hand_values = 0  # keys and items of the finished hands in the record

    @property
    def finished(self) -> bool:
        if self.settings.format == "hand":
            return bool(self.hands)
        return self.score.finished or len(self.hands) >= MOST_HANDS

    def play(self) -> bool:
        """Play until the game is over (True) or you leave (False, ``left`` says how);
        saved either way, also when stopped by Ctrl-C or SIGTERM (which goes on up)."""
        claimed = None
        if isinstance(self.save, Path):  # held for this game alone (``RecordFile``)
            claimed = self.save = RecordFile(self.save).claim()
        try:
            return self._play()
        finally:
            if claimed is not None:
                claimed.release()

    def _play(self) -> bool:
        dealer = self.settings.first_dealer
        self._save()
        try:
            while not self.finished:
                record = self._play_hand(len(self.hands), dealer)
                if record["winner"] >= 0:
                    self.score.credit(int(record["winner"]), int(record["points"]))
                    dealer = int(record["winner"])  # R5: the winner deals next
                self._save()
                if self.settings.format != "hand":
                    for line in score_lines(self.score, self.settings, self.finished):
                        self.say(line)
        except InputEnded as ended:
            self.left = "you stopped it" if ended.quit else "at the end of the input"
            self._save()
            return False
        except RecordFull as full:
            self.left = f"as its record is full ({full}; the record keeps every hand before)"
            return False
        except KeyboardInterrupt:
            self.left = "interrupted"
            with contextlib.suppress(RecordFull):
                self._save()  # the hand in play too, its moves so far
            raise
        return True

    def _play_hand(self, deal: int, dealer: int) -> dict[str, Any]:
        settings = self.settings
        deck = deck_for_deal(settings.key, deal)
        events: list[tuple] = []

        def trace(event: tuple) -> None:
            events.append(event)
            line = self._narrate(event, deal)
            if line:
                self.say(line)

        # The score before the hand reaches the opponent's and the hints' views (its
        # ``score`` field), as a simulated game or match gives it to its players.
        score = None if settings.format == "hand" else self.score
        hand = start_hand(deck, self.rules, dealer, deal=deal, trace=trace, score=score)
        moves: list[str] = []
        self.unfinished = {
            "deal": deal,
            "dealer": dealer,
            "deck": format_cards(deck),
            "moves": moves,
        }
        asked = 0
        while hand.phase != OVER:
            phase = hand.phase
            if hand.to_move == BOT:
                view = view_from_situation(hand.situation(hand.view()))
                # Each decision reads its stream where the last one left it (``drawn``), as in
                # a simulated hand: played with a simulated player's moves, the hand is that
                # simulated hand, and the same seed and moves give the same game.
                decision = self.opponent.decide(
                    view, settings.key, deal=deal, seat=BOT, draws=asked,
                    memory=self.opponent_memory, hand_number=deal,
                )  # fmt: skip
                asked += decision.drawn
                action = parse_move(decision.action, phase)
            else:
                action = self._your_move(hand, deal, len(moves))
            moves.append(describe_action(action, phase))
            hand.apply(action)
        record = hand.result()
        self.opponent_memory.hand_ended(hand_end_from_hand(hand, BOT), hand_number=deal)
        lines = describe_events(events, record, settings.names(), self.rules, dealer)
        ending = next(
            i
            for i, line in enumerate(lines)
            if line.startswith(("Showdown:", "The hand is a draw"))
        )
        for line in lines[ending:]:
            self.say(line)
        self.hands.append(self.unfinished | {"record": record})
        self._hand_values += 1 + count_values(self.hands[-1])
        self.unfinished = None
        return record

    def _narrate(self, event: tuple, deal: int) -> str:
        kind, player, *details = event
        you = player == YOU
        who = "You" if you else self.settings.opponent.name

        def verb(base: str) -> str:
            return base if you else base + ("es" if base.endswith("s") else "s")

        if kind == "deal":
            dealer, _, _, upcard, limit = details
            deals = "you deal" if dealer == YOU else f"{self.settings.opponent.name} deals"
            return f"\nHand {deal + 1}: {deals}. Knock limit {limit}. The upcard is {format_card(upcard)}."
        if kind == "offer":
            card, taken = details
            return (
                f"{who} {verb('take') if taken else verb('pass')} the upcard {format_card(card)}."
            )
        if kind == "take_pile":
            return f"{who} {verb('take')} {format_card(details[0])} from the discard pile."
        if kind == "take_stock":
            if you:
                return f"You draw {format_card(details[0])} from the stock."
            return f"{who} draws from the stock."
        if kind == "discard":
            return f"{who} {verb('discard')} {format_card(details[0])}."
        if kind == "knock":
            card, deadwood = details
            what = "goes gin" if not you else "go gin"
            if deadwood:
                what = f"{verb('knock')} with deadwood {deadwood}"
            return f"{who} {verb('discard')} {format_card(card)} and {what}."
        if kind == "big_gin":
            return f"{who} {'declare' if you else 'declares'} big gin."
        return ""

    def _your_move(self, hand: Any, deal: int, move: int) -> Action:
        view = hand.view()
        situation = hand.situation(view)
        pile = list(situation.pile_order)
        top = format_card(pile[-1]) if pile else "none"
        shown_pile = " ".join(format_card(c) for c in pile[-8:])
        more = f"({len(pile) - 8} more below) " if len(pile) > 8 else ""
        self.say(f"  discard pile: {more}{shown_pile or '(empty)'}   stock: {view.stock_left}")
        if view.opp_taken:
            self.say(
                f"  {self.settings.opponent.name} took from the pile and holds: {format_cards(view.opp_taken)}"
            )
        self.say(f"  your hand: {show_hand(view.hand)}")
        if self.hinter is not None:
            # The hints' stream: your seat's in this deal, one number per move of the hand.
            document = view_from_situation(situation)
            hint = self.hinter.decide(document, self.settings.key, deal=deal, seat=YOU, draws=move)
            by_score = self.hinter.strategy.value != "hand" and "score" in document
            name = f"hint: {self.hinter.strategy.name}"
            for line in advice_lines(hint, name, document, by_score):
                self.say("  " + line)
        phase = hand.phase
        prompt = {
            OFFER: f"Take the upcard {top}? t (take) or p (pass)",
            DRAW: f"Draw from the stock or take {top}? d (draw) or t (take)",
            DISCARD: "Discard a card (7h), knock with one (k 7h)"
            + (", or g (big gin)" if self.rules.big_gin_bonus > 0 else ""),
        }[phase]
        while True:
            text = self.read_line(f"{prompt} > ")
            if text is None or text.strip().lower() in QUIT_WORDS:
                raise InputEnded(quit=text is not None)
            if text.strip().lower() in HELP_WORDS or not text.strip():
                self.say(f"  moves here: {MOVES_HELP[phase]}; q to stop the game")
                continue
            try:
                action = parse_move(text, phase)
            except MoveError as error:
                self.say(f"  {error}")
                continue
            problem = move_problem(hand, action)
            if problem is not None:
                self.say(f"  not allowed: {problem}")
                continue
            if self.tutor_settings is None or self._tutor_agrees(hand, deal, move, action):
                return action

    def _tutor_agrees(self, hand: Any, deal: int, move: int, action: Action) -> bool:
        """The tutor's word on ``action`` (the review of this decision, from your view
        alone, its worlds keyed by the game's seed, the hand and the move): a move it would
        mark a mistake or a blunder is named with the better move and the loss, and played
        only if you confirm it."""
        view = view_from_situation(hand.situation(hand.view()))
        decision = ReviewDecision(deal, move, YOU, view, action_code(action))
        game_format = self.settings.format
        assert self.tutor_settings is not None
        judged = value_decisions(
            [decision], self.rules, self.tutor_settings, self.settings.key, game_format
        )[0]
        if judged.mark not in TUTOR_MARKS:
            return True
        best, played = judged.candidates[judged.best], judged.candidates[judged.played]
        self.say(
            f"  tutor: {played.action} looks like a {judged.mark}: {best.action} is worth"
            f" {judged.loss:.1f} points more [{judged.loss_low:.1f}, {judged.loss_high:.1f}]"
        )
        text = self.read_line("Play it anyway? y (yes) or n (choose again) > ")
        if text is None or text.strip().lower() in QUIT_WORDS:
            raise InputEnded(quit=text is not None)
        return text.strip().lower() in ("y", "yes")

    def _save(self) -> None:
        if self.save is None:
            return
        document = record_document(self)
        # The finished hands' keys and items are counted once each (``_hand_values``), so
        # that a save costs no more than writing the record.
        values = count_values(document | {"hands": []}) + self._hand_values
        if isinstance(self.save, RecordFile):
            self.save.save(document, values)
        else:
            save_record(self.save, document)


def score_lines(score: HollywoodScore, settings: GameSettings, finished: bool) -> list[str]:
    """The score as columns, one per game (R19), a game's winner marked ``*``, and the
    winner once the game is over."""
    names = ["you", settings.opponent.name]
    games = score.games
    headings = ["game"] if games == 1 else [f"game {g + 1}" for g in range(games)]
    lines = [
        (f"{f'Score (to {score.target})':<26}" + "".join(f"{h:>7} " for h in headings)).rstrip()
    ]
    for player in (0, 1):
        cells = "".join(
            f"{score.totals[player][g]:>7}" + ("*" if score.game_winner[g] == player else " ")
            for g in range(games)
        )
        lines.append(f"  {names[player]:<24}{cells}".rstrip())
    if finished:
        winner = score.match_winner
        won = "You win" if winner == YOU else f"{names[BOT]} wins"
        what = "the game" if games == 1 else "the match"
        lines.append(f"{won} {what}." if winner >= 0 else f"{what.capitalize()} is over.")
    return lines


# --------------------------------------------------------------------------- records
def record_document(game: Game) -> dict[str, Any]:
    settings = game.settings
    return {
        "kind": RECORD_KIND,
        "version": RECORD_VERSION,
        "rules": dataclasses.asdict(settings.rules),
        "format": settings.format,
        "seed": settings.seed,
        "players": ["you", settings.opponent.name],
        "opponent": settings.opponent.to_config(),
        "hints": None if settings.hints is None else settings.hints.name,
        "hands": game.hands,
        # The hand you left in the middle of (its moves so far), if any: replay shows it.
        "unfinished": game.unfinished,
        "finished": game.finished,
        "points": game.score.totals,
        "game_winners": game.score.game_winner[: game.score.games],
    }


class RecordFile:
    """The file ``play --save`` writes a game to, held by one game at a time.

    A record is a finished result once its game is over: it is never replaced (``claim``
    refuses it), nor is a file gin-sim did not write as a record. While a game is saved
    to it, the record is locked (``flock``) by its writer, so a second game on the same
    path is refused at once. Every save writes the whole record under a temporary name,
    locked before it is renamed over the last one, so the file at the path is always
    whole and always locked by its writer, and nothing is left beside it.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._held: int | None = None  # the descriptor whose lock the game holds
        self._created = False  # the claim created the (empty) file: removed if never saved

    def claim(self) -> RecordFile:
        """Take the path for a new game, or raise a one-line ``ConfigError`` saying why not."""
        path = self.path
        where = f"--save {path}"
        if path.is_symlink():
            raise ConfigError(
                f"{where}: the path is a symbolic link: give the record's own path (the link and its file are left alone)"
            )
        if not path.parent.is_dir():
            raise ConfigError(f"{where}: the folder {path.parent} does not exist")
        for _ in range(10):  # another writer may rename a new record over it meanwhile
            try:
                descriptor = os.open(path, os.O_RDWR | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
                created = True
            except FileExistsError:
                try:
                    descriptor = os.open(
                        path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW
                    )
                except FileNotFoundError:
                    continue
                except OSError as error:
                    raise ConfigError(f"{where}: {error.strerror or error}") from None
                created = False
            except OSError as error:
                raise ConfigError(f"{where}: cannot create it: {error.strerror or error}") from None
            try:
                if not _lock(descriptor) or not _still_at(descriptor, path):
                    if _still_at(descriptor, path):
                        raise ConfigError(
                            f"{where}: another gin-sim play is saving its game there: give another path"
                        )
                    continue  # replaced meanwhile: look at the new file
                if not created:
                    _check_replaceable(descriptor, path)
            except BaseException:
                os.close(descriptor)
                raise
            self._held, self._created = descriptor, created
            return self
        raise ConfigError(
            f"{where}: another gin-sim play is saving its game there: give another path"
        )

    def save(self, document: dict[str, Any], values: int | None = None) -> None:
        """Write ``document`` whole (a temporary file renamed over the record); a record
        beyond what ``load_record`` reads is ``RecordFull`` and nothing is written
        (``record_text``; ``values``: its count of keys and items, when kept)."""
        text = record_text(document, values)
        handle, temporary = tempfile.mkstemp(prefix=".gin-sim-play-", dir=self.path.parent)
        try:
            with os.fdopen(os.dup(handle), "w", encoding="utf-8") as out:
                out.write(text)
            _lock(handle)  # a new file: nobody else knows it yet
            os.chmod(temporary, 0o666 & ~_umask())
            os.replace(temporary, self.path)
        except BaseException:
            os.close(handle)
            Path(temporary).unlink(missing_ok=True)
            raise
        previous, self._held, self._created = self._held, handle, False
        if previous is not None:
            os.close(previous)

    def release(self) -> None:
        """Let the record go (its lock); an empty file the claim created and no game
        saved into is removed."""
        if self._held is None:
            return
        if self._created:
            self.path.unlink(missing_ok=True)
        os.close(self._held)
        self._held = None

    def __enter__(self) -> RecordFile:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def _lock(descriptor: int) -> bool:
    try:
        fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError as error:
        if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
            return False
        raise
    return True


def _still_at(descriptor: int, path: Path) -> bool:
    """Whether ``descriptor`` is still the file at ``path`` (not renamed over)."""
    try:
        here = os.stat(path, follow_symlinks=False)
    except FileNotFoundError:
        return False
    mine = os.fstat(descriptor)
    return (here.st_dev, here.st_ino) == (mine.st_dev, mine.st_ino)


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _check_replaceable(descriptor: int, path: Path) -> None:
    """An existing file at ``--save``: only an unfinished game's record may be replaced."""
    where = f"--save {path}"
    status = os.fstat(descriptor)
    document = None
    if stat.S_ISREG(status.st_mode) and status.st_size <= MAX_RECORD:
        with os.fdopen(os.dup(descriptor), "rb") as handle:
            data = handle.read(MAX_RECORD + 1)
        try:
            document = parse_json(data, str(path), MAX_RECORD_VALUES)
        except ValueError:
            document = None
    if not isinstance(document, dict) or document.get("kind") != RECORD_KIND:
        raise ConfigError(
            f"{where}: the file exists and is not a game record gin-sim wrote: give another path (it is left alone)"
        )
    if document.get("finished") is not False:
        hands = document.get("hands")
        count = f" ({len(hands)} hands)" if isinstance(hands, list) else ""
        raise ConfigError(
            f"{where}: the file holds a finished game{count}, a result that is kept: give another path"
        )


def check_record_path(path: Path) -> None:
    """Refuse a path that ``RecordFile.claim`` would refuse, without keeping it."""
    RecordFile(path).claim().release()


class RecordFull(Exception):
    """A record that would be larger than ``load_record`` reads: it is not written."""


def count_values(document: Any) -> int:
    """The keys and items of ``document``, all levels together, as ``check_document``
    counts them against its bound."""
    count, pending = 0, [document]
    while pending:
        value = pending.pop()
        if isinstance(value, dict):
            count += len(value)
            pending.extend(value.values())
        elif isinstance(value, list | tuple):
            count += len(value)
            pending.extend(value)
    return count


def record_text(document: dict[str, Any], values: int | None = None) -> str:
    """The record as saved, checked against the bounds ``load_record`` reads (its bytes,
    and its keys and items: ``values`` when the caller keeps the count), so that every
    record written can be replayed; ``RecordFull`` otherwise. The rest of what the reader
    bounds (nesting, the length of a text) the writer never comes near."""
    values = count_values(document) if values is None else values
    if values > MAX_RECORD_VALUES:
        raise RecordFull(f"it would hold more than {MAX_RECORD_VALUES:,} keys and items")
    text = json.dumps(document, indent=1) + "\n"
    if len(text.encode("utf-8")) > MAX_RECORD:
        raise RecordFull(f"it would be larger than {MAX_RECORD:,} bytes")
    return text


def save_record(path: Path, document: dict[str, Any]) -> None:
    """Write the record whole or not at all, to a path nobody else is saving to."""
    with RecordFile(path) as record:
        record._held = None  # a plain save: the caller has checked the path
        record.save(document)


def load_record(path: Path) -> dict[str, Any]:
    """A record's document, read within the bounds the writer keeps (``record_text``);
    anything else is a one-line ``ConfigError`` naming the file."""
    where = str(path)
    try:
        document = parse_json(read_user_file(path, MAX_RECORD), where, MAX_RECORD_VALUES)
    except UnicodeDecodeError:
        raise ConfigError(f"{where} is not a game record: not UTF-8 text") from None
    except json.JSONDecodeError as error:
        raise ConfigError(f"{where} is not a game record: not JSON ({error.msg})") from None
    if not isinstance(document, dict) or document.get("kind") != RECORD_KIND:
        raise ConfigError(f"{where} is not a game record of gin-sim play")
    if document.get("version") != RECORD_VERSION:
        raise ConfigError(
            f"{where}: record version {shown(document.get('version'))}: this gin-sim reads version {RECORD_VERSION}"
        )
    return document


@dataclass(frozen=True)
class _Record:
    """A record's fields, checked (``_record_fields``)."""

    rules: Rules
    players: tuple[str, str]
    format: str
    seed: int
    hands: list[Any]
    unfinished: Any
    finished: bool


def _record_fields(document: dict[str, Any], where: str) -> _Record:
    """The fields of a record, each of the type and in the range the writer gives it."""

    def damaged(field: str, value: Any, allowed: str) -> ConfigError:
        return ConfigError(
            f"{where}: field {field!r} = {shown(value)}: a record has {allowed} (the record is damaged or was edited)"
        )

    missing = [key for key in RECORD_FIELDS if key not in document]
    if missing:
        raise ConfigError(f"{where}: not a complete game record (no field {missing[0]!r})")
    if not isinstance(document["rules"], dict):
        raise damaged("rules", document["rules"], "a table of rules")
    rules = rules_from_dict(dict(document["rules"]), f"{where} (rules)")
    players = document["players"]
    if (
        not isinstance(players, list)
        or len(players) != 2
        or not all(isinstance(p, str) and p and p.isprintable() for p in players)
    ):
        raise damaged("players", players, "two players' names")
    if document["format"] not in FORMATS:
        raise damaged("format", document["format"], f"one of {', '.join(FORMATS)}")
    seed = document["seed"]
    try:
        check_seed(seed)
    except ConfigError:
        raise damaged("seed", seed, "a whole number 0 to 2**64 - 1") from None
    hands = document["hands"]
    if not isinstance(hands, list) or not all(isinstance(h, dict) for h in hands):
        raise damaged("hands", hands, "a list of hands")
    unfinished = document["unfinished"]
    if unfinished is not None and not isinstance(unfinished, dict):
        raise damaged("unfinished", unfinished, "null or the hand in play")
    finished = document["finished"]
    if not isinstance(finished, bool):
        raise damaged("finished", finished, "true or false")
    return _Record(
        rules, (players[0], players[1]), document["format"], seed, hands, unfinished, finished
    )


RECORD_FIELDS = ("rules", "format", "seed", "players", "hands", "unfinished", "finished")


def replay_record(path: Path) -> list[str]:
    """Every hand of a saved game move by move (as ``gin-sim replay`` tells a deal), its
    moves played through the engine again. A record is refused unless it is the game its
    seed and moves make: each hand's deck is the seed's deal, its dealer the winner of the
    hand before (R5), its moves end it as recorded, no hand follows the end of the game
    (R20, under the record's own rules: a target edited down is caught here), a finished
    game has ended, and the points are what the hands score."""
    document = load_record(path)
    where = str(path)
    record_fields = _record_fields(document, where)
    rules, players, game_format = record_fields.rules, record_fields.players, record_fields.format
    hands, seed = record_fields.hands, record_fields.seed
    names = [f"player 1 ({players[0]})", f"player 2 ({players[1]})"]
    games = N_GAMES if game_format == "hollywood" else 1
    score = HollywoodScore(target=rules.game_target, games=games)
    key = match_key(seed, 0)
    dealer = bounded(splitmix64(key), 2)  # R5, as the game drew it
    lines = [
        f"A game of gin-sim play ({game_format}, rules {rules.name}, seed {seed}): {players[0]} v {players[1]}"
    ]

    def over(played: int) -> bool:  # as ``Game.finished``
        if game_format == "hand":
            return played >= 1
        return score.finished or played >= MOST_HANDS

    for number, saved in enumerate(hands):
        if over(number):
            raise ConfigError(
                f"{where}: hand {number + 1} follows the end of the game (R20, game_target = {rules.game_target}): the record was edited"
            )
        _check_deal(saved, number, key, dealer, where)
        events, hand, _ = _replayed(saved, number, rules, where)
        try:
            if hand.phase != OVER:
                raise ValueError("its moves stop before the end of the hand")
            record = hand.result()
            if record != saved["record"]:
                raise ValueError("its moves do not end it as recorded")
        except (KeyError, TypeError, ValueError) as error:
            raise ConfigError(f"{where}: hand {number + 1}: {error}") from None
        lines.append("")
        lines += describe_events(
            events, record, names, rules, dealer, heading=f"Hand {number + 1}:"
        )
        if record["winner"] >= 0:
            score.credit(int(record["winner"]), int(record["points"]))
            dealer = int(record["winner"])  # R5: the winner deals next
        if game_format != "hand":
            totals = "  ".join(f"{score.totals[0][g]}:{score.totals[1][g]}" for g in range(games))
            lines.append(f"Score after hand {number + 1} ({players[0]}:{players[1]}): {totals}")
    if record_fields.finished != over(len(hands)) or (
        record_fields.finished and record_fields.unfinished is not None
    ):
        said = "finished" if record_fields.finished else "not finished"
        raise ConfigError(
            f"{where}: the record says the game is {said}, but its hands under its rules (game_target = {rules.game_target}) say otherwise: the record was edited"
        )
    points = document.get("points")
    if points is not None and points != score.totals:
        raise ConfigError(
            f"{where}: its points {shown(points)} are not what its hands score ({score.totals}): the record was edited"
        )
    unfinished = record_fields.unfinished
    if unfinished is not None:
        number = len(hands)
        _check_deal(unfinished, number, key, dealer, where)
        events, hand, _ = _replayed(unfinished, number, rules, where)
        if hand.phase == OVER:
            raise ConfigError(f"{where}: hand {number + 1}: unfinished, but its moves end it")
        lines.append("")
        lines += describe_events(events, {}, names, rules, dealer, heading=f"Hand {number + 1}:")
        lines.append(
            f"(the game stopped here, in hand {number + 1}, after {len(unfinished['moves'])} moves)"
        )
        return lines
    if not record_fields.finished:
        lines.append("(the game stopped here, before its end)")
    return lines


def _check_deal(saved: dict[str, Any], number: int, key: int, dealer: int, where: str) -> None:
    """Hand ``number`` of a record is the seed's deal, dealt by ``dealer`` (R5)."""
    expected = format_cards(deck_for_deal(key, number))
    if saved.get("deck") != expected:
        raise ConfigError(
            f"{where}: hand {number + 1}: its deck is not deal {number + 1} of the record's seed: the record was edited"
        )
    if saved.get("dealer") != dealer or isinstance(saved.get("dealer"), bool):
        raise ConfigError(
            f"{where}: hand {number + 1}: dealer {shown(saved.get('dealer'))}, but the winner of the hand before deals (R5): the record was edited"
        )


def _replayed(saved: Any, number: int, rules: Rules, where: str) -> tuple[list, Any, int]:
    """Hand ``number`` of a record (its deck, dealer and moves) played through the
    engine: (its events, the hand after the moves, its dealer); a move the rules refuse
    is a one-line error naming the hand."""
    try:
        deck, dealer, moves = parse_deck(saved["deck"]), saved["dealer"], saved["moves"]
        if not isinstance(dealer, int) or isinstance(dealer, bool) or dealer not in (0, 1):
            raise ValueError(f"dealer {shown(dealer)}: a record's dealer is 0 or 1")
        if not isinstance(moves, list):
            raise ValueError(f"moves {shown(moves)}: a record's moves are a list")
        events: list[tuple] = []
        hand = start_hand(deck, rules, dealer, deal=number, trace=events)
        for move in moves:
            if hand.phase == OVER:
                raise ValueError(f"move {shown(move)} after the end of the hand")
            action = parse_move(str(move), hand.phase)
            problem = move_problem(hand, action)
            if problem is not None:
                raise ValueError(f"move {shown(move)}: {problem}")
            hand.apply(action)
    except (KeyError, TypeError, ValueError) as error:
        raise ConfigError(f"{where}: hand {number + 1}: {error}") from None
    return events, hand, dealer
