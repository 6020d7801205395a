"""``gin-sim match``: whole Hollywood matches head to head (R19 to R23)."""

from __future__ import annotations

from typing import Annotated

import pandas as pd
import typer
from rich.console import Console
from rich.table import Table

from gin_sim.experiments.runs import RunConfig, execute
from gin_sim.experiments.summary import (
    MATCH_RATE_ROWS,
    margin_quantiles,
    match_length,
    match_summary,
    match_summary_json,
)
from gin_sim.game.config import ConfigError
from gin_sim.game.match_start import parse_start
from gin_sim.game.rules import load_rules
from gin_sim.interfaces.cli import options
from gin_sim.interfaces.cli.common import echo_json, resolve_players, saved_on_disk, user_errors
from gin_sim.interfaces.cli.options import RunOptions, run_options


def _format(name: str, estimate) -> str:
    if name in MATCH_RATE_ROWS:
        return estimate.format(scale=100.0, digits=2, suffix="%")
    return estimate.format(digits=2)


def match_title(config: RunConfig) -> str:
    mode = (
        "duplicate: each match replayed, seats swapped" if config.duplicate else "each match once"
    )
    what = "Hollywood matches"
    if config.start is not None:
        what = "games to the target" if config.start.format == "game" else what
        what += f" {config.start.describe()}"
    return f"{config.count:,} {what} ({mode}), rules {config.rules.name}, seed {config.seed}; 95% intervals"


def print_matches(df: pd.DataFrame, names: tuple[str, str], title: str, caption: str = "") -> None:
    """The summary tables of a match run (also used by ``gin-sim summarize``)."""
    table = Table(title=title, caption=caption)
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
        title=f"final margins of {names[0]} per game (its tally minus the opponent's), quantiles"
    )
    quantiles = margin_quantiles(df, 0)
    margins.add_column("")
    for column in quantiles.columns:
        margins.add_column(column, justify="right")
    for game, row in quantiles.iterrows():
        margins.add_row(str(game), *(f"{v:.0f}" for v in row))
    console.print(margins)


@run_options()
def match(
    rules: options.Rules = "hollywood",
    players: options.Players = "simple,simple",
    matches: options.Matches = 10_000,
    seed: options.Seed = 1,
    rule: options.RuleOverrides = None,
    param1: options.Param1 = None,
    param2: options.Param2 = None,
    game_format: Annotated[
        str,
        typer.Option(
            "--format",
            help="hollywood: three games at once (R19 to R23); game: one game to the target alone (game 1's column: R17 hand scores, R20).",
        ),
    ] = "hollywood",
    start: Annotated[
        str | None,
        typer.Option(
            help="The score state every match starts from, player 1 first. --format game: P1:P2 (e.g. 80:40). hollywood: one P1:P2 column per game, in order (e.g. 80:40,30:0,0:0; columns left out are 0:0). A score at the target means that game has ended, won by that player (R20); a player has entered a game where a hand was credited (R19). A score may carry its hand count, 80/3 (entries of 0 points, R23 box bonuses); without it, the fewest hands that make the columns. States no match can reach are errors. Default: 0 everywhere."
        ),
    ] = None,
    first_dealer: Annotated[
        int | None,
        typer.Option(
            help="Who deals the first hand, 1 or 2 (player 1 or player 2); default: drawn at random for each match (R5)."
        ),
    ] = None,
    duplicate: Annotated[
        bool | None,
        typer.Option(
            help="Replay every match's deck sequence with the strategies' seats swapped (the first dealer's seat stays, so the other strategy deals first; a --start score stays with its player); pair by match. Default: on, off with --first-dealer (the dealer stays with its player, so a replay would deal every strategy the same cards again)."
        ),
    ] = None,
    with_hands: Annotated[
        bool, typer.Option(help="With --out, also keep every hand of every match.")
    ] = False,
    chunk_size: options.ChunkSize = 50_000,
    *,
    run: RunOptions,
) -> None:
    """Play MATCHES Hollywood matches (three games to the game target at once), or plain
    games to the target (--format game), from the start or from any score (--start).

    Example: `gin-sim match --rules standard --players expert,simple --matches 10000 --seed 3`
    """
    frames: list[pd.DataFrame] = []
    with user_errors():
        run.check(with_hands)
        if duplicate and first_dealer is not None:
            raise ConfigError(
                "--duplicate with --first-dealer: the first dealer stays with its player, so the replay would deal every strategy the same cards again; leave out --duplicate"
            )
        duplicate = first_dealer is None if duplicate is None else duplicate
        rule_set = load_rules(rules, rule)
        start_state = None
        if (start, first_dealer, game_format) != (None, None, "hollywood"):
            start_state = parse_start(start, game_format, first_dealer, rule_set)
        config = RunConfig(
            "matches", rule_set, resolve_players(players, param1, param2),
            seed, matches, duplicate, chunk_size, with_hands, start_state,
        )  # fmt: skip
        elapsed = run.play(
            lambda advance, client: execute(
                config, run.out, run.overwrite, run.threads, advance, client, run.workers_write
            ),
            frames.append, lambda chunks: saved_on_disk(chunks, config, run.out), matches,
            "matches",
        )  # fmt: skip
    df = pd.concat(frames, ignore_index=True)
    names = (config.players[0].name, config.players[1].name)
    if run.as_json:
        document = match_summary_json(df, names) | {"rules": config.rules.name, "seed": seed}
        if config.start is not None:
            document["start"] = config.start.to_json()
        echo_json(document | ({"out": run.out} if run.out else {}))
        return
    caption = f"{len(df):,} matches in {elapsed:.1f} s ({len(df) / elapsed:,.0f} matches/s)"
    records = f"\nrecords in {run.out}" if run.out else ""
    print_matches(df, names, match_title(config), caption + records)


def register(app: typer.Typer) -> None:
    app.command("match")(match)
