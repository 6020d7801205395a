"""``gin-sim advise``: what a strategy would do at one position, and what its choices are worth."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated, Any

import typer

from gin_sim.game.config import ConfigError, parse_json, read_user_file, shown
from gin_sim.game.match_start import check_score_numbers, score_text
from gin_sim.interfaces.cli import options
from gin_sim.interfaces.cli.common import (
    checked_score_format,
    echo_json,
    given_options,
    user_errors,
)

MAX_VIEW = 1 << 20  # bytes of a view file: a view is a few hundred
# The options that say the position: --view gives it whole instead.
POSITION_OPTIONS = (
    "hand", "decision", "upcard", "pile", "dealer", "stock_left", "own_turns", "opp_turns",
    "pile_takes", "opp_taken", "opp_passed", "own_taken", "own_passed", "knock_limit", "taken",
    "from_pile", "score", "score_format",
)  # fmt: skip
Cards = Annotated[str | None, typer.Option(help="Cards, e.g. '7h 8h 9h' (spaces or commas).")]


def _read_view(source: str) -> Any:
    """The view of ``--view FILE`` or ``--view -`` (standard input)."""
    where = "standard input" if source == "-" else source
    if source == "-" and sys.stdin is None:  # Python's stand-in when descriptor 0 is closed
        raise ConfigError("--view -: standard input is closed (<&-): the view comes from it")
    data = sys.stdin.buffer.read(MAX_VIEW + 1) if source == "-" else read_user_file(Path(source))
    if len(data) > MAX_VIEW:
        raise ConfigError(f"{where} is larger than 1 MiB: a view is a few hundred bytes")
    try:
        return parse_json(data, where)
    except UnicodeDecodeError:
        raise ConfigError(f"{where} is not UTF-8 text") from None
    except ValueError as error:
        raise ConfigError(f"{where} is not JSON: {error}") from None


def advise(
    context: typer.Context,
    hand: Cards = None,
    decision: Annotated[
        str | None,
        typer.Option(
            "--decision", "--phase", help="offer (the first upcard), draw or discard (11 cards)."
        ),
    ] = None,
    upcard: Annotated[
        str | None, typer.Option(help="At an offer: the upcard (the pile holds it alone).")
    ] = None,
    pile: Cards = None,
    dealer: Annotated[str, typer.Option(help="Who dealt this hand: me or opponent.")] = "opponent",
    stock_left: Annotated[
        int | None, typer.Option(help="Cards in the stock (default: what the cards leave).")
    ] = None,
    own_turns: Annotated[
        int | None, typer.Option(help="Your turns (default: from the stock).")
    ] = None,
    opp_turns: Annotated[
        int | None, typer.Option(help="The opponent's turns (default: from the stock).")
    ] = None,
    pile_takes: Annotated[
        int | None,
        typer.Option(
            help="Cards taken from the pile so far (R18a; default: what the cards imply, one per card taken from it and still held, --from-pile's included)."
        ),
    ] = None,
    opp_taken: Cards = None,
    opp_passed: Cards = None,
    own_taken: Cards = None,
    own_passed: Cards = None,
    knock_limit: Annotated[
        int | None, typer.Option(help="This hand's knock limit (Oklahoma: required).")
    ] = None,
    taken: Annotated[str | None, typer.Option(help="At a discard: the card just taken.")] = None,
    from_pile: Annotated[
        bool, typer.Option("--from-pile", help="At a discard: it came from the discard pile.")
    ] = False,
    score: Annotated[
        str | None,
        typer.Option(
            help="The score before this hand, yours first, as match --start writes it: 80:40 (a game), 80:40,30:0,0:0 (--score-format hollywood). Default: a plain hand."
        ),
    ] = None,
    score_format: options.ScoreFormat = "game",
    view_file: Annotated[
        str | None,
        typer.Option(
            "--view", help="A JSON file (or - for standard input) of the view's fields instead."
        ),
    ] = None,
    rules: options.Rules = "hollywood",
    strategy: Annotated[str, typer.Option(help="A strategy's name or TOML file.")] = "mc",
    seed: options.Seed = 0,
    as_json: options.Json = False,
) -> None:
    """The decision of a strategy at one position and, for a search, each candidate's value.

    The position's fields are those of "Decisions from outside" (docs/strategies.md), as
    options or as a JSON file (--view). The stock and the turn counts default to what the
    cards imply. The seed draws a search's worlds.

    Example: `gin-sim advise --hand "7h 8h 9h 2c 2d 2s 5s 6d jc kd" --phase offer --upcard 10h --strategy expert`
    """
    from gin_sim.interfaces.advise import PHASES, advice_lines, complete_view
    from gin_sim.interfaces.serve import decision_document
    from gin_sim.players.decide import Decider

    with user_errors():
        given = {
            "hand": hand,
            "decision": decision,
            "upcard": upcard,
            "pile": pile,
            "stock_left": stock_left,
            "own_turns": own_turns,
            "opp_turns": opp_turns,
            "opp_taken": opp_taken,
            "opp_passed": opp_passed,
            "own_taken": own_taken,
            "own_passed": own_passed,
            "knock_limit": knock_limit,
            "taken": taken,
        }
        if view_file is not None:
            named = given_options(context, POSITION_OPTIONS)
            if named:
                raise ConfigError(f"--view gives the whole position: drop {named[0]}")
            fields = _read_view(view_file)
            if not isinstance(fields, dict):
                raise ConfigError(f"--view {view_file}: expected a JSON object of view fields")
        else:
            if hand is None or decision is None:
                raise ConfigError(
                    "advise needs --hand and --decision (offer, draw or discard), or --view FILE"
                )
            # The phase is a word, whatever its case (--phase OFFER); anything else is
            # named with what is allowed, before any card is read.
            if decision.strip().lower() not in PHASES:
                raise ConfigError(
                    f"--decision {shown(decision)}: allowed {', '.join(PHASES)} (--phase is the same option)"
                )
            decision = given["decision"] = decision.strip().lower()
            if upcard is not None:
                if pile is not None or decision != "offer":
                    raise ConfigError("--upcard is the pile at an offer: give --pile otherwise")
                pile = upcard
            fields = {k: v for k, v in given.items() if v is not None and k != "upcard"}
            fields |= {"pile": pile or "", "dealer": dealer}
            if pile_takes is not None:
                fields["pile_takes"] = pile_takes
            if decision == "discard":
                fields["taken_from_pile"] = from_pile
            elif from_pile:
                raise ConfigError("--from-pile goes with --decision discard only")
            score_format = checked_score_format(score, score_format)
            if score is not None:
                check_score_numbers(score, f"--score {score_text(score)}")
                fields["score"] = {"format": score_format, "columns": score}
        view = complete_view(fields)
        decider = Decider(strategy, rules)
        result = decider.decide(view, seed)
    if as_json:
        echo_json({"view": view} | decision_document(result), indent=None)
        return
    by_score = decider.strategy.value != "hand" and "score" in view
    for line in advice_lines(result, decider.strategy.name, view, by_score):
        typer.echo(line)


def register(app: typer.Typer) -> None:
    app.command("advise")(advise)
