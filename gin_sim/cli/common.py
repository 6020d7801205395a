"""Helpers every command shares: one-line errors and option parsing."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Annotated

import typer


def fail(message: str, exit: bool = True) -> None:
    """Print ``error: message`` on one line to stderr; exit with code 2 unless told not to."""
    typer.echo(f"error: {' '.join(str(message).split())}", err=True)
    if exit:
        raise typer.Exit(2)


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Turn a ValueError (bad card, config value, name...) into a one-line error, exit 2."""
    try:
        yield
    except ValueError as error:
        fail(str(error))


@contextlib.contextmanager
def progress_bar(total: int, unit: str, enabled: bool) -> Iterator:
    """A rich progress bar on stderr (done, rate, time left); ``advance(n, resumed)``."""
    import sys
    import time

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


def interrupted(directory: str | None, done: int, total: int, unit: str) -> None:
    """Ctrl-C: say how far the run got and how to go on; exit code 130."""
    where = (
        f"; {done:,} of {total:,} {unit} are saved in {directory}: run the same command again to resume"
        if directory
        else ""
    )
    typer.echo(f"interrupted{where}", err=True)
    raise typer.Exit(130)


# Options several commands share, declared once so they read and behave the same.
RulesOption = Annotated[str, typer.Option(help="A named rule set or a TOML file.")]
PlayersOption = Annotated[
    str, typer.Option(help="Two strategies (names or TOML files), comma-separated.")
]
RuleOverrides = Annotated[
    list[str] | None, typer.Option("--rule", help="Override one rule, key=value (repeatable).")
]
Param1Option = Annotated[
    list[str] | None,
    typer.Option(
        "--param1", help="Override a parameter of player 1's strategy, key=value (repeatable)."
    ),
]
Param2Option = Annotated[
    list[str] | None,
    typer.Option(
        "--param2", help="Override a parameter of player 2's strategy, key=value (repeatable)."
    ),
]
OutOption = Annotated[
    str | None,
    typer.Option(help="Run folder: write each finished chunk there as Parquet; resume from it."),
]
OverwriteOption = Annotated[bool, typer.Option(help="Replace another run's files in --out.")]
ThreadsOption = Annotated[int | None, typer.Option(help="Threads to use (default: all cores).")]
JsonOption = Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")]
QuietOption = Annotated[bool, typer.Option("--quiet", help="No progress bar.")]


def resolve_players(players: str, param1: list[str] | None, param2: list[str] | None):
    """The two strategies of ``--players`` with their ``--param1`` / ``--param2`` overrides."""
    from gin_sim.strategies import load_strategy, parse_players

    first, second = parse_players(players)
    return load_strategy(first, param1), load_strategy(second, param2)


SchedulerOption = Annotated[
    str | None,
    typer.Option(
        help="A running Dask scheduler (tcp://host:8786): play the chunks on its workers."
    ),
]
WorkersOption = Annotated[
    int | None, typer.Option(help="Start a local Dask cluster of N worker processes for the run.")
]
WorkersWriteOption = Annotated[
    bool,
    typer.Option(
        "--workers-write",
        help="With --out on a folder every worker sees at the same path: workers write their chunks.",
    ),
]
