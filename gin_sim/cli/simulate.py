"""``gin-sim simulate``: play many deals head to head and print a table per player."""

from __future__ import annotations

import json
import sys
import time
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table

from gin_sim.cli.common import user_errors
from gin_sim.rules import load_rules
from gin_sim.simulate import head_to_head
from gin_sim.strategies import load_strategy, parse_players
from gin_sim.summary import (
    format_estimate,
    hand_summary,
    is_duplicate,
    player_summary,
    summary_json,
    variance_reduction,
)


def simulate(
    rules: Annotated[str, typer.Option(help="A named rule set or a TOML file.")] = "hollywood",
    players: Annotated[
        str, typer.Option(help="Two strategies (names or TOML files), comma-separated.")
    ] = "simple,simple",
    deals: Annotated[int, typer.Option(help="Number of decks to play.")] = 100_000,
    seed: Annotated[int, typer.Option(help="Seed: deal i's deck depends only on (seed, i).")] = 1,
    rule: Annotated[
        list[str] | None, typer.Option("--rule", help="Override one rule, key=value (repeatable).")
    ] = None,
    param1: Annotated[
        list[str] | None,
        typer.Option(
            "--param1", help="Override a parameter of player 1's strategy, key=value (repeatable)."
        ),
    ] = None,
    param2: Annotated[
        list[str] | None,
        typer.Option(
            "--param2", help="Override a parameter of player 2's strategy, key=value (repeatable)."
        ),
    ] = None,
    duplicate: Annotated[
        bool,
        typer.Option(help="Play every deck twice with the seats swapped; pair statistics by deck."),
    ] = True,
    threads: Annotated[
        int | None, typer.Option(help="Threads to use (default: all cores).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
) -> None:
    """Play DEALS decks between two strategies and print a table per player.

    The dealer alternates with the deal index; with --duplicate (the default) each deck
    is played twice, seats swapped, and the figures are paired by deck.
    """
    with user_errors():
        rule_set = load_rules(rules, rule)
        first, second = parse_players(players)
        pair = (load_strategy(first, param1), load_strategy(second, param2))
        console = Console(stderr=True)
        show_progress = not (quiet or as_json) and sys.stderr.isatty()
        hands = deals * (2 if duplicate else 1)
        started = time.perf_counter()
        with Progress(
            TextColumn("hands"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeRemainingColumn(),
            console=console,
            disable=not show_progress,
        ) as progress:
            task = progress.add_task("hands", total=hands, rate="")

            def advance(done: int) -> None:
                completed = progress.tasks[0].completed + done
                rate = completed / (time.perf_counter() - started)
                progress.update(task, advance=done, rate=f"{rate:,.0f} hands/s")

            df = head_to_head(
                rule_set, pair, deals, seed, duplicate=duplicate, chunk=max(1, min(deals, 250_000)),
                threads=threads, on_chunk=advance,
            )  # fmt: skip
        elapsed = time.perf_counter() - started
    names = (pair[0].name, pair[1].name)
    if as_json:
        typer.echo(
            json.dumps(summary_json(df, names) | {"rules": rule_set.name, "seed": seed}, indent=2)
        )
        return
    paired = is_duplicate(df)
    mode = "duplicate: each deck twice, seats swapped" if paired else "each deck once"
    caption = f"{len(df):,} hands in {elapsed:.1f} s ({len(df) / elapsed:,.0f} hands/s)"
    if paired:
        caption += (
            f"\npairing by deck cut the variance of net points by {variance_reduction(df):.0%}"
        )
    table = Table(
        title=f"{deals:,} decks ({mode}), rules {rule_set.name}, seed {seed}; 95% intervals",
        caption=caption,
    )
    table.add_column("")
    for number, name in enumerate(names):
        table.add_column(f"player {number + 1}: {name}", justify="right")
    summaries = [player_summary(df, player) for player in (0, 1)]
    for row in summaries[0]:
        table.add_row(row, *(format_estimate(row, s[row]) for s in summaries))
    table.add_section()
    for row, estimate in hand_summary(df).items():
        table.add_row(row + " (all hands)", format_estimate(row, estimate), "")
    Console().print(table)


def register(app: typer.Typer) -> None:
    app.command("simulate")(simulate)
