"""``gin-sim report``: generated strategy reports (knock thresholds, undercut risk, knock
schedules, rule variants, tournaments, equity, advice from strong play), each a folder with
``report.md``, figures and tables."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Annotated

import typer

from gin_sim import reports
from gin_sim.experiments.cluster import dask_client
from gin_sim.experiments.tournament import tournament_runs
from gin_sim.game.config import ConfigError, comma_items
from gin_sim.game.limits import MAX_FINALISTS, check_count, check_seed
from gin_sim.game.rules import load_rules
from gin_sim.interfaces.cli import options
from gin_sim.interfaces.cli.common import (
    SIGINT_EXIT,
    SIGTERM_EXIT,
    Terminated,
    fail,
    progress_bar,
    resolve_keep,
    user_errors,
)
from gin_sim.interfaces.cli.options import RunOptions, run_options
from gin_sim.reports.build import (
    ADVICE_CHECK_POSITIONS,
    ADVICE_COMPARE,
    ADVICE_CONTINUATIONS,
    FAST_STRATEGIES,
    DefaultSet,
    advice_options,
    check_advice,
    check_counts,
    check_equity_counts,
    default_set_options,
    equity_options,
    equity_players,
    finished_report,
    knock_options,
    missing_parts,
    schedule_options,
    shares_positions,
    tournament_options,
    undercut_options,
    variants_options,
    write_advice,
)
from gin_sim.reports.document import check_report_set, is_generated_index, is_report_set
from gin_sim.reports.schedule import check_grid, search_runs
from gin_sim.reports.sweeps import sweep_runs
from gin_sim.reports.warmup import default_set_groups, warming

report_app = typer.Typer(
    help="Generated reports: each a folder with report.md, PNG figures and CSV/Parquet tables.",
    no_args_is_help=True,
)


def _integers(text: str, what: str, example: str) -> list[int]:
    """A comma-separated option of whole numbers, each once (a repeat would hold one phase
    or threshold twice, or fail later as something else): else a one-line ConfigError."""
    items = comma_items(text, what, example)
    try:
        numbers = [int(part) for part in items]
    except ValueError:
        raise ConfigError(
            f"{what} {text!r}: expected whole numbers separated by commas, such as {example}"
        ) from None
    twice = next((n for i, n in enumerate(numbers) if n in numbers[:i]), None)
    if twice is not None:
        raise ConfigError(
            f"{what} {text!r}: {twice} given twice: allowed each number once, such as {example}"
        )
    return numbers


def _run(
    total: int,
    run: RunOptions,
    write: Callable[..., Path | list[Path]],
    kept: str = "",
) -> None:
    """Play and write with a progress bar over runs; print where the report is.

    With ``--scheduler`` or ``--workers`` each variant's runs are Dask tasks.
    """
    started = time.perf_counter()
    with user_errors():
        try:
            with (
                dask_client(run.scheduler, run.workers),
                progress_bar(total, "runs", run.show_progress) as advance,
            ):
                written = write(advance)
        except KeyboardInterrupt as stop:
            terminated = isinstance(stop, Terminated)
            what = "terminated" if terminated else "interrupted"
            fail(f"{what}: the report under way was not written{kept}", exit=False)
            raise typer.Exit(SIGTERM_EXIT if terminated else SIGINT_EXIT) from None
    folders = written if isinstance(written, list) else [written]
    _show(folders, time.perf_counter() - started)


def _show(folders: list[Path], elapsed: float) -> None:
    for folder in folders:
        typer.echo(f"report: {folder / 'report.md'}")
    index = folders[0].parent / "index.md"
    if is_report_set(folders[0].parent) and is_generated_index(index):
        typer.echo(f"index: {index} ({elapsed:.0f} s)")


def _finished(out: str, kind: str, chosen: dict[str, object]) -> bool:
    """What can be refused before anything is played (and before a cluster starts); True,
    with a line saying so, when the same report is already written in ``out``."""
    check_seed(chosen["seed"])  # type: ignore[arg-type]
    if not finished_report(out, kind, chosen):
        return False
    typer.echo(
        f"report: {Path(out) / 'report.md'} (already written by this command: nothing played or rewritten)"
    )
    return True


@report_app.command("knock")
@run_options("quiet", "scheduler", "workers")
def knock(
    out: options.ReportOut,
    rules: options.Rules = "hollywood",
    strategy: options.Strategy = "basic",
    opponent: options.Opponent = "simple",
    deals: options.VariantDeals = 200_000,
    matches: options.VariantMatches = 20_000,
    seed: options.Seed = 1,
    *,
    run: RunOptions,
) -> None:
    """Sweep the knock threshold from 0 (gin only) to the knock limit on the same decks.

    Example: `gin-sim report knock --rules hollywood --opponent simple --deals 200000 --out reports/knock-hollywood`
    """
    with user_errors():
        check_counts(deals, matches)
        if _finished(out, "knock", knock_options(rules, strategy, opponent, deals, matches, seed)):
            return
        total = sweep_runs(load_rules(rules), matches)
    _run(
        total,
        run,
        lambda advance: reports.knock(
            rules, strategy, opponent, deals, matches, seed, out, advance
        ),
    )


@report_app.command("undercut")
@run_options("quiet", "scheduler", "workers")
def undercut(
    out: options.ReportOut,
    rules: options.Rules = "hollywood",
    strategy: options.Strategy = "basic",
    opponent: options.Opponent = "simple",
    deals: options.VariantDeals = 200_000,
    seed: options.Seed = 1,
    *,
    run: RunOptions,
) -> None:
    """Undercut rate by the knocker's deadwood and the cards left in the stock (heat map).

    Example: `gin-sim report undercut --rules hollywood --deals 200000 --out reports/undercut`
    """
    with user_errors():
        check_counts(deals)
        if _finished(out, "undercut", undercut_options(rules, strategy, opponent, deals, seed)):
            return
        total = sweep_runs(load_rules(rules), 0)
    _run(
        total,
        run,
        lambda advance: reports.undercut(rules, strategy, opponent, deals, seed, out, advance),
    )


@report_app.command("variants")
@run_options("quiet", "scheduler", "workers")
def variants(
    out: options.ReportOut,
    rules: options.RuleSets = "hollywood,hollywood-gin20,standard",
    strategy: options.Strategy = "basic",
    opponent: options.Opponent = "simple",
    deals: options.VariantDeals = 200_000,
    matches: options.VariantMatches = 20_000,
    seed: options.Seed = 1,
    *,
    run: RunOptions,
) -> None:
    """The knock sweep under each rule set on the same decks, side by side.

    Example: `gin-sim report variants --rules hollywood,hollywood-gin20,standard --out reports/variants`
    """
    with user_errors():
        check_counts(deals, matches)
        names = _names(rules, "--rules")
        settings = variants_options(names, strategy, opponent, deals, matches, seed)
        if _finished(out, "variants", settings):
            return
        total = sum(sweep_runs(load_rules(name), matches) for name in names)
    _run(
        total,
        run,
        lambda advance: reports.variants(
            names, strategy, opponent, deals, matches, seed, out, advance
        ),
    )


@report_app.command("schedule")
@run_options("quiet", "scheduler", "workers")
def schedule(
    out: options.ReportOut,
    rules: options.Rules = "hollywood",
    strategy: options.Strategy = "basic",
    opponent: options.Opponent = "simple",
    phases: Annotated[
        str, typer.Option(help="Stock sizes where phases start, falling, e.g. 20,10 (3 phases).")
    ] = "20,10",
    thresholds: Annotated[
        str, typer.Option(help="The thresholds each phase may take, e.g. 0,2,4,6,8,10.")
    ] = "0,2,4,6,8,10",
    deals: Annotated[int, typer.Option(help="Screening decks per schedule.")] = 10_000,
    confirm_deals: Annotated[
        int, typer.Option(help="Fresh decks per finalist and single threshold.")
    ] = 100_000,
    finalists: Annotated[int, typer.Option(help="Schedules re-measured on the fresh decks.")] = 8,
    seed: options.Seed = 1,
    *,
    run: RunOptions,
) -> None:
    """Search knock schedules (thresholds by stock depth) by a paired two-stage search.

    Example: `gin-sim report schedule --rules hollywood --phases 20,10 --out reports/schedule`
    """
    with user_errors():
        check_counts(deals)
        check_counts(confirm_deals, what="confirm deals")
        check_count(finalists, "finalists", 1, MAX_FINALISTS)
        stocks, grid = (
            _integers(phases, "--phases", "20,10"),
            _integers(thresholds, "--thresholds", "0,2,4,6,8,10"),
        )
        rule_set = load_rules(rules)
        check_grid(rule_set, stocks, grid)
        settings = schedule_options(
            rules, strategy, opponent, stocks, grid, deals, confirm_deals, finalists, seed
        )
        if _finished(out, "schedule", settings):
            return
        total = search_runs(rule_set, stocks, grid, finalists)
    _run(
        total,
        run,
        lambda advance: reports.schedule(
            rules,
            strategy,
            opponent,
            stocks,
            grid,
            deals,
            confirm_deals,
            finalists,
            seed,
            out,
            advance,
        ),
    )


@report_app.command("tournament")
@run_options("quiet", "scheduler", "workers")
def tournament(
    out: options.ReportOut,
    players: Annotated[
        str, typer.Option(help="Two or more strategies (names or TOML files), comma-separated.")
    ] = ",".join(FAST_STRATEGIES),
    rules: options.RuleSets = "hollywood",
    deals: Annotated[
        int, typer.Option(help="Decks per pairing, each played twice (seats swapped).")
    ] = 100_000,
    matches: Annotated[
        int, typer.Option(help="Hollywood matches per pairing, each played twice; 0 for none.")
    ] = 10_000,
    seed: options.Seed = 1,
    runs: Annotated[
        str | None,
        typer.Option(
            help="Where the pairings' run folders go (default OUT/runs); resumed from there."
        ),
    ] = None,
    overwrite: options.Overwrite = False,
    *,
    run: RunOptions,
) -> None:
    """A round robin: every pair of strategies on the same decks and matches, ranked.

    Example: `gin-sim report tournament --rules hollywood,standard --out reports/tournament`
    """
    with user_errors():
        check_counts(deals, matches)
        player_names = _names(players, "--players", unique=False)  # its own message
        rule_names = _names(rules, "--rules")
        settings = tournament_options(player_names, rule_names, deals, matches, seed, out, runs)
        if _finished(out, "tournament", settings):
            return
        total = tournament_runs(len(rule_names), len(player_names), matches)
    where = runs or str(Path(out) / "runs")
    _run(
        total,
        run,
        lambda advance: reports.tournament(
            player_names, rule_names, deals, matches, seed, out, advance, runs, overwrite
        ),
        f"; the finished chunks of its runs are saved in {where}: run the same command again "
        "to resume",
    )


@report_app.command("equity")
@run_options("quiet")  # played in this process: no Dask options
def equity(
    out: options.ReportOut,
    players: Annotated[
        str,
        typer.Option(
            help='Two strategies A,B (names or TOML files): equities are A\'s, "me", against B.'
        ),
    ] = "expert,expert",
    rules: options.Rules = "hollywood",
    deals: Annotated[
        int,
        typer.Option(
            help="Decks whose hands give the outcome distribution, each played once with each player dealing."
        ),
    ] = 200_000,
    games: Annotated[
        int,
        typer.Option(
            help="Games played with cards from each checked cell of the game table (0: no check)."
        ),
    ] = 4_000,
    matches: Annotated[
        int,
        typer.Option(
            help="Hollywood matches played with cards from each checked match state (0: no check)."
        ),
    ] = 2_000,
    seed: options.Seed = 1,
    *,
    run: RunOptions,
) -> None:
    """Game-to-target and Hollywood match equity tables: the probability of winning from
    every score, with 95% intervals, checked against play from the state.

    Example: `gin-sim report equity --rules hollywood --out reports/equity`
    """
    from gin_sim.experiments.equity import study_steps

    with user_errors():
        player_names = _names(players, "--players", unique=False)
        check_equity_counts(player_names, deals, games, matches)
        equity_players(player_names, rules)  # players that play by the score are refused
        settings = equity_options(player_names, rules, deals, games, matches, seed)
        if _finished(out, "equity", settings):
            return
    _run(
        study_steps(games, matches),
        run,
        lambda advance: reports.equity(
            player_names, rules, deals, games, matches, seed, out, advance
        ),
    )


@report_app.command("advice")
@run_options("quiet", "scheduler", "workers")
def advice(
    out: options.ReportOut,
    rules: options.Rules = "hollywood",
    compare: Annotated[
        str,
        typer.Option(
            help="Rule sets compared with --rules, comma-separated (none: no comparison): the same positions re-evaluated where the knock limit is the same, else their own positions."
        ),
    ] = ",".join(ADVICE_COMPARE),
    players: options.Players = "mc,mc",
    deals: options.PositionDeals = 2000,
    samples: Annotated[int, typer.Option(help="Worlds per evaluated position.")] = 512,
    check_positions: Annotated[
        int,
        typer.Option(
            help="Positions per checked cell played out against the search, each searcher from what it knew there; the difference is split into the policies (play less the search's own rollouts from the same real cards: a wrong opponent model shows here) and the worlds (those rollouts less the search). With the default, 1,000, and 4 continuations, mc against mc under hollywood: a difference of 1.1 to 1.4 points per hand in the whole check, 0.7 to 1.2 in the policies, found with 80% power; a cell not flagged is not shown to agree (docs/advice.md)."
        ),
    ] = ADVICE_CHECK_POSITIONS,
    continuations: Annotated[
        int, typer.Option(help="Hands played out per checked position and action.")
    ] = ADVICE_CONTINUATIONS,
    seed: options.Seed = 1,
    keep: options.Keep = None,
    *,
    run: RunOptions,
) -> None:
    """Advice from strong play: knock or play on, take or draw, undercut risk, across rule
    sets, checked against play; the positions datasets are kept in OUT (rerun to resume).

    Example: `gin-sim report advice --deals 2000 --out reports/advice-hollywood`
    """
    with user_errors():
        compared = [] if compare.strip() == "none" else _names(compare, "--compare")
        pair = _names(players, "--players", unique=False)  # a player against itself
        kept = resolve_keep(keep)
        check_advice(rules, compared, pair, deals, samples, check_positions, continuations)
        settings = advice_options(
            rules, compared, pair, deals, samples, check_positions, continuations, seed, kept
        )
        if _finished(out, "advice", settings):
            return
        own = sum(not shares_positions(rules, name) for name in compared)
    _run(
        deals * (1 + own),
        run,
        lambda advance: write_advice(
            rules,
            compared,
            pair,
            deals,
            samples,
            check_positions,
            continuations,
            seed,
            out,
            advance,
            kept,
        ),
        f"; the finished chunks of its positions are kept in {out}: run the same command "
        "again to resume",
    )


def _names(text: str, what: str, unique: bool = True) -> list[str]:
    return comma_items(text, what, "hollywood,oklahoma", unique=unique)


@report_app.command("default")
@run_options("quiet", "scheduler", "workers")
def default(
    out: options.ReportOut = "reports",
    deals: options.VariantDeals = DefaultSet.deals,
    matches: options.VariantMatches = DefaultSet.matches,
    seed: options.Seed = DefaultSet.seed,
    *,
    run: RunOptions,
) -> None:
    """The default report set of make run (knock, undercut, variants, schedule, tournament, advice).

    Example: `gin-sim report default --out reports`
    """
    with user_errors():
        check_counts(deals, matches)
        check_seed(seed)
        settings = DefaultSet(deals=deals, matches=matches, seed=seed)
        if check_report_set(out, default_set_options(settings)) and not missing_parts(
            Path(out), settings
        ):
            typer.echo(
                f"reports: {out} (already written by this command: nothing played or rewritten)"
            )
            return
        total = settings.runs()
    spent = [0.0, 0.0]

    def show_step(name: str, wall: float, cpu: float) -> None:
        # As it goes, so that a slow machine shows where the time goes (issue 28). CPU is
        # this process's (every thread); Dask workers (--workers) count apart.
        spent[0], spent[1] = spent[0] + wall, spent[1] + cpu
        typer.echo(f"{name}: {wall:.0f} s ({cpu:.0f} s CPU)")

    # What this process reaches last is compiled meanwhile by another (a fresh clone's
    # numba cache is empty: gin_sim.reports.warmup); not for a remote cluster's workers.
    with warming([] if run.scheduler else default_set_groups(settings)):
        _run(
            total,
            run,
            lambda advance: reports.default_set(out, settings, advance, show_step),
        )
    typer.echo(f"total: {spent[0]:.0f} s ({spent[1]:.0f} s CPU in this process)")


def register(app: typer.Typer) -> None:
    app.add_typer(report_app, name="report")
