"""A game reviewed like a coach would: every decision of a player valued against the best
one, marked, and summed up (``gin-sim review``; docs/review.md is the specification).

- ``decisions_of_hand`` plays a hand's moves through the reference engine and keeps, at each
  decision, the view of the player to move (``reference.views.view_from_situation``: what
  that player saw, nothing else) and the move played; ``simulated_hands`` plays deals of a
  run with two strategies (``players.decide.Decider``, as ``gin-sim play`` plays its
  opponent) and keeps the same.
- ``value_decisions`` values every legal action of each decision from its view alone
  (``kernels.review``): a position is rebuilt from the view (``position_from_view``: the
  hidden cards filled in arbitrarily, then replaced in every sampled world), so nothing the
  player did not see reaches a value. Every action is played out in the same ``depth``
  worlds (common random numbers).
- ``judge``: the best action is the one with the highest mean over the first quarter of
  the worlds (``select``); the loss of the move played is its mean shortfall against that
  action over the other worlds, paired world by world, with a 95% interval; so picking the
  best does not flatter it (a best picked by chance loses that luck on worlds it never
  saw). A decision is marked (``MARKS``) only when the loss's interval excludes 0.
- ``summary``: per hand and for the game, the decisions, the marks by kind, the error rate
  (the mean loss per decision, with its Monte Carlo interval) and the costliest decisions.

>>> settings = ReviewSettings(depth=16)
>>> settings.select, settings.name
(4, '16 worlds (4 choose the best action), expert rollouts, simple opponent model, inference weight 0.25')
>>> mark_of(4.0, 0.5), mark_of(4.0, -0.5), mark_of(0.2, 0.1)
('mistake', 'fine', 'fine')
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

from gin_sim.game.cards import cards_of, format_card, parse_card
from gin_sim.game.config import ConfigError
from gin_sim.game.hollywood import HollywoodScore
from gin_sim.game.limits import check_index, check_seed
from gin_sim.game.melds import min_deadwood_exhaustive
from gin_sim.game.rng import deck_for_deal
from gin_sim.game.rules import Rules
from gin_sim.kernels.enums import (
    ACTION_BIG_GIN,
    ACTION_CARD,
    ACTION_KNOCK,
    N_POSITION_MASKS,
    N_POSITION_SLOTS,
)
from gin_sim.kernels.match_value import VALUE_HEADER
from gin_sim.kernels.review import (
    MAX_REVIEW_ACTIONS,
    deal_values_parallel,
    review_positions_parallel,
)
from gin_sim.kernels.rng import review_key_nb
from gin_sim.players.calibration import load_undercut_table
from gin_sim.players.decide import Decider, action_words, parse_view, position_from_view
from gin_sim.players.search_value import value_table
from gin_sim.players.strategies import MAX_SAMPLES, Strategy, load_strategy
from gin_sim.reference.engine import BIG_GIN, DISCARD, OVER, Action, Discard, start_hand
from gin_sim.reference.views import hand_end_from_hand, view_from_situation

Z95 = 1.959963984540054
PHASES = ("offer", "draw", "discard")
# The marks, mildest first, and the least loss (points per hand) of each: a decision whose
# loss's 95% interval excludes 0 is an inaccuracy from 1 point, a mistake from 3, a blunder
# from 6 (docs/review.md, "Marks": a hand is worth about 20 points to its winner, so a
# blunder gives away about a third of a typical hand). Below 1 point, or where the
# interval holds 0 (a close call), a move is fine.
MARKS = ("fine", "inaccuracy", "mistake", "blunder")
THRESHOLDS = (1.0, 3.0, 6.0)
DEAL_KEY = 0x5EED_DEA1  # the deal check's streams: apart from the review's own (same seed)
DEFAULT_DEPTH = 1024  # worlds per decision: a 10-hand game in well under a minute on 2 cores
MIN_DEPTH = 8
COSTLIEST = 3  # the costliest decisions a summary names


def mark_of(loss: float, low: float) -> str:
    """The mark of a decision whose loss is ``loss`` points with 95% interval lower bound
    ``low``: ``fine`` unless the interval excludes 0, else by ``THRESHOLDS``."""
    if not low > 0.0:
        return MARKS[0]
    kind = 0
    for k, threshold in enumerate(THRESHOLDS):
        if loss >= threshold:
            kind = k + 1
    return MARKS[kind]


@dataclass(frozen=True)
class ReviewSettings:
    """How each decision's actions are valued: ``depth`` worlds drawn from the decider's
    view as ``mc`` draws them (with ``infer``, the opponent's hand built by
    ``opponent_model`` and weighted by ``infer_weight`` per contradicted pass), every
    action played out in each with ``rollout`` for the decider and ``opponent_model`` for
    the opponent; the first ``select`` worlds (a quarter) choose the best action, the
    others measure the loss."""

    depth: int = DEFAULT_DEPTH
    rollout: str = "expert"
    opponent_model: str = "simple"
    infer: bool = True
    infer_weight: float = 0.25

    def __post_init__(self) -> None:
        depth = self.depth
        if isinstance(depth, bool) or not isinstance(depth, int):
            raise ConfigError(f"--depth {depth!r}: expected a whole number of worlds")
        if not MIN_DEPTH <= depth <= MAX_SAMPLES:
            raise ConfigError(
                f"--depth {depth}: allowed {MIN_DEPTH} to {MAX_SAMPLES} worlds per decision"
            )
        self.searcher("hand")  # the policies, checked as an mc player's

    @property
    def select(self) -> int:
        return self.depth // 4

    @property
    def name(self) -> str:
        inference = f"inference weight {self.infer_weight:g}" if self.infer else "no inference"
        return (
            f"{self.depth} worlds ({self.select} choose the best action), "
            f"{self.rollout} rollouts, {self.opponent_model} opponent model, {inference}"
        )

    def searcher(self, value: str) -> Strategy:
        """The settings as an ``mc`` strategy whose rollout ends are worth ``value`` (hand,
        game or match): the kernel reads policies, inference and value from its vector."""
        return Strategy(
            name="review", kind="mc", samples=self.depth, rollout=self.rollout,
            opponent_model=self.opponent_model, infer=self.infer,
            infer_weight=float(self.infer_weight), value=value,
        )  # fmt: skip


# ------------------------------------------------------------------ the decisions
@dataclass(frozen=True)
class Decision:
    """A decision to review: hand ``hand`` of the game (from 0), decision ``number`` of the
    hand (both players' counted, from 0), the player in ``seat`` (0: player 1), its view
    (``decide``'s fields: what it saw) and the move it played (a kernel action code)."""

    hand: int
    number: int
    seat: int
    view: Mapping[str, Any]
    played: int

    @property
    def phase(self) -> str:
        return str(self.view["decision"])


def action_code(action: Action) -> int:
    """A reference engine's action as the kernels' action code."""
    if action is BIG_GIN or action == BIG_GIN:
        return ACTION_BIG_GIN
    if isinstance(action, Discard):
        return action.card | (ACTION_KNOCK if action.knock else 0)
    return int(bool(action))


@dataclass
class HandPlayed:
    """A hand's decisions and how it ended (its record, the engine's)."""

    hand: int
    decisions: list[Decision]
    record: dict[str, Any]
    dealer: int
    score_before: list[list[int]] | None = None


def decisions_of_hand(
    deck: Sequence[int],
    rules: Rules,
    dealer: int,
    moves: Iterable[Action],
    hand: int = 0,
    score: HollywoodScore | None = None,
) -> HandPlayed:
    """Hand ``hand`` played from ``deck`` with ``moves`` (the actions of both players in
    order), its decisions with the view of the player to move at each (``score``: the score
    before the hand, which the views show)."""
    played = start_hand(list(deck), rules, dealer, deal=hand, score=score)
    decisions: list[Decision] = []
    for number, action in enumerate(moves):
        if played.phase == OVER:
            raise ValueError(f"hand {hand + 1}: a move after the end of the hand")
        view = view_from_situation(played.situation(played.view()))
        decisions.append(Decision(hand, number, int(played.to_move), view, action_code(action)))
        played.apply(action)
    record = played.result() if played.phase == OVER else {}
    before = None if score is None else [list(row) for row in score.totals]
    return HandPlayed(hand, decisions, record, dealer, before)


def simulated_hands(
    seed: int, deal: int, hands: int, rules: Rules, players: tuple[Strategy, Strategy]
) -> Iterator[HandPlayed]:
    """Deals ``deal .. deal + hands - 1`` of a run with ``seed`` (deal ``i``'s deck
    ``deck_for_deal(seed, i)``, dealer ``i % 2``, as ``gin-sim replay --seed --deal`` plays
    them), played by ``players`` through ``Decider`` (each decision reading its player's
    stream of the deal where the last one left it, an adaptive searcher remembering the
    hand), every decision kept with its view."""
    seed = check_seed(seed)
    deal = check_index(deal, "--deal")
    check_index(deal + hands - 1, "--deal + --hands - 1")
    deciders = [Decider(strategy, rules) for strategy in players]
    for index in range(deal, deal + hands):
        dealer = index % 2
        played = start_hand(deck_for_deal(seed, index), rules, dealer, deal=index)
        memories = [decider.memory() for decider in deciders]
        drawn = [0, 0]
        decisions: list[Decision] = []
        while played.phase != OVER:
            seat = int(played.to_move)
            view = view_from_situation(played.situation(played.view()))
            decision = deciders[seat].decide(
                view, seed, deal=index, seat=seat, draws=drawn[seat], memory=memories[seat],
                hand_number=index,
            )  # fmt: skip
            drawn[seat] += decision.drawn
            action = _action_of(decision, played.phase)
            decisions.append(Decision(index, len(decisions), seat, view, action_code(action)))
            played.apply(action)
        for seat in (0, 1):
            memories[seat].hand_ended(hand_end_from_hand(played, seat), hand_number=index)
        yield HandPlayed(index, decisions, played.result(), dealer)


def _action_of(decision: Any, phase: str) -> Action:
    if phase != DISCARD:
        return bool(decision.take)
    if decision.big_gin:
        return BIG_GIN
    return Discard(parse_card(decision.discard), bool(decision.knock))


def action_of_code(code: int, phase: str) -> Action:
    """A kernel action code as the reference engine's action (``action_code``'s inverse)."""
    if phase != DISCARD:
        return bool(code)
    if code == ACTION_BIG_GIN:
        return BIG_GIN
    return Discard(code & ACTION_CARD, bool(code & ACTION_KNOCK))


# ------------------------------------------------------------------------ valuing
@dataclass(frozen=True)
class Candidate:
    """An action valued: its words, its mean points (and 95% interval) over all the
    worlds, its mean equity change where the game has a score (else nan)."""

    action: str
    code: int
    mean: float
    low: float
    high: float
    equity: float = math.nan
    equity_low: float = math.nan
    equity_high: float = math.nan


@dataclass(frozen=True)
class Judged:
    """A decision reviewed: its candidates (``review_actions_nb``'s order), the move played
    and the best one (indices), the loss of the move played against the best in points per
    hand with its 95% interval, the same in equity where there is a score (the best by
    equity), and the mark."""

    decision: Decision
    candidates: tuple[Candidate, ...]
    played: int
    best: int
    loss: float
    loss_low: float
    loss_high: float
    mark: str
    equity_best: int = -1
    equity_loss: float = math.nan
    equity_low: float = math.nan
    equity_high: float = math.nan
    worlds: int = 0


def _interval(values: np.ndarray) -> tuple[float, float, float]:
    n = values.size
    mean = float(values.mean())
    if n < 2:
        return mean, math.nan, math.nan
    half = Z95 * float(values.std(ddof=1)) / math.sqrt(n)
    return mean, mean - half, mean + half


def _words(code: int, phase: str, hand: int) -> str:
    """An action in words; a knock that leaves no deadwood is gin (R13)."""
    words = action_words(code, PHASES.index(phase))
    if phase == "discard" and code & ACTION_KNOCK and code != ACTION_BIG_GIN:
        card = code & ACTION_CARD
        if min_deadwood_exhaustive(hand & ~(1 << card)) == 0:
            return f"gin {format_card(card)}"
    return words


def judge(
    decision: Decision,
    codes: np.ndarray,
    points: np.ndarray,
    equity: np.ndarray | None,
    select: int,
    hand_mask: int,
) -> Judged:
    """Judge one decision from its actions' values world by world (``points``
    float64[worlds, n]; ``equity`` the same in equity changes, or None without a score)."""
    n = codes.size
    played = [int(c) for c in codes].index(decision.played)
    candidates = []
    for c in range(n):
        mean, low, high = _interval(points[:, c])
        figures = (math.nan,) * 3 if equity is None else _interval(equity[:, c])
        words = _words(int(codes[c]), decision.phase, hand_mask)
        candidates.append(Candidate(words, int(codes[c]), mean, low, high, *figures))

    def loss_of(values: np.ndarray) -> tuple[int, float, float, float]:
        # The best by the selection worlds (ties: the first in order), its loss measured
        # on the other worlds, paired.
        best = int(np.argmax(values[:select].mean(axis=0)))
        if best == played:
            return best, 0.0, 0.0, 0.0
        return (best, *_interval(values[select:, best] - values[select:, played]))

    best, loss, low, high = loss_of(points)
    judged = Judged(
        decision, tuple(candidates), played, best, loss, low, high, mark_of(loss, low),
        worlds=points.shape[0],
    )  # fmt: skip
    if equity is None:
        return judged
    e_best, e_loss, e_low, e_high = loss_of(equity)
    return replace(
        judged, equity_best=e_best, equity_loss=e_loss, equity_low=e_low, equity_high=e_high
    )


def value_format(game_format: str) -> str:
    """What a rollout's end is worth in a format: the hand's points alone (a single hand),
    the game equity (a game), the match equity (a Hollywood match)."""
    return {"hand": "hand", "game": "game", "hollywood": "match"}[game_format]


def value_decisions(
    decisions: Sequence[Decision],
    rules: Rules,
    settings: ReviewSettings,
    seed: int,
    game_format: str = "hand",
    progress: Callable[[int], None] | None = None,
    batch: int = 32,
    keys: Sequence[int] | None = None,
) -> list[Judged]:
    """Value and judge each decision from its view (module docstring); decision ``d``'s
    worlds come from ``review_key_nb(seed, d.hand, d.number)`` (or ``keys[i]`` when given),
    so the same decisions give the same values whatever the batch or the threads.
    ``progress(k)``: k more done."""
    return [
        judge(decision, codes, points, equity, settings.select, hand)
        for decision, codes, points, equity, hand in valued_actions(
            decisions, rules, settings, seed, game_format, progress, batch, keys
        )
    ]


def valued_actions(
    decisions: Sequence[Decision],
    rules: Rules,
    settings: ReviewSettings,
    seed: int,
    game_format: str = "hand",
    progress: Callable[[int], None] | None = None,
    batch: int = 32,
    keys: Sequence[int] | None = None,
) -> Iterator[tuple[Decision, np.ndarray, np.ndarray, np.ndarray | None, int]]:
    """Each decision's actions valued world by world, before any judging (``value_decisions``
    judges them; the scale judges every strategy's move at the same valued decisions):
    per decision its action codes, the points (float64[worlds, actions]), the equity changes
    (None without a score) and the player's hand."""
    value = value_format(game_format)
    strategy = settings.searcher(value)
    params = strategy.to_kernel(rules)
    table = (
        np.zeros(VALUE_HEADER)
        if value == "hand"
        else np.ascontiguousarray(
            value_table(rules, settings.rollout, settings.opponent_model, value == "match")
        )
    )
    kernel_rules = rules.to_kernel()
    undercut = load_undercut_table()
    for start in range(0, len(decisions), batch):
        part = decisions[start : start + batch]
        k = len(part)
        masks = np.zeros((k, N_POSITION_MASKS), np.uint64)
        states = np.zeros((k, N_POSITION_SLOTS), np.int64)
        worlds = np.zeros(k, np.uint64)
        hands = []
        for i, decision in enumerate(part):
            parsed = parse_view(decision.view, rules)
            masks[i], states[i] = position_from_view(parsed, decision.seat)
            with np.errstate(over="ignore"):
                worlds[i] = (
                    review_key_nb(np.uint64(seed), decision.hand, decision.number)
                    if keys is None
                    else np.uint64(keys[start + i])
                )
            hands.append(parsed.hand)
        actions = np.full((k, MAX_REVIEW_ACTIONS), -1, np.int64)
        counts = np.zeros(k, np.int64)
        points = np.zeros((k, settings.depth, MAX_REVIEW_ACTIONS))
        equity = np.zeros((k, settings.depth, MAX_REVIEW_ACTIONS))
        with np.errstate(over="ignore"):
            review_positions_parallel(
                params, kernel_rules, undercut, table, masks, states, worlds, actions, counts,
                points, equity,
            )  # fmt: skip
        for i, decision in enumerate(part):
            n = int(counts[i])
            scored = value != "hand" and "score" in decision.view
            yield (
                decision, actions[i, :n], points[i, :, :n],
                equity[i, :, :n] if scored else None, int(hands[i]),
            )  # fmt: skip
        if progress is not None:
            progress(k)


DEAL_ORDERS = 16  # stock orders each action is played in on the deal's own cards


def deal_valued_actions(
    hand: HandPlayed,
    seed: int,
    rules: Rules,
    settings: ReviewSettings,
    orders: int = DEAL_ORDERS,
    opponent: str | None = None,
) -> Iterator[tuple[Decision, np.ndarray, np.ndarray]]:
    """Each decision of ``hand`` (deal ``hand.hand`` of ``seed``, as ``simulated_hands``
    played it) with its actions valued on the deal's own cards (``kernels.review.
    deal_values_nb``): the opponent's real hand, the real stock and ``orders - 1`` fresh
    orders of it; the player's later moves by ``settings.rollout``, the opponent's by
    ``opponent`` (by default the review's opponent model). Not a review (a review sees
    only the player's view): the scale's check of the review, on deals whose hidden cards
    are known. Per decision its action codes and the points float64[orders, actions]."""
    truth = ReviewSettings(
        rollout=settings.rollout, opponent_model=opponent or settings.opponent_model
    ).searcher("hand")  # its policies alone are read: no worlds are sampled
    params = truth.to_kernel(rules)
    played = start_hand(list(deck_for_deal(seed, hand.hand)), rules, hand.dealer, deal=hand.hand)
    k = len(hand.decisions)
    masks = np.zeros((k, N_POSITION_MASKS), np.uint64)
    states = np.zeros((k, N_POSITION_SLOTS), np.int64)
    keys = np.zeros(k, np.uint64)
    for i, decision in enumerate(hand.decisions):
        table, seat = played.table, decision.seat
        opponent_seat = 1 - seat
        hidden = cards_of(table.hands[opponent_seat] & ~table.taken[opponent_seat])
        fill = hidden + list(table.deck[table.stock_pos :])
        masks[i], states[i] = position_from_view(parse_view(decision.view, rules), seat, fill)
        with np.errstate(over="ignore"):
            keys[i] = review_key_nb(
                np.uint64(seed) ^ np.uint64(DEAL_KEY), decision.hand, decision.number
            )
        played.apply(
            action_of_code(decision.played, DISCARD if decision.phase == "discard" else "")
        )
    actions = np.full((k, MAX_REVIEW_ACTIONS), -1, np.int64)
    counts = np.zeros(k, np.int64)
    points = np.zeros((k, orders, MAX_REVIEW_ACTIONS))
    with np.errstate(over="ignore"):
        deal_values_parallel(
            params, rules.to_kernel(), load_undercut_table(), masks, states, keys, actions,
            counts, points,
        )  # fmt: skip
    for i, decision in enumerate(hand.decisions):
        n = int(counts[i])
        yield decision, actions[i, :n], points[i, :, :n]


# ---------------------------------------------------------------------- summaries
@dataclass
class Summary:
    """Decisions judged together (a hand, or the game): how many, the marks by kind, the
    error rate (mean loss per decision in points, with the 95% interval of its Monte Carlo
    error: each loss's own error, the decisions' worlds independent), the same in equity
    where there is a score, and the costliest decisions, costliest first."""

    decisions: int
    marks: dict[str, int]
    error_rate: float
    error_low: float
    error_high: float
    equity_rate: float = math.nan
    costliest: list[Judged] = field(default_factory=list)


def summary(judged: Sequence[Judged]) -> Summary:
    n = len(judged)
    marks = {mark: sum(j.mark == mark for j in judged) for mark in MARKS}
    if n == 0:
        return Summary(0, marks, math.nan, math.nan, math.nan)
    losses = np.array([j.loss for j in judged])
    # A loss's standard error from its interval (0 where the best was played).
    errors = np.array(
        [0.0 if math.isnan(j.loss_high) else (j.loss_high - j.loss) / Z95 for j in judged]
    )
    rate = float(losses.mean())
    half = Z95 * math.sqrt(float((errors**2).sum())) / n
    equity = [j.equity_loss for j in judged if not math.isnan(j.equity_loss)]
    costly = sorted(judged, key=lambda j: (-j.loss, j.decision.hand, j.decision.number))
    costly = [j for j in costly if j.mark != "fine"][:COSTLIEST]
    return Summary(
        n, marks, rate, rate - half, rate + half,
        float(np.mean(equity)) if equity else math.nan, costly,
    )  # fmt: skip


def view_line(view: Mapping[str, Any]) -> str:
    """The position as its player saw it, in one line."""
    pile = str(view.get("pile", "")).split()
    top = pile[-1] if pile else "none"
    parts = [f"hand {view['hand']}"]
    if view["decision"] == "discard":
        source = "the pile" if view.get("taken_from_pile") else "the stock"
        parts.append(f"took {view['taken']} from {source}")
    else:
        parts.append(f"pile top {top}")
    parts.append(f"stock {view['stock_left']}")
    if view.get("opp_taken"):
        parts.append(f"opponent took {view['opp_taken']}")
    return ", ".join(parts)


def judged_row(j: Judged) -> dict[str, Any]:
    """One decision as a flat row (the JSON and the report's table)."""
    d = j.decision
    best, played = j.candidates[j.best], j.candidates[j.played]
    return {
        "hand": d.hand + 1,
        "decision": d.number + 1,
        "player": d.seat + 1,
        "phase": d.phase,
        "position": view_line(d.view),
        "played": played.action,
        "best": best.action,
        "loss": j.loss,
        "loss_low": j.loss_low,
        "loss_high": j.loss_high,
        "mark": j.mark,
        "equity_loss": j.equity_loss,
        "equity_loss_low": j.equity_low,
        "equity_loss_high": j.equity_high,
        "worlds": j.worlds,
    }


def candidates_of(j: Judged) -> list[dict[str, Any]]:
    return [
        {
            "action": c.action,
            "mean": c.mean,
            "low": c.low,
            "high": c.high,
            "equity": c.equity,
            "equity_low": c.equity_low,
            "equity_high": c.equity_high,
            "played": i == j.played,
            "best": i == j.best,
        }
        for i, c in enumerate(j.candidates)
    ]


# ------------------------------------------------------------------- a whole game
@dataclass
class GameReview:
    """A reviewed game: its hands, the seats reviewed, every judged decision of those
    seats in the order of play, and the summaries per seat (the game) and per (seat, hand)."""

    hands: list[HandPlayed]
    seats: tuple[int, ...]
    judged: list[Judged]
    game_format: str
    settings: ReviewSettings

    def of_seat(self, seat: int, hand: int | None = None) -> list[Judged]:
        return [
            j
            for j in self.judged
            if j.decision.seat == seat and (hand is None or j.decision.hand == hand)
        ]

    def game_summary(self, seat: int) -> Summary:
        return summary(self.of_seat(seat))

    def hand_summary(self, seat: int, hand: int) -> Summary:
        return summary(self.of_seat(seat, hand))


def review_game(
    hands: Sequence[HandPlayed],
    rules: Rules,
    settings: ReviewSettings,
    seed: int,
    seats: Sequence[int],
    game_format: str = "hand",
    progress: Callable[[int], None] | None = None,
) -> GameReview:
    """Every decision of ``seats`` in ``hands`` valued and judged (``value_decisions``);
    ``seed``: the game's (a record's seed, a run's seed), which keys the worlds."""
    chosen = [d for h in hands for d in h.decisions if d.seat in seats]
    judged = value_decisions(chosen, rules, settings, seed, game_format, progress)
    return GameReview(list(hands), tuple(seats), judged, game_format, settings)


def decisions_to_review(hands: Sequence[HandPlayed], seats: Sequence[int]) -> int:
    return sum(d.seat in seats for h in hands for d in h.decisions)


# ------------------------------------------------------------------------ the scale
SCALE_FILE = "review-scale.csv"
SCALE_COLUMNS = ("strategy", "error_rate", "low", "high", "decisions", "deals")


def scale_path() -> Any:
    from gin_sim.game.config import configs_dir

    return configs_dir() / "models" / SCALE_FILE


def load_scale(path: Any = None) -> list[tuple[str, float]]:
    """The published error rates of the named strategies (``configs/models/review-scale.csv``,
    written by ``gin-sim review --scale``), lowest first; [] when there is none."""
    import pandas as pd

    path = scale_path() if path is None else path
    try:
        table = pd.read_csv(path)
    except FileNotFoundError:
        return []
    missing = [c for c in SCALE_COLUMNS if c not in table.columns]
    if missing:
        raise ConfigError(
            f"{path}: no column {missing[0]!r}: a review scale has {', '.join(SCALE_COLUMNS)}"
        )
    rows = sorted(zip(table["strategy"], table["error_rate"], strict=True), key=lambda r: r[1])
    return [(str(name), float(rate)) for name, rate in rows]


def place_on_scale(rate: float, scale: Sequence[tuple[str, float]]) -> str:
    """Where an error rate falls among the named strategies' (``load_scale``), in words:
    ``between `basic` and `expert```, ``below `mc``` (fewer errors than the best),
    ``above `random```, or ``about `simple``` (within 0.05 points of one)."""
    if not scale or math.isnan(rate):
        return ""
    for name, value in scale:
        if abs(rate - value) <= 0.05:
            return f"about `{name}` ({value:.2f})"
    if rate < scale[0][1]:
        return f"fewer errors than `{scale[0][0]}` ({scale[0][1]:.2f}), the best of the scale"
    if rate > scale[-1][1]:
        return f"more errors than `{scale[-1][0]}` ({scale[-1][1]:.2f})"
    for (better, low), (worse, high) in itertools.pairwise(scale):
        if low <= rate <= high:
            return f"between `{better}` ({low:.2f}) and `{worse}` ({high:.2f})"
    return ""


# ------------------------------------------------------------ measuring the scale
SCALE_STRATEGIES = ("random", "simple", "basic", "expert", "advised", "mc-fixed", "mc")
SCALE_OPPONENT = "expert"
# The order of the named strategies' head-to-head strength, weakest first, from the
# published figures (docs/review.md, "The scale"): the tournament's ratings under hollywood
# (simple < basic < expert), `advised` playing as `expert` under hollywood (README), `mc`
# above `expert` (docs/search-tournament) and above `mc-fixed` (docs/strength.md), `mc-fixed`
# above `expert`; `random` below all (it loses every pairing by far).
PUBLISHED_STRENGTH = {
    "random": 0.0,
    "simple": 1.0,
    "basic": 2.0,
    "expert": 3.5,  # advised plays as expert under hollywood: a tie
    "advised": 3.5,
    "mc-fixed": 5.0,
    "mc": 6.0,
}


def measure_scale(
    rules: Rules,
    strategies: Sequence[str],
    opponent: str,
    seed: int,
    deals: int,
    settings: ReviewSettings,
    progress: Callable[[int], None] | None = None,
) -> Any:
    """The error rates of ``strategies`` at the same positions: every decision of both
    players of ``opponent`` against ``opponent`` on deals ``0 .. deals - 1`` of ``seed``
    is valued once, and each strategy is asked what it would play there (``Decider``, a
    fresh memory: a searcher starts from its prior at each position) and judged as the
    review judges a move. The same positions for every strategy make the rates comparable
    (paired): had each strategy played its own hands, a player whose hands run longer would
    meet harder decisions. Besides, each strategy plays the same deals as player 1 against
    ``opponent`` for its points per hand. A row per (strategy, deal): the positions of the
    deal, the sum of the losses of the strategy's moves there, its blunders, and its hand's
    points from player 1's side against ``opponent``. ``progress(1)`` per deal valued and per
    strategy's deal played."""
    import pandas as pd

    pair = (_load(opponent, rules), _load(opponent, rules))
    deciders = {name: Decider(_load(name, rules), rules) for name in strategies}
    found: dict[tuple[str, int], list[Judged]] = {}
    on_deal: dict[tuple[str, int], float] = {}
    for hand in simulated_hands(seed, 0, deals, rules, pair):
        deal_points = [
            points
            for _, _, points in deal_valued_actions(hand, seed, rules, settings, opponent=opponent)
        ]
        for (decision, codes, points, _, mask), truth in zip(
            valued_actions(hand.decisions, rules, settings, seed), deal_points, strict=True
        ):
            for name, decider in deciders.items():
                chosen = decider.decide(
                    decision.view, seed, deal=decision.hand, seat=decision.seat,
                    memory=decider.memory(), hand_number=decision.hand,
                )  # fmt: skip
                move = action_code(
                    _action_of(chosen, DISCARD if decision.phase == "discard" else "")
                )
                judged = judge(
                    replace(decision, played=move), codes, points, None, settings.select, mask
                )
                found.setdefault((name, hand.hand), []).append(judged)
                # The same loss on the deal's own cards: the review's best less the move.
                on_deal[name, hand.hand] = on_deal.get((name, hand.hand), 0.0) + float(
                    truth[:, judged.best].mean() - truth[:, judged.played].mean()
                )
        if progress is not None:
            progress(1)
    rows = []
    for name in strategies:
        played = (_load(name, rules), _load(opponent, rules))
        for hand in simulated_hands(seed, 0, deals, rules, played):
            judged = found.get((name, hand.hand), [])
            winner, points = int(hand.record["winner"]), int(hand.record["points"])
            rows.append(
                {
                    "strategy": name,
                    "deal": hand.hand,
                    "decisions": len(judged),
                    "loss": float(sum(j.loss for j in judged)),
                    "deal_loss": on_deal.get((name, hand.hand), 0.0),
                    "blunders": sum(j.mark == "blunder" for j in judged),
                    "points": 0 if winner < 0 else (points if winner == 0 else -points),
                }
            )
            if progress is not None:
                progress(1)
    return pd.DataFrame(rows)


def _load(name: str, rules: Rules) -> Strategy:
    return load_strategy(name).for_rules(rules)


def _spearman(a: np.ndarray, b: np.ndarray) -> float:
    """Spearman's rank correlation (average ranks for ties)."""
    import pandas as pd

    ra = pd.Series(a).rank().to_numpy()
    rb = pd.Series(b).rank().to_numpy()
    if ra.std() == 0 or rb.std() == 0:
        return math.nan
    return float(np.corrcoef(ra, rb)[0, 1])


def scale_table(frame: Any, replicates: int = 2000, seed: int = 0) -> tuple[Any, dict[str, Any]]:
    """The scale from ``measure_scale``'s rows: per strategy its error rate (losses over
    decisions, pooled over the deals), its blunders per decision and its points per hand
    against the opponent, each with a 95% percentile interval from a bootstrap over the
    deals (the same resampled deals for every strategy: they share the decks); its error
    rate on the deal's own cards (``deal_loss``: the same moves, the review's best less
    the move, played with the opponent's real hand and the stock); and the rank
    correlation (Spearman) of the error rates, fewest first, with the published strength
    order, with the points measured here, and of the deal's-cards rates with the
    published order, with the same bootstrap's 95% intervals."""
    import pandas as pd

    names = list(dict.fromkeys(frame["strategy"]))
    deals = np.sort(frame["deal"].unique())
    index = {d: i for i, d in enumerate(deals)}

    def grid(column: str) -> np.ndarray:
        out = np.zeros((len(names), len(deals)))
        for row in frame.itertuples(index=False):
            out[names.index(row.strategy), index[row.deal]] = getattr(row, column)
        return out

    loss, count, blunders, points, deal_loss = (
        grid("loss"),
        grid("decisions"),
        grid("blunders"),
        grid("points"),
        grid("deal_loss"),
    )
    published = np.array([PUBLISHED_STRENGTH.get(n, math.nan) for n in names])

    def figures(take: np.ndarray) -> tuple[np.ndarray, ...]:
        n = count[:, take].sum(axis=1)
        rate = loss[:, take].sum(axis=1) / n
        return (
            rate, blunders[:, take].sum(axis=1) / n, points[:, take].mean(axis=1),
            deal_loss[:, take].sum(axis=1) / n,
        )  # fmt: skip

    whole = figures(np.arange(len(deals)))
    rate, blunder_rate, mean_points, deal_rate = whole
    rng = np.random.default_rng(seed)
    draws = [figures(rng.integers(0, len(deals), len(deals))) for _ in range(replicates)]
    boot = [np.array([d[k] for d in draws]) for k in range(4)]
    low = [np.percentile(b, 2.5, axis=0) for b in boot]
    high = [np.percentile(b, 97.5, axis=0) for b in boot]
    table = pd.DataFrame(
        {
            "strategy": names,
            "error_rate": rate,
            "low": low[0],
            "high": high[0],
            "blunders_per_decision": blunder_rate,
            "points_per_hand": mean_points,
            "points_low": low[2],
            "points_high": high[2],
            "deal_rate": deal_rate,
            "deal_low": low[3],
            "deal_high": high[3],
            "decisions": count.sum(axis=1).astype(int),
            "deals": len(deals),
        }
    )
    known = ~np.isnan(published)
    # Fewer errors for a stronger player: the correlation of -error rate with strength.
    rho_published = _spearman(-rate[known], published[known])
    rho_points = _spearman(-rate, mean_points)
    boot_published = [_spearman(-d[0][known], published[known]) for d in draws]
    boot_points = [_spearman(-d[0], d[2]) for d in draws]
    rho_deal = _spearman(-deal_rate[known], published[known])
    boot_deal = [_spearman(-d[3][known], published[known]) for d in draws]

    def interval(values: list[float]) -> list[float]:
        finite = np.array([v for v in values if not math.isnan(v)])
        return [float(np.percentile(finite, 2.5)), float(np.percentile(finite, 97.5))]

    # Each step of the scale, paired at the same positions: the next strategy less this one.
    order = np.argsort(rate, kind="stable")
    steps = []
    for a, b in itertools.pairwise(order):
        step: dict[str, Any] = {"better": names[a], "worse": names[b]}
        for key, k in (("error", 0), ("deal", 3)):
            step[key] = float(whole[k][b] - whole[k][a])
            step[key + "_interval"] = interval([float(d[k][b] - d[k][a]) for d in draws])
        steps.append(step)
    agreement = {
        "steps": steps,
        "spearman_published": rho_published,
        "spearman_published_interval": interval(boot_published),
        "spearman_points": rho_points,
        "spearman_points_interval": interval(boot_points),
        "spearman_deal": rho_deal,
        "spearman_deal_interval": interval(boot_deal),
        "replicates": replicates,
    }
    return table.sort_values("error_rate").reset_index(drop=True), agreement
