"""``gin-sim card``: the strategy card of each rule set of an advice report (issue 43;
docs/card.md), printed, as JSON, or written as printable pages."""

from __future__ import annotations

from typing import Annotated

import typer

from gin_sim.experiments.distill import ADVISED_CHECK_DECKS, ADVISED_CHECK_SEED
from gin_sim.game.limits import check_count, check_seed
from gin_sim.interfaces.cli import options
from gin_sim.interfaces.cli.common import echo_json, user_errors

PUBLISHED_REPORT = "docs/advice-run"
MAX_ADVISED_DECKS = 10_000_000


def card(
    report: Annotated[
        str,
        typer.Argument(
            help="A finished `gin-sim report advice` folder (default: the published run, "
            "docs/advice-run, from the repository's folder)."
        ),
    ] = PUBLISHED_REPORT,
    rules: options.RuleSets = None,  # type: ignore[assignment]
    out: options.ReportOut = None,  # type: ignore[assignment]
    json_output: options.Json = False,
    advised_decks: Annotated[
        int,
        typer.Option(
            help="Duplicate decks on which the shipped `advised` plays `expert` under each "
            "rule set, for the card's last line (0: leave it out)."
        ),
    ] = ADVISED_CHECK_DECKS,
    advised_seed: Annotated[
        int, typer.Option(help="Seed of those decks (one used for no choice).")
    ] = ADVISED_CHECK_SEED,
    threads: options.Threads = None,
) -> None:
    """The strategy card of each rule set of an advice report: when to knock and when to
    take a discard, one verdict a cell, the close calls marked, with rules of thumb derived
    from the cells.

    Example: `gin-sim card docs/advice-run --rules hollywood`
    """
    from gin_sim.experiments.simulate import use_threads
    from gin_sim.reports.build import with_advised, write_cards
    from gin_sim.reports.card import card_json, card_markdown, read_cards

    with user_errors():
        if advised_decks:
            check_count(advised_decks, "advised decks", 2, MAX_ADVISED_DECKS)
        check_seed(advised_seed)
        names = _names(rules)
        use_threads(threads)
        if out is not None:
            folder = write_cards(report, names, advised_decks, advised_seed, out)
            typer.echo(f"cards: {folder}/report.md (card-RULES.png, .svg, .md, .json)")
            return
        cards = with_advised(read_cards(report, names), advised_decks, advised_seed)
    if json_output:
        echo_json([card_json(one) for one in cards])
    else:
        typer.echo("\n".join(card_markdown(one) for one in cards))


def _names(text: str | None) -> list[str]:
    from gin_sim.game.config import ConfigError

    if text is None:
        return []
    names = [name.strip() for name in text.split(",")]
    if not all(names):
        raise ConfigError(f"rules {text!r}: allowed rule set names separated by single commas")
    if len(set(names)) != len(names):
        raise ConfigError(f"rules {text!r}: a rule set is named twice; allowed each once")
    return names


def register(app: typer.Typer) -> None:
    app.command("card")(card)
