"""``gin-sim play``: a game at the terminal against any strategy, saved as a record ``replay`` shows."""

from __future__ import annotations

import secrets
import sys
from pathlib import Path
from typing import Annotated

import typer

from gin_sim.game.config import ConfigError
from gin_sim.interfaces.cli import options
from gin_sim.interfaces.cli.common import stopped, user_errors


def _read_line(prompt: str) -> str | None:
    """A line of your input after ``prompt``; None at the end of the input. Input from a
    pipe is echoed, so that the game reads as it was played."""
    typer.echo(prompt, nl=False)
    sys.stdout.flush()
    line = sys.stdin.readline()
    if not line:
        typer.echo("")
        return None
    if not sys.stdin.isatty():
        typer.echo(line.rstrip("\n"))
    return line


def play(
    opponent: Annotated[
        str, typer.Option(help="The strategy you play against (a name or a TOML file).")
    ] = "mc",
    rules: options.Rules = "hollywood",
    rule: options.RuleOverrides = None,
    game_format: Annotated[
        str,
        typer.Option(
            "--format", help="hand (one hand), game (to the target, R20) or hollywood (R19 to R23)."
        ),
    ] = "game",
    seed: Annotated[
        int | None, typer.Option(help="The deals' seed (default: a new one, shown at the start).")
    ] = None,
    hints: Annotated[
        str | None,
        typer.Option(help="A strategy that says what it would do at each of your decisions."),
    ] = None,
    save: Annotated[
        str | None,
        typer.Option(
            help="Save the game (after every hand) as a record: gin-sim replay --record FILE."
        ),
    ] = None,
    tutor: Annotated[
        bool,
        typer.Option(
            "--tutor",
            help="Before a move the review would mark a mistake or a blunder, say so with the"
            " better move and ask to confirm.",
        ),
    ] = False,
) -> None:
    """Play Gin against a strategy at the terminal (or through a pipe, one move a line).

    Moves: t/take, p/pass, d/draw, a card to discard (7h, 7H, 10h, Th), k 7h to knock with
    it, g for big gin, ? for help, q to stop. The end of the input stops the game too.

    Example: `gin-sim play --opponent mc --format hollywood --hints mc --save game.json`
    """
    from gin_sim.game.limits import check_seed
    from gin_sim.game.rules import load_rules
    from gin_sim.interfaces.play import FORMATS, Game, GameSettings, RecordFile
    from gin_sim.players.strategies import load_strategy

    with user_errors():
        if sys.stdin is None:  # Python's stand-in when file descriptor 0 is closed
            raise ValueError("standard input is closed (<&-): your moves come from it")
        if game_format not in FORMATS:
            raise ConfigError(f"--format {game_format!r}: allowed {', '.join(FORMATS)}")
        rule_set = load_rules(rules, rule)
        chosen_seed = secrets.randbits(32) if seed is None else check_seed(seed)
        settings = GameSettings(
            rule_set,
            load_strategy(opponent).for_rules(rule_set),
            game_format,
            chosen_seed,
            None if hints is None else load_strategy(hints).for_rules(rule_set),
            tutor=tutor,
        )
        # The record is held for this game alone: a finished game's record, a file gin-sim
        # did not write and a record another game is saving to are refused here.
        record = None if save is None else RecordFile(Path(save)).claim()
    try:
        with user_errors():
            game = Game(settings, _read_line, typer.echo, record)
            what = {"hand": "one hand", "game": f"a game to {rule_set.game_target}"}.get(
                game_format, f"a Hollywood match (three games to {rule_set.game_target})"
            )
            typer.echo(
                f"You (player 1) v {settings.opponent.name} (player 2): {what}, rules {rule_set.name}, seed {chosen_seed}."
            )
            typer.echo(
                "Moves: t take, p pass, d draw, a card to discard (7h), k 7h to knock, ? help, q stop."
            )
            try:
                finished = game.play()
            except KeyboardInterrupt as stop:
                saved = (
                    f"; the game so far ({len(game.hands)} finished hands and the hand in play) is saved to {save}: gin-sim replay --record {save}"
                    if save
                    else ""
                )
                stopped(stop, saved)
    finally:
        if record is not None:
            record.release()
    saved = f"; saved to {save}" if save else ""
    if not finished:
        typer.echo(
            f"The game stops here, {game.left}, after {len(game.hands)} finished hands{saved}."
        )
    elif save:
        typer.echo(f"Saved to {save}: gin-sim replay --record {save}")


def register(app: typer.Typer) -> None:
    app.command("play")(play)
