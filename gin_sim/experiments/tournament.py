"""Round-robin tournaments: every pair of strategies on the same decks and matches.

Each pairing of each rule set is an ordinary run (``gin_sim.experiments.runs``): ``deals`` duplicate
decks and, with ``matches``, that many duplicate Hollywood matches, all with the same
seed, so every pairing plays the same decks and the same match deck sequences (common
random numbers). With a run folder every finished chunk is saved there, and playing the
same tournament again reads those chunks back instead of playing them (resume after
Ctrl-C or a killed process, with identical results). On a Dask cluster
(``gin_sim.experiments.cluster.active_client``) the chunks of every pairing are submitted at once.

Of each run only what the tables need is kept: the net points of the pairing's first
player per deck (its two hands) and its match and game-1 wins and losses per match.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from gin_sim.experiments.outputs import claim_folder, safe_name
from gin_sim.experiments.runs import RunConfig, execute, play_chunk_on_worker
from gin_sim.experiments.summary import Estimate, Moments, seat_of
from gin_sim.game.config import ConfigError
from gin_sim.game.rules import Rules
from gin_sim.players.strategies import Strategy

NET = "net points per hand"
MATCHES_WON = "matches won"
GAME1_WON = "game 1 won"
CELL_FIGURES = (NET, MATCHES_WON, GAME1_WON)
# Decks and matches per chunk: the unit of saving, resuming and of a Dask task.
CHUNK_DECKS = 25_000
CHUNK_MATCHES = 2_500
HANDS_PER_DECK = 2  # duplicate deals: each deck twice, seats swapped

Progress = Callable[[int], None] | None


@dataclass
class PairResult:
    """What one pairing's runs leave for the tables, for its ``first`` player."""

    net: np.ndarray  # int64[decks]: net points of ``first`` over the two hands of each deck
    match_wins: np.ndarray | None = None  # int64[matches]: matches ``first`` won (0 to 2)
    match_losses: np.ndarray | None = None
    game1_wins: np.ndarray | None = None
    game1_losses: np.ndarray | None = None


@dataclass
class Tournament:
    """A round robin under one or more rule sets."""

    rules: list[Rules]
    players: list[Strategy]
    deals: int
    matches: int
    seed: int
    results: dict[tuple[str, int, int], PairResult] = field(default_factory=dict)

    @property
    def names(self) -> list[str]:
        return [p.name for p in self.players]

    def pairs(self) -> list[tuple[int, int]]:
        """Every pairing once, in the order of ``players``."""
        n = len(self.players)
        return [(a, b) for a in range(n) for b in range(a + 1, n)]

    def cell(self, rules: str, row: int, column: int, figure: str = NET) -> Estimate:
        """``figure`` of ``players[row]`` against ``players[column]`` with its 95% interval."""
        a, b = min(row, column), max(row, column)
        result = self.results[(rules, a, b)]
        flip = row != a
        if figure == NET:
            return Moments.of(
                -result.net if flip else result.net, np.full(result.net.size, HANDS_PER_DECK)
            ).estimate()
        wins, losses = (
            (result.match_wins, result.match_losses)
            if figure == MATCHES_WON
            else (result.game1_wins, result.game1_losses)
        )
        if wins is None or losses is None:
            raise ConfigError(f"{figure!r}: this tournament played no matches")
        mine = losses if flip else wins
        return Moments.of(mine, np.full(mine.size, 2)).estimate()

    def per_deck(self, rules: str) -> np.ndarray:
        """float64[pairs, decks]: net points of each pairing's first player by deck."""
        return np.stack([self.results[(rules, a, b)].net for a, b in self.pairs()]).astype(
            np.float64
        )

    def field_win_rate(self, rules: str, player: int, figure: str = MATCHES_WON) -> Estimate:
        """The mean of ``player``'s win rates against each other player, over the same
        matches (so the interval treats each match number as one unit)."""
        others = [p for p in range(len(self.players)) if p != player]
        total = np.zeros(self.matches)
        for other in others:
            a, b = min(player, other), max(player, other)
            result = self.results[(rules, a, b)]
            wins, losses = (
                (result.match_wins, result.match_losses)
                if figure == MATCHES_WON
                else (result.game1_wins, result.game1_losses)
            )
            total += losses if player != a else wins  # type: ignore[operator]
        return Moments.of(total / len(others), np.full(self.matches, 2)).estimate()

    def cross_table(self) -> pd.DataFrame:
        """Tidy: one row per (rules, player, opponent, figure), both orders of every pair."""
        figures = CELL_FIGURES if self.matches else (NET,)
        rows = []
        for rule_set in self.rules:
            for row in range(len(self.players)):
                for column in range(len(self.players)):
                    if row == column:
                        continue
                    for figure in figures:
                        estimate = self.cell(rule_set.name, row, column, figure)
                        rows.append(
                            {
                                "rules": rule_set.name,
                                "player": self.names[row],
                                "opponent": self.names[column],
                                "figure": figure,
                                "mean": estimate.mean,
                                "half_width": estimate.half_width,
                                "low": estimate.mean - estimate.half_width,
                                "high": estimate.mean + estimate.half_width,
                                "n": estimate.n,
                            }
                        )
        return pd.DataFrame.from_records(rows)


def check_entrants(rules: Sequence[Rules], players: Sequence[Strategy]) -> None:
    """Two or more distinct players and distinct rule sets, every player legal under each."""
    if len(players) < 2:
        raise ConfigError(
            f"players {','.join(p.name for p in players)}: a tournament needs two or more strategies"
        )
    names = [p.name for p in players]
    if len(set(names)) != len(names):
        raise ConfigError(f"players {','.join(names)}: two of them have the same name")
    rule_names = [r.name for r in rules]
    if not rules or len(set(rule_names)) != len(rule_names):
        raise ConfigError(f"rules {','.join(rule_names)}: allowed one or more different rule sets")
    for rule_set in rules:
        for player in players:
            player.for_rules(rule_set)  # a threshold above the knock limit is an error here


def run_configs(tournament: Tournament) -> dict[tuple[str, int, int, str], RunConfig]:
    """The runs of a tournament: (rules, a, b, kind) -> the run's configuration."""
    configs = {}
    for rule_set in tournament.rules:
        for a, b in tournament.pairs():
            pair = (tournament.players[a], tournament.players[b])
            configs[(rule_set.name, a, b, "hands")] = RunConfig(
                "hands", rule_set, pair, tournament.seed, tournament.deals, True,
                min(CHUNK_DECKS, tournament.deals),
            )  # fmt: skip
            if tournament.matches:
                configs[(rule_set.name, a, b, "matches")] = RunConfig(
                    "matches", rule_set, pair, tournament.seed, tournament.matches, True,
                    min(CHUNK_MATCHES, tournament.matches),
                )  # fmt: skip
    return configs


def run_folder(root: Path, tournament: Tournament, key: tuple[str, int, int, str]) -> Path:
    """``root/<rules>/<first>_vs_<second>/<hands or matches>``, the names written by
    ``safe_name``: distinct names never share a folder, and none leaves ``root``."""
    rules, a, b, kind = key
    pair = f"{safe_name(tournament.names[a])}_vs_{safe_name(tournament.names[b])}"
    return root / safe_name(rules) / pair / kind


def tournament_runs(rule_sets: int, players: int, matches: int) -> int:
    """The number of runs a tournament plays (for progress bars)."""
    return rule_sets * players * (players - 1) // 2 * (2 if matches else 1)


class _Submitted:
    """Stands in for a Dask client in ``runs.execute``: hands back the tasks that were
    submitted for every run of the tournament at once, so pairings play in parallel."""

    def __init__(self, tasks: dict[int, Any]) -> None:
        self.tasks = tasks

    def submit(self, function, config, chunk, *args, **kwargs) -> Any:
        return self.tasks[chunk]


def _net_by_deck(frame: pd.DataFrame) -> np.ndarray:
    seat = seat_of(frame, 0)
    winner = frame["winner"].to_numpy()
    points = frame["points"].to_numpy().astype(np.int64)
    net = np.where(winner == seat, points, 0) - np.where(winner == 1 - seat, points, 0)
    return pd.Series(net).groupby(frame["deal"].to_numpy()).sum().to_numpy()


def _by_match(frame: pd.DataFrame, column: str, seat: np.ndarray, side: int) -> np.ndarray:
    won = frame[column].to_numpy() == (seat if side == 0 else 1 - seat)
    return pd.Series(won.astype(np.int64)).groupby(frame["match"].to_numpy()).sum().to_numpy()


def play_tournament(
    rules: Sequence[Rules],
    players: Sequence[Strategy],
    deals: int,
    matches: int,
    seed: int,
    runs: str | Path | None = None,
    overwrite: bool = False,
    client: Any = None,
    on_run: Progress = None,
) -> Tournament:
    """Play (or resume from ``runs``) every pairing under every rule set.

    ``on_run(1)`` is called after each finished run (a pairing's decks, then its matches).
    """
    check_entrants(rules, players)
    tournament = Tournament(list(rules), list(players), deals, matches, seed)
    configs = run_configs(tournament)
    root = Path(runs) if runs is not None else None
    folders = {key: run_folder(root, tournament, key) if root else None for key in configs}
    # The runs folder is gin-sim's: new or empty, or one a tournament wrote (any tournament's:
    # each run folder in it is checked against its own manifest).
    claim = (
        claim_folder(root, "tournament runs", {}, lambda name: (root / name).is_dir())
        if root is not None
        else None
    )
    try:
        _play(tournament, configs, folders, overwrite, client, on_run)
    finally:
        if claim is not None:
            claim.release()
    return tournament


def _play(tournament, configs, folders, overwrite: bool, client: Any, on_run: Progress) -> None:
    tasks: dict[tuple[str, int, int, str], dict[int, Any]] = {}
    opened: list[Any] = []  # runs held open (their folders locked) while their tasks play
    if client is not None:
        from gin_sim.experiments.cluster import TASK_RETRIES
        from gin_sim.experiments.runs import Run

        for key, config in configs.items():
            run = Run.open(folders[key], config, overwrite) if folders[key] else None
            if run is not None:
                opened.append(run)
            tasks[key] = {
                chunk: client.submit(
                    play_chunk_on_worker,
                    config,
                    chunk,
                    None,
                    None,
                    pure=False,
                    retries=TASK_RETRIES,
                )
                for chunk in range(config.n_chunks)
                if run is None or not run.is_done(chunk)
            }
        overwrite = False  # the folders are open now; execute must not clear them again
    try:
        tournament.results = _collect(configs, folders, tasks, client, overwrite, on_run)
    finally:
        for run in opened:
            run.close()


def _collect(configs, folders, tasks, client, overwrite: bool, on_run: Progress):
    """Play or read every run of a tournament, in order: the results by pairing."""
    partial: dict[tuple[str, int, int], PairResult] = {}
    for key, config in configs.items():
        rule_name, a, b, kind = key
        helper = _Submitted(tasks[key]) if client is not None else None
        frames = list(execute(config, folders[key], overwrite, client=helper))
        frame = pd.concat(frames, ignore_index=True)
        result = partial.setdefault((rule_name, a, b), PairResult(np.zeros(0, np.int64)))
        if kind == "hands":
            result.net = _net_by_deck(frame)
        else:
            seat = seat_of(frame, 0)
            result.match_wins = _by_match(frame, "winner", seat, 0)
            result.match_losses = _by_match(frame, "winner", seat, 1)
            result.game1_wins = _by_match(frame, "game1_winner", seat, 0)
            result.game1_losses = _by_match(frame, "game1_winner", seat, 1)
        if on_run is not None:
            on_run(1)
    return partial
