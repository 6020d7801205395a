"""``gin-sim distill``: a family strategy from an advice report's tables, each change the
tables propose kept only if it wins in the family's own play (docs/advice.md, "The
distilled strategy")."""

from __future__ import annotations

import os
import secrets
from pathlib import Path
from typing import Annotated

import typer

from gin_sim.game.config import ConfigError, read_user_file
from gin_sim.game.limits import check_count, check_seed
from gin_sim.interfaces.cli import options
from gin_sim.interfaces.cli.common import progress_bar, user_errors

# Decks per checked proposal: each is played twice (seats swapped).
MAX_DISTILL_DEALS = 10_000_000


def distill(
    report: Annotated[str, typer.Argument(help="A finished `gin-sim report advice` folder.")],
    out: Annotated[
        str, typer.Option(help="The strategy TOML file to write (a new file, or --overwrite).")
    ],
    deals: Annotated[
        int,
        typer.Option(help="Duplicate decks on which each proposal is played against the base."),
    ] = 100_000,
    seed: options.Seed = 1,
    base: Annotated[
        str, typer.Option(help="The family strategy the changes are made to.")
    ] = "expert",
    overwrite: Annotated[bool, typer.Option(help="Replace the file --out.")] = False,
    threads: options.Threads = None,
    quiet: options.Quiet = False,
) -> None:
    """Distil an advice report's tables into a family strategy: every change the tables
    propose (knock lines per rule set, the take rule) is played against the base and kept
    only if it wins there; writes the strategy as TOML with what was measured. The seed's
    decks decide what is kept: confirm the result on another seed.

    Example: `gin-sim distill reports/advice-hollywood --seed 9611 --out advised.toml`
    """
    from gin_sim.experiments.distill import distill as build
    from gin_sim.experiments.distill import proposals_of_report

    with user_errors():
        check_count(deals, "deals", 2, MAX_DISTILL_DEALS)
        check_seed(seed)
        path = Path(out)
        exists = path.exists() or path.is_symlink()
        # Checked before --overwrite is advised: --overwrite replaces only a regular file.
        if exists and (path.is_symlink() or not path.is_file()):
            raise ConfigError(
                f"--out {out} is not a regular file (a folder, a device or a link): allowed a new file's path, or a strategy distill wrote with --overwrite"
            )
        if exists and not overwrite:
            raise ConfigError(f"{out} exists: give --overwrite to replace it, or another --out")
        if exists:
            _check_replaceable(path)
        if not path.parent.is_dir():
            raise ConfigError(f"the folder of {out} does not exist: create it first")
        # A bad folder or base is refused before anything is played.
        total = len(proposals_of_report(report, base))
        with progress_bar(total, "proposals", not quiet) as advance:
            strategy, checked, text = build(report, deals, seed, base, threads, advance)
        temporary = path.parent / f".{path.name}.{secrets.token_hex(6)}.tmp"
        try:
            temporary.write_text(text)
            os.replace(temporary, path)
        finally:
            temporary.unlink(missing_ok=True)
    for c in checked:
        verdict = "kept" if c.kept else "not kept"
        typer.echo(
            f"{c.proposal.describe()}: under {c.proposal.rules} "
            f"{c.gain.mean:+.3f} ± {c.gain.half_width:.3f} per hand, {verdict}"
        )
    if not checked:
        typer.echo("the tables propose no change to how the base plays")
    typer.echo(f"strategy {strategy.name}: {out}")


def _check_replaceable(path: Path) -> None:
    """``--overwrite`` replaces only a strategy that distill wrote (its first comment line
    says so), never a user's file (a hand-written strategy, a shipped one)."""
    from gin_sim.experiments.distill import DISTILLED_HEADER

    try:
        head = read_user_file(path, 1 << 20)[: len(DISTILLED_HEADER)]
    except OSError as error:
        raise ConfigError(f"--out {path}: {error.strerror or error}") from None
    if path.is_symlink() or head != DISTILLED_HEADER.encode():
        raise ConfigError(
            f"--out {path} is not a strategy gin-sim distill wrote: --overwrite replaces only gin-sim's own files; give another --out"
        )


def register(app: typer.Typer) -> None:
    app.command("distill")(distill)
