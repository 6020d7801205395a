"""Where the TOML configs live and how a TOML table becomes a validated frozen object.

Configs mirror their typed objects field for field: an unknown key, a value of the
wrong type or out of range is a ``ConfigError`` naming the key, the file and what is
allowed. The CLI turns ``ConfigError`` (a ``ValueError``) into a one-line message.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import fields
from pathlib import Path
from typing import Any


class ConfigError(ValueError):
    """A config value, key or name that is not allowed."""


class GinSimWarning(UserWarning):
    """Something the library left alone or skipped and the user should hear about (the
    command line prints it as one ``warning:`` line)."""


def configs_dir() -> Path:
    """The ``configs/`` folder: ``$GIN_SIM_CONFIGS`` if set, else the one beside the package."""
    override = os.environ.get("GIN_SIM_CONFIGS")
    return Path(override) if override else Path(__file__).resolve().parent.parent / "configs"


def read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except FileNotFoundError:
        raise ConfigError(f"config file not found: {path}") from None
    except IsADirectoryError:
        raise ConfigError(f"config file {path} is a folder: expected a TOML file") from None
    except OSError as error:
        raise ConfigError(f"cannot read config file {path}: {error.strerror or error}") from None
    except UnicodeDecodeError as error:
        raise ConfigError(
            f"{path}: not a text file (byte {error.start} is not UTF-8): expected a TOML file"
        ) from None
    except tomllib.TOMLDecodeError as error:
        raise ConfigError(f"{path}: not valid TOML ({error})") from None


def check_keys(cls: type, values: dict[str, Any], where: str) -> None:
    allowed = [f.name for f in fields(cls)]
    for key in values:
        if key not in allowed:
            raise ConfigError(
                f"unknown key {key!r} in {where}: allowed keys are {', '.join(allowed)}"
            )


def parse_override(text: str, where: str = "--set") -> tuple[str, str]:
    """Split ``key=value`` from the command line."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"{where} {text!r}: expected key=value")
    return key.strip(), value.strip()


def coerce(kind: type, key: str, value: Any, where: str) -> Any:
    """Turn a TOML or command-line value into ``kind`` (bool, int, float, str), strictly."""
    if kind is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        raise ConfigError(f"{key} = {value!r} in {where}: allowed values are true or false")
    if kind is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, str):
            try:
                return int(value)
            except ValueError:
                pass
        raise ConfigError(f"{key} = {value!r} in {where}: expected a whole number")
    if kind is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                pass
        raise ConfigError(f"{key} = {value!r} in {where}: expected a number")
    if not isinstance(value, str):
        raise ConfigError(f"{key} = {value!r} in {where}: expected a string")
    return value


def read_named_config(
    spec: str | Path, folder: Path, what: str, plural: str
) -> tuple[dict[str, Any], str]:
    """The TOML table of a config given by name (a file in ``folder``) or by path, and
    where it came from; ``name`` defaults to the file's stem."""
    path = Path(spec)
    if path.suffix != ".toml":
        path = folder / f"{spec}.toml"
        if not path.is_file():
            known = ", ".join(sorted(p.stem for p in folder.glob("*.toml")))
            raise ConfigError(f"unknown {what} {str(spec)!r}: known {plural} are {known}")
    values = read_toml(path)
    values.setdefault("name", path.stem)
    return values, str(path)
