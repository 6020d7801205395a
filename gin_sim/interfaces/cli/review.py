"""``gin-sim review``: every decision of a game valued against the best one, marked, and
summed up (docs/review.md)."""

from __future__ import annotations

from typing import Annotated

import typer

from gin_sim.experiments.review import DEFAULT_DEPTH
from gin_sim.game.config import ConfigError
from gin_sim.interfaces.cli import options
from gin_sim.interfaces.cli.common import (
    echo_json,
    given_options,
    progress_bar,
    resolve_players,
    user_errors,
)

# Options that a record (RECORD) makes meaningless: it holds its own deals, players, rules.
RECORD_IGNORES = ("seed", "deal", "hands", "rules", "players", "rule", "param1", "param2")
MAX_HANDS = 10_000


def review(
    context: typer.Context,
    record: Annotated[
        str | None,
        typer.Argument(help="A game saved by gin-sim play --save (a hand, game or match)."),
    ] = None,
    seed: Annotated[
        int | None, typer.Option(help="Instead of a record: the seed of a run's deal.")
    ] = None,
    deal: Annotated[
        int | None, typer.Option(help="The index of the deal in that run (its dealer is deal % 2).")
    ] = None,
    hands: Annotated[
        int, typer.Option(help="With --seed/--deal: review this many deals from --deal on.")
    ] = 1,
    rules: options.Rules = "hollywood",
    players: options.Players = "simple,simple",
    rule: options.RuleOverrides = None,
    param1: options.Param1 = None,
    param2: options.Param2 = None,
    player: Annotated[
        str | None,
        typer.Option(
            help="Whose decisions: 1, 2, both, or a player's name (default: the person of a"
            " play record; both for a run's deal)."
        ),
    ] = None,
    depth: Annotated[
        int,
        typer.Option(
            help="Worlds each decision's actions are valued in (fewer: a faster, rougher look)."
        ),
    ] = DEFAULT_DEPTH,
    every: Annotated[
        bool, typer.Option("--all", help="Show every decision's candidates, not only the marked.")
    ] = False,
    as_json: options.Json = False,
    out: options.ReportOut = None,  # type: ignore[assignment]
    threads: options.Threads = None,
    quiet: options.Quiet = False,
    scale: Annotated[
        int | None,
        typer.Option(
            help="Measure the scale instead: the error rates of the named strategies, each"
            " playing this many deals of --seed against expert (docs/review.md)."
        ),
    ] = None,
) -> None:
    """Review a game like a coach: each decision's actions valued by a deep search from what
    its player saw, the move played against the best, marks (inaccuracy, mistake, blunder)
    and the error rate.

    Example: `gin-sim review --seed 7 --deal 0 --players random,mc`
    """
    from gin_sim.experiments.review import (
        ReviewSettings,
        decisions_to_review,
        review_game,
    )
    from gin_sim.experiments.simulate import use_threads
    from gin_sim.game.limits import check_count, check_index, check_seed
    from gin_sim.game.rules import load_rules
    from gin_sim.interfaces.review import (
        parse_player,
        record_source,
        review_json,
        review_lines,
        simulated_source,
    )

    with user_errors():
        settings = ReviewSettings(depth=depth)
        if scale is not None:
            _scale(
                context, record, scale, seed, rules, rule, settings, out, as_json, threads, quiet
            )
            return
        if record is not None:
            ignored = given_options(context, RECORD_IGNORES)
            if ignored:
                raise ConfigError(
                    f"a record holds its own game (deals, players, rules): drop {ignored[0]}"
                )
            command = _command(record, None, player, depth, out)
            if out is not None:
                _check_out(out, record, command)
            source = record_source(record)
        else:
            if seed is None or deal is None:
                raise ConfigError(
                    "review needs a record (gin-sim play --save) or --seed and --deal of a run"
                )
            check_seed(seed)
            check_index(deal, "--deal")
            check_count(hands, "--hands", 1, MAX_HANDS)
            rule_set = load_rules(rules, rule)
            pair = resolve_players(players, param1, param2)
            for strategy in pair:
                strategy.for_rules(rule_set)
            command = _command(
                None, f"--seed {seed} --deal {deal} --hands {hands} --players {players}"
                f" --rules {rules}" + "".join(f" --rule {r}" for r in rule or []),
                player, depth, out,
            )  # fmt: skip
            if out is not None:
                _check_out(out, None, command)
            source = simulated_source(seed, deal, hands, rule_set, pair)
        seats = parse_player(player, source)
        use_threads(threads)
        total = decisions_to_review(source.hands, seats)
        if total == 0:
            who = " and ".join(f"player {seat + 1}" for seat in seats)
            raise ConfigError(f"{who} made no decision in this game: nothing to review")
        with progress_bar(total, "decisions", not quiet and total > 50) as advance:
            review = review_game(
                source.hands, source.rules, settings, source.seed, seats,
                source.game_format, advance,
            )  # fmt: skip
        if out is not None:
            from gin_sim.interfaces.review import write_review

            folder = write_review(review, source, out, command)
            typer.echo(f"review: {folder}/report.md")
            return
    if as_json:
        echo_json(review_json(review, source))
    else:
        typer.echo("\n".join(review_lines(review, source, every)))


SCALE_IGNORES = ("deal", "hands", "players", "param1", "param2", "player", "every")
SCALE_SEED = 45301  # the published scale's; no choice was made on it


def _scale(context, record, deals, seed, rules, rule, settings, out, as_json, threads, quiet):
    """``--scale``: the named strategies' error rates on the same deals, their points per
    hand against the opponent on those deals, and how well the two orders agree."""
    from gin_sim.experiments.review import (
        SCALE_OPPONENT,
        SCALE_STRATEGIES,
        measure_scale,
        scale_table,
    )
    from gin_sim.experiments.simulate import use_threads
    from gin_sim.game.limits import check_count, check_seed
    from gin_sim.game.rules import load_rules

    ignored = given_options(context, SCALE_IGNORES)
    if record is not None or ignored:
        raise ConfigError(
            f"--scale plays its own deals: drop {ignored[0] if ignored else 'the record'}"
        )
    check_count(deals, "--scale", 2, 100_000)
    seed = check_seed(SCALE_SEED if seed is None else seed)
    rule_set = load_rules(rules, rule)
    command = (
        f"gin-sim review --scale {deals} --seed {seed} --rules {rules}"
        + "".join(f" --rule {r}" for r in rule or [])
        + f" --depth {settings.depth}"
        + (f" --out {out}" if out is not None else "")
    )
    if out is not None:
        _check_out(out, None, command)
    use_threads(threads)
    total = deals * (1 + len(SCALE_STRATEGIES))  # the positions valued, then each one's hands
    with progress_bar(total, "deals", not quiet) as advance:
        frame = measure_scale(
            rule_set, SCALE_STRATEGIES, SCALE_OPPONENT, seed, deals, settings, advance
        )
    table, agreement = scale_table(frame, seed=seed)
    if out is not None:
        from gin_sim.interfaces.review import write_scale

        folder = write_scale(table, agreement, frame, out, command, settings, SCALE_OPPONENT)
        typer.echo(f"scale: {folder}/report.md (review-scale.csv)")
        return
    if as_json:
        echo_json({"scale": table.to_dict(orient="records"), "agreement": agreement})
        return
    from gin_sim.interfaces.review import scale_lines

    typer.echo("\n".join(scale_lines(table, agreement, SCALE_OPPONENT)))


def _check_out(out: str, record: str | None, command: str) -> None:
    """Refuse, before anything is valued, a folder the review may not write."""
    from pathlib import Path

    from gin_sim.reports.document import check_report_folder

    if record is not None and Path(out).resolve() == Path(record).resolve():
        raise ConfigError(f"--out {out} is the record: give a folder for the report")
    check_report_folder(out, "review", {"command": command})


def _command(
    record: str | None, deal: str | None, player: str | None, depth: int, out: str | None
) -> str:
    """The command that makes the report again (its options: the folder's owner record)."""
    import shlex

    parts = ["gin-sim review", shlex.quote(record) if record is not None else str(deal)]
    if player is not None:
        parts.append(f"--player {shlex.quote(player)}")
    parts.append(f"--depth {depth}")
    if out is not None:
        parts.append(f"--out {shlex.quote(str(out))}")
    return " ".join(parts)


def register(app: typer.Typer) -> None:
    app.command("review")(review)
