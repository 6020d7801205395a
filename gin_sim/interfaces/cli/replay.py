"""``gin-sim replay``: one deal move by move, from a seed and deal index or an explicit deck."""

from __future__ import annotations

from typing import Annotated

import typer

from gin_sim.game.cards import parse_deck
from gin_sim.game.config import ConfigError
from gin_sim.game.match_start import parse_start, score_text
from gin_sim.game.rules import load_rules
from gin_sim.interfaces.cli import options
from gin_sim.interfaces.cli.common import (
    checked_score_format,
    echo_json,
    given_options,
    resolve_players,
    user_errors,
)
from gin_sim.interfaces.replay import replay_deal, replay_hand
from gin_sim.reference.match import starting_score

# replay's options that a record (--record) makes meaningless: all but --json.
RECORD_IGNORES = (
    "seed", "deal", "deck", "dealer", "rules", "players", "rule", "param1", "param2",
    "score", "score_format",
)  # fmt: skip


def replay(
    context: typer.Context,
    seed: Annotated[int | None, typer.Option(help="Seed of the run the deal belongs to.")] = None,
    deal: Annotated[
        int | None, typer.Option(help="Index of the deal in that run (its dealer is deal % 2).")
    ] = None,
    deck: Annotated[
        str | None, typer.Option(help="An explicit 52-card order instead of --seed/--deal.")
    ] = None,
    dealer: Annotated[
        int | None, typer.Option(help="With --deck: the dealing player, 1 (the default) or 2.")
    ] = None,
    rules: options.Rules = "hollywood",
    players: options.Players = "simple,simple",
    rule: options.RuleOverrides = None,
    param1: options.Param1 = None,
    param2: options.Param2 = None,
    as_json: options.Json = False,
    record: Annotated[
        str | None,
        typer.Option(help="A game saved by gin-sim play --save: every hand, move by move."),
    ] = None,
    score: Annotated[
        str | None,
        typer.Option(
            help="The score before the hand, player 1 first, as match --start writes it: 80:40 (a game), 80:40,30:0,0:0 (--score-format hollywood); score-aware players read it. Default: a plain hand."
        ),
    ] = None,
    score_format: options.ScoreFormat = "game",
) -> None:
    """Print one deal as a person would follow it: hands, offer, draws, discards, showdown, score.

    Example: `gin-sim replay --seed 7 --deal 42 --players expert,simple`
    """
    if record is not None:
        with user_errors():
            # A record holds its deals, players, rules and score: any other option would be
            # ignored, so it is refused (--json alone applies).
            ignored = given_options(context, RECORD_IGNORES)
            if ignored:
                raise ConfigError(
                    f"--record holds its own game (deals, players, rules, score): drop {ignored[0]}"
                )
        _replay_record(record, as_json)
        return
    with user_errors():
        rule_set = load_rules(rules, rule)
        pair = resolve_players(players, param1, param2)
        for strategy in pair:
            strategy.for_rules(rule_set)  # reports a threshold the rules do not allow
        score_format = checked_score_format(score, score_format)
        before = None
        if score is not None:
            where = f"--score {score_text(score)}"
            start = parse_start(score, score_format, rules=rule_set, where=where)
            before = starting_score(start, rule_set.game_target)
        if deck is not None:
            if seed is not None or deal is not None:
                raise ConfigError("--deck replaces --seed and --deal: give one or the other")
            dealer = 1 if dealer is None else dealer
            if dealer not in (1, 2):
                raise ConfigError(f"--dealer {dealer}: allowed 1 or 2")
            heading = f"An explicit deck, rules {rule_set.name}: {pair[0].name} (player 1) v {pair[1].name} (player 2)"
            result = replay_hand(
                parse_deck(deck), rule_set, pair, dealer - 1, heading=heading, score=before
            )
        else:
            if seed is None or deal is None:
                raise ConfigError("replay needs --seed and --deal (or an explicit --deck)")
            if dealer is not None:  # a run's deal has its own dealer: it would be ignored
                raise ConfigError(
                    "--dealer goes with --deck only: a run's deal has its own dealer (deal % 2)"
                )
            result = replay_deal(seed, deal, rule_set, pair, before)
    if as_json:
        shown = {"lines": result.lines, "record": result.record}
        if result.score:
            shown["score"] = result.score
        echo_json(shown)
    else:
        typer.echo(result.text)


def _replay_record(record: str, as_json: bool) -> None:
    from pathlib import Path

    from gin_sim.interfaces.play import replay_record

    with user_errors():
        lines = replay_record(Path(record))
    if as_json:
        echo_json({"lines": lines})
    else:
        typer.echo("\n".join(lines))


def register(app: typer.Typer) -> None:
    app.command("replay")(replay)
