"""``gin-sim positions``: a dataset of decision positions from played hands, evaluated by a
deep search (docs/advice.md)."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated

import pandas as pd
import typer
from rich.console import Console
from rich.table import Table

from gin_sim.experiments.positions import (
    KINDS,
    SUMMARY_COLUMNS,
    Evaluation,
    PositionsConfig,
    PositionSet,
    execute,
    summary_by_kind,
)
from gin_sim.experiments.runs import RunError
from gin_sim.game.config import ConfigError
from gin_sim.game.rules import load_rules
from gin_sim.interfaces.cli import options
from gin_sim.interfaces.cli.common import echo_json, resolve_keep, resolve_players, user_errors
from gin_sim.interfaces.cli.options import RunOptions, run_options


# --workers-write is not an option here: a dataset's chunks are written by this process.
@run_options("out", "overwrite", "threads", "scheduler", "workers", "as_json", "quiet")
def positions(
    rules: options.Rules = "hollywood",
    players: options.Players = "mc,mc",
    deals: options.PositionDeals = 1000,
    seed: options.Seed = 1,
    rule: options.RuleOverrides = None,
    param1: options.Param1 = None,
    param2: options.Param2 = None,
    keep: options.Keep = None,
    evaluate: Annotated[
        bool, typer.Option(help="Evaluate every position's actions by deep search.")
    ] = True,
    samples: Annotated[
        int | None, typer.Option(help="Worlds per evaluated position (default 512).")
    ] = None,
    select: Annotated[
        int | None,
        typer.Option(
            help="After a take: the first worlds, which choose the baseline discard (default 128)."
        ),
    ] = None,
    rollout: Annotated[
        str | None,
        typer.Option(
            help="The family strategy playing the decider's later moves (default expert)."
        ),
    ] = None,
    opponent_model: Annotated[
        str | None,
        typer.Option(
            help="The family strategy playing the opponent and building its hand (default simple)."
        ),
    ] = None,
    infer: Annotated[
        bool | None, typer.Option(help="Infer the opponent's hand from its play (default on).")
    ] = None,
    infer_weight: Annotated[
        float | None,
        typer.Option(help="With --infer: the weight of each contradicted pass (default 0.25)."),
    ] = None,
    chunk_size: options.ChunkSize = 100,
    *,
    run: RunOptions,
) -> None:
    """Play DEALS deals, keep each decision position of a kind (offer, draw, discard, knock)
    with that kind's probability (--keep) and evaluate every action there by deep search;
    print a summary (per decision: rows weighted by 1 / their keep probability).

    Example: `gin-sim positions --players mc,mc --deals 1000 --out runs/positions`
    """
    frames = []
    with user_errors():
        run.check()
        settings = {
            "samples": samples, "select": select, "rollout": rollout,
            "opponent_model": opponent_model, "infer": infer, "infer_weight": infer_weight,
        }  # fmt: skip
        given = {key: value for key, value in settings.items() if value is not None}
        if given and not evaluate:
            option = "--" + next(iter(given)).replace("_", "-")
            raise ConfigError(f"{option} sets the evaluation: drop it or --no-evaluate")
        evaluation = Evaluation(**given) if evaluate else None
        config = PositionsConfig(
            load_rules(rules, rule), resolve_players(players, param1, param2), seed, deals,
            chunk_size, evaluation, resolve_keep(keep),
        )  # fmt: skip

        def keep_summary_columns(chunk: pd.DataFrame) -> None:
            # Only what the summary reads is kept: the positions stay on disk.
            frames.append(chunk[[c for c in SUMMARY_COLUMNS if c in chunk]])

        def saved(chunks) -> int | None:
            if chunks is not None:
                chunks.close()  # waits for the chunk being written
            return _saved(run.out, config)

        elapsed = run.play(
            lambda advance, client: execute(
                config, run.out, run.overwrite, run.threads, advance, client
            ),
            keep_summary_columns, saved, deals, "deals",
        )  # fmt: skip
    frame = pd.concat(frames, ignore_index=True)
    summary = summary_by_kind(frame)
    if run.as_json:
        document = {
            "rules": config.rules.name, "seed": seed, "deals": deals,
            "players": [p.name for p in config.players],
            "evaluation": None if evaluation is None else evaluation.name,
            "keep": dict(zip(KINDS, config.keep, strict=True)),
            "kinds": summary.to_dict(orient="records"),
        }  # fmt: skip
        echo_json(document | ({"out": run.out} if run.out else {}))
        return
    title = f"{len(frame):,} positions from {deals:,} deals of {config.players[0].name} against {config.players[1].name}, rules {config.rules.name}, seed {seed}"
    kept = ", ".join(f"{k} {p:g}" for k, p in zip(KINDS, config.keep, strict=True))
    caption = f"kept with probability {kept}; figures per decision\n{elapsed:.1f} s"
    if evaluation is not None:
        caption = (
            f"evaluation: {evaluation.name}; gain: take over draw, knock over the best discard (95% interval, clustered by deal)\n"
            + caption
        )
    if run.out:
        caption += f"\npositions in {run.out}"
    table = Table(title=title, caption=caption)
    for column in ("kind", "positions", "mean deadwood"):
        table.add_column(column, justify="right")
    if evaluation is not None:
        table.add_column("mean gain [95%]", justify="right")
        table.add_column("played = best", justify="right")
    for row in summary.to_dict(orient="records"):
        cells = [row["kind"], f"{row['positions']:,}", f"{row['mean_deadwood']:.1f}"]
        if evaluation is not None:
            gain = "n/a" if math.isnan(row["gain"]) else f"{row['gain']:+.2f}"
            if not math.isnan(row.get("gain_low", math.nan)):
                gain += f" [{row['gain_low']:+.2f}, {row['gain_high']:+.2f}]"
            cells += [gain, f"{row['played_is_best']:.0%}"]
        table.add_row(*cells)
    Console().print(table)


def _saved(out: str | None, config: PositionsConfig) -> int | None:
    """After an interruption: the deals whose chunks are on disk, if that can be told."""
    if out is None:
        return None
    try:
        return PositionSet(Path(out), config).saved()
    except (RunError, OSError):
        return None


def register(app: typer.Typer) -> None:
    app.command("positions")(positions)
