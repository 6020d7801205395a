"""Strategies: a frozen, validated spec per player, compiled to a float64 kernel vector.

Named strategies are the TOML files in ``configs/strategies/``. Two starter strategies
exist today (docs/engine.md, "Strategies"): ``simple`` and ``random``.

>>> load_strategy("simple").kind
'simple'
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any, get_type_hints

import numpy as np

from gin_sim.config import ConfigError, check_keys, coerce, configs_dir, read_toml
from gin_sim.enums import N_STRATEGY_PARAMS, StrategyKind, StrategyParam

KINDS: dict[str, int] = {name.lower(): value for name, value in StrategyKind._asdict().items()}


@dataclass(frozen=True)
class Strategy:
    name: str
    kind: str = "simple"
    description: str = ""

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ConfigError(
                f"unknown strategy kind {self.kind!r} in strategy {self.name!r}: allowed kinds are {', '.join(KINDS)}"
            )

    def to_kernel(self) -> np.ndarray:
        vector = np.zeros(N_STRATEGY_PARAMS, dtype=np.float64)
        vector[StrategyParam.KIND] = KINDS[self.kind]
        return vector


_FIELD_TYPES: dict[str, Any] = get_type_hints(Strategy)


def strategies_dir() -> Path:
    return configs_dir() / "strategies"


def named_strategies() -> list[str]:
    return sorted(p.stem for p in strategies_dir().glob("*.toml"))


def strategy_from_dict(values: dict[str, Any], where: str) -> Strategy:
    check_keys(Strategy, values, where)
    typed = {k: coerce(_FIELD_TYPES[k], k, v, where) for k, v in values.items()}
    try:
        return Strategy(**typed)
    except TypeError as error:  # a required key missing
        required = [f.name for f in fields(Strategy) if f.name not in typed]
        raise ConfigError(f"{where}: missing {', '.join(required)} ({error})") from None


def load_strategy(spec: str | Path | Strategy) -> Strategy:
    """A strategy by name or TOML path."""
    if isinstance(spec, Strategy):
        return spec
    path = Path(spec)
    if path.suffix == ".toml":
        values = read_toml(path)
        values.setdefault("name", path.stem)
        return strategy_from_dict(values, str(path))
    candidate = strategies_dir() / f"{spec}.toml"
    if not candidate.is_file():
        raise ConfigError(
            f"unknown strategy {str(spec)!r}: known strategies are {', '.join(named_strategies())}"
        )
    values = read_toml(candidate)
    values.setdefault("name", str(spec))
    return strategy_from_dict(values, str(candidate))


def parse_players(text: str | tuple[str, ...] | list[str]) -> tuple[Strategy, Strategy]:
    """Two strategies from ``"expert,simple"`` or a pair of names."""
    names = [n.strip() for n in text.split(",")] if isinstance(text, str) else list(text)
    if len(names) != 2 or not all(names):
        raise ConfigError(
            f"players {text!r}: expected two strategy names separated by a comma, e.g. simple,simple"
        )
    return load_strategy(names[0]), load_strategy(names[1])


def strategies_to_kernel(players: tuple[Strategy, Strategy]) -> np.ndarray:
    return np.stack([p.to_kernel() for p in players])
