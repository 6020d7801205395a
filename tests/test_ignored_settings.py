"""Settings that would do nothing are refused (issue 18, item 9): a parameter its
strategy's kind ignores, wherever it is given, and a range that is empty, inverted or never
holds. Each is one ``error:`` line, exit code 2, before anything is played."""

from __future__ import annotations

from dataclasses import replace

import pytest
from typer.testing import CliRunner

from gin_sim.game.config import ConfigError
from gin_sim.interfaces.cli import app
from gin_sim.players.strategies import Strategy, load_strategy, named_strategies

runner = CliRunner()


def assert_one_line_error(result, *fragments: str) -> None:
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, (fragment, result.stderr)


def simulate(players: str, *more: str):
    return runner.invoke(app, ["simulate", "--players", players, "--deals", "4", "--quiet", *more])


@pytest.mark.parametrize(
    "text, fragments",
    [
        # a family strategy (kind family by default) given a search player's key, even at
        # its default value
        ('name = "x"\nsamples = 64\n', ["samples", "does nothing", "kind 'family'"]),
        ('name = "x"\nsamples = 32\n', ["samples", "does nothing"]),
        ('name = "x"\nkind = "mc"\nknock_threshold = 5\n', ["knock_threshold", "kind 'mc'"]),
        ('name = "x"\nkind = "random"\nkeep_weight = 1.0\n', ["keep_weight", "kind 'random'"]),
        (
            'name = "x"\n[[adapt]]\nwhen = { knock_limit = [0, 5] }\nconfidence = 2.0\n',
            ["confidence", "(adapt)", "does nothing"],
        ),
        (
            'name = "x"\n[[adapt]]\nwhen = { undercut_bonus = [100, 0] }\nkeep_weight = 1.0\n',
            ["undercut_bonus", "low 100 is above high 0", "never holds"],
        ),
        (
            'name = "x"\n[[adapt]]\nwhen = { knock_limit = [11, 20] }\nkeep_weight = 1.0\n',
            ["knock_limit", "never holds", "allowed 0 to 10"],
        ),
        (
            'name = "x"\n[[adapt]]\nwhen = { knock_limit = true }\nkeep_weight = 1.0\n',
            ["knock_limit = True", "takes [low, high]"],
        ),
        (
            'name = "x"\n[[adapt]]\nwhen = { oklahoma = [0, 1] }\nkeep_weight = 1.0\n',
            ["oklahoma", "takes true or false"],
        ),
    ],
)
def test_strategy_files_with_settings_that_do_nothing(tmp_path, text, fragments):
    path = tmp_path / "x.toml"
    path.write_text(text)
    assert_one_line_error(simulate(f"{path},simple"), *fragments)


@pytest.mark.parametrize(
    "players, override, fragments",
    [
        ("expert,simple", "samples=64", ["samples", "kind 'family'", "search players"]),
        ("mc-fast,simple", "undercut_risk=0.5", ["undercut_risk", "kind 'mc'", "family"]),
        ("random,simple", "infer=true", ["infer", "kind 'random'"]),
    ],
)
def test_overrides_that_do_nothing(players, override, fragments):
    assert_one_line_error(simulate(players, "--param1", override), *fragments)


def test_strategies_built_in_python_and_the_named_ones():
    for name in named_strategies():  # every shipped strategy uses only its kind's keys
        load_strategy(name)
    with pytest.raises(ConfigError, match=r"samples .* does nothing"):
        Strategy(samples=64)
    with pytest.raises(ConfigError, match=r"knock_threshold .* does nothing"):
        replace(load_strategy("mc-fixed"), knock_threshold=3)
    # a key at its default in Python is not a setting anyone gave
    assert Strategy(kind="mc").knock_threshold is None


@pytest.mark.parametrize(
    "strategy, space, fragments",
    [
        ("mc-fast", "knock_threshold=0:10", ["knock_threshold does nothing", "kind 'mc'"]),
        ("simple", "samples=8:64", ["samples does nothing", "search players"]),
        ("random", "keep_weight=0:1", ["kind 'random'", "no parameters"]),
        # a value inside the range that a trial could not use (screen allows 0 and 2 up)
        ("mc-fast", "screen=0:4", ["screen = 1", "allowed 0 (no screening) or 2"]),
        ("mc-fast", "candidates=1.0:3.0", ["candidates takes whole numbers"]),
        ("simple", "knock_threshold=5:5", ["holds one value", "knock_threshold=5"]),
        ("simple", "keep_weight=0:1:0.3", ["step 0.3 does not divide"]),
        ("simple", "safety_weight=0:100000000000000000000", ["beyond", "1e+06"]),
        ("simple", "take_min_gain=1e20:1e21", ["beyond"]),
    ],
)
def test_spaces_that_search_nothing_or_what_a_trial_cannot_use(
    tmp_path, strategy, space, fragments
):
    out = tmp_path / "t"
    result = runner.invoke(
        app,
        [
            "tune",
            "--strategy",
            strategy,
            "--space",
            space,
            "--trials",
            "1",
            "--quiet",
            "--out",
            str(out),
        ],
    )
    assert_one_line_error(result, *fragments)
    assert not out.exists()
