"""``gin-sim simulate``: play many deals head to head and print a table per player."""

from __future__ import annotations

import time
from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from gin_sim.experiments.cluster import dask_client
from gin_sim.experiments.runs import RunConfig, execute
from gin_sim.experiments.summary import HeadToHead, format_estimate
from gin_sim.game.rules import load_rules
from gin_sim.interfaces.cli.common import (
    JsonOption,
    OutOption,
    OverwriteOption,
    Param1Option,
    Param2Option,
    PlayersOption,
    QuietOption,
    RuleOverrides,
    RulesOption,
    SchedulerOption,
    ThreadsOption,
    WorkersOption,
    WorkersWriteOption,
    check_run_options,
    echo_json,
    interrupted,
    progress_bar,
    resolve_players,
    saved_on_disk,
    user_errors,
)


def print_head_to_head(
    summary: HeadToHead, names: tuple[str, str], title: str, caption: str = ""
) -> None:
    """The summary table of a head-to-head run (also used by ``gin-sim summarize``)."""
    if summary.duplicate:
        caption += f"\npairing by deck cut the variance of net points by {summary.variance_reduction():.0%}"
    table = Table(title=title, caption=caption.strip())
    table.add_column("")
    for number, name in enumerate(names):
        table.add_column(f"player {number + 1}: {name}", justify="right")
    rows = [summary.player(0), summary.player(1)]
    for row in rows[0]:
        table.add_row(row, *(format_estimate(row, r[row]) for r in rows))
    table.add_section()
    for row, estimate in summary.overall().items():
        table.add_row(row + " (all hands)", format_estimate(row, estimate), "")
    Console().print(table)


def head_to_head_title(config: RunConfig) -> str:
    mode = "duplicate: each deck twice, seats swapped" if config.duplicate else "each deck once"
    return f"{config.count:,} decks ({mode}), rules {config.rules.name}, seed {config.seed}; 95% intervals"


def simulate(
    rules: RulesOption = "hollywood",
    players: PlayersOption = "simple,simple",
    deals: Annotated[int, typer.Option(help="Number of decks to play.")] = 100_000,
    seed: Annotated[int, typer.Option(help="Seed: deal i's deck depends only on (seed, i).")] = 1,
    rule: RuleOverrides = None,
    param1: Param1Option = None,
    param2: Param2Option = None,
    duplicate: Annotated[
        bool,
        typer.Option(help="Play every deck twice with the seats swapped; pair statistics by deck."),
    ] = True,
    out: OutOption = None,
    chunk_size: Annotated[
        int, typer.Option(help="Decks per chunk (the unit of saving and resuming).")
    ] = 200_000,  # two chunks are in flight: bigger ones cost memory, smaller ones time
    overwrite: OverwriteOption = False,
    threads: ThreadsOption = None,
    scheduler: SchedulerOption = None,
    workers: WorkersOption = None,
    workers_write: WorkersWriteOption = False,
    as_json: JsonOption = False,
    quiet: QuietOption = False,
) -> None:
    """Play DEALS decks between two strategies and print a table per player.

    The dealer alternates with the deal index; with --duplicate (the default) each deck
    is played twice, seats swapped, and the figures are paired by deck.
    """
    summary = HeadToHead()
    with user_errors():
        check_run_options(out, overwrite, workers_write, scheduler, workers)
        config = RunConfig(
            "hands", load_rules(rules, rule), resolve_players(players, param1, param2),
            seed, deals, duplicate, chunk_size,
        )  # fmt: skip
        started = time.perf_counter()
        frames = None
        try:
            with (
                dask_client(scheduler, workers) as client,
                progress_bar(deals, "decks", not (quiet or as_json)) as advance,
            ):
                frames = execute(config, out, overwrite, threads, advance, client, workers_write)
                for frame in frames:
                    summary = summary + HeadToHead.of(frame)
        except KeyboardInterrupt as stop:
            interrupted(out, saved_on_disk(frames, config, out), deals, "decks", stop)
        elapsed = time.perf_counter() - started
    names = (config.players[0].name, config.players[1].name)
    if as_json:
        document = summary.to_json(names) | {"rules": config.rules.name, "seed": seed}
        echo_json(document | ({"out": out} if out else {}))
        return
    caption = f"{summary.hands:,} hands in {elapsed:.1f} s ({summary.hands / elapsed:,.0f} hands/s)"
    if out:
        caption += f"\nrecords in {out}"
    print_head_to_head(summary, names, head_to_head_title(config), caption)


def register(app: typer.Typer) -> None:
    app.command("simulate")(simulate)
