"""``gin-sim match``: whole Hollywood matches head to head (R19 to R23)."""

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
from gin_sim.simulate import head_to_head_matches
from gin_sim.strategies import load_strategy, parse_players
from gin_sim.summary import (
    MATCH_RATE_ROWS,
    margin_quantiles,
    match_length,
    match_summary,
    match_summary_json,
)


def _format(name: str, estimate) -> str:
    if name in MATCH_RATE_ROWS:
        return estimate.format(scale=100.0, digits=2, suffix="%")
    return estimate.format(digits=2)


def match(
    rules: Annotated[str, typer.Option(help="A named rule set or a TOML file.")] = "hollywood",
    players: Annotated[
        str, typer.Option(help="Two strategies (names or TOML files), comma-separated.")
    ] = "simple,simple",
    matches: Annotated[int, typer.Option(help="Number of matches to play.")] = 10_000,
    seed: Annotated[int, typer.Option(help="Seed: match m depends only on (seed, m).")] = 1,
    rule: Annotated[
        list[str] | None, typer.Option("--rule", help="Override one rule, key=value (repeatable).")
    ] = None,
    param1: Annotated[
        list[str] | None,
        typer.Option("--param1", help="Override a parameter of player 1's strategy."),
    ] = None,
    param2: Annotated[
        list[str] | None,
        typer.Option("--param2", help="Override a parameter of player 2's strategy."),
    ] = None,
    duplicate: Annotated[
        bool,
        typer.Option(help="Replay every match with seats and first dealer swapped; pair by match."),
    ] = True,
    threads: Annotated[
        int | None, typer.Option(help="Threads to use (default: all cores).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the summary as JSON.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", help="No progress bar.")] = False,
) -> None:
    """Play MATCHES Hollywood matches (three games to the game target at once)."""
    with user_errors():
        rule_set = load_rules(rules, rule)
        first, second = parse_players(players)
        pair = (load_strategy(first, param1), load_strategy(second, param2))
        show_progress = not (quiet or as_json) and sys.stderr.isatty()
        started = time.perf_counter()
        with Progress(
            TextColumn("matches"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
            console=Console(stderr=True), disable=not show_progress,
        ) as progress:  # fmt: skip
            task = progress.add_task("matches", total=matches * (2 if duplicate else 1))
            df, _ = head_to_head_matches(
                rule_set, pair, matches, seed, duplicate=duplicate, chunk=max(1, min(matches, 20_000)),
                threads=threads, on_chunk=lambda done: progress.update(task, advance=done),
            )  # fmt: skip
        elapsed = time.perf_counter() - started
    names = (pair[0].name, pair[1].name)
    if as_json:
        document = match_summary_json(df, names) | {"rules": rule_set.name, "seed": seed}
        typer.echo(json.dumps(document, indent=2))
        return
    mode = "duplicate: each match replayed, seats swapped" if duplicate else "each match once"
    table = Table(
        title=f"{matches:,} Hollywood matches ({mode}), rules {rule_set.name}, seed {seed}; 95% intervals",
        caption=f"{len(df):,} matches in {elapsed:.1f} s ({len(df) / elapsed:,.0f} matches/s)",
    )
    table.add_column("")
    for number, name in enumerate(names):
        table.add_column(f"player {number + 1}: {name}", justify="right")
    summaries = [match_summary(df, p) for p in (0, 1)]
    for row in summaries[0]:
        table.add_row(row, *(_format(row, s[row]) for s in summaries))
    table.add_section()
    for row, estimate in match_length(df).items():
        table.add_row(row, _format(row, estimate), "")
    console = Console()
    console.print(table)
    margins = Table(
        title=f"final margins of {names[0]} per game (tally minus the opponent's), quantiles"
    )
    quantiles = margin_quantiles(df, 0)
    margins.add_column("")
    for column in quantiles.columns:
        margins.add_column(column, justify="right")
    for game, row in quantiles.iterrows():
        margins.add_row(str(game), *(f"{v:.0f}" for v in row))
    console.print(margins)


def register(app: typer.Typer) -> None:
    app.command("match")(match)
