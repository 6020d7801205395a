"""``gin-sim rules`` and ``gin-sim strategies``: what can be named on the command line."""

from __future__ import annotations

import typer
from rich.console import Console
from rich.table import Table

from gin_sim.game.rules import load_rules, named_rules
from gin_sim.interfaces.cli.common import user_errors
from gin_sim.players.strategies import load_strategy, named_strategies


def rules() -> None:
    """List the named rule sets and their parameters (RULES.md).

    Example: `gin-sim rules`
    """
    with user_errors():
        table = Table(title="Rule sets (configs/rules/)")
        table.add_column("name")
        table.add_column("parameters")
        for name in named_rules():
            table.add_row(name, load_rules(name).describe().split(": ", 1)[1])
    Console().print(table)


def strategies() -> None:
    """List the named strategies with their descriptions.

    Example: `gin-sim strategies`
    """
    with user_errors():
        table = Table(title="Strategies (configs/strategies/)")
        table.add_column("name")
        table.add_column("description")
        for name in named_strategies():
            table.add_row(name, load_strategy(name).description)
    Console().print(table)


def register(app: typer.Typer) -> None:
    app.command("rules")(rules)
    app.command("strategies")(strategies)
