"""``gin-sim simulate``: play many deals and print a per-player summary table."""

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
from gin_sim.simulate import records_to_frame, simulate_deals
from gin_sim.strategies import parse_players
from gin_sim.summary import format_estimate, hand_summary, player_summary, summary_json


def simulate(
    rules: Annotated[str, typer.Option(help="A named rule set or a TOML file.")] = "hollywood",
    players: Annotated[
        str, typer.Option(help="Two strategies, seat 0 then seat 1.")
    ] = "simple,simple",
    deals: Annotated[int, typer.Option(help="Number of deals to play.")] = 100_000,
    seed: Annotated[int, typer.Option(help="Seed: deal i's deck depends only on (seed, i).")] = 1,
    rule: Annotated[
        list[str] | None, typer.Option("--rule", help="Override one rule, key=value (repeatable).")
    ] = None,
    threads: Annotated[
        int | None, typer.Option(help="Threads to use (default: all cores).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
) -> None:
    """Play DEALS deals between two strategies; the dealer alternates with the deal index."""
    with user_errors():
        rule_set = load_rules(rules, rule)
        pair = parse_players(players)
        console = Console(stderr=True)
        show_progress = not (quiet or as_json) and sys.stderr.isatty()
        chunk = max(1, min(deals, 500_000))
        started = time.perf_counter()
        with Progress(
            TextColumn("deals"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]}"),
            TimeRemainingColumn(),
            console=console,
            disable=not show_progress,
        ) as progress:
            task = progress.add_task("deals", total=deals, rate="")

            def advance(done: int) -> None:
                elapsed = time.perf_counter() - started
                completed = progress.tasks[0].completed + done
                progress.update(task, advance=done, rate=f"{completed / elapsed:,.0f} deals/s")

            records = simulate_deals(
                rule_set, pair, deals, seed, chunk=chunk, threads=threads, on_chunk=advance
            )
        elapsed = time.perf_counter() - started
    df = records_to_frame(records)
    names = (pair[0].name, pair[1].name)
    if as_json:
        typer.echo(
            json.dumps(summary_json(df, names) | {"rules": rule_set.name, "seed": seed}, indent=2)
        )
        return
    out = Console()
    table = Table(
        title=f"{deals:,} deals, rules {rule_set.name}, seed {seed} (95% intervals)",
        caption=f"{elapsed:.1f} s, {deals / elapsed:,.0f} deals/s",
    )
    table.add_column("")
    for seat, name in enumerate(names):
        table.add_column(f"seat {seat}: {name}", justify="right")
    summaries = [player_summary(df, seat) for seat in (0, 1)]
    for row in summaries[0]:
        table.add_row(row, *(format_estimate(row, s[row]) for s in summaries))
    table.add_section()
    for row, estimate in hand_summary(df).items():
        table.add_row(row, format_estimate(row, estimate), "")
    out.print(table)


def register(app: typer.Typer) -> None:
    app.command("simulate")(simulate)
