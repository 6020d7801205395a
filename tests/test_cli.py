"""The command line through typer's test runner, and bad input through the entry point."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from gin_sim.interfaces.cli import app

runner = CliRunner()


def test_deadwood_text_and_json():
    result = runner.invoke(app, ["deadwood", "AS 2S 3S 4H 4D 4C 9H TH JH QS"])
    assert result.exit_code == 0, result.output
    assert "deadwood: 10" in result.output
    result = runner.invoke(app, ["deadwood", "--json", "AS 2S 3S 4H 4D 4C 9H TH JH QS"])
    document = json.loads(result.output)
    assert document["deadwood"] == 10
    assert sorted(map(sorted, document["melds"])) == sorted(
        map(sorted, [["AS", "2S", "3S"], ["4C", "4D", "4H"], ["9H", "TH", "JH"]])
    )
    assert document["unmatched"] == ["QS"]


def test_deadwood_all_arrangements():
    result = runner.invoke(app, ["deadwood", "--json", "--all", "AS 2S 3S 4S 5S 6S 9D"])
    documents = json.loads(result.output)
    assert len(documents) >= 2 and all(d["deadwood"] == 9 for d in documents)


def test_simulate_prints_a_table_and_json():
    result = runner.invoke(
        app, ["simulate", "--deals", "2000", "--seed", "3", "--quiet", "--no-duplicate"]
    )
    assert result.exit_code == 0, result.output
    # rich may wrap the table on a narrow terminal: look for words, not whole rows
    assert "net points" in result.output and "player 2:" in result.output
    args = ["simulate", "--deals", "2000", "--seed", "3", "--json", "--players", "simple,random"]
    document = json.loads(runner.invoke(app, args).output)
    assert (document["decks"], document["hands"], document["duplicate"]) == (2000, 4000, True)
    first, second = document["players"]
    assert first["strategy"] == "simple" and first["hands won"]["mean"] > 0.5
    assert first["net points per hand"]["mean"] == -second["net points per hand"]["mean"]
    assert "variance_reduction" in document
    document = json.loads(runner.invoke(app, [*args, "--no-duplicate"]).output)
    assert (document["hands"], document["duplicate"]) == (2000, False)


def test_listings():
    assert "hollywood-gin20" in runner.invoke(app, ["rules"]).output
    assert "random" in runner.invoke(app, ["strategies"]).output


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["deadwood", "AS 2S ZZ"], "ZZ"),
        (["deadwood", "AS AS"], "duplicate card 'AS'"),
        (["simulate", "--deals", "0"], "deals = 0"),
        (["simulate", "--players", "simple,nope"], "unknown strategy 'nope'"),
        (["simulate", "--rules", "nope"], "unknown rule set 'nope'"),
        (["simulate", "--rule", "knock_limit=11"], "knock_limit = 11"),
        (["simulate", "--rule", "nope=1"], "unknown key 'nope'"),
        (["simulate", "--seed", "-1"], "seed -1 out of range"),
        (["simulate", "--threads", "0"], "threads = 0"),
        (["simulate", "--nope"], "No such option"),
        (["simulate", "--param1", "keep_weight=-2"], "keep_weight = -2.0"),
        (["simulate", "--param2", "knock_schedule=5:3"], "last phase must start at min_stock 0"),
        (["simulate", "--param1", "take_schedule=5:true:3"], "so every stock size has a take rule"),
        (["simulate", "--param1", "take_schedule=0:maybe:3"], "take_schedule = '0:maybe:3'"),
        (
            ["simulate", "--players", "mc-fast,simple", "--param1", "opponent_panel=simple,mc"],
            "opponent_panel model 'mc'",
        ),
        (
            ["simulate", "--players", "tests/data/bad-strategy.toml,simple"],
            "undercut_risk = 2.0 in tests/data/bad-strategy.toml",
        ),
    ],
)
@pytest.mark.first_case
def test_bad_input_is_one_line_exit_2(args, message):
    """Through the real entry point, as a user sees it: one line on stderr, exit code 2."""
    result = subprocess.run(
        [sys.executable, "-m", "gin_sim", *args], capture_output=True, text=True
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("error: "), result.stderr
    assert message in result.stderr
    assert "Traceback" not in result.stderr


def _commands(command, path=()):
    """Every command of the app by its words (``report knock``), sub-apps walked."""
    if hasattr(command, "commands"):
        for name, sub in command.commands.items():
            yield from _commands(sub, (*path, name))
    else:
        yield " ".join(path), command


def test_shared_options_read_the_same_in_every_command():
    """Issue 28, part 4: an option several commands have is declared once
    (gin_sim/interfaces/cli/options.py), so it reads the same everywhere; a copy with its
    own help text in one command fails here. The options listed as their own meaning are
    other things under the same name, said in their own help."""
    import typer

    from gin_sim.interfaces.cli import options

    shared = {
        "--rules": (options.Rules, options.RuleSets),
        "--rule": (options.RuleOverrides,),
        "--players": (options.Players,),
        "--param1": (options.Param1,),
        "--param2": (options.Param2,),
        "--strategy": (options.Strategy,),
        "--seed": (options.Seed,),
        "--keep": (options.Keep,),
        "--chunk-size": (options.ChunkSize,),
        "--out": (options.RunOut, options.ReportOut),
        "--overwrite": (options.Overwrite,),
        "--threads": (options.Threads,),
        "--scheduler": (options.Scheduler,),
        "--workers": (options.Workers,),
        "--workers-write": (options.WorkersWrite,),
        "--json": (options.Json,),
        "--quiet": (options.Quiet,),
        "--score-format": (options.ScoreFormat,),
    }
    own_meaning = {
        ("replay", "--seed"),  # the seed of the run a replayed deal comes from
        ("play", "--seed"),  # optional: a new seed, shown, when not given
        ("review", "--seed"),  # the seed of the run a reviewed deal comes from (or the scale's)
        ("report tournament", "--players"),  # two or more
        ("report equity", "--players"),  # A,B: the equities are A's
        ("tune", "--strategy"),  # the starting point of the search
        ("serve", "--strategy"),  # the default of requests that name none
        ("advise", "--strategy"),  # the strategy whose decision is shown
        ("tune", "--out"),  # the tuning folder
        ("distill", "--out"),  # a TOML file
        ("distill", "--overwrite"),  # that file
    }
    checked = 0
    for name, command in _commands(typer.main.get_command(app)):
        for parameter in command.params:
            flag = max(parameter.opts, key=len)
            if flag not in shared or (name, flag) in own_meaning:
                continue
            allowed = [alias.__metadata__[0].help for alias in shared[flag]]
            assert parameter.help in allowed, (
                f"{name} {flag}: its help is its own, not options.py's: {parameter.help!r}"
            )
            checked += 1
    assert checked >= 100  # every command was walked: about 120 options today
