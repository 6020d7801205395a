"""Hollywood scoring in plain Python: three games scored at once (R19 to R23).

This is the readable version the reference engine uses and the tests exercise with the
seeds' worked example (R22); the match kernel (``gin_sim.kernels.match``) implements
the same rules and is tested against it.

>>> score = HollywoodScore(target=100)
>>> for player, points in [(1, 10), (0, 18), (1, 30), (1, 4)]:  # R22: Alexandra 0, Bob 1
...     score.credit(player, points)
>>> score.totals
[[18, 0, 0], [44, 34, 4]]
"""

from __future__ import annotations

from dataclasses import dataclass, field

N_GAMES = 3
BOX_BONUS = 25  # R23: per hand won in a game
GAME_BONUS = 100  # R23: for winning a game


@dataclass
class HollywoodScore:
    target: int = 100
    games: int = N_GAMES  # 1: a plain game to the target (game 1's column alone)
    totals: list[list[int]] = field(default_factory=lambda: [[0] * N_GAMES for _ in range(2)])
    boxes: list[list[int]] = field(default_factory=lambda: [[0] * N_GAMES for _ in range(2)])
    entered: list[list[bool]] = field(default_factory=lambda: [[False] * N_GAMES for _ in range(2)])
    game_winner: list[int] = field(default_factory=lambda: [-1] * N_GAMES)

    def is_open(self, game: int) -> bool:
        return self.game_winner[game] < 0

    @property
    def finished(self) -> bool:
        """R21: the match goes on until all three games have ended."""
        return not any(self.is_open(g) for g in range(self.games))

    def credit(self, player: int, points: int) -> None:
        """R19, R20: credit a won hand to the player's open games, enter the next one."""
        for game in range(self.games):
            if self.entered[player][game] and self.is_open(game):
                self._add(player, game, points)
        # R19: the win also enters the first open game the player has not entered yet
        # (a game that ended can no longer be entered).
        for game in range(self.games):
            if not self.entered[player][game] and self.is_open(game):
                self.entered[player][game] = True
                self._add(player, game, points)
                break
        for game in range(self.games):  # R20: a game ends at the target; several may end at once
            if self.is_open(game) and self.totals[player][game] >= self.target:
                self.game_winner[game] = player

    def _add(self, player: int, game: int, points: int) -> None:
        self.totals[player][game] += points
        self.boxes[player][game] += 1

    def games_won(self, player: int) -> int:
        return sum(1 for w in self.game_winner if w == player)

    @property
    def match_winner(self) -> int:
        """R21: the player who won two of the three games, -1 while that is undecided
        (a plain game: its winner)."""
        if self.games == 1:
            return self.game_winner[0]
        for player in (0, 1):
            if self.games_won(player) >= 2:
                return player
        return -1

    def tallies(self, bonuses: bool) -> list[list[int]]:
        """Each game's final tally per player; R23 bonuses apply to ended games only.

        With bonuses: 25 per hand won in the game, 100 to its winner, and the winner's
        whole tally (points and bonuses) doubled when the loser scored no points in it.
        The bonuses never decide when a game ends.
        """
        result = [row[:] for row in self.totals]
        if not bonuses:
            return result
        for game in range(N_GAMES):
            winner = self.game_winner[game]
            if winner < 0:
                continue
            for player in (0, 1):
                result[player][game] += BOX_BONUS * self.boxes[player][game]
            result[winner][game] += GAME_BONUS
            if self.totals[1 - winner][game] == 0:
                result[winner][game] *= 2
        return result
