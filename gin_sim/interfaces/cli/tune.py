"""``gin-sim tune``: search a strategy's parameters with Optuna, confirm on holdout decks."""

from __future__ import annotations

import shlex
import time
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from gin_sim.experiments.tuner import (
    OBJECTIVES,
    WINNER,
    claim_tuning,
    confirm,
    importances,
    optimise,
    settings_from,
    strategy_toml,
    top_candidates,
    trials_table,
)
from gin_sim.game.config import MAX_NAME, comma_items
from gin_sim.game.limits import (
    MAX_FINALISTS,
    MAX_REPORT_DEALS,
    MAX_REPORT_MATCHES,
    MAX_TRIALS,
    check_count,
)
from gin_sim.game.rules import load_rules
from gin_sim.interfaces.cli import options
from gin_sim.interfaces.cli.common import (
    SIGINT_EXIT,
    SIGTERM_EXIT,
    Terminated,
    fail,
    progress_bar,
    user_errors,
)
from gin_sim.players.strategies import load_strategy
from gin_sim.reports.document import write_report
from gin_sim.reports.tune import tune_report


def tune(
    out: Annotated[
        str, typer.Option(help="The tuning folder: study, configuration, report, best.toml.")
    ],
    space: Annotated[
        str,
        typer.Option(
            help="Parameters to search, e.g. knock_threshold=0:10,undercut_risk=0.0:1.0 "
            "(whole numbers give whole numbers); knock_schedule=20/10@0:10 and "
            "take_schedule=20/10@0:10 for schedules by stock depth."
        ),
    ],
    strategy: Annotated[
        str, typer.Option(help="The starting strategy (name or TOML file).")
    ] = "expert",
    opponents: Annotated[
        str, typer.Option(help="One or more opponents (names or TOML files), equally weighted.")
    ] = "simple",
    rules: options.Rules = "hollywood",
    objective: Annotated[
        str, typer.Option(help="deals: net points per hand; matches: Hollywood match win rate.")
    ] = "deals",
    trials: Annotated[int, typer.Option(help="Finished trials to reach (a rerun resumes).")] = 100,
    deals: Annotated[
        int | None,
        typer.Option(
            help="Tuning decks per trial and opponent (objective deals) [default: 20000]."
        ),
    ] = None,
    matches: Annotated[
        int | None,
        typer.Option(
            help="Tuning matches per trial and opponent (objective matches) [default: 2000]."
        ),
    ] = None,
    blocks: Annotated[
        int, typer.Option(help="Blocks of the tuning decks; weak trials stop early.")
    ] = 8,
    top: Annotated[int, typer.Option(help="Best trials confirmed on holdout decks.")] = 5,
    holdout: Annotated[
        int, typer.Option(help="Holdout decks (or matches, objective matches) per candidate.")
    ] = 50_000,
    seed: options.Seed = 1,
    quiet: options.Quiet = False,
) -> None:
    """Search the parameters of STRATEGY against OPPONENTS; write the report and best.toml.
    The seed draws the tuning decks and the sampler's choices.

    Example: `gin-sim tune --strategy expert --space "knock_threshold=0:10" --opponents simple --trials 50 --out runs/tune-expert`
    """
    started = time.perf_counter()
    with user_errors():
        if objective not in OBJECTIVES:
            fail(f"objective {objective!r}: allowed {', '.join(OBJECTIVES)}")
        # The count of the other objective would do nothing.
        if objective == "deals" and matches is not None:
            fail("--matches applies to --objective matches: drop it, or add --objective matches")
        if objective == "matches" and deals is not None:
            fail(
                "--deals applies to --objective deals (the default): drop it with --objective matches"
            )
        check_count(top, "top", 1, MAX_FINALISTS)
        check_count(trials, "trials", 1, MAX_TRIALS)
        check_count(holdout, "holdout", 2, MAX_REPORT_DEALS)
        check_count(blocks, "blocks", 1, MAX_FINALISTS)
        counts = {key: n for key, n in (("deals", deals), ("matches", matches)) if n is not None}
        if deals is not None:
            check_count(deals, "deals", 1, MAX_REPORT_DEALS)
        if matches is not None:
            check_count(matches, "matches", 1, MAX_REPORT_MATCHES)
        rule_set = load_rules(rules)
        opponent_list = [
            load_strategy(n) for n in comma_items(opponents, "--opponents", "simple,expert")
        ]
        settings = settings_from(
            load_strategy(strategy), space, opponent_list, rule_set,
            objective=objective, blocks=blocks, seed=seed, **counts,
        )  # fmt: skip
        if holdout < 2:
            fail(f"holdout = {holdout}: allowed 2 or more")
        winner_path = Path(out) / WINNER
        with claim_tuning(settings, out, trials, top, holdout) as claim:
            if claim.finished:  # this very command finished here: show it, touch nothing
                typer.echo(
                    f"report: {Path(out) / 'report.md'} (already written by this command: "
                    "nothing played or rewritten)"
                )
                typer.echo(f"winner: {winner_path}")
                return
            try:
                with progress_bar(trials, "trials", not quiet) as advance:
                    study = optimise(settings, out, trials, advance)
                with progress_bar(top + 1, "holdout", not quiet) as advance:
                    confirmation = confirm(
                        settings, top_candidates(study, settings, top), holdout, advance
                    )
            except KeyboardInterrupt as stop:
                terminated = isinstance(stop, Terminated)
                # Worded as every command's interruption (cli.common.interrupted): not an error.
                typer.echo(
                    f"{'terminated' if terminated else 'interrupted'}; the finished trials are "
                    f"saved in {Path(out) / 'study.db'}: run the same command again to resume",
                    err=True,
                )
                raise typer.Exit(SIGTERM_EXIT if terminated else SIGINT_EXIT) from None
            table = trials_table(study, settings)
            importance, method = importances(study)
            winner = confirmation.winner
            suffix = "-tuned"  # the name stays within MAX_NAME, whatever the original's length
            name = f"{settings.strategy.name[: MAX_NAME - len(suffix)]}{suffix}"
            winner = replace(
                winner,  # type: ignore[arg-type]
                name=name,
                description=f"{settings.strategy.name} tuned under {settings.rules.name} against "
                f"{', '.join(o.name for o in settings.opponents)} (gin-sim tune).",
            )
            words = [
                f"--strategy {shlex.quote(strategy)}",
                f"--space {shlex.quote(settings.space.text)}",
                f"--opponents {shlex.quote(','.join(n.strip() for n in opponents.split(',') if n.strip()))}",
                f"--rules {shlex.quote(rules)}",
                f"--objective {objective}",
                f"--trials {trials}",
                f"--deals {settings.deals}"
                if objective == "deals"
                else f"--matches {settings.matches}",
                f"--blocks {blocks}",
                f"--top {top}",
                f"--holdout {holdout}",
                f"--seed {seed}",
                f"--out {shlex.quote(out)}",
            ]
            command = "gin-sim tune " + " ".join(words)
            text = strategy_toml(
                winner,
                [
                    f"Tuned by: {command}",
                    f"Under rules {settings.rules.name} against {', '.join(o.name for o in settings.opponents)}; "
                    "see report.md beside this file for its confirmation.",
                ],
            )
            winner_path.write_text(text)
            load_strategy(str(winner_path))  # the file must load as written
            folder = write_report(
                tune_report(
                    settings,
                    table,
                    importance,
                    method,
                    confirmation,
                    text,
                    str(winner_path),
                    command,
                ),
                claim,
            )
    typer.echo(f"report: {folder / 'report.md'}")
    typer.echo(f"winner: {winner_path} ({time.perf_counter() - started:.0f} s)")


def register(app: typer.Typer) -> None:
    app.command("tune")(tune)
