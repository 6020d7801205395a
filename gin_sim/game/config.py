"""Where the TOML configs live and how a TOML table becomes a validated frozen object.

Configs mirror their typed objects field for field: an unknown key, a value of the
wrong type or out of range is a ``ConfigError`` naming the key, the file and what is
allowed. The CLI turns ``ConfigError`` (a ``ValueError``) into a one-line message.
"""

from __future__ import annotations

import contextlib
import json
import os
import stat
import tomllib
from collections.abc import Iterator, Mapping
from dataclasses import fields
from pathlib import Path
from typing import Any, BinaryIO

import numpy as np

# What one file a user gives (a strategy or rule set, a run manifest, a tuning study's
# settings, a report description) may hold. The largest file gin-sim writes or ships is a
# few kilobytes, so these bounds refuse only files that would hang, exhaust the stack or
# flood the terminal: a deeply nested array, thousands of tables, a name of megabytes.
MAX_FILE_BYTES = 1 << 20
MAX_NESTING = 16  # tables and arrays inside one another (a strategy's [[adapt]] needs 4)
MAX_VALUES = 10_000  # keys and array items in one file, all levels together
MAX_TEXT = 10_000  # characters in one string or key
# Bits of a whole number: far above any seed (64 bits) or count, so that the field's own
# check names it, and low enough that a message can quote it.
MAX_NUMBER_BITS = 128
MAX_NAME = 100  # characters of a strategy's or rule set's name (it heads tables and folders)
# Characters of a value that an error message quotes: a value longer than this is quoted
# by its start and its length, never in full.
MAX_QUOTED = 80


class ConfigError(ValueError):
    """A config value, key or name that is not allowed."""


class GinSimWarning(UserWarning):
    """Something the library left alone or skipped and the user should hear about (the
    command line prints it as one ``warning:`` line)."""


def configs_dir() -> Path:
    """The ``configs/`` folder: ``$GIN_SIM_CONFIGS`` if set, else the one beside the package."""
    override = os.environ.get("GIN_SIM_CONFIGS")
    return Path(override) if override else Path(__file__).resolve().parents[2] / "configs"


def shown(value: Any, limit: int = MAX_QUOTED) -> str:
    """``repr(value)`` for an error message, cut to ``limit`` characters with the length
    said when longer: a message never echoes a huge value in full. A numpy number (a value
    read from a table) is shown as the plain number it holds, not as ``np.int64(11)``."""
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, int) and value.bit_length() > 256:  # Python refuses to print huge ones
        return f"a whole number of {value.bit_length():,} bits"
    try:
        text = repr(value)
    except RecursionError:
        return f"{type(value).__name__} nested too deeply to be shown"
    if "\n" in text:  # an array's or a table's repr: a message is one line
        text = " ".join(text.split())
    if len(text) <= limit:
        return text
    size = (
        f"{len(value):,} characters"
        if isinstance(value, str)
        else f"{len(text):,} characters as text"
    )
    return f"{text[:limit]}... ({size})"


def comma_items(text: str, what: str, example: str, *, unique: bool = True) -> list[str]:
    """The items of a comma-separated option, stripped. An empty item (``a,,b``, a comma at
    either end, nothing at all) is a ``ConfigError``, and so is an item given twice when
    ``unique`` (the last would silently win, or the list hold one thing twice). Blank
    text is no items.

    >>> comma_items("expert, simple", "--compare", "expert,simple")
    ['expert', 'simple']
    """
    if not text.strip():  # nothing given: no items (a default, an empty schedule)
        return []
    items = [item.strip() for item in text.split(",")]
    if not all(items):
        raise ConfigError(
            f"{what} {shown(text)}: an empty item: allowed items separated by single commas, such as {example}"
        )
    if unique:
        twice = next((item for i, item in enumerate(items) if item in items[:i]), None)
        if twice is not None:
            raise ConfigError(
                f"{what} {shown(text)}: {twice!r} given twice: allowed each item once, such as {example}"
            )
    return items


@contextlib.contextmanager
def opened_user_file(path: Path, limit: int = MAX_FILE_BYTES) -> Iterator[BinaryIO]:
    """A file gin-sim reads (a user's config, a run's manifest or chunk, an owner mark, a
    game record, a table), opened for reading without blocking: a FIFO, a device or a
    socket is refused (opened non-blocking, so an empty FIFO cannot hold the command), and
    so is a file above ``limit`` bytes, by its size, before anything is read (a huge or
    sparse file). A missing file or a folder raises the usual OSError (FileNotFoundError,
    IsADirectoryError), which each caller words for its own file. Every file gin-sim reads
    goes through here (``read_user_file`` for a whole file)."""
    descriptor = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    try:
        status = os.fstat(descriptor)
        if stat.S_ISDIR(status.st_mode):
            raise IsADirectoryError(21, "Is a directory", str(path))
        if not stat.S_ISREG(status.st_mode):
            kind = (
                "a FIFO"
                if stat.S_ISFIFO(status.st_mode)
                else "a socket"
                if stat.S_ISSOCK(status.st_mode)
                else "a device"
            )
            raise ConfigError(f"{path} is {kind}, not a regular file: give a file")
        if status.st_size > limit:
            raise ConfigError(
                f"{path} is larger than {limit:,} bytes ({status.st_size:,}): allowed at most {limit:,}"
            )
        handle = os.fdopen(descriptor, "rb")
    except BaseException:
        os.close(descriptor)
        raise
    with handle:
        yield handle


def read_user_file(path: Path, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of a file gin-sim reads, through ``opened_user_file``: never more than
    ``limit``, even if the file grows while it is read."""
    with opened_user_file(path, limit) as handle:
        data = handle.read(limit + 1)
    if len(data) > limit:
        raise ConfigError(f"{path} is larger than {limit:,} bytes: allowed at most {limit:,}")
    return data


def check_document(document: Any, where: str, max_values: int = MAX_VALUES) -> Any:
    """Bound what a parsed file holds: nesting, the number of keys and items (``max_values``
    for a kind of file that holds more, as a game record), and the length of every string
    and key (walked without recursion)."""
    values = 0
    pending = [(document, 1)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, dict | list):
            if depth > MAX_NESTING:
                raise ConfigError(
                    f"{where}: tables and arrays nested more than {MAX_NESTING} deep: allowed at most {MAX_NESTING}"
                )
            values += len(value)
            if values > max_values:
                raise ConfigError(
                    f"{where} holds more than {max_values:,} keys and items: allowed at most {max_values:,}"
                )
            items = value.items() if isinstance(value, dict) else enumerate(value)
            for key, item in items:
                if isinstance(key, str) and len(key) > MAX_TEXT:
                    raise ConfigError(
                        f"{where}: key {shown(key)} is longer than {MAX_TEXT:,} characters"
                    )
                pending.append((item, depth + 1))
        elif isinstance(value, str) and len(value) > MAX_TEXT:
            raise ConfigError(
                f"{where}: value {shown(value)} is longer than {MAX_TEXT:,} characters: allowed at most {MAX_TEXT:,}"
            )
        elif isinstance(value, int) and value.bit_length() > MAX_NUMBER_BITS:
            raise ConfigError(
                f"{where}: {shown(value)} is too large: allowed whole numbers below 2**{MAX_NUMBER_BITS} in size"
            )
    return document


def parse_json(data: bytes, where: str, max_values: int = MAX_VALUES) -> Any:
    """A JSON document of a user's file, checked by ``check_document``. A malformed one is
    the caller's ValueError (``json.JSONDecodeError`` or ``UnicodeDecodeError``)."""
    text = data.decode("utf-8")
    try:
        document = json.loads(text)
    except RecursionError:
        raise ConfigError(
            f"{where}: nested more than {MAX_NESTING} deep: allowed at most {MAX_NESTING}"
        ) from None
    except json.JSONDecodeError:
        raise
    except ValueError as error:  # a number of more than 4,300 digits
        raise json.JSONDecodeError(str(error), text[:0], 0) from None
    return check_document(document, where, max_values)


def read_toml(path: Path) -> dict[str, Any]:
    try:
        document = tomllib.loads(read_user_file(path).decode("utf-8"))
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
    except ValueError as error:  # TOMLDecodeError, or a number of more than 4,300 digits
        raise ConfigError(f"{path}: not valid TOML ({error})") from None
    except RecursionError:
        raise ConfigError(
            f"{path}: tables and arrays nested more than {MAX_NESTING} deep: allowed at most {MAX_NESTING}"
        ) from None
    return check_document(document, str(path))


def check_name(name: Any, where: str) -> None:
    """A strategy's or rule set's name: 1 to MAX_NAME printable characters (it heads
    tables, reports and run folders, and is printed as it is)."""
    if not isinstance(name, str) or not name or len(name) > MAX_NAME or not name.isprintable():
        raise ConfigError(
            f"name = {shown(name)} in {where}: allowed 1 to {MAX_NAME} printable characters"
        )


def check_overrides(overrides: Any, where: str) -> list[str]:
    """``key=value`` overrides as the library takes them: a list of texts (a lone text
    would be read character by character)."""
    if overrides is None:
        return []
    if isinstance(overrides, str | bytes) or not isinstance(overrides, list | tuple):
        raise TypeError(f"{where} = {shown(overrides)}: allowed a list of key=value texts")
    return list(overrides)


def check_keys(cls: type, values: dict[str, Any], where: str) -> None:
    allowed = [f.name for f in fields(cls)]
    for key in values:
        if key not in allowed:
            raise ConfigError(
                f"unknown key {shown(key)} in {where}: allowed keys are {', '.join(allowed)}"
            )


def parse_override(text: str, where: str = "--set") -> tuple[str, str]:
    """Split ``key=value`` from the command line."""
    if not isinstance(text, str):
        raise TypeError(f"{where} {shown(text)}: expected key=value text")
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"{where} {shown(text)}: expected key=value")
    return key.strip(), value.strip()


def coerce(kind: type, key: str, value: Any, where: str) -> Any:
    """Turn a TOML or command-line value into ``kind`` (bool, int, float, str), strictly."""
    if kind is bool:
        if isinstance(value, bool):
            return value
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        raise ConfigError(f"{key} = {shown(value)} in {where}: allowed values are true or false")
    if kind is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        if isinstance(value, str):
            try:
                return int(value)
            except ValueError:
                pass
        raise ConfigError(f"{key} = {shown(value)} in {where}: expected a whole number")
    if kind is float:
        if isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        if isinstance(value, str):
            try:
                return float(value)
            except ValueError:
                pass
        raise ConfigError(f"{key} = {shown(value)} in {where}: expected a number")
    if not isinstance(value, str):
        raise ConfigError(f"{key} = {shown(value)} in {where}: expected a string")
    return value


def read_named_config(
    spec: str | Path, folder: Path, what: str, plural: str, renamed: Mapping[str, str] = {}
) -> tuple[dict[str, Any], str]:
    """The TOML table of a config given by name (a file in ``folder``) or by path, and
    where it came from; ``name`` defaults to the file's stem. ``renamed``: old names that
    are no longer known, each with what to say instead (its new name and when)."""
    if not isinstance(spec, str | os.PathLike):
        raise TypeError(f"{what} = {shown(spec)}: allowed a {what}'s name or a TOML path")
    path = Path(spec)
    if path.suffix != ".toml":
        path = folder / f"{spec}.toml"
        if len(str(spec)) > MAX_NAME or not path.is_file():
            known = ", ".join(sorted(p.stem for p in folder.glob("*.toml")))
            now = f" ({renamed[spec]})" if isinstance(spec, str) and spec in renamed else ""
            if not known:  # GIN_SIM_CONFIGS at a folder without the shipped configs
                known = (
                    f"none (no {plural} in {folder}: GIN_SIM_CONFIGS may point at the wrong folder)"
                )
            raise ConfigError(f"unknown {what} {shown(str(spec))}{now}: known {plural} are {known}")
    values = read_toml(path)
    values.setdefault("name", path.stem)
    return values, str(path)
