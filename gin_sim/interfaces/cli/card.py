"""``gin-sim card``: the strategy card of each rule set of an advice report (issue 43;
docs/card.md), printed, as JSON, or written as printable pages."""

from __future__ import annotations

from typing import Annotated

import typer

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
    out: Annotated[
        str | None,
        typer.Option(
            help="Write each card as card-RULES.png, .svg (print), .md and .json into this "
            "folder (new, empty, or cards gin-sim wrote)."
        ),
    ] = None,
    json_output: options.Json = False,
    advised_decks: Annotated[
        int,
        typer.Option(
            help="Duplicate decks on which the shipped `advised` plays `expert` under each "
            "rule set, for the card's last line (0: leave it out)."
        ),
    ] = 100_000,
    advised_seed: Annotated[
        int, typer.Option(help="Seed of those decks (one used for no choice).")
    ] = 4301,
    threads: options.Threads = None,
) -> None:
    """The strategy card of each rule set of an advice report: when to knock and when to
    take a discard, one verdict a cell, the close calls marked, with rules of thumb derived
    from the cells.

    Example: gin-sim card docs/advice-run --rules hollywood
    """
    from gin_sim.experiments.distill import advised_against_expert
    from gin_sim.experiments.simulate import use_threads
    from gin_sim.game.rules import load_rules
    from gin_sim.reports.card import (
        AdvisedGain,
        card_json,
        card_markdown,
        read_cards,
        write_cards,
    )

    with user_errors():
        if advised_decks:
            check_count(advised_decks, "advised decks", 2, MAX_ADVISED_DECKS)
        check_seed(advised_seed)
        names = _names(rules)
        cards = read_cards(report, names)
        if advised_decks:
            use_threads(threads)
            for one in cards:
                gain, same = advised_against_expert(
                    load_rules(one.rules), advised_decks, advised_seed
                )
                one.advised = AdvisedGain(
                    gain.mean, gain.half_width, advised_decks, advised_seed, same
                )
        if out is not None:
            settings = {
                "report": report,
                "rules": ",".join(c.rules for c in cards),
                "advised_decks": advised_decks,
                "advised_seed": advised_seed,
            }
            folder = write_cards(cards, out, settings)
    if json_output:
        echo_json([card_json(one) for one in cards])
    elif out is None:
        typer.echo("\n".join(card_markdown(one) for one in cards))
    else:
        for one in cards:
            typer.echo(f"{one.rules}: {folder}/card-{one.rules}.png (.svg, .md, .json)")


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
