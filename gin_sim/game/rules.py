"""Rule sets: every variant parameter of RULES.md in one frozen, validated object.

Named sets are the TOML files in ``configs/rules/``; ``load_rules`` accepts a name,
a path to a TOML file, and ``key=value`` overrides. The kernels get the rule set as
an int64 vector (``Rules.to_kernel``) indexed by ``RuleParam``.

>>> load_rules("hollywood-gin20").gin_bonus
20
>>> load_rules("hollywood", overrides=["knock_limit=7"]).knock_limit
7
"""

from __future__ import annotations

import numbers
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
    configs_dir,
    parse_override,
    read_named_config,
    shown,
)
from gin_sim.kernels.enums import RuleParam

# The allowed range of every numeric rule (None: no upper bound).
RULE_BOUNDS: dict[str, tuple[int, int | None]] = {
    "knock_limit": (0, 10),
    # Upper bounds keep every score and count inside the int16 record fields.
    "gin_bonus": (0, 1000),
    "undercut_bonus": (0, 1000),
    "big_gin_bonus": (0, 1000),
    # The stock holds 31 cards after the deal (R6); a wall of 31 would end the hand before
    # anyone could draw.
    "wall": (0, 30),
    "max_upcard_takes": (1, 1000),
    "game_target": (1, 100_000),
}


@dataclass(frozen=True)
class Rules:
    """One rule set. Defaults are the seed rules (RULES.md); names cite the rule.

    The named rule sets are the TOML files of ``configs/rules/`` (``gin-sim rules`` lists
    them); ``load_rules`` reads one, with overrides. Each field's comment cites the rule it
    sets; a value out of its range is a ``ConfigError`` (a ``ValueError``) naming it.
    """

    name: str = "hollywood"
    knock_limit: int = 10  # R12: deadwood allowed when knocking, 0 to 10
    gin_bonus: int = 25  # R17
    undercut_bonus: int = 10  # R17
    undercut_on_tie: bool = True  # R17
    big_gin_bonus: int = 0  # R14: 0 turns big gin off
    oklahoma: bool = False  # R14a: the upcard's value sets the knock limit
    wall: int = 2  # R18: stock cards left when the hand is a draw
    max_upcard_takes: int = 50  # R18a
    may_discard_drawn_upcard: bool = False  # R11
    game_target: int = 100  # R20
    hollywood_bonuses: bool = False  # R23

    def __post_init__(self) -> None:
        self.validate()

    def validate(self, where: str = "rules") -> None:
        where = f"rules {shown(self.name)}" if where == "rules" else where
        check_name(self.name, where)
        for field in fields(self):  # Rules(knock_limit="x") from Python: said, not a TypeError
            value, kind = getattr(self, field.name), _FIELD_TYPES[field.name]
            flag = isinstance(value, bool | np.bool_)
            if (kind is bool and not flag) or (
                kind is int and (flag or not isinstance(value, numbers.Integral))
            ):
                allowed = "true or false" if kind is bool else "a whole number"
                raise ConfigError(f"{field.name} = {shown(value)} in {where}: allowed {allowed}")
        checks = [(key, getattr(self, key), low, high) for key, (low, high) in RULE_BOUNDS.items()]
        for key, value, low, high in checks:
            if value < low or (high is not None and value > high):
                allowed = f"{low} to {high}" if high is not None else f"{low} or more"
                raise ConfigError(f"{key} = {value} in {where} is out of range: allowed {allowed}")

    def to_kernel(self) -> np.ndarray:
        """The int64 vector the kernels read, indexed by ``RuleParam``."""
        vector = np.zeros(len(RuleParam._fields), dtype=np.int64)
        for key, index in RuleParam._asdict().items():
            vector[index] = int(getattr(self, key.lower()))
        return vector

    def describe(self) -> str:
        parts = [f"{f.name}={getattr(self, f.name)}" for f in fields(self) if f.name != "name"]
        return f"{self.name}: " + ", ".join(parts)


_FIELD_TYPES: dict[str, Any] = get_type_hints(Rules)


def rules_from_dict(values: dict[str, Any], where: str) -> Rules:
    check_keys(Rules, values, where)
    typed = {k: coerce(_FIELD_TYPES[k], k, v, where) for k, v in values.items()}
    rules = Rules.__new__(Rules)
    merged = {f.name: f.default for f in fields(Rules)} | typed
    for key, value in merged.items():
        object.__setattr__(rules, key, value)
    rules.validate(where)
    return rules


def rules_dir() -> Path:
    return configs_dir() / "rules"


def named_rules() -> list[str]:
    """Names of the rule sets in ``configs/rules/``."""
    return sorted(p.stem for p in rules_dir().glob("*.toml"))


def load_rules(spec: str | Path | Rules = "hollywood", overrides: list[str] | None = None) -> Rules:
    """A rule set by name or TOML path, with ``key=value`` overrides applied.

    An unknown name, key or value out of range is a ``ValueError`` that says what is
    allowed.

    Examples:
        >>> rules = load_rules("hollywood", ["gin_bonus=20"])
        >>> rules.gin_bonus, rules.undercut_bonus
        (20, 10)
        >>> load_rules("standard").undercut_bonus
        25
    """
    overrides = check_overrides(overrides, "rule overrides")
    if isinstance(spec, Rules):
        rules = spec
    else:
        rules = rules_from_dict(*read_named_config(spec, rules_dir(), "rule set", "rule sets"))
    if overrides:
        changes: dict[str, Any] = {}
        for text in overrides:
            key, value = parse_override(text, "rule override")
            check_keys(Rules, {key: value}, "rule overrides")
            changes[key] = coerce(_FIELD_TYPES[key], key, value, "rule overrides")
        rules = replace(rules, **changes)
        rules.validate("rule overrides")
    return rules
