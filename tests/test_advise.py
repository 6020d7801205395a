"""``gin-sim advise``: one position from options or a JSON file, in words or as JSON.

- The options and the file give ``decide``'s decision for the same view.
- The stock and the turns a person leaves out are filled in as the real hands had them.
- Bad input is one line, exit 2.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from gin_sim.interfaces.advise import complete_view
from gin_sim.interfaces.cli import app
from gin_sim.interfaces.serve import decision_document
from gin_sim.players.decide import decide
from gin_sim.reference.engine import decisions_reference
from gin_sim.reference.views import view_from_situation

runner = CliRunner()
DISCARD = [
    "--hand", "AS 2S 3S 4H 4D 4C 9H TH JH QS KD", "--decision", "discard",
    "--pile", "7C", "--opp-passed", "7C", "--own-passed", "7c",
]  # fmt: skip
VIEW = {
    "decision": "discard",
    "hand": "AS 2S 3S 4H 4D 4C 9H TH JH QS KD",
    "pile": "7C",
    "opp_passed": "7C",
    "own_passed": "7c",
    "dealer": "opponent",
    "taken_from_pile": False,
}


def test_the_stock_and_turns_left_out_are_those_of_the_real_hands():
    checked = 0
    for deal in range(6):
        for situation, _ in decisions_reference(21, deal, "hollywood", ("expert", "simple")):
            view = view_from_situation(situation)
            bare = {
                k: v for k, v in view.items() if k not in ("stock_left", "own_turns", "opp_turns")
            }
            assert complete_view(bare) == view
            checked += 1
    assert checked > 100


def test_options_and_a_view_file_give_decides_decision(tmp_path):
    expected = decision_document(decide(complete_view(VIEW), "hollywood", "mc-fast", seed=4))
    by_options = runner.invoke(
        app, ["advise", *DISCARD, "--strategy", "mc-fast", "--seed", "4", "--json"]
    )
    assert by_options.exit_code == 0, by_options.output
    answer = json.loads(by_options.output)
    assert {k: v for k, v in answer.items() if k != "view"} == json.loads(json.dumps(expected))
    assert answer["view"]["stock_left"] == 30 and answer["view"]["own_turns"] == 1
    path = tmp_path / "view.json"
    path.write_text(json.dumps(VIEW))
    by_file = runner.invoke(
        app, ["advise", "--view", str(path), "--strategy", "mc-fast", "--seed", "4", "--json"]
    )
    assert json.loads(by_file.output) == answer
    words = runner.invoke(app, ["advise", *DISCARD, "--strategy", "mc-fast", "--seed", "4"])
    first, *table = words.output.splitlines()
    assert first.startswith("mc-fast would ") and expected["discard"] in first
    chosen = expected["candidates"][expected["chosen"]]["action"]
    marked = next(line for line in table if line.lstrip().startswith("*"))
    assert marked.split()[1:3] == chosen.split()
    for candidate in expected["candidates"]:
        assert candidate["action"] in words.output
    offer = runner.invoke(
        app,
        [
            "advise",
            "--hand",
            "7h 8h 9h 2c 2d 2s 5s 6d jc kd",
            "--phase",
            "offer",
            "--upcard",
            "10h",
            "--strategy",
            "simple",
        ],
    )
    assert offer.output == "simple would take the upcard TH\n"


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--hand", "AS"], "advise needs --hand and --decision"),
        (["--hand", "AS 2S", "--decision", "draw", "--pile", "3C"], "'hand' has 2 cards"),
        ([*DISCARD, "--view", "-"], "--view gives the whole position: drop --hand"),
        (["--view", "/nonexistent.json"], "/nonexistent.json"),
        (
            [
                "--hand",
                "AS 2S 3S 4H 4D 4C 9H TH JH QS",
                "--decision",
                "offer",
                "--upcard",
                "9d",
                "--pile",
                "3c",
            ],
            "--upcard is the pile at an offer",
        ),
        ([*DISCARD, "--strategy", "nope"], "unknown strategy 'nope'"),
    ],
)
@pytest.mark.first_case
def test_bad_input_is_one_line_exit_2(args, message):
    result = subprocess.run(
        [sys.executable, "-m", "gin_sim", "advise", *args],
        input="[1",
        capture_output=True,
        text=True,
    )
    assert result.returncode == 2 and result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("error: ") and message in result.stderr, result.stderr


def test_a_view_from_standard_input_that_is_not_json():
    result = runner.invoke(app, ["advise", "--view", "-"], input="[1")
    assert result.exit_code == 2 and "standard input is not JSON" in result.output


def test_advise_lists_the_candidates_the_screening_dropped(tmp_path):
    """mc screens every legal discard on its first worlds (docs/strategies.md, step 4b):
    ``advise`` lists the ones it dropped, with their figures over those worlds as
    ``decide`` reports them, and the survivors and the dropped are every candidate once.
    A search without screening (mc-fast) lists none."""
    mc = "mc"  # samples 96, screen 16, candidates 2
    decision = decide(complete_view(VIEW), "hollywood", mc, seed=4)
    assert decision.screen_worlds == 16 and len(decision.screened_out) >= 3
    hand = VIEW["hand"].split()
    searched = [c.action for c in (*decision.candidates, *decision.screened_out)]
    assert sorted(searched) == sorted([f"discard {c}" for c in hand] + ["knock KD"])
    for c in decision.screened_out:  # a knock goes only when clearly worse than the first
        assert c.gain < 0 or c.action.startswith("discard")
    result = runner.invoke(app, ["advise", *DISCARD, "--strategy", mc, "--seed", "4"])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    at = next(i for i, line in enumerate(lines) if "its screening dropped" in line)
    assert "after its first 16 worlds" in lines[at]
    assert at > next(i for i, line in enumerate(lines) if "it searched 80 worlds" in line)
    rows = lines[at + 3 :]
    assert len(rows) == len(decision.screened_out)
    for row, c in zip(rows, decision.screened_out, strict=True):
        words = row.split()
        assert " ".join(words[:2]) == c.action and float(words[2]) == round(c.mean, 1)
        assert float(words[-1]) == round(c.gain, 1) and not row.startswith("  *")
    answer = json.loads(
        runner.invoke(app, ["advise", *DISCARD, "--strategy", mc, "--seed", "4", "--json"]).output
    )
    assert answer["screen_worlds"] == 16
    assert [c["action"] for c in answer["screened_out"]] == [
        c.action for c in decision.screened_out
    ]
    plain = runner.invoke(app, ["advise", *DISCARD, "--strategy", "mc-fast", "--seed", "4"])
    assert plain.exit_code == 0 and "screening" not in plain.output
    assert "screened_out" not in json.dumps(
        decision_document(decide(complete_view(VIEW), "hollywood", "mc-fast"))
    )


def test_the_play_page_advice_example_is_what_advise_prints():
    """docs/play.md shows ``gin-sim advise`` on a discard for the default player (``mc``):
    the page's block is its output, word for word."""
    text = (Path(__file__).resolve().parents[1] / "docs" / "play.md").read_text()
    block = text.split("--opp-passed 7c --own-passed 7c\n")[1].split("$ gin-sim advise")[0]
    args = ["--hand", "AS 2S 3S 4H 4D 4C 9H TH JH QS KD", "--phase", "discard", "--pile", "7C"]
    result = runner.invoke(app, ["advise", *args, "--opp-passed", "7c", "--own-passed", "7c"])
    assert result.exit_code == 0 and result.output == block


def test_advise_lists_the_candidates_the_screenings_first_cut_dropped():
    """Under standard mc's screening makes a first cut (early_screen; docs/strategies.md,
    step 4b): the candidates it dropped are listed apart, their figures over the cut's
    worlds; with the others they are every candidate once. Under hollywood there is none."""
    decision = decide(complete_view(VIEW), "standard", "mc", seed=4)
    assert decision.early_screen_worlds == 8 and decision.early_screened_out
    hand = VIEW["hand"].split()
    searched = [
        c.action
        for c in (*decision.candidates, *decision.screened_out, *decision.early_screened_out)
    ]
    assert sorted(searched) == sorted([f"discard {c}" for c in hand] + ["knock KD"])
    standard = [*DISCARD, "--rules", "standard", "--seed", "4"]
    result = runner.invoke(app, ["advise", *standard])
    assert result.exit_code == 0, result.output
    lines = result.output.splitlines()
    at = next(i for i, line in enumerate(lines) if "first cut dropped" in line)
    assert "after 8 worlds" in lines[at]
    rows = lines[at + 3 : at + 3 + len(decision.early_screened_out)]
    for row, c in zip(rows, decision.early_screened_out, strict=True):
        assert " ".join(row.split()[:2]) == c.action
        assert float(row.split()[2]) == round(c.mean, 1)
    answer = json.loads(runner.invoke(app, ["advise", *standard, "--json"]).output)
    assert answer["early_screen_worlds"] == 8
    assert [c["action"] for c in answer["early_screened_out"]] == [
        c.action for c in decision.early_screened_out
    ]
    hollywood = decide(complete_view(VIEW), "hollywood", "mc", seed=4)
    assert hollywood.early_screen_worlds == 0 and not hollywood.early_screened_out
