"""``gin-sim summarize DIR``: the summary a run printed, recomputed from its files."""

from __future__ import annotations

from typing import Annotated

import pandas as pd
import typer

from gin_sim.experiments.runs import RunError, open_existing, summary_level
from gin_sim.experiments.summary import HeadToHead, match_summary_json
from gin_sim.interfaces.cli import options
from gin_sim.interfaces.cli.common import echo_json, user_errors
from gin_sim.interfaces.cli.match import match_title, print_matches
from gin_sim.interfaces.cli.simulate import head_to_head_title, print_head_to_head


def summarize(
    directory: Annotated[str, typer.Argument(help="A run folder written with --out.")],
    as_json: options.Json = False,
) -> None:
    """Print the summary table of a finished run from its Parquet files.

    Example: `gin-sim summarize runs/expert-simple`
    """
    with user_errors():
        run = open_existing(directory)
        missing = run.missing()
        if missing:
            raise RunError(
                f"{directory} is unfinished: {missing} of {run.config.n_chunks} chunks missing; run the same command again to finish it"
            )
        config = run.config
        names = (config.players[0].name, config.players[1].name)
        if summary_level(config) == "hand":
            summary = HeadToHead()
            for frame in run.chunks("hand"):
                summary = summary + HeadToHead.of(frame)
        else:
            matches = pd.concat(list(run.chunks("match")), ignore_index=True)
    caption = f"from {directory}"
    if summary_level(config) == "hand":
        if as_json:
            echo_json(summary.to_json(names) | {"rules": config.rules.name, "seed": config.seed})
        else:
            print_head_to_head(summary, names, head_to_head_title(config), caption)
    elif as_json:
        echo_json(
            match_summary_json(matches, names) | {"rules": config.rules.name, "seed": config.seed}
        )
    else:
        print_matches(matches, names, match_title(config), caption)


def register(app: typer.Typer) -> None:
    app.command("summarize")(summarize)
