"""Strategies: a frozen, validated spec per player, compiled to a float64 kernel vector.

Every strategy but ``random`` is a member of one parameterised family
(docs/strategies.md); ``simple`` is the family with its defaults. Named strategies are
the TOML files in ``configs/strategies/``; one kernel serves them all, so changing a
parameter never recompiles anything.

>>> load_strategy("simple").knock_threshold is None  # knocks at the rule set's limit
True
>>> load_strategy("simple", ["knock_threshold=4"]).knock_threshold
4
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, fields, replace
from pathlib import Path
from typing import Any, get_type_hints

import numpy as np

from gin_sim.game.config import (
    ConfigError,
    check_keys,
    check_name,
    check_overrides,
    coerce,
    comma_items,
    configs_dir,
    parse_override,
    read_named_config,
    shown,
)
from gin_sim.game.limits import MAX_SCORE_TABLE_TARGET, MAX_UNDERCUT_WEIGHT
from gin_sim.game.rules import Rules
from gin_sim.kernels.enums import (
    FAMILY_PARAMS,
    MAX_PANEL,
    MAX_SCHEDULE_PHASES,
    N_STRATEGY_PARAMS,
    PanelMemory,
    SearchValue,
    StrategyKind,
    StrategyParam,
)

KINDS: dict[str, int] = {name.lower(): value for name, value in StrategyKind._asdict().items()}
SEARCH_VALUES: dict[str, int] = {
    name.lower(): value for name, value in SearchValue._asdict().items()
}
PANEL_MEMORIES: dict[str, int] = {
    name.lower(): value for name, value in PanelMemory._asdict().items()
}

Schedule = tuple[tuple[int, int], ...]  # knock_schedule: (min_stock, threshold) phases
# take_schedule: (min_stock, take_melds, take_min_gain) phases
TakeSchedule = tuple[tuple[int, bool, float], ...]
# The schedules by stock depth: each phase's values after its min_stock, by name and type
# (docs/strategies.md); both share their coercion and validation.
SCHEDULES: dict[str, tuple[tuple[str, type], ...]] = {
    "knock_schedule": (("threshold", int),),
    "take_schedule": (("take_melds", bool), ("take_min_gain", float)),
}
MAX_PRIOR_WEIGHT = 1e6  # a panel prior weight: relative, so beyond this only rounding changes
# An adaptation to the rule set: (conditions, overrides), each a sorted tuple of
# (key, value) pairs; a condition is a rule key with an inclusive [low, high] range or a
# boolean. See docs/strategies.md ("Adapting to the rules").
Adaptation = tuple[tuple[tuple[str, Any], ...], tuple[tuple[str, Any], ...]]
NOT_ADAPTABLE = ("name", "description", "kind", "adapt")
# The parameters each kind plays by (docs/strategies.md): a family strategy ignores the
# search keys, a search player the family keys (its rollout policies are named strategies),
# and random ignores both. A key its kind ignores is refused, since it would do nothing.
FAMILY_KEYS = (
    "knock_threshold",
    "knock_schedule",
    "undercut_risk",
    "take_melds",
    "take_min_gain",
    "take_schedule",
    "improve_weight",
    "keep_weight",
    "safety_weight",
    "disinterest_weight",
    "pair_weight",
    "closing_distance",
)
SEARCH_KEYS = (
    "samples",
    "candidates",
    "screen",
    "rollout",
    "opponent_model",
    "infer",
    "infer_weight",
    "confidence",
    "value",
    "opponent_panel",
    "panel_prior",
    "panel_memory",
    "panel_worlds",
    "panel_infer",
    "panel_knock_turn",
    "panel_offer",
    "late_stock",
    "late_samples",
    "undercut_weight",
    "undercut_stock",
    "late_infer_stock",
    "late_infer_weight",
    "infer_lowering",
    "infer_timed",
    "extend_samples",
    "knock_samples",
    "screen_discards",
    "early_screen",
    "early_keep",
    "knock_rollout",
    "paired_draws",
    "draw_samples",
)
KIND_KEYS = {"family": FAMILY_KEYS, "mc": SEARCH_KEYS, "random": ()}
MAX_CLOSING_DISTANCE = 100_000  # points to a game's target (the largest target a rule set allows)
MAX_SAMPLES = 4096  # worlds per search: beyond this a decision takes seconds
# [[adapt]] tables of one strategy: the shipped ones use 2; every table is validated as a
# strategy of its own, so thousands would take minutes before the first deal.
MAX_ADAPTATIONS = 64


@dataclass(frozen=True)
class Strategy:
    """One player's strategy; field meanings and ranges in docs/strategies.md.

    ``kind`` is ``family`` (the rule-based strategies: ``simple``, ``basic``, ``expert``,
    ``advised``, the gin hunters, ...), ``random``, or a search player (``mc``, ``mc-fixed``,
    ``mc-match``). The named ones are the TOML files of ``configs/strategies/``
    (``gin-sim strategies`` lists them); ``load_strategy`` reads one, with overrides.
    """

    name: str = "simple"
    description: str = ""
    kind: str = "family"
    knock_threshold: int | None = None  # None: the rule set's knock limit (R12)
    knock_schedule: Schedule = ()
    undercut_risk: float = 1.0
    take_melds: bool = True
    take_min_gain: float = 0.0
    take_schedule: TakeSchedule = ()  # overrides take_melds and take_min_gain by stock depth
    improve_weight: float = 0.0
    keep_weight: float = 0.0
    safety_weight: float = 0.0
    disinterest_weight: float = 0.0
    pair_weight: float = 0.0  # discard: keep high pairs (docs/strategies.md, "pair")
    closing_distance: int = 0  # knock whenever allowed when this close to winning a game; 0: off
    # kind "mc" only (docs/strategies.md, "Search players")
    samples: int = 32
    candidates: int = 4
    screen: int = 0  # worlds that screen every discard first (0: the heuristic picks them)
    rollout: str = "simple"  # the family strategy playing the searcher's own later moves
    opponent_model: str = "simple"  # the family strategy playing the opponent in rollouts
    infer: bool = False
    infer_weight: float = 0.25
    confidence: float = 1.0
    value: str = "hand"  # what a rollout's end is worth where the score is known (SearchValue)
    # Opponent models weighed by what the opponent does (docs/strategies.md, "Opponent
    # panel"); empty: the rollouts' opponent is opponent_model alone.
    opponent_panel: tuple[str, ...] = ()
    panel_prior: tuple[float, ...] = ()  # one weight per model; empty: all alike
    panel_memory: str = "hand"  # keep the posterior for the hand, or the match (PanelMemory)
    # Draw the worlds' hidden cards from the posterior too, given the model each world plays.
    panel_worlds: bool = False
    # With infer: build each world's opponent hand by that world's model (random: no build).
    panel_infer: bool = False
    # At the opponent's showdown, read its knocking turn: its take, and (the card it drew
    # known, or each card it may have drawn) whether it would have knocked the turn before.
    panel_knock_turn: bool = False
    # Read the opponent's choice at the opening upcard offer (R7, R8): each model's chance
    # of it, averaged over the hands the opponent may have held then.
    panel_offer: bool = False
    # Deeper play late in the hand: with at most late_stock cards left in the stock, a
    # search plays late_samples worlds instead of samples (0: off).
    late_stock: int = 0
    late_samples: int = 0
    # The undercut priced: a knock's rollout that ends in an undercut counts undercut_weight
    # times its loss in the search (1.0: off, the plain mean of the hand's points).
    undercut_weight: float = 1.0
    # ... only at decisions with at most undercut_stock cards left in the stock (0: at every
    # depth): early knocks are rarely undercut, and there the weight gave good ones up.
    undercut_stock: int = 0
    # With infer, the hidden hand read more loosely at late knocks: where a knock is among
    # the candidates with at most late_infer_stock cards left (0: off), a contradicted pass
    # weighs late_infer_weight instead of infer_weight. A pass tells against the hand held
    # when it passed, and late in the hand many of the opponent's cards came after its
    # passes (docs/strength.md, "Where the worlds are off").
    late_infer_stock: int = 0
    late_infer_weight: float = 1.0
    # With infer, which passes tell against a world's hand: false, each card the opponent
    # passed over or discarded that would meld with the hand; true, each that, kept instead
    # of the hand's least useful card, would have lowered its deadwood: the melding ones
    # and also a low card passed beside higher unmatched ones, so that hands holding high
    # unmatched cards are doubted where the opponent let low cards go. Screened off: it
    # makes the worlds too strong elsewhere (docs/strength.md, "The worlds read too much
    # into a position").
    infer_lowering: bool = False
    # With infer, against which hand a pass tells: false, the world's hand now; true, the
    # cards of it the opponent held when it passed, dated by the searcher's memory of the
    # hand (its build's order for the hidden cards, the turn of each take from the pile):
    # late in the hand many of its cards came after its passes. Screened off: it took most
    # of the bias out of the worlds at late knocks against gin-hunter-strong (none against
    # expert) and gains nothing in play (docs/strength.md, "Passes read by when they were
    # made"; issue 46).
    infer_timed: bool = False
    # An undecided choice looks again: after its worlds, a search whose best candidate's
    # mean gain over the first lies within one standard error of the confidence line plays
    # extend_samples more worlds before it chooses (0: off).
    extend_samples: int = 0
    # Knock decisions searched deeper: where a knock is a candidate, the search plays
    # knock_samples worlds instead of samples (or late_samples) (0: off). A knock decision
    # is worth many points and comes about once a hand.
    knock_samples: int = 0
    # Offers and draws searched on other worlds: at a decision to take the pile's top or
    # not, the search plays draw_samples worlds instead of samples (late_samples still
    # applies late; 0: off). More worlds help these decisions most for their rollouts.
    draw_samples: int = 0
    # With screen: the discards the screening plays, the cheapest by the rollout policy's
    # discard cost (0: every discard). The dearest break melds and rarely survive it.
    screen_discards: int = 0
    # A first cut of the screening after early_screen worlds (0: off; only where that is
    # below screen and samples), which keeps the early_keep discards of the best value sums
    # (and every knock) for the rest of it. Most discards are clearly out after a few worlds.
    early_screen: int = 0
    early_keep: int = 0
    # Knock decisions by another continuation: where a knock is a candidate, the family
    # strategy playing the searcher's own later moves in every candidate's rollouts
    # ("": rollout there too).
    knock_rollout: str = ""
    # Draws paired across candidates: in the rollouts the searcher draws from the stock's
    # bottom and the opponent from its top. Each draw is still uniform over the cards
    # left, and each player draws the same cards whichever candidate is played, also
    # where one candidate's discard is taken and another's is not.
    paired_draws: bool = False
    adapt: tuple[Adaptation, ...] = ()

    def __post_init__(self) -> None:
        self.validate()
        self.validate_adaptations(f"strategy {shown(self.name)}")

    def validate(self, where: str | None = None) -> None:
        where = where or f"strategy {shown(self.name)}"
        check_name(self.name, where)
        if self.kind not in KINDS:
            raise ConfigError(f"kind = {shown(self.kind)} in {where}: allowed {', '.join(KINDS)}")
        if self.knock_threshold is not None and not 0 <= self.knock_threshold <= 10:
            raise ConfigError(
                f"knock_threshold = {self.knock_threshold} in {where} is out of range: allowed 0 to 10"
            )
        if not 0 <= self.closing_distance <= MAX_CLOSING_DISTANCE:
            raise ConfigError(
                f"closing_distance = {self.closing_distance} in {where} is out of range: allowed 0 (off) to {MAX_CLOSING_DISTANCE} points"
            )
        if not 0.0 <= self.undercut_risk <= 1.0:
            raise ConfigError(
                f"undercut_risk = {self.undercut_risk} in {where} is out of range: allowed 0 to 1"
            )
        for key in (
            "take_min_gain",
            "improve_weight",
            "keep_weight",
            "safety_weight",
            "disinterest_weight",
            "pair_weight",
        ):
            value = getattr(self, key)
            if not value >= 0.0 or value == float("inf"):
                raise ConfigError(
                    f"{key} = {value} in {where} is out of range: allowed a finite number >= 0"
                )
        if not 1 <= self.samples <= MAX_SAMPLES:
            raise ConfigError(
                f"samples = {self.samples} in {where} is out of range: allowed 1 to {MAX_SAMPLES}"
            )
        if not 0 <= self.late_stock <= 31:
            raise ConfigError(
                f"late_stock = {self.late_stock} in {where} is out of range: allowed 0 (off) to 31"
            )
        if self.late_stock and not 1 <= self.late_samples <= MAX_SAMPLES:
            raise ConfigError(
                f"late_samples = {self.late_samples} in {where} is out of range: allowed 1 to {MAX_SAMPLES} with late_stock"
            )
        if not self.late_stock and self.late_samples:
            raise ConfigError(
                f"late_samples in {where} does nothing without late_stock: give late_stock or drop late_samples"
            )
        if not 0 <= self.extend_samples <= MAX_SAMPLES:
            raise ConfigError(
                f"extend_samples = {self.extend_samples} in {where} is out of range: allowed 0 (off) to {MAX_SAMPLES}"
            )
        if not 0 <= self.screen_discards <= 11:
            raise ConfigError(
                f"screen_discards = {self.screen_discards} in {where} is out of range: allowed 0 (every discard) to 11"
            )
        if self.screen_discards and not self.screen:
            raise ConfigError(
                f"screen_discards in {where} does nothing without screen: give screen or drop screen_discards"
            )
        # Like screen itself (which screens only below samples), the cut is made only where
        # it lies inside the screening: mc's [[adapt]] table sets it, and a strategy made
        # from mc with screen = 0 simply has none.
        if self.early_screen and not 2 <= self.early_screen <= MAX_SAMPLES:
            raise ConfigError(
                f"early_screen = {self.early_screen} in {where} is out of range: allowed 0 (off) or 2 to {MAX_SAMPLES} (a cut only below screen)"
            )
        if self.early_screen and not 1 <= self.early_keep <= 11:
            raise ConfigError(
                f"early_keep = {self.early_keep} in {where} is out of range: allowed 1 to 11 with early_screen"
            )
        if self.early_keep and not self.early_screen:
            raise ConfigError(
                f"early_keep in {where} does nothing without early_screen: give early_screen or drop early_keep"
            )
        if not 0 <= self.draw_samples <= MAX_SAMPLES:
            raise ConfigError(
                f"draw_samples = {self.draw_samples} in {where} is out of range: allowed 0 (off) to {MAX_SAMPLES}"
            )
        if not 0 <= self.knock_samples <= MAX_SAMPLES:
            raise ConfigError(
                f"knock_samples = {self.knock_samples} in {where} is out of range: allowed 0 (off) to {MAX_SAMPLES}"
            )
        if not 1.0 <= self.undercut_weight <= MAX_UNDERCUT_WEIGHT:
            raise ConfigError(
                f"undercut_weight = {self.undercut_weight} in {where} is out of range: allowed 1 (off) to {MAX_UNDERCUT_WEIGHT}"
            )
        if not 0 <= self.undercut_stock <= 31:
            raise ConfigError(
                f"undercut_stock = {self.undercut_stock} in {where} is out of range: allowed 0 (every depth) to 31"
            )
        if self.undercut_stock and self.undercut_weight == 1.0:
            raise ConfigError(
                f"undercut_stock in {where} does nothing without undercut_weight: give undercut_weight or drop undercut_stock"
            )
        if not 0 <= self.late_infer_stock <= 31:
            raise ConfigError(
                f"late_infer_stock = {self.late_infer_stock} in {where} is out of range: allowed 0 (off) to 31"
            )
        if not 0.0 <= self.late_infer_weight <= 1.0:
            raise ConfigError(
                f"late_infer_weight = {self.late_infer_weight} in {where} is out of range: allowed 0 to 1"
            )
        if self.late_infer_stock and not self.infer:
            raise ConfigError(
                f"late_infer_stock in {where} does nothing without infer: set infer = true or drop late_infer_stock"
            )
        if self.infer_lowering and not self.infer:
            raise ConfigError(
                f"infer_lowering in {where} does nothing without infer: set infer = true or drop infer_lowering"
            )
        if self.infer_timed and not self.infer:
            raise ConfigError(
                f"infer_timed in {where} does nothing without infer: set infer = true or drop infer_timed"
            )
        if self.infer_timed and self.infer_lowering:
            raise ConfigError(
                f"infer_timed and infer_lowering in {where} read passes two ways: allowed one of them"
            )
        if not self.late_infer_stock and self.late_infer_weight != 1.0:
            raise ConfigError(
                f"late_infer_weight in {where} does nothing without late_infer_stock: give late_infer_stock or drop late_infer_weight"
            )
        if not 1 <= self.candidates <= 11:
            raise ConfigError(
                f"candidates = {self.candidates} in {where} is out of range: allowed 1 to 11"
            )
        if not (self.screen == 0 or 2 <= self.screen <= MAX_SAMPLES):
            raise ConfigError(
                f"screen = {self.screen} in {where} is out of range: allowed 0 (no screening) or 2 to {MAX_SAMPLES}"
            )
        if not 0.0 <= self.infer_weight <= 1.0:
            raise ConfigError(
                f"infer_weight = {self.infer_weight} in {where} is out of range: allowed 0 to 1"
            )
        if not 0.0 <= self.confidence <= 10.0:
            raise ConfigError(
                f"confidence = {self.confidence} in {where} is out of range: allowed 0 to 10"
            )
        if self.value not in SEARCH_VALUES:
            raise ConfigError(
                f"value = {self.value!r} in {where}: allowed {', '.join(SEARCH_VALUES)}"
            )
        self.validate_panel(where)
        if self.kind == "mc":
            for key in ("rollout", "opponent_model", "knock_rollout"):
                policy = getattr(self, key)
                if key == "knock_rollout" and not policy:
                    continue  # off: rollout plays the knock decisions too
                if policy not in named_strategies() or load_strategy(policy).kind != "family":
                    family = [n for n in named_strategies() if load_strategy(n).kind == "family"]
                    raise ConfigError(
                        f"{key} = {shown(policy)} in {where}: allowed a named family strategy ({', '.join(family)})"
                    )
        for key in SCHEDULES:
            _check_schedule(key, getattr(self, key), where)
        self.check_used(where)

    def validate_panel(self, where: str) -> None:
        """The opponent panel: 1 to MAX_PANEL distinct named family or random strategies,
        and a prior of one positive weight per model (or none: all alike)."""
        panel, prior = self.opponent_panel, self.panel_prior
        if self.panel_memory not in PANEL_MEMORIES:
            raise ConfigError(
                f"panel_memory = {shown(self.panel_memory)} in {where}: allowed {', '.join(PANEL_MEMORIES)}"
            )
        if not panel:
            for key in (
                "panel_prior",
                "panel_memory",
                "panel_worlds",
                "panel_infer",
                "panel_knock_turn",
                "panel_offer",
            ):
                if getattr(self, key) != _DEFAULTS[key]:
                    raise ConfigError(
                        f"{key} in {where} does nothing without opponent_panel: give the panel or drop {key}"
                    )
            return
        if len(panel) > MAX_PANEL:
            raise ConfigError(
                f"opponent_panel in {where} has {len(panel)} models: allowed 1 to {MAX_PANEL}"
            )
        for name in panel:
            if name not in named_strategies() or load_strategy(name).kind == "mc":
                kinds = ("family", "random")
                playable = [n for n in named_strategies() if load_strategy(n).kind in kinds]
                raise ConfigError(
                    f"opponent_panel model {shown(name)} in {where}: allowed named family or random strategies ({', '.join(playable)})"
                )
        if len(set(panel)) != len(panel):
            raise ConfigError(f"opponent_panel in {where} names a model twice: {list(panel)}")
        if prior and len(prior) != len(panel):
            raise ConfigError(
                f"panel_prior in {where} has {len(prior)} weights for {len(panel)} models: give one per model"
            )
        for weight in prior:
            if not 0.0 < weight <= MAX_PRIOR_WEIGHT:
                raise ConfigError(
                    f"panel_prior weight {weight} in {where} is out of range: allowed above 0 up to {MAX_PRIOR_WEIGHT:g}"
                )
        if self.panel_infer and not self.infer:
            raise ConfigError(
                f"panel_infer in {where} does nothing without infer: set infer = true or drop panel_infer"
            )
        if self.opponent_model != _DEFAULTS["opponent_model"]:
            raise ConfigError(
                f"opponent_model in {where} does nothing with opponent_panel (the panel's models play the opponent): drop one"
            )

    def check_used(self, where: str, keys: Any = None) -> None:
        """Refuse a parameter that this strategy's kind ignores: among ``keys`` (those given
        in a file or on the command line), or, without ``keys``, any such parameter away
        from its default (a strategy built in Python)."""
        used = KIND_KEYS.get(self.kind, ())
        for key in [f.name for f in fields(self)] if keys is None else keys:
            if key in NOT_ADAPTABLE or key in used:
                continue
            if keys is None and getattr(self, key) == _DEFAULTS[key]:
                continue
            owner = "search players (kind mc)" if key in SEARCH_KEYS else "family strategies"
            raise ConfigError(
                f"{key} in {where} does nothing: strategy kind {self.kind!r} ignores it (it "
                f"applies to {owner} only); "
                + (f"allowed {', '.join(used)}" if used else "random has no parameters")
            )

    def validate_adaptations(self, where: str) -> None:
        for _, overrides in self.adapt:  # every adapted form must itself be valid
            self.check_used(f"{where} (adapt)", [key for key, _ in overrides])
            replace(self, adapt=(), **dict(overrides)).validate(f"{where} (adapt)")

    def for_rules(self, rules: Rules) -> Strategy:
        """The strategy as played under ``rules``: the overrides of every adaptation whose
        conditions hold, in order, then the check of its thresholds against the rules."""
        changes: dict[str, Any] = {}  # later tables override earlier ones; one rebuild
        for conditions, overrides in self.adapt:
            if conditions_hold(conditions, rules):
                changes |= dict(overrides)
        played = replace(self, adapt=(), **changes)
        played.check_rules(rules)
        return played

    def check_rules(self, rules: Rules) -> None:
        """R12: a knock threshold above the rule set's knock limit is an error; so is a
        game target beyond what a score-aware searcher's table is made for."""
        if (
            self.kind == "mc"
            and self.value != "hand"
            and rules.game_target > MAX_SCORE_TABLE_TARGET
        ):
            raise ConfigError(
                f'game_target = {rules.game_target:,} of rules {rules.name!r}: strategy {self.name!r} (value = {self.value!r}) reads a table with a row per score pair, made for targets up to {MAX_SCORE_TABLE_TARGET:,}: allowed 1 to {MAX_SCORE_TABLE_TARGET:,} (or a player with value = "hand")'
            )
        highest = max([self.knock_threshold or 0, *(t for _, t in self.knock_schedule)])
        # Under Oklahoma (R14a) the upcard sets each hand's limit, up to 10, and the
        # kernel caps every threshold by it; knock_limit plays no part there.
        if self.kind == "family" and not rules.oklahoma and highest > rules.knock_limit:
            raise ConfigError(
                f"knock threshold {highest} of strategy {self.name!r} is above knock_limit = {rules.knock_limit} of rules {rules.name!r}: allowed 0 to {rules.knock_limit}"
            )

    def score_readings(self, rules: Rules) -> list[str]:
        """What makes the strategy, as played under ``rules``, play a hand by the score or
        by earlier hands rather than for the hand's points alone (empty: nothing does):
        ``closing_distance`` (docs/strategies.md), a search valued by the game or the
        match (``value``), rollouts or opponent models that knock by the score, and an
        opponent panel that learns from hand to hand (``panel_memory = "match"``)."""
        played = self.for_rules(rules)
        readings = []
        if played.closing_distance > 0:
            readings.append(f"closing_distance = {played.closing_distance}")
        if played.kind != "mc":
            return readings
        if played.value != "hand":
            readings.append(f"value = {played.value!r}")
        if played.panel_memory == "match":
            readings.append('panel_memory = "match"')
        models = [("rollout", played.rollout), ("opponent_model", played.opponent_model)]
        if played.knock_rollout:
            models.append(("knock_rollout", played.knock_rollout))
        models += [("opponent_panel", name) for name in played.opponent_panel]
        for key, name in models:
            distance = load_strategy(name).for_rules(rules).closing_distance
            if distance > 0:
                readings.append(f"{key} {name!r} (closing_distance = {distance})")
        return readings

    def to_config(self) -> dict[str, Any]:
        """The strategy as TOML-like plain data (as in ``configs/strategies``, for manifests)."""
        document = {f.name: getattr(self, f.name) for f in fields(self)}
        for key in SCHEDULES:
            document[key] = [list(phase) for phase in getattr(self, key)]
        document["adapt"] = [
            {"when": {k: list(v) if isinstance(v, tuple) else v for k, v in conditions}}
            | {k: [list(p) for p in v] if k in SCHEDULES else v for k, v in overrides}
            for conditions, overrides in self.adapt
        ]
        # Players who play every hand for its points keep the manifests (and so the run
        # identities) they had before ``value`` existed.
        if self.value == "hand":
            del document["value"]
        # Likewise players who never knock by the score, and players without a panel (both
        # came after them).
        if self.closing_distance == 0:
            del document["closing_distance"]
        if not self.take_schedule:  # likewise players without a take schedule
            del document["take_schedule"]
        if self.pair_weight == 0.0:  # likewise players who keep no pairs (it came after them)
            del document["pair_weight"]
        if not self.panel_worlds:  # it came after the panel: panel runs keep their identities
            del document["panel_worlds"]
        if not self.panel_infer:  # likewise
            del document["panel_infer"]
        if not self.panel_knock_turn:  # likewise
            del document["panel_knock_turn"]
        if not self.panel_offer:  # likewise
            del document["panel_offer"]
        if not self.late_stock:  # likewise (issue 46)
            del document["late_stock"], document["late_samples"]
        if self.undercut_weight == 1.0:  # likewise (issue 46)
            del document["undercut_weight"]
        if not self.undercut_stock:  # likewise (issue 46)
            del document["undercut_stock"]
        if not self.late_infer_stock:  # likewise (issue 46)
            del document["late_infer_stock"], document["late_infer_weight"]
        if not self.infer_lowering:  # likewise (issue 46)
            del document["infer_lowering"]
        if not self.infer_timed:  # likewise (issue 46)
            del document["infer_timed"]
        if not self.extend_samples:  # likewise (issue 46)
            del document["extend_samples"]
        if not self.knock_samples:  # likewise (issue 46)
            del document["knock_samples"]
        if not self.screen_discards:  # likewise (issue 46)
            del document["screen_discards"]
        if not self.early_screen:  # likewise (issue 46)
            del document["early_screen"], document["early_keep"]
        if not self.knock_rollout:  # likewise (issue 46)
            del document["knock_rollout"]
        if not self.paired_draws:  # likewise (issue 46)
            del document["paired_draws"]
        if not self.draw_samples:  # likewise (issue 46)
            del document["draw_samples"]
        if not self.opponent_panel:
            del document["opponent_panel"], document["panel_prior"], document["panel_memory"]
        else:
            document["opponent_panel"] = list(self.opponent_panel)
            document["panel_prior"] = list(self.panel_prior)
        return document

    def to_kernel(self, rules: Rules | None = None) -> np.ndarray:
        """The kernel vector (``StrategyParam``); an mc strategy needs ``rules`` to adapt
        its rollout policies (``for_rules``) before they go into its vector."""
        v = np.zeros(N_STRATEGY_PARAMS, dtype=np.float64)
        v[StrategyParam.KIND] = KINDS[self.kind]
        # No threshold means the knock limit; the kernel caps every threshold by the hand's limit.
        v[StrategyParam.KNOCK_THRESHOLD] = (
            10 if self.knock_threshold is None else self.knock_threshold
        )
        v[StrategyParam.SCHEDULE_PHASES] = len(self.knock_schedule)
        for i, (min_stock, threshold) in enumerate(self.knock_schedule):
            v[StrategyParam.SCHEDULE_MIN_STOCK + i] = min_stock
            v[StrategyParam.SCHEDULE_THRESHOLD + i] = threshold
        v[StrategyParam.UNDERCUT_RISK] = self.undercut_risk
        v[StrategyParam.TAKE_MELDS] = float(self.take_melds)
        v[StrategyParam.TAKE_MIN_GAIN] = self.take_min_gain
        v[StrategyParam.TAKE_PHASES] = len(self.take_schedule)
        for i, (min_stock, take_melds, take_min_gain) in enumerate(self.take_schedule):
            v[StrategyParam.TAKE_MIN_STOCK + i] = min_stock
            v[StrategyParam.TAKE_MELDS_AT + i] = float(take_melds)
            v[StrategyParam.TAKE_MIN_GAIN_AT + i] = take_min_gain
        v[StrategyParam.IMPROVE_WEIGHT] = self.improve_weight
        v[StrategyParam.KEEP_WEIGHT] = self.keep_weight
        v[StrategyParam.SAFETY_WEIGHT] = self.safety_weight
        v[StrategyParam.DISINTEREST_WEIGHT] = self.disinterest_weight
        v[StrategyParam.CLOSING_DISTANCE] = self.closing_distance
        v[StrategyParam.PAIR_WEIGHT] = self.pair_weight
        if self.kind == "mc":
            if rules is None:
                raise ValueError("an mc strategy needs the rule set to build its kernel vector")
            v[StrategyParam.MC_SAMPLES] = self.samples
            v[StrategyParam.MC_CANDIDATES] = self.candidates
            v[StrategyParam.MC_SCREEN] = self.screen
            v[StrategyParam.MC_INFER] = float(self.infer)
            v[StrategyParam.MC_INFER_WEIGHT] = self.infer_weight
            v[StrategyParam.MC_CONFIDENCE] = self.confidence
            v[StrategyParam.MC_VALUE] = SEARCH_VALUES[self.value]
            for slot, name in (
                (StrategyParam.MC_ROLLOUT, self.rollout),
                (StrategyParam.MC_OPPONENT, self.opponent_model),
            ):
                policy = load_strategy(name).for_rules(rules).to_kernel()
                v[slot : slot + FAMILY_PARAMS] = policy[:FAMILY_PARAMS]
            v[StrategyParam.MC_PANEL_SIZE] = len(self.opponent_panel)
            v[StrategyParam.MC_PANEL_MEMORY] = PANEL_MEMORIES[self.panel_memory]
            v[StrategyParam.MC_PANEL_WORLDS] = float(self.panel_worlds)
            v[StrategyParam.MC_PANEL_INFER] = float(self.panel_infer)
            v[StrategyParam.MC_PANEL_KNOCK_TURN] = float(self.panel_knock_turn)
            v[StrategyParam.MC_PANEL_OFFER] = float(self.panel_offer)
            v[StrategyParam.MC_LATE_STOCK] = self.late_stock
            v[StrategyParam.MC_LATE_SAMPLES] = self.late_samples
            v[StrategyParam.MC_UNDERCUT_WEIGHT] = self.undercut_weight
            v[StrategyParam.MC_UNDERCUT_STOCK] = self.undercut_stock
            v[StrategyParam.MC_LATE_INFER_STOCK] = self.late_infer_stock
            v[StrategyParam.MC_LATE_INFER_WEIGHT] = self.late_infer_weight
            v[StrategyParam.MC_INFER_LOWERING] = float(self.infer_lowering)
            v[StrategyParam.MC_INFER_TIMED] = float(self.infer_timed)
            v[StrategyParam.MC_EXTEND_SAMPLES] = self.extend_samples
            v[StrategyParam.MC_KNOCK_SAMPLES] = self.knock_samples
            v[StrategyParam.MC_SCREEN_DISCARDS] = self.screen_discards
            v[StrategyParam.MC_EARLY_SCREEN] = self.early_screen
            v[StrategyParam.MC_EARLY_KEEP] = self.early_keep
            v[StrategyParam.MC_PAIRED_DRAWS] = float(self.paired_draws)
            v[StrategyParam.MC_DRAW_SAMPLES] = self.draw_samples
            if self.knock_rollout:
                v[StrategyParam.MC_KNOCK_ROLLOUT_ON] = 1.0
                policy = load_strategy(self.knock_rollout).for_rules(rules).to_kernel()
                slot = StrategyParam.MC_KNOCK_ROLLOUT
                v[slot : slot + FAMILY_PARAMS] = policy[:FAMILY_PARAMS]
            for i, name in enumerate(self.opponent_panel):
                v[StrategyParam.MC_PANEL_PRIOR + i] = (
                    self.panel_prior[i] if self.panel_prior else 1.0
                )
                model = load_strategy(name).for_rules(rules).to_kernel()
                slot = StrategyParam.MC_PANEL + i * FAMILY_PARAMS
                v[slot : slot + FAMILY_PARAMS] = model[:FAMILY_PARAMS]
        return v

    def threshold_at(self, stock_left: int, knock_limit: int = 10) -> int:
        """The knock threshold when ``stock_left`` cards are in the stock, capped by ``knock_limit``."""
        for min_stock, threshold in self.knock_schedule:
            if min_stock <= stock_left:
                return min(threshold, knock_limit)
        return (
            knock_limit if self.knock_threshold is None else min(self.knock_threshold, knock_limit)
        )


_FIELD_TYPES: dict[str, Any] = get_type_hints(Strategy)
_DEFAULTS: dict[str, Any] = {f.name: f.default for f in fields(Strategy)}
assert set(_DEFAULTS) == {*NOT_ADAPTABLE, *FAMILY_KEYS, *SEARCH_KEYS}, "a key of no kind"


def _check_schedule(key: str, schedule: tuple[tuple[Any, ...], ...], where: str) -> None:
    """A schedule by stock depth (``SCHEDULES``): 1 to MAX_SCHEDULE_PHASES phases (or none),
    min_stock falling strictly from at most 31 to 0, each phase's values in range."""
    if len(schedule) > MAX_SCHEDULE_PHASES:
        raise ConfigError(
            f"{key} in {where} has {len(schedule)} phases: allowed 1 to {MAX_SCHEDULE_PHASES}"
        )
    for i, (min_stock, *values) in enumerate(schedule):
        if key == "knock_schedule" and not 0 <= values[0] <= 10:
            raise ConfigError(
                f"knock_schedule threshold {values[0]} in {where} is out of range: allowed 0 to 10"
            )
        if key == "take_schedule" and (not values[1] >= 0.0 or values[1] == float("inf")):
            raise ConfigError(
                f"take_schedule take_min_gain {values[1]} in {where} is out of range: allowed a finite number >= 0"
            )
        if not 0 <= min_stock <= 31 or (i and min_stock >= schedule[i - 1][0]):
            raise ConfigError(
                f"{key} in {where}: min_stock values must fall strictly from at most 31 to 0, got {[p[0] for p in schedule]}"
            )
    if schedule and schedule[-1][0] != 0:
        what = "a threshold" if key == "knock_schedule" else "a take rule"
        raise ConfigError(
            f"{key} in {where}: the last phase must start at min_stock 0 so every stock size has {what}"
        )


def conditions_hold(conditions: Iterable[tuple[str, Any]], rules: Rules) -> bool:
    """Whether every condition of an ``[[adapt]]`` table (rule key, ``[low, high]`` or a
    boolean) holds under ``rules``: the one reading of ``when`` (``Strategy.for_rules``, and
    ``distill``, which writes tables that must hold where the ones they follow hold)."""
    return all(_holds(getattr(rules, key), wanted) for key, wanted in conditions)


def _holds(value: Any, wanted: Any) -> bool:
    if isinstance(wanted, bool):
        return value == wanted
    low, high = wanted
    return low <= value <= high


def _coerce_adapt(value: Any, where: str) -> tuple[Adaptation, ...]:
    """``[[adapt]]`` tables: ``when = {rule_key = [low, high] or true/false}`` plus overrides."""
    from gin_sim.game.rules import RULE_BOUNDS
    from gin_sim.game.rules import Rules as RuleSet

    if not isinstance(value, list | tuple):
        raise ConfigError(
            f"adapt in {where}: expected [[adapt]] tables with a when = {{...}} condition"
        )
    if len(value) > MAX_ADAPTATIONS:
        raise ConfigError(
            f"adapt in {where} has {len(value):,} tables: allowed at most {MAX_ADAPTATIONS}"
        )
    rule_keys = [f.name for f in fields(RuleSet) if f.name != "name"]
    rule_types = get_type_hints(RuleSet)
    adaptations = []
    for entry in value:
        if isinstance(entry, tuple):  # already typed (a Strategy rebuilt from its fields)
            adaptations.append(entry)
            continue
        if (
            not isinstance(entry, dict)
            or not isinstance(entry.get("when"), dict)
            or not entry["when"]
        ):
            raise ConfigError(
                f"adapt in {where}: each [[adapt]] table needs when = {{rule_key = [low, high]}}"
            )
        conditions = []
        for key, wanted in entry["when"].items():
            if key not in rule_keys:
                raise ConfigError(
                    f"adapt when-key {shown(key)} in {where}: allowed rule keys are {', '.join(rule_keys)}"
                )
            ok_range = (
                isinstance(wanted, list)
                and len(wanted) == 2
                and all(isinstance(x, int | float) and not isinstance(x, bool) for x in wanted)
            )
            boolean = rule_types[key] is bool
            if not ((isinstance(wanted, bool) and boolean) or (ok_range and not boolean)):
                expected = "true or false" if boolean else "[low, high]"
                raise ConfigError(
                    f"adapt when {key} = {shown(wanted)} in {where}: expected [low, high] or "
                    f"true/false ({key} takes {expected})"
                )
            if ok_range:
                low, high = wanted
                bounds = RULE_BOUNDS[key]
                if any(math.isnan(x) for x in wanted):  # NaN compares false: it never holds
                    raise ConfigError(
                        f"adapt when {key} = {shown(wanted)} in {where}: a bound is NaN, so it never holds; allowed numbers [low, high] (inf for no bound)"
                    )
                if low == math.inf or high == -math.inf:
                    raise ConfigError(
                        f"adapt when {key} = {shown(wanted)} in {where} never holds: allowed low below inf and high above -inf"
                    )
                if low > high:
                    raise ConfigError(
                        f"adapt when {key} = {wanted!r} in {where}: low {low} is above high "
                        f"{high}, so it never holds; write [low, high]"
                    )
                if high < bounds[0] or (bounds[1] is not None and low > bounds[1]):
                    allowed = (
                        f"{bounds[0]} to {bounds[1]}"
                        if bounds[1] is not None
                        else f"{bounds[0]} or more"
                    )
                    raise ConfigError(
                        f"adapt when {key} = {wanted!r} in {where} never holds: {key} is "
                        f"allowed {allowed}"
                    )
            conditions.append((key, wanted if isinstance(wanted, bool) else tuple(wanted)))
        overrides = {k: v for k, v in entry.items() if k != "when"}
        for key in overrides:
            if key in NOT_ADAPTABLE:
                raise ConfigError(f"adapt in {where} may not change {key!r}")
        typed = _typed(overrides, f"{where} (adapt)")
        adaptations.append((tuple(sorted(conditions)), tuple(sorted(typed.items()))))
    return tuple(adaptations)


def _coerce_list(key: str, value: Any, where: str) -> tuple[Any, ...]:
    """``opponent_panel`` (names) or ``panel_prior`` (weights): a TOML array, or on the
    command line a comma-separated list."""
    kind = str if key == "opponent_panel" else float
    if isinstance(value, str):
        value = comma_items(value, key, "simple,expert" if kind is str else "1.0,2.0", unique=False)
    if not isinstance(value, list | tuple):
        example = '["simple", "expert"]' if kind is str else "[1.0, 2.0]"
        raise ConfigError(f"{key} = {shown(value)} in {where}: expected a list such as {example}")
    return tuple(coerce(kind, key, item, where) for item in value)


def _coerce_schedule(key: str, value: Any, where: str) -> tuple[tuple[Any, ...], ...]:
    """A schedule (``SCHEDULES``) from TOML, ``[[min_stock, value, ...], ...]``, or from the
    command line, ``min_stock:value:...,...`` (``knock_schedule=20:10,0:2``,
    ``take_schedule=25:true:0,0:false:6``). Types are strict: in TOML a whole number for
    min_stock and thresholds, true or false, a number for a gain (text only on the
    command line)."""
    names = ["min_stock", *(name for name, _ in SCHEDULES[key])]
    kinds: list[type] = [int, *(kind for _, kind in SCHEDULES[key])]
    from_text = isinstance(value, str)
    given = value
    if from_text:
        value = [part.split(":") for part in comma_items(value, key, "20:10,0:2", unique=False)]
    phases = []
    for phase in value if isinstance(value, list | tuple) else [None]:
        try:
            if not isinstance(phase, list | tuple) or len(phase) != len(kinds):
                raise ConfigError(key)
            if not from_text and any(isinstance(x, str) for x in phase):
                raise ConfigError(key)
            phases.append(
                tuple(coerce(k, key, x, where) for k, x in zip(kinds, phase, strict=True))
            )
        except ConfigError:
            raise ConfigError(
                f"{key} = {shown(given)} in {where}: expected [[{', '.join(names)}], ...] (or {':'.join(names)},... on the command line)"
            ) from None
    return tuple(phases)


def _typed(values: dict[str, Any], where: str) -> dict[str, Any]:
    check_keys(Strategy, values, where)
    out = {}
    for key, value in values.items():
        if key in SCHEDULES:
            out[key] = _coerce_schedule(key, value, where)
        elif key == "adapt":
            out[key] = _coerce_adapt(value, where)
        elif key == "knock_threshold" and value in ("limit", None):  # None: from a run manifest
            out[key] = None
        elif key == "knock_threshold":
            out[key] = coerce(int, key, value, where)
        elif key in ("opponent_panel", "panel_prior"):
            out[key] = _coerce_list(key, value, where)
        else:
            out[key] = coerce(_FIELD_TYPES[key], key, value, where)
    return out


def strategies_dir() -> Path:
    return configs_dir() / "strategies"


def named_strategies() -> list[str]:
    return sorted(p.stem for p in strategies_dir().glob("*.toml"))


def strategy_from_dict(values: dict[str, Any], where: str) -> Strategy:
    typed = _typed(values, where)
    merged = {f.name: f.default for f in fields(Strategy)} | typed
    strategy = Strategy.__new__(Strategy)
    for key, value in merged.items():
        object.__setattr__(strategy, key, value)
    strategy.validate(where)
    strategy.validate_adaptations(where)
    return strategy


# Names a strategy no longer has, with what to use instead (issue 26: the adaptive searcher
# became the default mc; a program or a note that still says mc-adaptive is told so).
RENAMED = {
    "mc-adaptive": "called mc since 2026-12-03; the fixed-model search is mc-fixed",
}


def load_strategy(spec: str | Path | Strategy, overrides: list[str] | None = None) -> Strategy:
    """A strategy by name or TOML path, with ``key=value`` overrides applied.

    An unknown name, key or value out of range is a ``ValueError`` that says what is
    allowed.

    Examples:
        >>> strategy = load_strategy("basic", ["knock_threshold=7"])
        >>> strategy.name, strategy.kind, strategy.knock_threshold
        ('basic', 'family', 7)
    """
    overrides = check_overrides(overrides, "strategy overrides")
    if isinstance(spec, Strategy):
        strategy = spec
    else:
        values, where = read_named_config(spec, strategies_dir(), "strategy", "strategies", RENAMED)
        strategy = strategy_from_dict(values, where)
        strategy.check_used(where, values)  # a key given explicitly, even at its default
    if overrides:
        changes = {}
        for text in overrides:
            key, value = parse_override(text, "strategy override")
            changes |= _typed({key: value}, "strategy overrides")
        strategy = replace(strategy, **changes)
        strategy.validate("strategy overrides")
        strategy.check_used("strategy overrides", changes)
    return strategy


def parse_players(text: str | tuple[str, ...] | list[str]) -> tuple[Strategy, Strategy]:
    """Two strategies from ``"expert,simple"`` or a pair of names or Strategy objects."""
    if not isinstance(text, str | tuple | list):
        raise TypeError(
            f"players = {shown(text)}: allowed two strategies, as 'A,B' or a pair of names, paths or gin_sim.Strategy"
        )
    names = [n.strip() for n in text.split(",")] if isinstance(text, str) else list(text)
    if len(names) != 2 or not all(names):
        raise ConfigError(
            f"players {shown(text)}: expected two strategy names separated by a comma, e.g. simple,simple"
        )
    return load_strategy(names[0]), load_strategy(names[1])


def strategies_to_kernel(players: tuple[Strategy, Strategy], rules: Rules) -> np.ndarray:
    return np.stack([p.for_rules(rules).to_kernel(rules) for p in players])
