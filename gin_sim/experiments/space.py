"""Search spaces of strategy parameters for the tuner (``gin-sim tune --space``).

A space is a comma-separated list of ``key=value`` items, one per family parameter
(docs/strategies.md):

- ``key=low:high``: a range. Whole numbers on both ends give whole numbers
  (``safety_weight=0:4`` tries 0, 1, 2, 3, 4), a decimal point gives real numbers
  (``undercut_risk=0.0:1.0``). ``key=low:high:step`` samples on a grid of that step.
  ``knock_threshold`` takes whole numbers only.
- ``key=false:true``: both values of a true/false parameter (``take_melds``).
- ``key=value``: a fixed value, not searched.
- ``knock_schedule=B1/B2/...[@low:high]``: a knock schedule by stock depth whose phases
  start at the stock sizes ``B1 > B2 > ... > 0`` (1 to 3 boundaries, so 2 to 4 phases),
  each phase's threshold searched from ``low`` to ``high`` (default 0 to the rule set's
  knock limit). A boundary may itself be a range, ``18:24/6:12``, as long as the ranges
  do not overlap and fall. The strategy knocks at the threshold of the phase it is in
  (``knock_schedule`` overrides ``knock_threshold``, so a space tunes one of the two).
- ``take_schedule=B1/B2/...[@low:high[:step]]``: a take rule by stock depth, its phases
  starting as a knock schedule's do; each phase searches ``take_melds`` (false and true)
  and ``take_min_gain`` from ``low`` to ``high`` (default 0:10; whole numbers give whole
  numbers, a decimal point real ones). ``take_schedule`` overrides ``take_melds`` and
  ``take_min_gain``, so a space tunes the schedule or those two.

When ``knock_threshold`` is searched, the strategy's own knock schedule (if any) is
dropped, so that the searched threshold is the one played; likewise its take schedule when
``take_melds`` or ``take_min_gain`` is.

>>> space = parse_space("knock_threshold=0:10,undercut_risk=0.0:1.0,safety_weight=0:4")
>>> [(d.name, d.kind, d.low, d.high) for d in space.dimensions]
[('knock_threshold', 'int', 0, 10), ('undercut_risk', 'float', 0.0, 1.0), ('safety_weight', 'int', 0, 4)]
>>> parse_space("knock_schedule=20/10@0:10").dimensions[-1].name
'knock_schedule.threshold3'
>>> [d.name for d in parse_space("take_schedule=20@0.0:12.0").dimensions]
['take_schedule.melds1', 'take_schedule.gain1', 'take_schedule.melds2', 'take_schedule.gain2']
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Any, get_type_hints

from gin_sim.game.config import ConfigError
from gin_sim.game.rules import Rules
from gin_sim.kernels.enums import MAX_SCHEDULE_PHASES
from gin_sim.players.strategies import FAMILY_KEYS, KIND_KEYS, SEARCH_KEYS, Strategy, load_strategy

SCHEDULE = "knock_schedule"
TAKE_SCHEDULE = "take_schedule"
TAKE_KEYS = ("take_melds", "take_min_gain")  # what a take schedule overrides
DEFAULT_GAINS = "0:10"  # a take schedule's gains when the space gives none
# Larger numbers are no parameter's value (the largest, samples, is at most 4096); beyond
# this, sums in the kernels' weighted costs would lose all precision.
MAX_BOUND = 1e6
_ALL_VALUES = 64
_NUMBER = re.compile(r"^[-+]?(\d+(\.\d*)?|\.\d+)([eE][-+]?\d+)?$")
_WHOLE = re.compile(r"^[-+]?\d+$")


def tunable_parameters(kind: str = "family") -> list[str]:
    """The parameters a space may name for a strategy of ``kind``: those the kind plays by
    (searching one it ignores would search nothing)."""
    return list(KIND_KEYS[kind])


@dataclass(frozen=True)
class Dimension:
    """One searched quantity: ``kind`` int, float or bool, between ``low`` and ``high``."""

    # the parameter, or knock_schedule.start<i> / knock_schedule.threshold<i>, or
    # take_schedule.start<i> / take_schedule.melds<i> / take_schedule.gain<i>
    name: str
    kind: str
    low: Any
    high: Any
    step: Any = None

    def suggest(self, trial: Any) -> Any:
        """The value an Optuna trial suggests for this dimension."""
        if self.kind == "bool":
            return trial.suggest_categorical(self.name, [False, True])
        if self.kind == "int":
            return trial.suggest_int(self.name, self.low, self.high, step=self.step or 1)
        return trial.suggest_float(self.name, self.low, self.high, step=self.step)

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "low": self.low,
            "high": self.high,
            "step": self.step,
        }


@dataclass(frozen=True)
class Space:
    """The searched dimensions and the fixed values of a space."""

    text: str  # canonical: items joined by commas, no white space
    dimensions: tuple[Dimension, ...]
    fixed: tuple[tuple[str, Any], ...] = ()
    boundaries: tuple[Any, ...] = ()  # knock schedule: an int, or the name of a searched start
    take_boundaries: tuple[Any, ...] = ()  # the same for a take schedule

    @property
    def schedule(self) -> bool:
        return bool(self.boundaries)

    def to_json(self) -> dict[str, Any]:
        document = {
            "dimensions": [d.to_json() for d in self.dimensions],
            "fixed": [list(item) for item in self.fixed],
            "boundaries": list(self.boundaries),
        }
        if self.take_boundaries:  # spaces without one keep the configuration they had
            document["take_boundaries"] = list(self.take_boundaries)
        return document

    def parameters(self, values: dict[str, Any]) -> dict[str, Any]:
        """Strategy parameters from a trial's values (``Dimension.name`` -> value)."""
        out: dict[str, Any] = dict(self.fixed)
        for dimension in self.dimensions:
            if not dimension.name.startswith((SCHEDULE + ".", TAKE_SCHEDULE + ".")):
                out[dimension.name] = values[dimension.name]
        if self.schedule:
            starts = _starts(self.boundaries, values)
            thresholds = [values[f"{SCHEDULE}.threshold{i}"] for i in range(1, len(starts) + 1)]
            out[SCHEDULE] = tuple(zip(starts, thresholds, strict=True))
        if self.take_boundaries:
            starts = _starts(self.take_boundaries, values)
            out[TAKE_SCHEDULE] = tuple(
                (start, values[f"{TAKE_SCHEDULE}.melds{i}"], values[f"{TAKE_SCHEDULE}.gain{i}"])
                for i, start in enumerate(starts, 1)
            )
        return out


def _starts(boundaries: tuple[Any, ...], values: dict[str, Any]) -> list[int]:
    """Where a schedule's phases start: its fixed or searched boundaries, then 0."""
    return [*(b if isinstance(b, int) else values[b] for b in boundaries), 0]


def apply(strategy: Strategy, rules: Rules, parameters: dict[str, Any]) -> Strategy:
    """``strategy`` as played under ``rules`` (its ``[[adapt]]`` tables applied) with
    ``parameters`` replaced; a searched knock threshold drops the strategy's own knock
    schedule, a searched take_melds or take_min_gain its take schedule."""
    played = strategy.for_rules(rules)
    changes = dict(parameters)
    if "knock_threshold" in changes and SCHEDULE not in changes:
        changes[SCHEDULE] = ()
    if SCHEDULE in changes and "knock_threshold" not in changes:
        changes["knock_threshold"] = None
    if any(key in changes for key in TAKE_KEYS) and TAKE_SCHEDULE not in changes:
        changes[TAKE_SCHEDULE] = ()
    if TAKE_SCHEDULE in changes:  # overridden: the family's defaults, as for knock_threshold
        for key in TAKE_KEYS:
            changes.setdefault(key, getattr(Strategy, key))
        changes[TAKE_SCHEDULE] = tuple(
            (start, melds, float(gain)) for start, melds, gain in changes[TAKE_SCHEDULE]
        )
    types = get_type_hints(Strategy)
    for key, value in changes.items():
        if types[key] is float and not isinstance(value, bool):
            changes[key] = float(value)
    tuned = replace(played, **changes)
    tuned.validate("the tuned strategy")
    tuned.check_rules(rules)
    return tuned


def _fail(item: str, why: str) -> ConfigError:
    return ConfigError(f"--space item {item!r}: {why}")


def _range(item: str, text: str) -> tuple[str, Any, Any, Any]:
    """``low:high[:step]`` as (kind, low, high, step); kind int when every part is whole."""
    parts = text.split(":")
    if len(parts) not in (2, 3) or not all(_NUMBER.match(p.strip()) for p in parts):
        raise _fail(item, "expected low:high or low:high:step with numbers, e.g. 0:10 or 0.0:1.0")
    whole = all(_WHOLE.match(p.strip()) for p in parts)
    numbers = [int(p) if whole else float(p) for p in parts]
    low, high = numbers[0], numbers[1]
    step = numbers[2] if len(numbers) == 3 else None
    if low > high:
        raise _fail(item, f"low {low} is above high {high}: write low:high")
    if low == high:
        raise _fail(item, f"the range {low}:{high} holds one value: write key={low} to fix it")
    if step is not None and not step > 0:
        raise _fail(item, f"step {step}: allowed a number above 0")
    if step is not None:
        # Optuna would silently move ``high`` onto the grid (with a warning of its own).
        places = (high - low) / step
        if abs(places - round(places)) > 1e-9 * max(1.0, places):
            raise _fail(
                item, f"step {step} does not divide {low}:{high}: allowed a step that reaches high"
            )
    if not all(abs(n) <= MAX_BOUND for n in numbers):
        raise _fail(item, f"bounds beyond ±{MAX_BOUND:g}: no parameter is that large")
    return ("int" if whole else "float"), low, high, step


def _probes(kind: str, low: Any, high: Any, step: Any) -> list[Any]:
    """The values of a range that are checked against the strategy's own rules before any
    trial: every value of a whole-number range of up to ``_ALL_VALUES`` values, else the two
    at each end. Allowed sets are intervals but for one gap next to an end (``screen``
    allows 0 and 2 up, not 1), so this finds every value a trial could not use."""
    if kind != "int":
        return [low, high]
    step = step or 1
    values = range(low, high + 1, step)
    if len(values) <= _ALL_VALUES:
        return list(values)
    return [low, low + step, high - step, high]


def _check_value(item: str, key: str, value: Any, base: Strategy, rules: Rules) -> None:
    """Is ``key = value`` allowed for ``base`` under ``rules``? (The strategy's own checks.)"""
    try:
        apply(base, rules, {key: value})
    except ConfigError as error:
        raise _fail(item, str(error)) from None


def _schedule(item: str, text: str, rules: Rules) -> tuple[list[Dimension], list]:
    """``knock_schedule=B1/B2/...[@low:high]``: the phase starts, then a threshold each."""
    starts_text, _, thresholds_text = text.partition("@")
    low, high = 0, rules.knock_limit if not rules.oklahoma else 10
    if thresholds_text:
        kind, low, high, step = _range(item, thresholds_text)
        if kind != "int" or step is not None:
            raise _fail(
                item, "knock_schedule thresholds are whole numbers: write @low:high, e.g. @0:10"
            )
        if low < 0 or high > 10 or (not rules.oklahoma and high > rules.knock_limit):
            raise _fail(
                item,
                f"knock_schedule thresholds {low}:{high} out of range: allowed 0 to knock_limit = {rules.knock_limit} of rules {rules.name!r}",
            )
    dimensions, boundaries = _phase_starts(item, SCHEDULE, starts_text)
    for number in range(1, len(boundaries) + 2):
        dimensions.append(Dimension(f"{SCHEDULE}.threshold{number}", "int", low, high))
    return dimensions, boundaries


def _take_schedule(
    item: str, text: str, base: Strategy, rules: Rules
) -> tuple[list[Dimension], list]:
    """``take_schedule=B1/B2/...[@low:high[:step]]``: the phase starts, then each phase's
    take_melds (both values) and take_min_gain (the range, checked as take_min_gain is)."""
    starts_text, _, gains_text = text.partition("@")
    kind, low, high, step = _range(item, gains_text or DEFAULT_GAINS)
    for value in _probes(kind, low, high, step):
        _check_value(item, "take_min_gain", value, base, rules)
    dimensions, boundaries = _phase_starts(item, TAKE_SCHEDULE, starts_text)
    for number in range(1, len(boundaries) + 2):
        dimensions.append(Dimension(f"{TAKE_SCHEDULE}.melds{number}", "bool", False, True))
        dimensions.append(Dimension(f"{TAKE_SCHEDULE}.gain{number}", kind, low, high, step))
    return dimensions, boundaries


def _phase_starts(item: str, key: str, text: str) -> tuple[list[Dimension], list]:
    """The stock sizes ``B1/B2/...`` where a schedule's phases after the first start: each
    a whole number or a range (then searched, as ``<key>.start<i>``), falling strictly."""
    parts = [p.strip() for p in text.split("/")]
    if not 1 <= len(parts) <= MAX_SCHEDULE_PHASES - 1 or not all(parts):
        raise _fail(
            item,
            f"expected 1 to {MAX_SCHEDULE_PHASES - 1} stock sizes where phases start, falling, separated by /, e.g. {key}=20/10 or 18:24/6:12@0:10",
        )
    dimensions: list[Dimension] = []
    boundaries: list[Any] = []
    previous_low = 32
    for number, part in enumerate(parts, 1):
        if _WHOLE.match(part):
            first = last = int(part)
        else:
            kind, first, last, step = _range(item, part)
            if kind != "int" or step is not None:
                raise _fail(
                    item, f"stock size {part!r}: expected a whole number or a range like 18:24"
                )
        if not 1 <= first <= last <= 31:
            raise _fail(item, f"stock size {part!r}: allowed 1 to 31")
        if last >= previous_low:
            raise _fail(
                item,
                "phase starts must fall strictly and their ranges must not overlap, e.g. 18:24/6:12",
            )
        previous_low = first
        if first == last:
            boundaries.append(first)
        else:
            name = f"{key}.start{number}"
            dimensions.append(Dimension(name, "int", first, last))
            boundaries.append(name)
    return dimensions, boundaries


def parse_space(text: str, base: Strategy | None = None, rules: Rules | None = None) -> Space:
    """Parse and check ``text`` for ``base`` (default ``simple``) under ``rules`` (default
    ``hollywood``): every value and both ends of every range must be allowed."""
    from gin_sim.game.rules import load_rules

    base = base if base is not None else load_strategy("simple")
    rules = rules if rules is not None else load_rules("hollywood")
    if base.kind == "random":
        raise ConfigError(
            f"strategy {base.name!r} is of kind 'random': it has no parameters to search"
        )
    allowed = tunable_parameters(base.kind)
    types = get_type_hints(Strategy)
    items = [item.strip() for item in text.split(",")]
    if not text.strip() or not all(items):
        raise ConfigError(
            f"--space {text!r}: expected key=low:high items separated by commas, e.g. knock_threshold=0:10,undercut_risk=0.0:1.0"
        )
    dimensions: list[Dimension] = []
    fixed: list[tuple[str, Any]] = []
    boundaries: list[Any] = []
    take_boundaries: list[Any] = []
    seen: set[str] = set()
    canonical: list[str] = []
    for item in items:
        key, sep, value = (part.strip() for part in item.partition("="))
        if not sep or not key or not value:
            raise _fail(item, "expected key=low:high (e.g. knock_threshold=0:10) or key=value")
        value = re.sub(r"\s+", "", value)
        canonical.append(f"{key}={value}")
        if key in SEARCH_KEYS + FAMILY_KEYS and key not in allowed:
            owner = "search players (kind mc)" if key in SEARCH_KEYS else "family strategies"
            raise _fail(
                item,
                f"{key} does nothing for strategy {base.name!r} of kind {base.kind!r}: it "
                f"applies to {owner} only; allowed {', '.join(allowed)}",
            )
        if key not in allowed:
            raise _fail(item, f"unknown parameter {key!r}: allowed {', '.join(allowed)}")
        if key in seen:
            raise _fail(item, f"{key} is given twice")
        seen.add(key)
        if key == SCHEDULE:
            searched, boundaries = _schedule(item, value, rules)
            dimensions += searched
            continue
        if key == TAKE_SCHEDULE:
            searched, take_boundaries = _take_schedule(item, value, base, rules)
            dimensions += searched
            continue
        kind = int if key == "knock_threshold" else types[key]
        if kind is str:
            if ":" in value:
                raise _fail(item, f"{key} takes a name, not a range: write e.g. {key}=expert")
            _check_value(item, key, value, base, rules)
            fixed.append((key, value))
            continue
        if kind is bool:
            if value.lower() in ("false:true", "true:false"):
                dimensions.append(Dimension(key, "bool", False, True))
            elif value.lower() in ("true", "false"):
                fixed.append((key, value.lower() == "true"))
            else:
                raise _fail(item, f"{key} is true or false: write {key}=false:true to search both")
            continue
        if ":" not in value:
            if not _NUMBER.match(value):
                raise _fail(item, "expected a number or a range low:high")
            number = int(value) if _WHOLE.match(value) else float(value)
            if kind is int and not isinstance(number, int):
                raise _fail(item, f"{key} takes whole numbers, e.g. {key}=6")
            if abs(number) > MAX_BOUND:
                raise _fail(item, f"{number} is beyond ±{MAX_BOUND:g}: no parameter is that large")
            _check_value(item, key, number, base, rules)
            fixed.append((key, number))
            continue
        range_kind, low, high, step = _range(item, value)
        if kind is int and range_kind != "int":
            raise _fail(item, f"{key} takes whole numbers: write both ends without a decimal point")
        for value in _probes(range_kind, low, high, step):
            _check_value(item, key, value, base, rules)
        dimensions.append(Dimension(key, range_kind, low, high, step))
    if "knock_threshold" in seen and SCHEDULE in seen:
        raise ConfigError(
            "--space: knock_schedule overrides knock_threshold, so search one of the two"
        )
    if TAKE_SCHEDULE in seen and seen.intersection(TAKE_KEYS):
        raise ConfigError(
            "--space: take_schedule overrides take_melds and take_min_gain, so search the schedule or those two"
        )
    if not dimensions:
        raise ConfigError(
            f"--space {text!r}: nothing to search; give at least one range, e.g. knock_threshold=0:10"
        )
    # The space as written without its white space (line breaks included), so that a
    # study, its configuration and best.toml hold one line, the same for the same space.
    return Space(
        ",".join(canonical),
        tuple(dimensions),
        tuple(fixed),
        tuple(boundaries),
        tuple(take_boundaries),
    )
