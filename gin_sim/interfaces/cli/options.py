"""The options the commands share, each declared once (issue 28, part 4).

A command reads, say, ``seed: options.Seed = 1``: the option's name, its help text and its
type come from here, so ``--seed`` reads and behaves the same in every command that has it.
What an option's value is checked against (a rule set's name, a count's range) lives in the
library (``load_rules``, ``game.limits``), also once; the defaults stay with each command,
since they are part of what that command does. An option that only one command has is
declared in that command's module.

The options of where a run is written, where it is played and what is printed (``--out``
to ``--quiet``) come as a group: ``@run_options(...)`` gives a command them all, gathered
into one ``RunOptions`` argument, so simulate, match and positions neither list nor check
them each.
"""

from __future__ import annotations

import dataclasses
import functools
import inspect
import time
from collections.abc import Callable, Iterator
from typing import Annotated, Any

import typer

from gin_sim.game.config import ConfigError
from gin_sim.interfaces.cli.common import interrupted, progress_bar

# What the game is played by, and by whom.
Rules = Annotated[str, typer.Option(help="A named rule set or a TOML file.")]
RuleSets = Annotated[
    str, typer.Option("--rules", help="Rule sets (names or TOML files), comma-separated.")
]
RuleOverrides = Annotated[
    list[str] | None, typer.Option("--rule", help="Override one rule, key=value (repeatable).")
]
Players = Annotated[
    str, typer.Option(help="Two strategies (names or TOML files), comma-separated.")
]
Param1 = Annotated[
    list[str] | None,
    typer.Option(
        "--param1", help="Override a parameter of player 1's strategy, key=value (repeatable)."
    ),
]
Param2 = Annotated[
    list[str] | None,
    typer.Option(
        "--param2", help="Override a parameter of player 2's strategy, key=value (repeatable)."
    ),
]
# The reports that vary one strategy's knocking against a fixed opponent.
Strategy = Annotated[
    str, typer.Option(help="The strategy whose knocking is varied (name or TOML file).")
]
Opponent = Annotated[
    str,
    typer.Option(
        help="The fixed opponent (name or TOML file); every figure, and so every 'best' threshold or schedule, holds against it only."
    ),
]

# How much is played, and from which random streams.
Seed = Annotated[
    int,
    typer.Option(
        help="Seed of the random streams: deal (or match) i depends only on (seed, i), so the same seed gives the same figures."
    ),
]
Deals = Annotated[int, typer.Option(help="Decks to play.")]
Matches = Annotated[int, typer.Option(help="Hollywood matches to play.")]
# report knock, undercut, variants and the default set: the sweep's counts per variant.
VariantDeals = Annotated[
    int, typer.Option("--deals", help="Decks per variant, each played twice (seats swapped).")
]
VariantMatches = Annotated[
    int,
    typer.Option("--matches", help="Hollywood matches per variant, each played twice; 0 for none."),
]
# positions and report advice: the deals whose decisions make a positions dataset.
PositionDeals = Annotated[
    int,
    typer.Option(
        "--deals",
        help="Deals to play: each decision of a kind is kept with that kind's probability (--keep).",
    ),
]
Keep = Annotated[
    str | None,
    typer.Option(
        help="Keep probabilities of the decision positions by kind, e.g. offer=1,draw=0.5,discard=0.125,knock=1 (any subset; the rest keep these defaults): multiples of 1/1024 in (0, 1]."
    ),
]
ChunkSize = Annotated[
    int,
    typer.Option(
        help="Decks, matches or deals per chunk, the unit of saving and resuming: bigger ones cost memory, smaller ones time."
    ),
]

# Where results go.
RunOut = Annotated[
    str | None,
    typer.Option(
        "--out",
        help="Run folder: each finished chunk is written there (Parquet); the same command again resumes from it.",
    ),
]
ReportOut = Annotated[
    str,
    typer.Option(
        "--out",
        help="The report folder: new or empty, or this kind of report written by gin-sim (the same command again rewrites nothing).",
    ),
]
Overwrite = Annotated[
    bool, typer.Option(help="Replace the files of a run of another configuration.")
]

# Where it is played.
Threads = Annotated[int | None, typer.Option(help="Threads to use (default: all cores).")]
Scheduler = Annotated[
    str | None,
    typer.Option(
        help="A running Dask scheduler (tcp://host:8786): play the chunks on its workers."
    ),
]
Workers = Annotated[
    int | None, typer.Option(help="Start a local Dask cluster of N worker processes for the run.")
]
WorkersWrite = Annotated[
    bool,
    typer.Option(
        "--workers-write",
        help="With --out on a folder every worker sees at the same path: workers write their chunks.",
    ),
]

# What is printed.
Json = Annotated[bool, typer.Option("--json", help="Print JSON instead of text.")]
Quiet = Annotated[bool, typer.Option("--quiet", help="No progress bar.")]
# The score before a hand (advise: the deciding player's first; replay: player 1's first).
ScoreFormat = Annotated[
    str, typer.Option(help="What --score is: game (to the target) or hollywood (R19 to R23).")
]


@dataclasses.dataclass(frozen=True)
class RunOptions:
    """Where a run is written (``--out``, ``--overwrite``), where it is played
    (``--threads``, ``--scheduler``, ``--workers``, ``--workers-write``) and what is printed
    (``--json``, ``--quiet``): the same for every command that plays a run."""

    out: str | None = None
    overwrite: bool = False
    threads: int | None = None
    scheduler: str | None = None
    workers: int | None = None
    workers_write: bool = False
    as_json: bool = False
    quiet: bool = False

    @property
    def show_progress(self) -> bool:
        return not (self.quiet or self.as_json)

    def check(self, with_hands: bool = False) -> None:
        """Refuse the options that would otherwise be silently ignored (one-line errors)."""
        needs_out = [
            name
            for name, given in (
                ("--overwrite", self.overwrite),
                ("--workers-write", self.workers_write),
                ("--with-hands", with_hands),
            )
            if given
        ]
        if needs_out and self.out is None:
            raise ConfigError(
                f"{needs_out[0]} needs --out (a run folder): give --out DIR or drop it"
            )
        if self.workers_write and self.scheduler is None and self.workers is None:
            raise ConfigError("--workers-write needs --workers N or --scheduler ADDRESS")

    def play(
        self,
        start: Callable[[Callable[..., None], Any], Iterator[Any]],
        consume: Callable[[Any], None],
        saved: Callable[[Any], int | None],
        total: int,
        unit: str,
    ) -> float:
        """Play a run chunk by chunk: ``start(advance, client)`` gives the chunks (on a Dask
        cluster when ``--scheduler`` or ``--workers`` asks for one), each is handed to
        ``consume`` under a progress bar of ``total`` ``unit``. On Ctrl-C or SIGTERM
        ``saved(chunks)`` finishes the writing and counts what is on disk, and the user is
        told how to resume (exit 130 or 143). Returns the seconds it took."""
        from gin_sim.experiments.cluster import dask_client

        started = time.perf_counter()
        chunks = None
        try:
            with (
                dask_client(self.scheduler, self.workers) as client,
                progress_bar(total, unit, self.show_progress) as advance,
            ):
                chunks = start(advance, client)
                for chunk in chunks:
                    consume(chunk)
        except KeyboardInterrupt as stop:
            interrupted(self.out, saved(chunks), total, unit, stop)
        return time.perf_counter() - started


# Each field of RunOptions on the command line.
_RUN_OPTIONS = {
    "out": RunOut, "overwrite": Overwrite, "threads": Threads, "scheduler": Scheduler,
    "workers": Workers, "workers_write": WorkersWrite, "as_json": Json, "quiet": Quiet,
}  # fmt: skip


def run_options(*names: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """A command whose parameter ``run: RunOptions`` is given on the command line as the
    options ``names`` (fields of RunOptions; all of them when none are named), each with
    the declaration above and RunOptions' default; the others keep their default."""
    chosen = names or tuple(_RUN_OPTIONS)
    defaults = {field.name: field.default for field in dataclasses.fields(RunOptions)}

    def decorate(command: Callable[..., Any]) -> Callable[..., Any]:
        signature = inspect.signature(command, eval_str=True)
        own = [p for p in signature.parameters.values() if p.name != "run"]
        added = [
            inspect.Parameter(
                name, inspect.Parameter.KEYWORD_ONLY, default=defaults[name],
                annotation=_RUN_OPTIONS[name],
            )
            for name in chosen
        ]  # fmt: skip

        @functools.wraps(command)
        def with_run(**values: Any) -> Any:
            run = RunOptions(**{name: values.pop(name) for name in chosen})
            return command(**values, run=run)

        parameters = own + added
        with_run.__signature__ = signature.replace(parameters=parameters)  # type: ignore[attr-defined]
        with_run.__annotations__ = {p.name: p.annotation for p in parameters} | {
            "return": signature.return_annotation
        }
        return with_run

    return decorate
