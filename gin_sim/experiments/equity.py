"""Game and Hollywood match equity tables from measured hand outcomes (issue 17, part 2).

1. ``measure_outcomes`` plays duplicate deals between two players: every deck once with
   each of them dealing, so each deck gives one hand per dealer.
2. ``game_equity``: the probability that player 1 ("me") wins a game to the target from
   every score pair and dealer, by exact dynamic programming over the scores
   (``kernels.equity.game_equity_nb``), with 95% percentile intervals from a bootstrap
   over the decks (each replicate resamples decks, so both dealers' hands of a deck stay
   together, and reruns the dynamic programme).
3. ``model_matches``: Hollywood match equity from any start state by Monte Carlo under
   the same model (hands drawn from the measured distribution, scored by the match
   kernel's own crediting), played again with the same random numbers under bootstrap
   resamples of the decks: the interval holds both the Monte Carlo error and the
   uncertainty of the measured distribution (``model_interval``).

The assumption behind 2 and 3: hands are independent given the dealer, and nobody plays
differently by the score. ``check_hand_by_hand`` refuses players for whom it fails by
construction (``Strategy.score_readings``: ``closing_distance``, score-aware searchers,
panels that learn across hands); ``equity_study`` checks cells against direct
simulation, where the cards are played from the state (``match --start``), and a cell
that disagrees is the report's first finding.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np
import pandas as pd

from gin_sim.experiments.simulate import head_to_head, simulate_matches
from gin_sim.experiments.summary import wilson_interval
from gin_sim.game.config import ConfigError
from gin_sim.game.match_start import MatchStart
from gin_sim.game.rules import Rules
from gin_sim.kernels.equity import game_equity_nb, model_matches_nb
from gin_sim.kernels.match_value import match_equity_nb, value_vector
from gin_sim.players.search_value import lattice_step
from gin_sim.players.strategies import Strategy

DEALERS = ("me", "opponent")  # dealer index 0: player 1 ("me") deals
Z95 = 1.959963984540054
HEAT_CELLS = 10  # match heat maps: scores in tenths of the target


@dataclass(frozen=True)
class HandOutcomes:
    """Each deck's outcome with each dealer, as codes ``winner * K + k`` (``win_points[k]``
    points to ``winner``: 0 me, 1 the opponent) or -1 when the hand scores nothing."""

    rules: Rules
    players: tuple[Strategy, Strategy]
    win_points: np.ndarray  # int64[K], ascending
    codes: np.ndarray  # int64[decks, 2]: [deck, dealer]

    @property
    def decks(self) -> int:
        return int(self.codes.shape[0])

    def win_prob(self, weights: np.ndarray | None = None) -> np.ndarray:
        """float64[2, 2, K]: [dealer, winner, k], from the decks weighted by ``weights``
        (how often each deck is drawn; None: each once)."""
        size = 2 * len(self.win_points)
        weights = np.ones(self.decks) if weights is None else weights
        prob = np.zeros((2, 2, len(self.win_points)))
        for dealer in (0, 1):
            codes = self.codes[:, dealer]
            counts = np.bincount(codes + 1, weights=weights, minlength=size + 1)
            prob[dealer] = (counts[1:] / weights.sum()).reshape(2, -1)
        return prob

    def resample(self, rng: np.random.Generator) -> np.ndarray:
        """Bootstrap weights: how often each deck is drawn in a resample of the decks."""
        return np.bincount(rng.integers(0, self.decks, self.decks), minlength=self.decks)

    def summary(self) -> pd.DataFrame:
        """Per dealer: how often each player wins a hand, nobody scores, and mean points."""
        prob = self.win_prob()
        rows = []
        for dealer, name in enumerate(DEALERS):
            row = {"dealer": name}
            for winner, who in enumerate(("me", "opponent")):
                row[f"{who} wins"] = prob[dealer, winner].sum()
                row[f"{who} mean points"] = (
                    (prob[dealer, winner] * self.win_points).sum() / prob[dealer, winner].sum()
                    if prob[dealer, winner].sum() > 0
                    else np.nan
                )
            row["nobody scores"] = 1.0 - prob[dealer].sum()
            rows.append(row)
        return pd.DataFrame(rows)


def measure_outcomes(
    rules: Rules, players: tuple[Strategy, Strategy], deals: int, seed: int
) -> HandOutcomes:
    """Play ``deals`` duplicate decks: deck i keeps its dealer seat and the players swap, so
    each deck is played once with each of them dealing (``simulate.head_to_head``)."""
    frame = head_to_head(rules, players, deals, seed, duplicate=True)
    me_seat = frame["swapped"].to_numpy().astype(np.int64)  # "me" plays players[0]
    dealer = np.where(frame["dealer"].to_numpy() == me_seat, 0, 1)
    seat_winner = frame["winner"].to_numpy().astype(np.int64)
    winner = np.where(seat_winner < 0, -1, np.where(seat_winner == me_seat, 0, 1))
    points = frame["points"].to_numpy().astype(np.int64)
    win_points = np.unique(points[winner >= 0])
    if win_points.size == 0:
        win_points = np.zeros(1, np.int64)
    k = np.searchsorted(win_points, points)
    code = np.where(winner < 0, -1, winner * len(win_points) + k)
    codes = np.full((deals, 2), -2, np.int64)
    codes[frame["deal"].to_numpy(), dealer] = code
    if (codes == -2).any():  # each deck must give one hand per dealer
        raise AssertionError("a duplicate deck without a hand for each dealer")
    return HandOutcomes(rules, players, win_points.astype(np.int64), codes)


def _equity_grid(outcomes: HandOutcomes, prob: np.ndarray) -> np.ndarray:
    target = outcomes.rules.game_target
    grid = np.empty((target, target, 2))
    game_equity_nb(target, outcomes.win_points, prob, grid)
    return grid


def joint_table(outcomes: HandOutcomes) -> np.ndarray:
    """The value vector of the joint table of the three columns (kernels/match_value.py, a
    lattice of ``lattice_step`` points), from the hand outcomes."""
    target, prob = outcomes.rules.game_target, outcomes.win_prob()
    grid = _equity_grid(outcomes, prob)
    return value_vector(target, lattice_step(target), outcomes.win_points, prob, grid)


def game_equity(outcomes: HandOutcomes, replicates: int = 200, seed: int = 0) -> pd.DataFrame:
    """``me, opponent, dealer, equity, low, high``: every score pair below the target,
    each dealer; ``low``/``high`` the 95% percentile bootstrap interval over the decks."""
    target = outcomes.rules.game_target
    if target > 1000:
        raise ConfigError(
            f"game_target = {target}: the game equity table is for targets up to 1,000 (it has a row per score pair)"
        )
    estimate = _equity_grid(outcomes, outcomes.win_prob())
    rng = np.random.default_rng([seed, 17])
    draws = np.empty((replicates, target, target, 2))
    for r in range(replicates):
        draws[r] = _equity_grid(outcomes, outcomes.win_prob(outcomes.resample(rng)))
    low, high = np.nanquantile(draws, [0.025, 0.975], axis=0)
    me, opponent, dealer = np.meshgrid(
        np.arange(target), np.arange(target), np.arange(2), indexing="ij"
    )
    return pd.DataFrame(
        {
            "me": me.ravel(),
            "opponent": opponent.ravel(),
            "dealer": np.array(DEALERS)[dealer.ravel()],
            "equity": estimate.ravel(),
            "low": low.ravel(),
            "high": high.ravel(),
        }
    )


@dataclass(frozen=True)
class ModelRun:
    """Matches under the model from one start: ``matches`` played under the measured
    distribution, and the first of them (the same random numbers) again under each of
    ``replicates`` bootstrap resamples of the decks."""

    start: MatchStart
    matches: int
    won: np.ndarray  # float64[R + 1]: share of matches I won; [0] the measured distribution
    net: np.ndarray  # float64[R + 1, 2]: mean and variance of my net final tally per match
    visits: np.ndarray  # int64[R + 1, 3, 2, G, G] (model_matches_nb)

    def equity(self) -> tuple[float, float, float]:
        p = self.won[0]
        return model_interval(self.won, p * (1 - p) / self.matches)

    def net_tally(self) -> tuple[float, float, float]:
        return model_interval(self.net[:, 0], self.net[0, 1] / self.matches)


def model_interval(values: np.ndarray, monte_carlo: float) -> tuple[float, float, float]:
    """``values[0]`` (under the measured distribution) with a 95% interval whose variance
    is the Monte Carlo variance plus the spread of ``values[1:]``, the same matches under
    bootstrap resamples of the decks (common random numbers: the spread is the measured
    distribution's uncertainty, not Monte Carlo noise)."""
    estimate = float(values[0])
    spread = float(np.var(values[1:], ddof=1)) if len(values) > 2 else 0.0
    half = Z95 * np.sqrt(monte_carlo + spread)
    return estimate, estimate - half, estimate + half


def model_matches(
    outcomes: HandOutcomes,
    start: MatchStart,
    matches: int,
    seed: int,
    replicates: int = 20,
    replicate_matches: int | None = None,
) -> ModelRun:
    """``matches`` matches (or games, by ``start.format``) under the hand-outcome model,
    then the first ``replicate_matches`` of them (default all) again under ``replicates``
    bootstrap resamples; deterministic in ``seed``. Fewer matches in the replicates only
    widen the interval (their spread then holds more Monte Carlo noise)."""
    rules = outcomes.rules
    start.validate(rules)
    rng = np.random.default_rng([seed, 29])
    cells = HEAT_CELLS
    step = max(1, -(-rules.game_target // cells))
    won = np.zeros(replicates + 1)
    net = np.zeros((replicates + 1, 2))
    visits = np.zeros((replicates + 1, 3, 2, cells, cells), np.int64)
    vector = start.to_kernel()
    for r in range(replicates + 1):
        count = matches if r == 0 or replicate_matches is None else min(matches, replicate_matches)
        out = np.zeros((count, 3), np.int64)
        weights = None if r == 0 else outcomes.resample(rng)
        cumulative = np.cumsum(outcomes.win_prob(weights).reshape(2, -1), axis=1)
        model_matches_nb(
            np.uint64(seed), 0, vector, rules.game_target, rules.hollywood_bonuses,
            outcomes.win_points, cumulative, step, out, visits[r],
        )  # fmt: skip
        won[r] = (out[:, 0] == 0).mean()
        margin = (out[:, 1] - out[:, 2]).astype(float)
        net[r] = margin.mean(), margin.var()
    return ModelRun(start, matches, won, net, visits)


def heat_table(run: ModelRun, phase: int, target: int) -> pd.DataFrame:
    """The match equity in each cell of scores a match reaches, as met in play (``visits``
    of ``model_matches_nb``): ``me``, ``opponent`` (the cell's lowest scores), ``equity``,
    ``low``, ``high``, ``matches`` (that reached the cell, under the measured distribution)."""
    step = max(1, -(-target // HEAT_CELLS))
    rows = []
    for i in range(HEAT_CELLS):
        for j in range(HEAT_CELLS):
            reached = run.visits[:, phase, 0, i, j]
            won = run.visits[:, phase, 1, i, j]
            shares = np.where(reached > 0, won / np.maximum(reached, 1), np.nan)
            p = shares[0]
            if reached[0] > 0 and (reached[1:] > 0).all():
                equity, low, high = model_interval(shares, p * (1 - p) / reached[0])
            else:
                equity, low, high = p, np.nan, np.nan
            rows.append(
                {"me": i * step, "opponent": j * step, "equity": equity, "low": low,
                 "high": high, "matches": int(reached[0])}
            )  # fmt: skip
    return pd.DataFrame(rows)


def direct_games(
    rules: Rules,
    players: tuple[Strategy, Strategy],
    start: MatchStart,
    count: int,
    seed: int,
    first_match: int,
) -> tuple[float, float, float]:
    """The share of ``count`` games or matches won by player 1, cards played from
    ``start`` (``simulate_matches``), with its 95% Wilson interval."""
    records, _ = simulate_matches(rules, players, count, seed, first_match, start=start)
    won = int((records["winner"] == 0).sum())
    return (won / count, *wilson_interval(won, count))


# -- the study behind ``gin-sim report equity`` ------------------------------------------------
# Model matches per named state (each dealer) and for the heat maps (from the start of a
# match): Monte Carlo under the model is cheap, so these are fixed, not options.
STATE_MATCHES = 40_000
HEAT_MATCHES = 400_000
MODEL_REPLICATES = 20
REPLICATE_MATCHES = 10_000  # per replicate for the states; the heat maps' replicates: 50,000
GAME_REPLICATES = 200
MAX_TARGET = 300  # the game table holds a row per score pair and dealer, 200 times over
# States people meet, written for a target of 100 and scaled to the rule set's target:
# (name, --start, the state's row in the tables). Game cells are (me, opponent, dealer).
GAME_CELLS = [(0, 0, "me"), (0, 0, "opponent"), (80, 40, "opponent"), (40, 80, "me"),
              (90, 90, "me"), (50, 95, "opponent")]  # fmt: skip
MATCH_STATES = [
    ("start of the match", "0:0"),
    ("game 1 near its end, I lead", "90:60,60:30,30:0"),
    ("game 1 near its end, level", "90:90,55:50,20:25"),
    ("game 1 near its end, I trail", "60:90,30:60,0:30"),
    ("I won game 1, games 2 and 3 level", "110:50,40:40,10:10"),
    ("I lost game 1, games 2 and 3 level", "50:110,40:40,10:10"),
    ("I won game 1, I trail game 2 by 40", "110:50,40:80,10:40"),
    ("I won game 1, I lead game 2 by 50", "120:40,70:20,30:0"),
    ("one game each, game 3 level at 50", "120:40,60:110,50:50"),
    ("one game each, I lead game 3 by 40", "120:40,60:110,80:40"),
]
VALIDATED_STATES = (0, 1, 4)  # rows of MATCH_STATES also played out with cards


def scaled_start(text: str, game_format: str, dealer: int | None, rules: Rules) -> MatchStart:
    """A state written for a target of 100, scaled to ``rules.game_target``."""
    from gin_sim.game.match_start import parse_start

    scale = rules.game_target / 100

    def number(match: re.Match) -> str:
        return str(round(int(match.group(0)) * scale))

    return parse_start(re.sub(r"\d+", number, text), game_format, dealer, rules)


@dataclass
class EquityStudy:
    """Everything ``report equity`` shows, computed; the report only lays it out."""

    rules: Rules
    players: tuple[Strategy, Strategy]
    deals: int
    games: int
    matches: int
    seed: int
    outcomes: HandOutcomes
    game: pd.DataFrame  # game_equity
    game_validation: pd.DataFrame
    match_states: pd.DataFrame
    match_heat: pd.DataFrame  # heat_table per phase, plus ``phase``
    match_validation: pd.DataFrame


HEAT_PHASES = ("game 1 open", "game 2 open, I won game 1", "game 2 open, I lost game 1")


def check_hand_by_hand(players: tuple[Strategy, Strategy], rules: Rules) -> None:
    """A ``ConfigError`` when either player plays a hand by the score or by earlier hands:
    the tables' model (hands independent given the dealer) would not hold for it."""
    for strategy in players:
        readings = strategy.score_readings(rules)
        if readings:
            raise ConfigError(
                f'strategy {strategy.name!r} plays by the score or by earlier hands ({"; ".join(readings)}): report equity\'s model assumes hands are independent given the dealer, so it takes only players that play each hand for its points (closing_distance = 0, value = "hand", panel_memory = "hand")'
            )


def study_steps(games: int, matches: int) -> int:
    """Progress steps of ``equity_study``: hands, the game table, validations, the match."""
    return 3 + (len(GAME_CELLS) if games else 0) + (len(VALIDATED_STATES) if matches else 0)


def equity_study(
    rules: Rules,
    players: tuple[Strategy, Strategy],
    deals: int,
    games: int,
    matches: int,
    seed: int,
    on_step=None,
) -> EquityStudy:
    """Measure the hands, build the tables, and check cells against direct simulation
    (``games`` games per game cell, ``matches`` matches per validated match state; 0: none)."""
    if rules.game_target > MAX_TARGET:
        raise ConfigError(
            f"game_target = {rules.game_target}: report equity takes targets up to {MAX_TARGET} (its table has a row per score pair)"
        )
    check_hand_by_hand(players, rules)
    step = on_step or (lambda done: None)
    outcomes = measure_outcomes(rules, players, deals, seed)
    step(1)
    game = game_equity(outcomes, GAME_REPLICATES, seed)
    step(1)
    table = game.set_index(["me", "opponent", "dealer"])
    rows = []
    for index, (me, opponent, dealer) in enumerate(GAME_CELLS if games else []):
        start = scaled_start(f"{me}:{opponent}", "game", DEALERS.index(dealer) + 1, rules)
        cell = table.loc[(start.points[0][0], start.points[1][0], dealer)]
        direct = direct_games(rules, players, start, games, seed, index * games)
        rows.append(_agreement(start, dealer, cell, direct, games))
        step(1)
    game_validation = pd.DataFrame(rows)
    states = []
    # The joint table of the three columns: a second answer beside the model matches,
    # which are exact but for their sampling error.
    joint = joint_table(outcomes)
    for name, text in MATCH_STATES:
        for dealer in (1, 2):
            try:
                start = scaled_start(text, "hollywood", dealer, rules)
            except ConfigError:
                continue  # a state the scaling makes unreachable (a tiny target)
            run = model_matches(
                outcomes, start, STATE_MATCHES, seed, MODEL_REPLICATES, REPLICATE_MATCHES
            )
            equity, low, high = run.equity()
            net, net_low, net_high = run.net_tally()
            states.append(
                {"state": name, "start": _columns(start), "dealer": DEALERS[dealer - 1],
                 "equity": equity, "low": low, "high": high, "net tally": net,
                 "net low": net_low, "net high": net_high,
                 "joint table": joint_equity(joint, start, dealer - 1)}
            )  # fmt: skip
    heat_run = model_matches(
        outcomes, MatchStart(), HEAT_MATCHES, seed, MODEL_REPLICATES, 5 * REPLICATE_MATCHES
    )
    heat = pd.concat(
        [
            heat_table(heat_run, phase, rules.game_target).assign(phase=name)
            for phase, name in enumerate(HEAT_PHASES)
        ],
        ignore_index=True,
    )
    step(1)
    rows = []
    base = len(GAME_CELLS) * games
    for index in VALIDATED_STATES if matches else ():
        name, text = MATCH_STATES[index]
        try:
            start = scaled_start(text, "hollywood", 1, rules)
        except ConfigError:
            continue
        model = pd.DataFrame(states).set_index(["start", "dealer"]).loc[(_columns(start), "me")]
        direct = direct_games(rules, players, start, matches, seed, base + index * matches)
        rows.append({"state": name} | _agreement(start, "me", model, direct, matches))
        step(1)
    return EquityStudy(
        rules, players, deals, games, matches, seed, outcomes, game, game_validation,
        pd.DataFrame(states), heat, pd.DataFrame(rows),
    )  # fmt: skip


def joint_equity(vector: np.ndarray, start: MatchStart, dealer: int) -> float:
    """Player 0's chance of winning the Hollywood match from ``start`` with ``dealer`` (0
    or 1) dealing the next hand, from the joint table ``vector``; NaN for a state its
    phases do not hold."""
    score = np.zeros(12, np.int64)
    for player in (0, 1):
        for game in range(3):
            score[3 * player + game] = start.points[player][game]
            score[6 + 3 * player + game] = start.boxes[player][game] > 0
    equity = match_equity_nb(vector, score, 0, dealer)
    return float(equity) if equity >= 0.0 else float("nan")


def _columns(start: MatchStart) -> str:
    return ",".join(f"{start.points[0][g]}:{start.points[1][g]}" for g in range(start.games))


def _agreement(start: MatchStart, dealer: str, model, direct, count: int) -> dict:
    """A model cell beside the direct simulation of the same state: the difference and
    whether the 95% interval of the difference (both errors, independent) holds 0."""
    half_model = (model["high"] - model["low"]) / 2
    half_direct = (direct[2] - direct[1]) / 2
    difference = direct[0] - model["equity"]
    half = float(np.hypot(half_model, half_direct))
    return {
        "start": _columns(start), "dealer": dealer, "model": model["equity"],
        "model low": model["low"], "model high": model["high"], "played": count,
        "direct": direct[0], "direct low": direct[1], "direct high": direct[2],
        "difference": difference, "difference half width": half,
        "agrees": bool(abs(difference) <= half),
    }  # fmt: skip
