"""The score before the hand in a decision from outside (``decide``, ``serve``, ``advise``).

- With a view's ``score``, family decisions (``closing_distance``) and a score-aware
  search equal the ones played at the same positions of a game kept by the reference
  engine (which plays the kernels' matches: tests/test_reference_search.py), figures
  included; the score changes them only near the target.
- Bad score fields are one-line errors; a view without one is a plain hand.
"""

from __future__ import annotations

import json
from dataclasses import replace

import pytest
from typer.testing import CliRunner

from gin_sim.game.match_start import parse_start
from gin_sim.game.rules import load_rules
from gin_sim.interfaces.cli import app
from gin_sim.interfaces.serve import Server
from gin_sim.kernels.enums import PositionSlot
from gin_sim.players.decide import Decider, decide, parse_view, position_from_view
from gin_sim.players.strategies import load_strategy
from gin_sim.reference.engine import decisions_reference
from gin_sim.reference.match import starting_score
from gin_sim.reference.search import describe_action
from gin_sim.reference.views import view_from_situation

SEED = 515
runner = CliRunner()
VIEW = {
    "decision": "discard",
    "hand": "AS 2S 3S 4H 4D 4C 9H TH JH QS KD",
    "taken": "KD",
    "taken_from_pile": False,
    "pile": "7C",
    "stock_left": 30,
    "opp_turns": 0,
    "own_turns": 1,
    "dealer": "opponent",
}


def _score(text, game_format, rules):
    return starting_score(parse_start(text, game_format, rules=rules), rules.game_target)


def _without_score(view):
    return {k: v for k, v in view.items() if k != "score"}


@pytest.mark.parametrize(
    ("game_format", "text", "near"),
    [("game", "95:92", True), ("hollywood", "30:95,0:90", True), ("game", "10:20", False)],
)
def test_closing_distance_decides_as_played_and_only_near_the_target(game_format, text, near):
    """An expert that knocks whenever allowed within 20 points of a game: ``decide`` with
    the view's score takes the reference's action at every position of some hands played
    from the score; some differ from the plain hand's decision only near the target."""
    rules = load_rules("standard")
    closer = replace(load_strategy("expert"), closing_distance=20, name="closer")
    players = (closer, closer)
    decider = Decider(closer, rules)
    compared = changed = 0
    for deal in range(10):
        score = _score(text, game_format, rules)
        for situation, action in decisions_reference(SEED, deal, rules, players, score=score):
            view = view_from_situation(situation)
            assert view["score"]["format"] == game_format
            got = decider.decide(view)
            assert got.action == describe_action(action, situation.phase), (deal, view)
            compared += 1
            changed += decider.decide(_without_score(view)) != got
    assert compared > 100
    assert (changed > 0) == near


@pytest.mark.parametrize(
    ("game_format", "text", "value"),
    [("game", "80:85", "game"), ("hollywood", "80:85,20:40", "match")],
)
@pytest.mark.full
def test_a_score_aware_search_with_a_score_equals_the_references_figures(game_format, text, value):
    """A searcher valuing its game or match equity, at seat 1 of hands from a score:
    ``decide`` returns the reference's action and exactly its means and gains; the same
    views without the score give other figures (points, not equity)."""
    rules = load_rules("standard")
    searcher = replace(load_strategy("mc-fast"), samples=3, value=value, name=f"mcf3-{value}")
    decider = Decider(searcher, rules)
    compared = differ = 0
    for deal in range(3):
        events: list = []
        draws = 0
        score = _score(text, game_format, rules)
        for situation, action in decisions_reference(
            SEED, deal, rules, ("expert", searcher), trace=events, score=score
        ):
            if situation.player != 1:
                continue
            view = view_from_situation(situation)
            searched = [e for e in events if e[0] == "search"]
            figures = searched[-1][3] if len(searched) > draws else None
            got = decider.decide(view, SEED, deal=deal, seat=1, draws=draws)
            assert got.worlds == (figures.worlds if figures else 0)
            if figures is None:
                continue
            assert figures.candidates[figures.chosen] == action
            assert got.chosen == figures.chosen
            assert [c.mean for c in got.candidates] == [s / figures.worlds for s in figures.sums]
            assert [c.gain for c in got.candidates] == [g / figures.worlds for g in figures.gains]
            plain = decider.decide(_without_score(view), SEED, deal=deal, seat=1, draws=draws)
            differ += [c.mean for c in plain.candidates] != [c.mean for c in got.candidates]
            compared += 1
            draws += 1
    assert compared > 10 and differ > compared // 2


def test_the_score_goes_into_the_positions_score_slots_from_the_deciders_side():
    rules = load_rules("hollywood")
    view = parse_view(VIEW | {"score": {"format": "hollywood", "columns": "10:70,0:40"}}, rules)
    _, state = position_from_view(view, seat=1)
    S = PositionSlot
    assert state[S.SCORE_GAMES] == 3
    assert list(state[S.SCORE_POINTS : S.SCORE_POINTS + 6]) == [70, 40, 0, 10, 0, 0]
    assert list(state[S.SCORE_ENTERED : S.SCORE_ENTERED + 6]) == [1, 1, 0, 1, 0, 0]
    _, plain = position_from_view(parse_view(VIEW, rules), seat=1)
    assert plain[S.SCORE_GAMES] == 0 and not plain[S.SCORE_POINTS : S.SCORE_ENTERED + 6].any()


@pytest.mark.parametrize(
    ("score", "message"),
    [
        ("80:40", r"view field 'score' = '80:40': allowed \{\"format\""),
        ({"format": "game"}, r"view field 'score' = .*allowed"),
        ({"format": "game", "columns": "80:40", "x": 1}, r"view field 'score' = .*allowed"),
        ({"format": "match", "columns": "80:40"}, "format 'match': allowed 'game' or 'hollywood'"),
        ({"format": "game", "columns": 80}, "columns 80: allowed text"),
        ({"format": "game", "columns": "100:40"}, "player 1 has 100 in the game"),
        ({"format": "game", "columns": "80:40,0:0"}, "expected one column"),
        ({"format": "game", "columns": "80-40"}, "is not P1:P2"),
        ({"format": "hollywood", "columns": "100:100"}, "both players have 100 or more"),
        ({"format": "hollywood", "columns": "20:0,40:0"}, "R19"),
    ],
)
def test_bad_score_fields_are_one_line_errors(score, message):
    with pytest.raises(ValueError, match=message) as error:
        decide(VIEW | {"score": score}, "hollywood", "simple")
    assert "\n" not in str(error.value)


def test_serve_and_advise_take_the_score():
    closer = "expert"  # plain: the score changes nothing, the field is only read and checked
    server = Server(strategy=closer)
    good = {"view": VIEW | {"score": {"format": "game", "columns": "80:40"}}}
    assert json.loads(server.answer_line(json.dumps(good)))["action"] == "knock KD"
    bad = {"view": VIEW | {"score": {"format": "game", "columns": "99:100"}}}
    assert "player 2 has 100" in json.loads(server.answer_line(json.dumps(bad)))["error"]
    base = ["advise", "--hand", VIEW["hand"], "--decision", "discard", "--pile", "7C"]
    base += ["--taken", "KD", "--strategy", "simple", "--json"]
    result = runner.invoke(app, [*base, "--score", "80:40,20:0", "--score-format", "hollywood"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["view"]["score"] == {
        "format": "hollywood",
        "columns": "80:40,20:0",
    }
    for extra, message in (
        (["--score", "80:40,20:0"], "expected one column"),
        (["--score-format", "hollywood"], "give --score too"),
        (["--score", "1:2", "--score-format", "match"], "--score-format 'match'"),
    ):
        result = runner.invoke(app, [*base, *extra])
        assert result.exit_code == 2 and message in result.output, result.output


def test_advise_shows_a_score_aware_search_in_equity_percent(tmp_path):
    """Its candidates' values are equity changes with a score (shown in %), points without."""
    searcher = tmp_path / "mcg.toml"
    searcher.write_text('name = "mcg"\nkind = "mc"\nsamples = 8\nvalue = "game"\ninfer = false\n')
    base = ["advise", "--hand", VIEW["hand"], "--decision", "discard", "--pile", "7C"]
    base += ["--taken", "KD", "--strategy", str(searcher)]
    by_score = runner.invoke(app, [*base, "--score", "95:90"])
    plain = runner.invoke(app, base)
    assert by_score.exit_code == plain.exit_code == 0, by_score.output + plain.output
    assert "mean change in your game or match equity in %" in by_score.output
    assert "mean points from your side" in plain.output
