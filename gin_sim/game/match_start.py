"""Where a match or a plain game starts: every column's score, entries, ended games, dealer.

A ``MatchStart`` is a score state from which ``simulate_matches`` (and the reference match)
play on. Scores are given as the table sees them, player 1 (the first of ``--players``)
first. Two formats:

- ``game``: a plain game to ``game_target`` (R17 hand scores, R20), i.e. game 1 of the
  match alone: ``--start 80:40``.
- ``hollywood``: the three-game match (R19 to R23): ``--start 80:40,30:0,0:0``, one
  ``P1:P2`` column per game in order (columns left out are ``0:0``).

Everything else is read from the columns. A score at or above the target means that game
has ended, won by that player (R20). A player has entered a game when a hand was credited
to it (R19): each score may carry its hand count, ``80/3`` (needed for entries of 0 points
and for the R23 box bonuses); without it the count is the fewest hands that make the
column (1 for points, and one more than the next column while both are open, as R19
credits every hand of game 2 to game 1 too). States no match can reach (an open game after
an ended one, game 2 ahead of an open game 1, ...) are refused with the rule they break.

>>> start = parse_start("80:40", "game", first_dealer=2)
>>> start.points, start.first_dealer
(((80, 0, 0), (40, 0, 0)), 1)
>>> parse_start("80:40,30:0", "hollywood").boxes
((2, 1, 0), (1, 0, 0))
>>> parse_start("100:40", "game")
Traceback (most recent call last):
...
gin_sim.game.config.ConfigError: --start 100:40: player 1 has 100 in the game, at or above the target 100: the game would be over (R20); allowed 0 to 99
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from gin_sim.game.config import ConfigError
from gin_sim.game.rules import Rules
from gin_sim.kernels.enums import N_MATCH_START_SLOTS, MatchStartSlot

FORMATS = ("hollywood", "game")
N_GAMES = 3
# A 10-card hand with no meld counts at most 98 (K K Q Q J J T T 9 9, R2), so no hand can
# score more than a gin bonus plus 98 (R17); a score above target - 1 plus that is unreachable.
MOST_DEADWOOD = 98
_SCORE = re.compile(r"(\d+)(?:/(\d+))?")

Column = tuple[int, int, int]


@dataclass(frozen=True)
class MatchStart:
    """A score state to play from; player 0 is the first of the pair of players."""

    format: str = "hollywood"
    points: tuple[Column, Column] = ((0, 0, 0), (0, 0, 0))  # [player][game]
    boxes: tuple[Column, Column] = ((0, 0, 0), (0, 0, 0))  # hands credited, [player][game]
    first_dealer: int | None = None  # 0 or 1; None: drawn from the match key (R5)

    @property
    def games(self) -> int:
        return N_GAMES if self.format == "hollywood" else 1

    def ended(self, game: int, target: int) -> int:
        """The winner of a game that has ended (R20), -1 while it is open."""
        for player in (0, 1):
            if self.points[player][game] >= target:
                return player
        return -1

    def swapped(self) -> MatchStart:
        """The same state with the seats swapped: the score follows its player."""
        dealer = None if self.first_dealer is None else 1 - self.first_dealer
        return MatchStart(self.format, self.points[::-1], self.boxes[::-1], dealer)  # type: ignore[arg-type]

    def to_kernel(self) -> np.ndarray:
        """The int64 vector ``play_match_nb`` starts from, indexed by ``MatchStartSlot``."""
        vector = np.zeros(N_MATCH_START_SLOTS, np.int64)
        for player in (0, 1):
            for game in range(N_GAMES):
                vector[MatchStartSlot.POINTS + 3 * player + game] = self.points[player][game]
                vector[MatchStartSlot.BOXES + 3 * player + game] = self.boxes[player][game]
        vector[MatchStartSlot.FIRST_DEALER] = -1 if self.first_dealer is None else self.first_dealer
        vector[MatchStartSlot.GAMES] = self.games
        return vector

    def describe(self) -> str:
        """The state as ``--start`` and ``--first-dealer`` spell it (points/hands)."""
        columns = ",".join(f"{self._score(0, g)}:{self._score(1, g)}" for g in range(self.games))
        dealer = (
            "first dealer drawn at random"
            if self.first_dealer is None
            else f"player {self.first_dealer + 1} deals first"
        )
        return f"from {columns}, {dealer}"

    def _score(self, player: int, game: int) -> str:
        return f"{self.points[player][game]}/{self.boxes[player][game]}"

    def to_json(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "points": [list(row) for row in self.points],
            "boxes": [list(row) for row in self.boxes],
            "first_dealer": self.first_dealer,
        }

    @classmethod
    def from_json(cls, document: Any, rules: Rules, where: str) -> MatchStart:
        try:
            start = cls(
                document["format"],
                tuple(tuple(int(v) for v in row) for row in document["points"]),  # type: ignore[arg-type]
                tuple(tuple(int(v) for v in row) for row in document["boxes"]),  # type: ignore[arg-type]
                document["first_dealer"],
            )
        except (KeyError, TypeError, ValueError) as error:
            raise ConfigError(f"{where}: not a match start state ({error!r})") from None
        start.validate(rules, where)
        return start

    def validate(self, rules: Rules, where: str = "start") -> None:
        """Refuse a state no match under ``rules`` can reach, naming the rule it breaks."""
        if self.format not in FORMATS:
            raise ConfigError(f"{where}: format {self.format!r}: allowed {', '.join(FORMATS)}")
        if self.first_dealer not in (None, 0, 1) or isinstance(self.first_dealer, bool):
            raise ConfigError(f"{where}: first dealer {self.first_dealer!r}: allowed 1 or 2")
        shape_ok = len(self.points) == 2 and len(self.boxes) == 2
        shape_ok = shape_ok and all(len(r) == N_GAMES for r in (*self.points, *self.boxes))
        if not shape_ok:
            raise ConfigError(f"{where}: expected three columns of two scores")
        target = rules.game_target
        least, most = hand_points_range(rules)
        highest = target - 1 + most
        for player in (0, 1):
            for game in range(N_GAMES):
                points, boxes = self.points[player][game], self.boxes[player][game]
                name = f"player {player + 1} in {self._game(game)}"
                if game >= self.games and (points or boxes):
                    raise ConfigError(f"{where}: a plain game has one column: {name} must be 0")
                if not 0 <= points <= highest:
                    raise ConfigError(
                        f"{where}: {name} has {points}: allowed 0 to {highest} (the target {target} less 1, plus the most one hand scores, {most})"
                    )
                if boxes < 0 or boxes > (points // least if least else 10_000):
                    raise ConfigError(
                        f"{where}: {name} has {points} points in {boxes} hands: every hand scores at least {least} (R17)"
                    )
                if points > 0 and boxes == 0:
                    raise ConfigError(
                        f"{where}: {name} has {points} points in 0 hands (R19: points come with hands)"
                    )
        for game in range(N_GAMES):
            if all(self.points[p][game] >= target for p in (0, 1)):
                raise ConfigError(
                    f"{where}: both players have {target} or more in {self._game(game)}: it ends when the first reaches the target (R20)"
                )
        if self.format == "game":
            for player in (0, 1):
                if self.points[player][0] >= target:
                    raise ConfigError(
                        f"{where}: player {player + 1} has {self.points[player][0]} in the game, at or above the target {target}: the game would be over (R20); allowed 0 to {target - 1}"
                    )
            return
        open_games = [self.ended(g, target) < 0 for g in range(N_GAMES)]
        if not any(open_games):
            raise ConfigError(f"{where}: all three games have ended: the match is over (R21)")
        for game in range(N_GAMES - 1):
            if open_games[game] and not open_games[game + 1]:
                raise ConfigError(
                    f"{where}: {self._game(game + 1)} has ended but {self._game(game)} is open: every hand credited to a later game while an earlier one is open is credited to it too, so the earlier one ends first (R19, R20)"
                )
        for player in (0, 1):
            for game in range(N_GAMES - 1):
                if not open_games[game]:
                    continue
                here, later = self.boxes[player][game], self.boxes[player][game + 1]
                name = f"player {player + 1}"
                if later and not here:
                    raise ConfigError(
                        f"{where}: {name} has entered {self._game(game + 1)} but not {self._game(game)}, which is open: a player enters the games in order (R19)"
                    )
                if later and (
                    here <= later
                    or self.points[player][game] < self.points[player][game + 1] + least
                ):
                    raise ConfigError(
                        f"{where}: {name} has {self._score(player, game)} (points/hands) in {self._game(game)} and {self._score(player, game + 1)} in {self._game(game + 1)}: while {self._game(game)} is open it gets every hand of {self._game(game + 1)} and the hand that entered it (R19)"
                    )

    def _game(self, game: int) -> str:
        return "the game" if self.format == "game" else f"game {game + 1}"


def hand_points_range(rules: Rules) -> tuple[int, int]:
    """The fewest and the most points one won hand can score under ``rules`` (R14, R17)."""
    tie = rules.undercut_bonus if rules.undercut_on_tie else rules.undercut_bonus + 1
    bonuses = [rules.gin_bonus] + ([rules.big_gin_bonus] if rules.big_gin_bonus > 0 else [])
    least = min(1, tie, *bonuses)
    most = max(max(bonuses) + MOST_DEADWOOD, rules.undercut_bonus + rules.knock_limit)
    return least, most


# Digits of one number in a score: far above any reachable score (the target is at most
# 100,000), and few enough that an error can quote it and Python can read it.
MAX_SCORE_DIGITS = 12


def score_text(text: str, limit: int = 60) -> str:
    """A score's text for an error naming the option: cut, its length said, when long."""
    return text if len(text) <= limit else f"{text[:limit]}... ({len(text):,} characters)"


def check_score_numbers(text: str, where: str) -> None:
    """Refuse a score holding a number of more than MAX_SCORE_DIGITS digits, naming the
    option (``where``) before Python's own limit on reading numbers says it without it."""
    for digits in re.findall(r"\d+", text):
        if len(digits) > MAX_SCORE_DIGITS:
            raise ConfigError(
                f"{where}: a number of {len(digits):,} digits ({digits[:12]}...): a score is a whole number of at most {MAX_SCORE_DIGITS} digits (0 to the game target plus one hand's points)"
            )


def parse_start(
    text: str | None,
    format: str = "hollywood",
    first_dealer: int | None = None,
    rules: Rules | None = None,
    where: str | None = None,
) -> MatchStart:
    """A start state from the command line's ``--start`` and ``--first-dealer`` (1 or 2).

    ``text`` None is the start of a match or a game (0 everywhere). ``where`` names the
    text in errors (default ``--start TEXT``; a decision's view names its ``score`` field).
    """
    rules = rules if rules is not None else Rules()
    if where is None:
        where = "--start " + (score_text(text) if text is not None else "(none)")
    if text is not None:
        check_score_numbers(text, where)
    if format not in FORMATS:
        raise ConfigError(f"--format {format!r}: allowed {', '.join(FORMATS)}")
    if first_dealer is not None and first_dealer not in (1, 2):
        raise ConfigError(f"--first-dealer {first_dealer}: allowed 1 or 2 (player 1 or player 2)")
    games = N_GAMES if format == "hollywood" else 1
    columns = [] if text is None else [c.strip() for c in text.replace(" ", ",").split(",")]
    columns = [c for c in columns if c]
    example = "80:40" if format == "game" else "80:40,30:0,0:0"
    if text is not None and not 1 <= len(columns) <= games:
        allowed = "one column" if games == 1 else "one to three columns"
        raise ConfigError(
            f"{where}: expected {allowed} of two scores P1:P2 (player 1 first), e.g. {example}"
        )
    points = [[0] * N_GAMES for _ in range(2)]
    given: list[list[int | None]] = [[0] * N_GAMES for _ in range(2)]
    for game, column in enumerate(columns):
        scores = column.split(":")
        matches = [_SCORE.fullmatch(s.strip()) for s in scores]
        if len(scores) != 2 or not all(matches):
            raise ConfigError(
                f"{where}: column {column!r} is not P1:P2 (whole numbers, each optionally /HANDS), e.g. {example}"
            )
        for player, match in enumerate(matches):
            assert match is not None
            points[player][game] = int(match.group(1))
            given[player][game] = None if match.group(2) is None else int(match.group(2))
    boxes = [[0] * N_GAMES for _ in range(2)]
    for player in (0, 1):
        for game in reversed(range(N_GAMES)):
            count = given[player][game]
            if count is None:
                # The fewest hands: one, and one more than the next column while both are
                # open (R19: game 1 gets every hand of game 2 and the hand that entered it).
                later = boxes[player][game + 1] if game + 1 < N_GAMES else 0
                still_open = all(points[p][game] < rules.game_target for p in (0, 1))
                count = (later + 1 if later and still_open else 1) if points[player][game] else 0
            boxes[player][game] = count
    start = MatchStart(
        format,
        (tuple(points[0]), tuple(points[1])),  # type: ignore[arg-type]
        (tuple(boxes[0]), tuple(boxes[1])),  # type: ignore[arg-type]
        None if first_dealer is None else first_dealer - 1,
    )
    start.validate(rules, where)
    return start
