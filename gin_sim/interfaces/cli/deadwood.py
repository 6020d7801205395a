"""``gin-sim deadwood CARDS``: the minimum deadwood of a hand and an arrangement (R3, R4)."""

from __future__ import annotations

from typing import Annotated

import typer

from gin_sim.game.cards import cards_of, format_card, parse_cards
from gin_sim.interfaces.cli import options
from gin_sim.interfaces.cli.common import echo_json, user_errors


def deadwood(
    cards: Annotated[str, typer.Argument(help='Cards such as "AS 2S 3S 4H 4D 4C 9H TH JH QS".')],
    as_json: options.Json = False,
    all_arrangements: Annotated[
        bool, typer.Option("--all", help="List every minimum-deadwood arrangement.")
    ] = False,
) -> None:
    """Print the minimum deadwood of CARDS and an arrangement that reaches it.

    Example: `gin-sim deadwood "AS 2S 3S 4H 4D 4C 9H TH JH QS"`
    """
    from gin_sim.game.melds import best_arrangement

    with user_errors():
        hand = parse_cards(cards)
        arrangements = (
            best_arrangement(hand, all=True) if all_arrangements else [best_arrangement(hand)]
        )
    if as_json:
        documents = [
            {
                "deadwood": a.deadwood,
                "melds": [[format_card(c) for c in cards_of(m)] for m in a.melds],
                "unmatched": [format_card(c) for c in cards_of(a.unmatched)],
            }
            for a in arrangements
        ]
        echo_json(documents if all_arrangements else documents[0], indent=None)
        return
    typer.echo(f"deadwood: {arrangements[0].deadwood}")
    for number, arrangement in enumerate(arrangements, start=1):
        prefix = f"arrangement {number}: " if all_arrangements else ""
        melds = "  ".join(
            "[" + " ".join(format_card(c) for c in cards_of(m)) + "]" for m in arrangement.melds
        )
        unmatched = " ".join(format_card(c) for c in cards_of(arrangement.unmatched))
        typer.echo(f"{prefix}melds: {melds or '(none)'}   unmatched: {unmatched or '(none)'}")


def register(app: typer.Typer) -> None:
    app.command("deadwood")(deadwood)
