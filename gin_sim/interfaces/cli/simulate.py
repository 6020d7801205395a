"""``gin-sim simulate``: play many deals head to head and print a table per player."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.console import Console
from rich.table import Table

from gin_sim.experiments.runs import RunConfig, execute
from gin_sim.experiments.summary import HeadToHead, format_estimate
from gin_sim.game.rules import load_rules
from gin_sim.interfaces.cli import options
from gin_sim.interfaces.cli.common import echo_json, resolve_players, saved_on_disk, user_errors
from gin_sim.interfaces.cli.options import RunOptions, run_options


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


@run_options()
def simulate(
    rules: options.Rules = "hollywood",
    players: options.Players = "simple,simple",
    deals: options.Deals = 100_000,
    seed: options.Seed = 1,
    rule: options.RuleOverrides = None,
    param1: options.Param1 = None,
    param2: options.Param2 = None,
    duplicate: Annotated[
        bool,
        typer.Option(help="Play every deck twice with the seats swapped; pair statistics by deck."),
    ] = True,
    # two chunks are in flight at once, so a chunk's size is paid twice in memory
    chunk_size: options.ChunkSize = 200_000,
    *,
    run: RunOptions,
) -> None:
    """Play DEALS decks between two strategies and print a table per player.

    The dealer alternates with the deal index; with --duplicate (the default) each deck
    is played twice, seats swapped, and the figures are paired by deck.

    Example: `gin-sim simulate --players expert,simple --deals 100000 --seed 7 --out runs/expert-simple`
    """
    summary = HeadToHead()
    with user_errors():
        run.check()
        config = RunConfig(
            "hands", load_rules(rules, rule), resolve_players(players, param1, param2),
            seed, deals, duplicate, chunk_size,
        )  # fmt: skip

        def add(frame) -> None:
            nonlocal summary
            summary = summary + HeadToHead.of(frame)

        elapsed = run.play(
            lambda advance, client: execute(
                config, run.out, run.overwrite, run.threads, advance, client, run.workers_write
            ),
            add, lambda frames: saved_on_disk(frames, config, run.out), deals, "decks",
        )  # fmt: skip
    names = (config.players[0].name, config.players[1].name)
    if run.as_json:
        document = summary.to_json(names) | {"rules": config.rules.name, "seed": seed}
        echo_json(document | ({"out": run.out} if run.out else {}))
        return
    caption = f"{summary.hands:,} hands in {elapsed:.1f} s ({summary.hands / elapsed:,.0f} hands/s)"
    if run.out:
        caption += f"\nrecords in {run.out}"
    print_head_to_head(summary, names, head_to_head_title(config), caption)


def register(app: typer.Typer) -> None:
    app.command("simulate")(simulate)
