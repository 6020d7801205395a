"""Helpers every command shares: one-line errors, strict JSON, signals and option parsing."""

from __future__ import annotations

import contextlib
import json
import math
import time
import warnings
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer

from gin_sim.game.config import ConfigError, GinSimWarning

SIGINT_EXIT = 130  # 128 + SIGINT, as shells report a process stopped by Ctrl-C
SIGTERM_EXIT = 143  # 128 + SIGTERM


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised by the entry point's handler so that it stops a run like Ctrl-C."""


# Characters of one error or warning line: beyond this a message (one quoting a huge path
# or value) is cut, its length said, so that the terminal is never flooded.
MAX_MESSAGE = 1000


def one_line(message: object) -> str:
    text = " ".join(str(message).split())
    if len(text) > MAX_MESSAGE:
        text = f"{text[:MAX_MESSAGE]}... ({len(text):,} characters in all)"
    return text


def fail(message: str, exit: bool = True) -> None:
    """Print ``error: message`` on one line to stderr; exit with code 2 unless told not to."""
    typer.echo(f"error: {one_line(message)}", err=True)
    if exit:
        raise typer.Exit(2)


def warn(message: str) -> None:
    """Print ``warning: message`` on one line to stderr; the command goes on."""
    typer.echo(f"warning: {one_line(message)}", err=True)


def shown_path(path: object, limit: int = 200) -> str:
    """A path for a message: a path longer than ``limit`` by its start and its end."""
    text = str(path)
    return text if len(text) <= limit else f"{text[: limit // 2]}...{text[-limit // 2 :]}"


def describe_os_error(error: OSError) -> str:
    """An OSError as one line that names its file: ``cannot use PATH: No space left on device``."""
    reason = error.strerror or str(error) or type(error).__name__
    if error.filename is None:
        return f"{reason} ({type(error).__name__})"
    where = shown_path(error.filename) + (
        f" -> {shown_path(error.filename2)}" if error.filename2 else ""
    )
    return f"cannot use {where}: {reason}"


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Turn a ValueError (bad card, config value, name...) or an OSError (a file that
    cannot be read or written) into a one-line error, exit 2; print the library's
    warnings (a report index left alone, a sibling report skipped) as one line each."""
    message: str | None = None
    recorded: list[warnings.WarningMessage] = []
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", GinSimWarning)
            try:
                yield
            except ValueError as error:
                message = str(error)
            except BrokenPipeError:
                raise  # the reader of our output went away: the entry point stops quietly
            except OSError as error:
                message = describe_os_error(error)
            finally:
                recorded = list(caught)
    finally:
        # Shown only once recording has stopped: shown inside, each warning would be
        # recorded again while the list is being read, for ever.
        for warning in recorded:
            if issubclass(warning.category, GinSimWarning):
                warn(str(warning.message))
            else:
                warnings.showwarning(
                    warning.message, warning.category, warning.filename, warning.lineno
                )
    if message is not None:
        fail(message)


def _strict(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {str(k): _strict(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_strict(v) for v in value]
    if hasattr(value, "item") and not isinstance(value, str):  # a NumPy scalar
        return _strict(value.item())
    return value


def echo_json(document: Any, indent: int | None = 2) -> None:
    """Print ``document`` as strict JSON: a figure that is undefined (NaN, an interval
    from a single deck) is ``null``, never the bare ``NaN`` that JSON does not allow."""
    typer.echo(json.dumps(_strict(document), indent=indent, allow_nan=False))


@contextlib.contextmanager
def progress_bar(total: int, unit: str, enabled: bool) -> Iterator:
    """A rich progress bar on stderr (done, rate, time left); ``advance(n, resumed)``."""
    import sys

    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    started = time.perf_counter()
    played = 0
    with Progress(
        TextColumn(unit), BarColumn(), MofNCompleteColumn(), TextColumn("{task.fields[rate]}"),
        TimeRemainingColumn(), console=Console(stderr=True), disable=not (enabled and sys.stderr.isatty()),
    ) as progress:  # fmt: skip
        task = progress.add_task(unit, total=total, rate="")

        def advance(done: int, resumed: bool = False) -> None:
            nonlocal played
            if not resumed:
                played += done
            rate = played / max(time.perf_counter() - started, 1e-9)
            progress.update(task, advance=done, rate=f"{rate:,.0f} {unit}/s")

        yield advance


def interrupted(
    directory: str | None, done: int | None, total: int, unit: str, stop: BaseException
) -> None:
    """Ctrl-C or SIGTERM: say how far the run got (what is on disk) and how to go on; exit
    code 130 (SIGINT) or 143 (SIGTERM)."""
    if directory and done is not None:
        where = f"; {done:,} of {total:,} {unit} are saved in {directory}: run the same command again to resume"
    elif directory:
        where = (
            f"; the finished chunks are saved in {directory}: run the same command again to resume"
        )
    else:
        where = ""
    terminated = isinstance(stop, Terminated)
    typer.echo(f"{'terminated' if terminated else 'interrupted'}{where}", err=True)
    raise typer.Exit(SIGTERM_EXIT if terminated else SIGINT_EXIT)


def saved_on_disk(frames: Any, config: Any, directory: str | None) -> int | None:
    """After an interruption: finish the run's writing (close its generator, which waits
    for the chunk being saved), then count the decks or matches whose chunks are on disk."""
    if frames is not None:
        frames.close()
    if directory is None:
        return None
    from gin_sim.experiments.runs import Run, RunError, read_manifest

    try:
        if read_manifest(directory) != config:
            return None
        return Run(Path(directory), config).saved()
    except (RunError, OSError):
        return None


def given_options(context: typer.Context, names: list[str] | tuple[str, ...]) -> list[str]:
    """The options among ``names`` (parameter names) given on the command line, even at
    their default value, as the user typed them (``--score-format``): for refusing options
    a mode of a command would otherwise silently ignore."""
    given = []
    for parameter in context.command.params:
        if parameter.name not in names:
            continue
        source = context.get_parameter_source(parameter.name)
        if source is not None and source.name not in ("DEFAULT", "DEFAULT_MAP"):
            given.append(max(parameter.opts, key=len))
    return given


def stopped(stop: BaseException, saved: str = "") -> None:
    """Ctrl-C or SIGTERM in a command that keeps something: one line (``interrupted`` or
    ``terminated``, then ``saved``), exit code 130 or 143."""
    terminated = isinstance(stop, Terminated)
    typer.echo(f"{'terminated' if terminated else 'interrupted'}{saved}", err=True)
    raise typer.Exit(SIGTERM_EXIT if terminated else SIGINT_EXIT)


def checked_score_format(score: str | None, score_format: str) -> str:
    """``--score-format``, checked with ``--score`` (one-line errors)."""
    if score_format not in ("game", "hollywood"):
        raise ConfigError(f"--score-format {score_format!r}: allowed game or hollywood")
    if score is None and score_format != "game":
        raise ConfigError("--score-format says what --score is: give --score too")
    return score_format


def resolve_players(players: str, param1: list[str] | None, param2: list[str] | None):
    """The two strategies of ``--players`` with their ``--param1`` / ``--param2`` overrides."""
    from gin_sim.players.strategies import load_strategy, parse_players

    first, second = parse_players(players)
    return load_strategy(first, param1), load_strategy(second, param2)


def resolve_keep(keep: str | None) -> tuple[float, ...]:
    """``--keep``'s probabilities by kind (offer, draw, discard, knock); the defaults when
    it is not given; a one-line ConfigError for an unknown kind or a bad value."""
    from gin_sim.experiments.positions import DEFAULT_KEEP, parse_keep

    return DEFAULT_KEEP if keep is None else parse_keep(keep)
