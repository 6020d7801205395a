"""The decision: a strategy's decision at a parsed view, from the kernels (``Decider``,
``decide``), in words and with a search's candidates and their figures (``Decision``)."""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from gin_sim.game.cards import (
    format_card,
)
from gin_sim.game.config import shown
from gin_sim.game.environment import check_environment
from gin_sim.game.limits import check_index, check_seed, whole_number
from gin_sim.game.rng import GOLDEN_GAMMA, MASK64, player_stream_state
from gin_sim.game.rules import Rules, load_rules
from gin_sim.kernels.enums import (
    ACTION_BIG_GIN,
    ACTION_CARD,
    ACTION_KNOCK,
    Phase,
    PositionSlot,
    StrategyKind,
    StrategyParam,
)
from gin_sim.kernels.position import family_action_nb
from gin_sim.kernels.search import (
    search_nb,
    search_scratch_nb,
)
from gin_sim.players.calibration import load_undercut_table
from gin_sim.players.memory import OpponentMemory
from gin_sim.players.prepared import PreparedStrategy, _check_kinds
from gin_sim.players.search_value import NO_TABLES, searcher_table
from gin_sim.players.strategies import Strategy, load_strategy
from gin_sim.players.view import _check_seat, parse_view, position_from_view

Z95 = 1.959963984540054  # the 97.5% point of the normal distribution


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
    their figures over the ``screen_worlds`` screening worlds (why they went); with its
    first cut (``early_screen``), ``early_screened_out`` those the cut dropped, their
    figures over its ``early_screen_worlds`` worlds."""

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
    early_screened_out: tuple[Candidate, ...] = ()
    early_screen_worlds: int = 0


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


@functools.lru_cache(maxsize=1024)  # a few hundred (action, phase) pairs; Decision is frozen
def _describe(action: int, phase: int) -> Decision:
    if phase != Phase.DISCARD:
        words = "take" if action else ("decline" if phase == Phase.OFFER else "draw")
        return Decision(action=words, take=bool(action))
    if action == ACTION_BIG_GIN:
        return Decision(action="big gin", big_gin=True)
    card = format_card(action & ACTION_CARD)
    knock = bool(action & ACTION_KNOCK)
    return Decision(action=f"{'knock' if knock else 'discard'} {card}", discard=card, knock=knock)


class Decider(PreparedStrategy):
    """A strategy prepared once for a rule set: its kernel vector (with its rollout and
    opponent-model policies, whose TOML files are read here and not again), the rule
    set's vector and the undercut table. ``decide`` is then the kernels' work alone: a
    family decision costs a few tens of microseconds, a search about the search itself.

    Examples:
        >>> decider = Decider("simple", "hollywood")
        >>> view = {"decision": "draw", "hand": "AS 2S 3S 4H 4D 4C 9H TH JH QS",
        ...         "pile": "7C 4S", "stock_left": 30, "opp_turns": 1, "dealer": "me"}
        >>> decider.decide(view).action, decider.decide(view | {"pile": "7C 5D"}).action
        ('take', 'draw')
    """

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
            hand_number = check_index(hand_number, "hand_number")
        seat = _check_seat(seat)
        seed = check_seed(seed)  # a numpy integer is taken as the number it holds
        deal = check_index(deal, "deal")  # as simulate --deals bounds a run
        number = whole_number(draws)
        if number is None or not 0 <= number <= self._most_draws:
            raise ValueError(
                f"draws = {shown(draws)}: allowed a whole number 0 to {self._most_draws:,} (the most a player draws in one hand of rules {self.rules.name!r})"
            )
        draws = number
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

    Examples:
        >>> view = {"decision": "offer", "hand": "7H 8H 9H 2C 2D 2S 5S 6D JC KD",
        ...         "pile": "TH", "stock_left": 31, "dealer": "opponent"}
        >>> decide(view, "hollywood", "expert").action
        'take'
    """
    check_environment()
    seat = _check_seat(seat)
    _check_kinds(rules, strategy)
    seed = check_seed(seed)
    deal = check_index(deal, "deal")
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
        action = int(
            search_nb(params, masks, state, kernel_rules, table, equity, streams, seat, search)
        )
    words = _describe(action, phase)
    drawn = _drawn(stream, streams[seat])
    counts = search[13].tolist()
    n, worlds = counts[0], counts[1]
    if worlds == 0:  # one candidate: nothing searched
        return replace(words, drawn=drawn)
    # Plain floats and ints once (tolist), not a numpy scalar per figure: this runs at
    # every decision of a host's game.
    actions, sums, squares = search[5].tolist(), search[6].tolist(), search[7].tolist()
    gains = search[14].tolist()

    def candidate(c: int, over: int) -> Candidate:
        mean, low, high = interval95(sums[c], squares[c], over)
        return Candidate(_describe(actions[c], phase).action, mean, low, high, gains[c] / over)

    # The screened-out candidates follow the survivors, their figures over the screening
    # worlds (kernels.search.screen_nb), and those its first cut dropped come last.
    before, cut = counts[3], counts[4]
    screen = int(params[StrategyParam.MC_SCREEN])
    early = int(params[StrategyParam.MC_EARLY_SCREEN])
    return Decision(
        action=words.action,
        take=words.take,
        discard=words.discard,
        knock=words.knock,
        big_gin=words.big_gin,
        candidates=tuple(candidate(c, worlds) for c in range(n)),
        worlds=worlds,
        chosen=actions[:n].index(action),
        drawn=drawn,
        screened_out=tuple(candidate(c, screen) for c in range(n, cut)),
        screen_worlds=screen if cut > n else 0,
        early_screened_out=tuple(candidate(c, early) for c in range(cut, before)),
        early_screen_worlds=early if before > cut else 0,
    )
