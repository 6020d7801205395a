"""Datasets of decision positions from strong play, and their deep evaluation.

docs/advice.md is the specification: which positions are kept, every column, and how the
evaluation measures each action. In short:

- ``sample_positions`` plays deals exactly as ``simulate`` does (deal ``i``'s deck, dealer
  and player streams come from ``(seed, i)``) and keeps each decision of a kind (offer,
  draw, discard, knock) independently with that kind's probability (``keep``), by a stream
  of its own: being kept never depends on how the hand goes on, and each row carries its
  ``weight``, the decisions of its kind it stands for. A deal's rows depend only on the
  seed, the deal and the keep probabilities.
- ``evaluate_positions`` evaluates every relevant action of each position with a deep
  search that sees only the decider's view (``Evaluation``: worlds, rollout policy,
  opponent model, inference), common random numbers across the actions.
- ``execute`` writes a dataset folder chunk by chunk (a manifest and
  ``positions-NNNNNN.parquet`` files, each written atomically; rerunning resumes), in
  process or on Dask workers; ``load_positions`` reads it back.

>>> from gin_sim.game.rules import load_rules
>>> from gin_sim.players.strategies import parse_players
>>> config = PositionsConfig(load_rules("hollywood"), parse_players("expert,expert"), seed=3,
...                          deals=4, evaluation=Evaluation(samples=8, select=2))
>>> frame = next(execute(config))
>>> sorted(set(frame["kind"])) <= ["discard", "draw", "knock", "offer"], len(set(frame["deal"]))
(True, 4)
>>> frame.groupby("kind")["weight"].first().to_dict()  # 1 / the default keep probabilities
{'discard': 8.0, 'draw': 2.0, 'knock': 1.0, 'offer': 1.0}
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, ClassVar

import numpy as np
import pandas as pd

from gin_sim.experiments.runs import (
    MANIFEST,
    Chunked,
    ChunkFolder,
    RunError,
    check_rules_and_players,
)
from gin_sim.experiments.simulate import _wrapping_arithmetic, use_threads
from gin_sim.experiments.summary import Estimate
from gin_sim.game.cards import format_card, parse_card_list
from gin_sim.game.config import ConfigError, comma_items, parse_json, read_user_file
from gin_sim.game.limits import check_chunks, check_count, check_seed
from gin_sim.game.rules import Rules, rules_from_dict
from gin_sim.kernels.advice import (
    INFO_ACTION,
    INFO_COUNT,
    INFO_DEAL,
    INFO_DECISION,
    INFO_KIND,
    INFO_OPP_TAKES,
    INFO_OWN_TAKES,
    INFO_POINTS,
    INFO_RATE,
    MAX_ACTIONS,
    N_INFO,
    evaluate_positions_parallel,
    evaluation_actions_nb,
    play_forced_parallel,
    sample_positions_parallel,
)
from gin_sim.kernels.deadwood import melds_with_card_nb, min_deadwood_nb
from gin_sim.kernels.decisions import least_deadwood_discard_nb
from gin_sim.kernels.enums import (
    ACTION_KNOCK,
    KEEP_SCALE,
    MAX_DEAL_DECISIONS,
    N_POSITION_MASKS,
    N_POSITION_SLOTS,
    DecisionKind,
    Phase,
    PositionSlot,
)
from gin_sim.kernels.rng import STREAM_DOMAINS, evaluation_key_nb
from gin_sim.kernels.search import mean_gain_nb
from gin_sim.players.calibration import load_undercut_table
from gin_sim.players.decide import (
    STOCK_AFTER_DEAL,
    action_words,
    max_decisions,
    view_of_position,
)
from gin_sim.players.search_value import equity_tables
from gin_sim.players.strategies import (
    MAX_SAMPLES,
    Strategy,
    load_strategy,
    strategies_to_kernel,
    strategy_from_dict,
)

__all__ = [
    "DEFAULT_KEEP",
    "KINDS",
    "Evaluation",
    "PositionsConfig",
    "evaluate_frame",
    "evaluate_positions",
    "execute",
    "keep_rates",
    "load_positions",
    "parse_keep",
    "position_arrays",
    "sample_positions",
    "view_features",
]

KINDS = tuple(name.lower() for name in DecisionKind._fields)  # offer, draw, discard, knock
# Format 2: each decision kept independently with its kind's probability (format 1 kept
# one decision of each kind per deal, a choice that depended on the hand's future).
DATASET_FORMAT = 2
DATASET_KIND = "positions"  # the manifest's mark: a positions dataset, not a run
# Deals per chunk: a chunk's positions are held in memory (evaluated rows of about 1.5 KB,
# about 10 rows a deal at the default keep probabilities) and a chunk of mc play takes
# seconds per hundred deals, so larger chunks only delay saving.
MAX_CHUNK_DEALS = 100_000
# The keep probabilities by kind (KINDS order) unless told: every offer and knock decision
# (the knock positions are the headline and the rarest), half the draws, an eighth of the
# discards (the costliest to evaluate and the least used).
DEFAULT_KEEP = (1.0, 0.5, 0.125, 1.0)
# The most memory ``sample_positions`` gives the kernel's output at a time: it plays the deals
# in batches whose every decision could be kept in this many bytes.
SAMPLE_BATCH_BYTES = 64 << 20


def _probability(kind: str, value: Any, shown: str | None = None) -> float:
    """A kind's keep probability as a float, or a one-line ConfigError naming the kind and
    the value (``shown``: as the user wrote it)."""
    scaled = value * KEEP_SCALE if isinstance(value, int | float) else None
    if (
        isinstance(value, bool)
        or scaled is None
        or not 1 <= scaled <= KEEP_SCALE
        or scaled != int(scaled)
    ):
        written = repr(value) if shown is None else shown
        raise ConfigError(
            f"keep {kind} = {written}: allowed a probability above 0 and at most 1 that is a multiple of 1/{KEEP_SCALE} (1, 0.5, 0.125, 3/1024 = 0.0029296875, ...)"
        )
    return float(value)


def check_keep(keep: Any) -> tuple[float, ...]:
    """The keep probabilities, by kind in KINDS order, as floats; a one-line ConfigError
    naming the kind and the value unless each is a multiple of 1/1024 in (0, 1]."""
    if not isinstance(keep, tuple | list) or len(keep) != len(KINDS):
        raise ConfigError(
            f"keep = {keep!r}: expected {len(KINDS)} probabilities, one per kind ({', '.join(KINDS)})"
        )
    return tuple(_probability(kind, value) for kind, value in zip(KINDS, keep, strict=True))


def keep_rates(keep: tuple[float, ...]) -> np.ndarray:
    """The kernels' keep rates: int64[4], kind ``k`` kept with probability ``rates[k] / 1024``."""
    return np.array([round(p * KEEP_SCALE) for p in check_keep(keep)], np.int64)


def parse_keep(text: str) -> tuple[float, ...]:
    """``--keep``: ``kind=probability`` pairs, comma-separated (any subset of the kinds;
    the others keep ``DEFAULT_KEEP``'s), as probabilities by kind in KINDS order."""
    keep = dict(zip(KINDS, DEFAULT_KEEP, strict=True))
    given: set[str] = set()
    for part in comma_items(text, "--keep", "offer=1,draw=0.5"):
        kind, sep, value = (piece.strip() for piece in part.partition("="))
        if kind in given:  # the last would silently win
            raise ConfigError(f"--keep {text!r}: kind {kind!r} given twice: allowed each kind once")
        given.add(kind)
        if kind not in keep:
            raise ConfigError(
                f"--keep {part.strip()!r}: unknown kind {kind!r}; allowed {', '.join(KINDS)}"
            )
        try:
            number = float(value) if sep else None
        except ValueError:
            number = None
        if number is None:
            raise ConfigError(
                f"--keep {part.strip()!r}: expected {kind}=PROBABILITY, such as {kind}=0.5"
            )
        keep[kind] = _probability(kind, number, value)
    return tuple(keep[kind] for kind in KINDS)


def check_decisions(rules: Rules) -> int:
    """The most decisions a hand of ``rules`` can have (``decide.max_decisions``); a
    one-line ConfigError when a position's decision number could reach MAX_DEAL_DECISIONS,
    which keys its streams."""
    most = max_decisions(rules)
    if most > MAX_DEAL_DECISIONS:
        cap = (MAX_DEAL_DECISIONS - 2) // 2 - STOCK_AFTER_DEAL + rules.wall
        raise ConfigError(
            f"rules with max_upcard_takes = {rules.max_upcard_takes} and wall = {rules.wall} allow {most} decisions in a hand: a positions dataset keys each position's streams by its decision number, below {MAX_DEAL_DECISIONS}; allowed max_upcard_takes up to {cap} with this wall"
        )
    return most


@dataclass(frozen=True)
class Evaluation:
    """How each position's actions are evaluated (docs/advice.md, "The evaluation").

    ``samples`` worlds per position, drawn from the decider's view as ``mc`` draws them
    (with ``infer``, the opponent's hand built by ``opponent_model`` and weighted by
    ``infer_weight`` per contradicted pass); in each, every action is played out with
    ``rollout`` for the decider and ``opponent_model`` for the opponent. After a take, the
    first ``select`` worlds choose the baseline (the best discard without knocking) and
    the others measure every action's gain over it.
    """

    samples: int = 512
    select: int = 128
    rollout: str = "expert"
    opponent_model: str = "simple"
    infer: bool = True
    infer_weight: float = 0.25

    def __post_init__(self) -> None:
        for key in ("samples", "select"):
            value = getattr(self, key)
            if isinstance(value, bool) or not isinstance(value, int):
                raise ConfigError(f"evaluation {key} = {value!r}: expected a whole number")
        if not isinstance(self.infer, bool):
            raise ConfigError(f"evaluation infer = {self.infer!r}: allowed true or false")
        if not 3 <= self.samples <= MAX_SAMPLES:
            raise ConfigError(
                f"evaluation samples = {self.samples}: allowed 3 to {MAX_SAMPLES} worlds"
            )
        if not 1 <= self.select <= self.samples - 2:
            raise ConfigError(
                f"evaluation select = {self.select}: allowed 1 to samples - 2 = {self.samples - 2} (at least 2 worlds must measure the gains)"
            )
        self.searcher()  # the policies and the weight, checked as an mc player's

    @property
    def name(self) -> str:
        inference = f"inference weight {self.infer_weight:g}" if self.infer else "no inference"
        return (
            f"{self.samples} worlds ({self.select} choose the baseline discard), "
            f"{self.rollout} rollouts, {self.opponent_model} opponent model, {inference}"
        )

    def searcher(self) -> Strategy:
        """The settings as an ``mc`` strategy: the kernels read worlds, policies and
        inference from its vector."""
        try:
            return Strategy(
                name="evaluation", kind="mc", samples=self.samples, rollout=self.rollout,
                opponent_model=self.opponent_model, infer=self.infer,
                infer_weight=float(self.infer_weight),
            )  # fmt: skip
        except ConfigError as error:
            raise ConfigError(
                str(error).replace("in strategy 'evaluation'", "in the evaluation")
            ) from None

    def to_kernel(self, rules: Rules) -> np.ndarray:
        return self.searcher().to_kernel(rules)


@dataclass(frozen=True)
class PositionsConfig(Chunked):
    """Everything that determines a dataset (never threads, chunking's effect or workers):
    the rules and the two strategies that play the deals, the seed, the deals ``0 ..
    deals - 1``, the evaluation (None: positions only) and the keep probabilities by kind
    (``keep``, KINDS order: multiples of 1/1024 in (0, 1])."""

    rules: Rules
    players: tuple[Strategy, Strategy]
    seed: int
    deals: int
    chunk_size: int = 100
    # Made when a config is (not at import: it reads the rollout and model strategies).
    evaluation: Evaluation | None = field(default_factory=Evaluation)
    keep: tuple[float, ...] = DEFAULT_KEEP

    def __post_init__(self) -> None:
        check_rules_and_players(self.rules, self.players)
        if self.evaluation is not None and not isinstance(self.evaluation, Evaluation):
            raise ConfigError(f"evaluation = {self.evaluation!r}: expected an Evaluation")
        check_seed(self.seed)
        check_count(self.deals, "deals")
        check_chunks(self.deals, self.chunk_size, "deals")
        check_count(self.chunk_size, "chunk size", 1, MAX_CHUNK_DEALS)
        for player in self.players:
            player.for_rules(self.rules)  # a threshold above the knock limit is an error now
        object.__setattr__(self, "keep", check_keep(self.keep))
        check_decisions(self.rules)

    @property
    def total(self) -> int:
        return self.deals

    def to_json(self) -> dict[str, Any]:
        return {
            "rules": asdict(self.rules),
            "players": [p.to_config() for p in self.players],
            "seed": self.seed,
            "deals": self.deals,
            "chunk_size": self.chunk_size,
            "evaluation": None if self.evaluation is None else asdict(self.evaluation),
            "keep": dict(zip(KINDS, self.keep, strict=True)),
        }

    @classmethod
    def from_json(cls, document: dict[str, Any], where: str) -> PositionsConfig:
        try:
            values = dict(document)
            if set(values) != {f.name for f in fields(cls)}:
                raise KeyError(sorted(set(values) ^ {f.name for f in fields(cls)}))
            values["rules"] = rules_from_dict(values["rules"], f"{where} (rules)")
            values["players"] = tuple(
                strategy_from_dict(p, f"{where} (players)") for p in values["players"]
            )
            if values["evaluation"] is not None:
                values["evaluation"] = Evaluation(**values["evaluation"])
            if set(values["keep"]) != set(KINDS):
                raise KeyError(f"keep: {sorted(values['keep'])}")
            values["keep"] = tuple(values["keep"][kind] for kind in KINDS)
            return cls(**values)
        except ConfigError as error:
            raise RunError(
                f"{where}: {error}; restore it or start the dataset again with --overwrite"
            ) from None
        except (KeyError, TypeError, AttributeError) as error:
            raise RunError(f"{where} is not a gin-sim positions manifest ({error!r})") from None


# ------------------------------------------------------------------------ sampling
def sample_positions(
    rules: Rules,
    players: tuple[Strategy, Strategy],
    seed: int,
    first_deal: int,
    deals: int,
    keep: tuple[float, ...] = DEFAULT_KEEP,
    threads: int | None = None,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Play deals ``first_deal .. first_deal + deals - 1`` and keep each decision of kind
    ``k`` with probability ``keep[k]`` (KINDS order): (masks uint64[m, N_POSITION_MASKS],
    states int64[m, N_POSITION_SLOTS], facts int64[m, N_INFO]) of the ``m`` kept positions
    by deal, then decision (the facts' columns: ``kernels.advice.INFO_*``, the deal's index
    included). The deals are played in batches, so the kernel's output never takes more
    than about SAMPLE_BATCH_BYTES whatever ``deals``; the rows do not depend on them."""
    check_seed(seed)
    check_count(deals, "deals")
    rates = keep_rates(keep)
    slots = check_decisions(rules)
    use_threads(threads)
    row_bytes = 8 * (N_POSITION_MASKS + N_POSITION_SLOTS + N_INFO)
    batch = max(1, min(deals, SAMPLE_BATCH_BYTES // (slots * row_bytes)))
    args = (
        rules.to_kernel(), rates, strategies_to_kernel(players, rules), load_undercut_table(),
        equity_tables(players, rules),
    )  # fmt: skip
    parts = []
    for start in range(0, deals, batch):
        n = min(batch, deals - start)
        masks = np.empty((n, slots, N_POSITION_MASKS), np.uint64)
        states = np.empty((n, slots, N_POSITION_SLOTS), np.int64)
        info = np.empty((n, slots, N_INFO), np.int64)
        kept = np.zeros(n, np.int64)
        with _wrapping_arithmetic():
            sample_positions_parallel(
                np.uint64(seed), first_deal + start, *args, masks, states, info, kept
            )
        if kept.max() > slots:  # max_decisions is a bound: never, unless the rules changed
            raise RuntimeError(f"a hand kept {kept.max()} decisions, more than its {slots} rows")
        rows = np.arange(slots)[None, :] < kept[:, None]  # by deal, then decision
        parts.append((masks[rows], states[rows], info[rows]))
    if not parts:
        return (
            np.zeros((0, N_POSITION_MASKS), np.uint64), np.zeros((0, N_POSITION_SLOTS), np.int64),
            np.zeros((0, N_INFO), np.int64),
        )  # fmt: skip
    return tuple(np.concatenate(column) for column in zip(*parts, strict=True))  # type: ignore[return-value]


def _hand_facts(hand: int, card: int, from_pile: bool) -> tuple[int, int, bool]:
    """(deadwood now, deadwood the card lowered it by, whether the card completes a meld)
    for an 11-card ``hand`` that holds ``card`` just taken (docs/advice.md)."""
    before = hand & ~(1 << card)
    forbidden = card if from_pile else -1
    after = int(least_deadwood_discard_nb(np.uint64(hand), forbidden)[1])
    lowered = int(min_deadwood_nb(np.uint64(before))) - after
    return after, lowered, bool(melds_with_card_nb(np.uint64(before), card))


def view_features(view: Mapping[str, Any]) -> dict[str, Any]:
    """The public features of a decision (docs/advice.md, "Columns") from the plain-data
    view of the player to move (``decide.view_of_position``, or any view ``decide``
    takes): nothing else is read, so nothing hidden can reach them."""
    hand = _mask(parse_card_list(view["hand"]))
    opp_taken = _mask(parse_card_list(view["opp_taken"]))
    if view["decision"] == "discard":
        card = parse_card_list(view["taken"])[0]
        from_pile = bool(view["taken_from_pile"])
        deadwood, lowered, melds = _hand_facts(hand, card, from_pile)
    else:  # the card on offer is the pile's top
        card = parse_card_list(view["pile"])[-1]
        from_pile = True
        _, lowered, melds = _hand_facts(hand | 1 << card, card, True)
        deadwood = int(min_deadwood_nb(np.uint64(hand)))
    ranks = suits = 0
    for c in range(52):
        if opp_taken >> c & 1:
            ranks |= 1 << (c % 13)
            suits |= 1 << (c // 13)
    return {
        "dealer": view["dealer"] == "me",
        "stock_left": view["stock_left"],
        "turns": view["own_turns"] + view["opp_turns"],
        "own_turns": view["own_turns"],
        "opp_turns": view["opp_turns"],
        "pile_takes": view["pile_takes"],
        "opp_holds": opp_taken.bit_count(),
        "opp_taken": np.uint64(opp_taken),
        "opp_taken_ranks": ranks,
        "opp_taken_suits": suits,
        "knock_limit": view["knock_limit"],
        "deadwood": deadwood,
        "card": format_card(card),
        "from_pile": from_pile,
        "card_melds": melds,
        "card_lowers": lowered,
        "hand": np.uint64(hand),
    }


def _mask(cards: list[int]) -> int:
    return sum(1 << c for c in cards)


def positions_frame(
    players: tuple[Strategy, Strategy], masks: np.ndarray, states: np.ndarray, info: np.ndarray
) -> pd.DataFrame:
    """The rows (docs/advice.md, "Columns") of the positions ``sample_positions`` kept, in
    its order: by deal, then decision."""
    rows = []
    for mask_row, state_row, facts in zip(masks, states, info, strict=True):
        seat = int(state_row[PositionSlot.PLAYER])
        probability = int(facts[INFO_RATE]) / KEEP_SCALE
        row = {
            "deal": int(facts[INFO_DEAL]),
            "kind": KINDS[int(facts[INFO_KIND])],
            "seat": seat,
            "strategy": players[seat].name,
            "decision": int(facts[INFO_DECISION]),
            "kind_count": int(facts[INFO_COUNT]),
            "keep_probability": probability,
            "weight": 1.0 / probability,
        }
        row |= view_features(view_of_position(mask_row, state_row))
        row |= {
            "own_takes": int(facts[INFO_OWN_TAKES]),
            "opp_takes": int(facts[INFO_OPP_TAKES]),
            "played": action_words(int(facts[INFO_ACTION]), int(state_row[PositionSlot.PHASE])),
            "hand_points": int(facts[INFO_POINTS]),
            "position_masks": mask_row.copy(),
            "position_state": state_row.astype(np.int16),
        }
        rows.append(row)
    return pd.DataFrame(rows)


def position_arrays(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """The full positions of a dataset's rows: (masks uint64[m, 7], states int64[m, 120]),
    ready for ``evaluate_positions`` (another rule set, another evaluation)."""
    if not len(frame):
        return np.zeros((0, N_POSITION_MASKS), np.uint64), np.zeros((0, N_POSITION_SLOTS), np.int64)
    masks = np.stack([np.asarray(m, np.uint64) for m in frame["position_masks"]])
    states = np.stack([np.asarray(s, np.int64) for s in frame["position_state"]])
    return masks, states


def row_keys(seed: int, frame: pd.DataFrame) -> np.ndarray:
    """The world streams of a dataset's rows (``evaluation_keys`` of their deals and
    decisions)."""
    return evaluation_keys(seed, frame["deal"].to_numpy(), frame["decision"].to_numpy())


def evaluation_keys(seed: int, deals: np.ndarray, decisions: np.ndarray) -> np.ndarray:
    """Each position's world stream: a function of the seed, its deal and its decision
    number in the hand only (``kernels.rng.evaluation_key_nb``), which must be below
    MAX_DEAL_DECISIONS (``check_decisions`` makes sure of it for a dataset's rules)."""
    decisions = np.asarray(decisions, np.int64)
    if len(decisions) and not 0 <= decisions.min() <= decisions.max() < MAX_DEAL_DECISIONS:
        raise ValueError(
            f"decision numbers {decisions.min()} to {decisions.max()}: a position's streams are keyed by a decision number 0 to {MAX_DEAL_DECISIONS - 1}"
        )
    with _wrapping_arithmetic():
        return np.array(
            [evaluation_key_nb(np.uint64(seed), int(d), int(k)) for d, k in zip(deals, decisions, strict=True)],
            dtype=np.uint64,
        )  # fmt: skip


# ---------------------------------------------------------------------- evaluation
@dataclass(frozen=True)
class Evaluated:
    """What ``evaluate_positions`` found, per position (row) and action (column, -1 past
    the last action): the actions (kernel codes), each one's value sum and sum of squares
    over all worlds, its gain over the baseline summed over the measuring worlds and the
    gain's sum of squares, the number of actions and the baseline's column."""

    actions: np.ndarray
    sums: np.ndarray
    squares: np.ndarray
    gains: np.ndarray
    gain_squares: np.ndarray
    n_actions: np.ndarray
    baseline: np.ndarray


def evaluate_positions(
    masks: np.ndarray,
    states: np.ndarray,
    keys: np.ndarray,
    rules: Rules,
    evaluation: Evaluation,
    threads: int | None = None,
) -> Evaluated:
    """Evaluate every relevant action of each position (docs/advice.md, "The evaluation"),
    position ``i``'s worlds drawn from the stream ``keys[i]``; any threads give the same."""
    use_threads(threads)
    n = len(masks)
    out = [np.zeros((n, MAX_ACTIONS), np.float64) for _ in range(4)]
    actions = np.full((n, MAX_ACTIONS), -1, np.int64)
    meta = np.zeros((n, 2), np.int64)
    with _wrapping_arithmetic():
        evaluate_positions_parallel(
            evaluation.to_kernel(rules), evaluation.select, rules.to_kernel(),
            load_undercut_table(), np.ascontiguousarray(masks, np.uint64),
            np.ascontiguousarray(states, np.int64), np.ascontiguousarray(keys, np.uint64),
            actions, *out, meta,
        )  # fmt: skip
    return Evaluated(actions, *out, meta[:, 0].copy(), meta[:, 1].copy())


def _mean_error(total: float, squares: float, n: int) -> tuple[float, float]:
    mean, error = mean_gain_nb(total, squares, n)
    return float(mean), float(error)


def evaluation_columns(
    frame: pd.DataFrame, states: np.ndarray, found: Evaluated, evaluation: Evaluation
) -> pd.DataFrame:
    """The evaluation's columns (docs/advice.md) added to the rows of ``frame``."""
    worlds = evaluation.samples
    columns: dict[str, list] = {key: [] for key in EVALUATION_COLUMNS[2:]}
    for r in range(len(frame)):
        phase = int(states[r, PositionSlot.PHASE])
        n, base = int(found.n_actions[r]), int(found.baseline[r])
        measure = worlds if phase != Phase.DISCARD else worlds - evaluation.select
        words = [action_words(int(a), phase) for a in found.actions[r, :n]]
        values = [_mean_error(found.sums[r, c], found.squares[r, c], worlds) for c in range(n)]
        gains = [
            _mean_error(found.gains[r, c], found.gain_squares[r, c], measure) for c in range(n)
        ]
        best = max(range(n), key=lambda c: (found.gains[r, c], -c))
        if phase != Phase.DISCARD:
            headline = 1  # take
        elif int(found.actions[r, 0]) & ACTION_KNOCK:
            headline = 0  # knock
        else:
            headline = -1
        played = frame["played"].iat[r]
        played_at = words.index(played) if played in words else -1
        columns["measure_worlds"].append(measure)
        columns["actions"].append(words)
        columns["values"].append([v[0] for v in values])
        columns["value_ses"].append([v[1] for v in values])
        columns["gains"].append([g[0] for g in gains])
        columns["gain_ses"].append([g[1] for g in gains])
        columns["baseline"].append(words[base])
        columns["best"].append(words[best])
        for key, at in (("gain", headline), ("played_gain", played_at)):
            mean, error = gains[at] if at >= 0 else (np.nan, np.nan)
            columns[key].append(mean)
            columns[f"{key}_se"].append(error)
    extra = pd.DataFrame(columns, index=frame.index)
    extra.insert(0, "evaluation", evaluation.name)
    extra.insert(1, "worlds", worlds)
    return pd.concat([frame, extra], axis=1)


# The columns ``evaluation_columns`` adds (docs/advice.md, "The evaluation").
EVALUATION_COLUMNS = (
    "evaluation", "worlds", "measure_worlds", "actions", "values", "value_ses", "gains",
    "gain_ses", "baseline", "best", "gain", "gain_se", "played_gain", "played_gain_se",
)  # fmt: skip


def evaluate_frame(
    frame: pd.DataFrame,
    rules: Rules,
    evaluation: Evaluation,
    seed: int,
    threads: int | None = None,
) -> pd.DataFrame:
    """A dataset's rows evaluated (again) under ``rules`` and ``evaluation``: each row's
    worlds come from ``row_keys(seed, ...)``, so with the dataset's seed every rule set and
    every evaluation of the same depth sees the same worlds (paired comparisons). A stored
    position keeps its hand's knock limit (R12, R14a): evaluate it only under rules whose
    limit is that one (any but Oklahoma for positions played under another rule set)."""
    rows = frame.drop(columns=[c for c in EVALUATION_COLUMNS if c in frame])
    if not len(rows):
        return rows
    masks, states = position_arrays(rows)
    found = evaluate_positions(masks, states, row_keys(seed, rows), rules, evaluation, threads)
    return evaluation_columns(rows, states, found, evaluation)


# The stream domain of the check against play (``play_headline``): not the worlds' stream.
_CHECK_DOMAIN = STREAM_DOMAINS["check"]


def headline_actions(frame: pd.DataFrame) -> tuple[np.ndarray, np.ndarray]:
    """Per evaluated offer, draw or knock row: the kernel codes of its headline action
    (take; knock with the least-deadwood discard) and of its baseline (decline or draw;
    the evaluation's best discard without knocking)."""
    masks, states = position_arrays(frame)
    headline = np.zeros(len(frame), np.int64)
    baseline = np.zeros(len(frame), np.int64)
    codes = np.full(MAX_ACTIONS, -1, np.int64)
    for r in range(len(frame)):
        if frame["kind"].iat[r] not in ("offer", "draw", "knock"):
            raise ValueError(f"row {r}: a {frame['kind'].iat[r]} position has no headline")
        n = evaluation_actions_nb(masks[r], states[r], codes)
        words = list(frame["actions"].iat[r])
        headline[r] = codes[1] if frame["kind"].iat[r] != "knock" else codes[0]
        baseline[r] = codes[words.index(frame["baseline"].iat[r])]
        assert n == len(words)
    return headline, baseline


def remembers(players: tuple[Strategy, Strategy]) -> bool:
    """Whether a player carries what it learned in the hand from one decision to the next
    (a searcher with an opponent panel: its posterior and its last discard)."""
    return any(p.kind == "mc" and bool(p.opponent_panel) for p in players)


def _forced_gains(
    frame: pd.DataFrame,
    rules: Rules,
    players: tuple[Strategy, Strategy],
    continuations: int,
    seed: int,
    threads: int | None,
    remember: bool,
) -> pd.DataFrame:
    """The headline's points less the baseline's, forced from each row's position as it
    was and played out by ``players`` (by seat) on the check's stocks and streams of
    ``seed`` (``play_headline``); ``remember``: each row replayed from its deal under
    ``seed`` first, so that the searchers start from what they knew there."""
    check_count(continuations, "continuations", 1, 100_000)
    headline, baseline = headline_actions(frame)
    masks, states = position_arrays(frame)
    keys = evaluation_keys(
        seed ^ _CHECK_DOMAIN, frame["deal"].to_numpy(), frame["decision"].to_numpy()
    )
    deals = frame["deal"].to_numpy(np.int64)
    decisions = frame["decision"].to_numpy(np.int64) if remember else np.full(len(frame), -1)
    use_threads(threads)
    values = np.zeros((2 * len(frame), continuations), np.float64)
    with _wrapping_arithmetic():
        play_forced_parallel(
            rules.to_kernel(), strategies_to_kernel(players, rules), load_undercut_table(),
            equity_tables(players, rules), np.concatenate([masks, masks]), np.concatenate([states, states]),
            np.concatenate([headline, baseline]), np.concatenate([keys, keys]), values,
            seed, np.concatenate([deals, deals]), np.concatenate([decisions, decisions]),
        )  # fmt: skip
    lost = np.isnan(values).any(axis=1)[: len(frame)]
    if lost.any():
        r = int(np.flatnonzero(lost)[0])
        raise ValueError(
            f"deal {frame['deal'].iat[r]}, decision {frame['decision'].iat[r]}: replayed under seed {seed} by {players[0].name},{players[1].name} it is not the stored position; the check against play needs the dataset's own seed and players"
        )
    gains = values[: len(frame)] - values[len(frame) :]
    se = gains.std(axis=1, ddof=1) / np.sqrt(continuations) if continuations > 1 else np.nan
    return pd.DataFrame({"gain": gains.mean(axis=1), "se": se}, index=frame.index)


def play_headline(
    frame: pd.DataFrame,
    rules: Rules,
    players: tuple[Strategy, Strategy],
    continuations: int,
    seed: int,
    threads: int | None = None,
) -> pd.DataFrame:
    """The headline gain of evaluated offer, draw and knock rows measured by play: from
    each position as it was (the opponent's real hand), the headline action and the
    baseline are each forced and ``players`` (by seat) play the hand out, ``continuations``
    times with the stock reshuffled (unseen by both, so every order is as likely as the
    real one) and fresh player streams, both actions on the same stocks and streams.
    Players who carry what they learned in the hand (``remembers``: ``mc``'s opponent
    posterior) start every continuation from what they knew at the position, as they
    played: the rows must be positions of the dataset ``players`` played under ``seed``
    (each is replayed from its deal to find it; else a ValueError).
    Returns ``play_gain`` and ``play_gain_se`` (across continuations) per row. The stream
    of row ``(deal, decision)`` depends only on ``seed``, the deal and the decision."""
    found = _forced_gains(frame, rules, players, continuations, seed, threads, remembers(players))
    return found.rename(columns={"gain": "play_gain", "se": "play_gain_se"})


# Rows of ``play_in_parts`` per part: a few minutes of mc's play on two cores, so that an
# interrupted report loses little.
PLAY_PART_ROWS = 2000


def play_in_parts(
    frame: pd.DataFrame,
    rules: Rules,
    players: tuple[Strategy, Strategy],
    continuations: int,
    seed: int,
    folder: Path | None = None,
    on_part: Callable[[int, int], None] | None = None,
) -> pd.DataFrame:
    """``play_headline`` of every row of ``frame``, ``PLAY_PART_ROWS`` rows at a time:
    ``deal``, ``decision``, ``play_gain`` and ``play_gain_se`` per row, in ``frame``'s
    order. With ``folder`` each part is kept there (``part-NNN.parquet``) and read back on
    the next call, so the same report resumes; a kept part whose rows are not the frame's
    is played again (the values depend only on the seed, the deal and the decision).
    ``on_part(rows_done, rows)`` after each part."""
    parts = []
    for start in range(0, len(frame), PLAY_PART_ROWS):
        rows = frame.iloc[start : start + PLAY_PART_ROWS]
        keys = rows[["deal", "decision"]].reset_index(drop=True)
        path = None if folder is None else folder / f"part-{start // PLAY_PART_ROWS:03d}.parquet"
        kept = pd.read_parquet(path) if path is not None and path.is_file() else None
        if kept is None or not kept[["deal", "decision"]].equals(keys):
            played = play_headline(rows, rules, players, continuations, seed)
            kept = pd.concat([keys, played.reset_index(drop=True)], axis=1)
            if path is not None:
                path.parent.mkdir(parents=True, exist_ok=True)
                kept.to_parquet(path)
        parts.append(kept)
        if on_part is not None:
            on_part(start + len(rows), len(frame))
    columns = ["deal", "decision", "play_gain", "play_gain_se"]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=columns)


def rollout_headline(
    frame: pd.DataFrame,
    rules: Rules,
    evaluation: Evaluation,
    continuations: int,
    seed: int,
    threads: int | None = None,
) -> pd.DataFrame:
    """The headline gain as the search's policies play it from the real cards: as
    ``play_headline`` (the position as it was, the same stocks: paired with it), but the
    player to move plays on by the evaluation's ``rollout`` and its opponent by its
    ``opponent_model``, as in the search's rollouts. Against ``play_headline`` it measures
    the policies alone (the real players against the search's model of them); against the
    search's gain, the worlds alone (the real hidden cards against the inferred ones).
    Returns ``rollout_gain`` and ``rollout_gain_se`` per row."""
    rollout, model = load_strategy(evaluation.rollout), load_strategy(evaluation.opponent_model)
    seats = position_arrays(frame)[1][:, PositionSlot.PLAYER]
    parts = []
    for seat, players in ((0, (rollout, model)), (1, (model, rollout))):
        rows = frame[seats == seat]
        if len(rows):
            parts.append(_forced_gains(rows, rules, players, continuations, seed, threads, False))
    found = pd.concat(parts) if parts else pd.DataFrame({"gain": [], "se": []})
    found = found.reindex(frame.index)
    return found.rename(columns={"gain": "rollout_gain", "se": "rollout_gain_se"})


def play_chunk(config: PositionsConfig, chunk: int, threads: int | None = None) -> pd.DataFrame:
    """One chunk of a dataset: the positions of its deals, evaluated if asked."""
    start, stop = config.chunk_range(chunk)
    masks, states, info = sample_positions(
        config.rules, config.players, config.seed, start, stop - start, config.keep, threads
    )
    frame = positions_frame(config.players, masks, states, info)
    if config.evaluation is None:
        return frame
    return evaluate_frame(frame, config.rules, config.evaluation, config.seed, threads)


# -------------------------------------------------------------------------- folders
class PositionSet(ChunkFolder):
    """An open dataset folder: ``manifest.json`` and ``positions-NNNNNN.parquet`` chunks
    (one per ``chunk_size`` deals), opened and written as run folders are
    (``gin_sim.experiments.runs.ChunkFolder``: only gin-sim's files, one writer at a time)."""

    WHAT = "dataset"
    MANIFEST_FIELDS: ClassVar[dict[str, Any]] = {
        "format": DATASET_FORMAT,
        "dataset": DATASET_KIND,
    }
    config: PositionsConfig

    @staticmethod
    def read_config(folder: Path) -> PositionsConfig:
        return read_positions_manifest(folder)

    def chunk_file(self, chunk: int) -> Path:
        return self.directory / f"positions-{chunk:06d}.parquet"

    def chunk_kind(self) -> str:
        return DATASET_KIND

    def is_done(self, chunk: int) -> bool:
        """True when the chunk's file is there and belongs to this dataset; a damaged file,
        or another dataset's, is an error."""
        path = self.chunk_file(chunk)
        if not path.exists():
            return False
        self._check_stamp(chunk, path, self._read_metadata(path))
        return True

    def write_chunk(self, chunk: int, frame: pd.DataFrame) -> None:
        self._write_stamped(chunk, self.chunk_file(chunk), frame)

    def read_chunk(self, chunk: int) -> pd.DataFrame:
        self.is_done(chunk)
        return self._read_table(self.chunk_file(chunk))


def read_positions_manifest(directory: str | Path) -> PositionsConfig:
    """The configuration of a dataset folder, or a one-line ``RunError``."""
    folder = Path(directory)
    path = folder / MANIFEST
    if not folder.is_dir():
        raise RunError(f"dataset folder {folder} does not exist or is not a folder")
    try:
        document = parse_json(read_user_file(path), str(path))
    except FileNotFoundError:
        raise RunError(f"{folder} is not a dataset folder: it has no {MANIFEST}") from None
    except ConfigError as error:
        raise RunError(str(error)) from None
    except OSError as error:
        raise RunError(f"cannot read {path}: {error.strerror or error}") from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise RunError(
            f"{path} is damaged or not gin-sim's ({error}): it cannot be read as JSON; restore it, or move it away or choose another --out"
        ) from None
    if (
        isinstance(document, dict)
        and document.get("dataset") == DATASET_KIND
        and document.get("format") == 1
    ):
        raise RunError(
            f"{path} is a positions dataset of format 1 (one position of each kind per deal, a choice that depended on the hand's future); this gin-sim reads format {DATASET_FORMAT} only: rebuild it with the same command and --overwrite"
        )
    if (
        not isinstance(document, dict)
        or document.get("dataset") != DATASET_KIND
        or document.get("format") != DATASET_FORMAT
        or not isinstance(document.get("config"), dict)
    ):
        raise RunError(f"{path} is not a gin-sim positions manifest (a run folder's, perhaps)")
    return PositionsConfig.from_json(document["config"], str(path))


def execute(
    config: PositionsConfig,
    directory: str | Path | None = None,
    overwrite: bool = False,
    threads: int | None = None,
    on_chunk: Callable[[int, bool], None] | None = None,
    client: Any = None,
) -> Iterator[pd.DataFrame]:
    """Sample (and evaluate) a dataset chunk by chunk, yielding each chunk's rows.

    With ``directory`` each finished chunk is written there and chunks already there are
    read back instead (resume). ``on_chunk(deals, resumed)`` reports progress. With a Dask
    ``client`` the missing chunks are played as tasks on its workers; the rows are the
    same, since a chunk depends only on the configuration and its index.
    """
    dataset = PositionSet.open(directory, config, overwrite) if directory is not None else None
    try:
        yield from _play_dataset(config, dataset, threads, on_chunk, client)
    finally:
        if dataset is not None:
            dataset.close()


def _play_dataset(
    config: PositionsConfig,
    dataset: PositionSet | None,
    threads: int | None,
    on_chunk: Callable[[int, bool], None] | None,
    client: Any,
) -> Iterator[pd.DataFrame]:
    submitted: dict[int, Any] = {}
    looked_at = 0  # chunks below this were looked at for submission
    window = 0
    if client is not None:
        from gin_sim.experiments.cluster import TASK_RETRIES, tasks_ahead

        window = tasks_ahead(client)
    for chunk in range(config.n_chunks):
        # On a cluster only a window of chunks ahead of the one being collected is
        # submitted; a chunk looked at and not submitted is a finished one.
        while client is not None and looked_at < config.n_chunks and len(submitted) < window:
            if dataset is None or not dataset.is_done(looked_at):
                submitted[looked_at] = client.submit(
                    play_chunk, config, looked_at, threads, pure=False, retries=TASK_RETRIES
                )
            looked_at += 1
        start, stop = config.chunk_range(chunk)
        task = submitted.pop(chunk, None)
        if task is None and dataset is not None and dataset.is_done(chunk):
            frame, resumed = dataset.read_chunk(chunk), True
        else:
            frame = task.result() if task is not None else play_chunk(config, chunk, threads)
            resumed = False
            if dataset is not None:
                dataset.write_chunk(chunk, frame)
        if on_chunk is not None:
            on_chunk(stop - start, resumed)
        yield frame


def load_positions(directory: str | Path) -> pd.DataFrame:
    """The rows of a finished dataset folder as one DataFrame (docs/advice.md): ``kind``
    a categorical in ``KINDS`` order; ``attrs["config"]`` holds the manifest's.

    The folder is one written by ``gin-sim positions --out DIR`` (or the positions folders
    of an advice report). Each row is a decision position kept with probability ``p``
    (its ``weight`` is ``1/p``), with the player's view and, when evaluated, each action's
    value by deep search. An unfinished or broken folder is a ``ValueError`` that says so.
    """
    config = read_positions_manifest(directory)
    dataset = PositionSet(Path(directory), config)
    missing = dataset.missing()
    if missing:
        raise RunError(
            f"{directory} is unfinished: {missing} of {config.n_chunks} chunks missing; run the same command again to finish it"
        )
    frame = pd.concat([dataset.read_chunk(c) for c in range(config.n_chunks)], ignore_index=True)
    frame["kind"] = pd.Categorical(frame["kind"], categories=list(KINDS))
    frame.attrs["config"] = config.to_json()
    return frame


# What summary_by_kind reads.
SUMMARY_COLUMNS = ("deal", "kind", "weight", "deadwood", "gain", "played", "best")


def summary_by_kind(frame: pd.DataFrame) -> pd.DataFrame:
    """Per kind: positions, and per decision (rows weighted by ``weight``, a ratio of sums;
    docs/advice.md) the mean own deadwood and, for evaluated datasets, the mean headline
    gain (take over draw, knock over the best discard) with its 95% interval clustered by
    deal (a deal gives several rows), and how often the played action is the evaluation's
    best."""
    rows = []
    for kind in KINDS:
        part = frame[frame["kind"] == kind]
        weights = part["weight"].to_numpy(np.float64)
        row: dict[str, Any] = {"kind": kind, "positions": len(part)}
        row["mean_deadwood"] = Estimate.of(weights * part["deadwood"], weights).mean
        if "gain" in frame:
            measured = part["gain"].notna().to_numpy()
            w, deals = weights[measured], part["deal"].to_numpy()[measured]
            gain = Estimate.of(w * part["gain"].to_numpy(np.float64)[measured], w, groups=deals)
            row |= {
                "gain": gain.mean,
                "gain_low": gain.mean - gain.half_width,
                "gain_high": gain.mean + gain.half_width,
            }
            best = (part["played"] == part["best"]).to_numpy(np.float64)
            row["played_is_best"] = Estimate.of(weights * best, weights).mean
        rows.append(row)
    return pd.DataFrame(rows)
