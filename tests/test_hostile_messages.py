"""Issue 29, class 8: errors say the real problem. A duplicate or malformed card names its
field and the card (not a count made from it); ``--phase OFFER`` is read whatever its case
and a phase that is none is named with what is allowed; a number of thousands of digits
names its option; damaged records and tables name their file. And ``advise --from-pile``
counts the take from the pile as the cards imply, as it counts the stock and the turns."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from gin_sim.interfaces.advise import complete_view
from gin_sim.interfaces.cli import app

runner = CliRunner()
HAND10 = "7h 8h 9h 2c 2d 2s 5s 6d jc kd"
HAND11 = HAND10 + " qh"
HUGE = "1" * 5000


def advise(*args: str, strategy: str = "simple"):
    return runner.invoke(app, ["advise", "--strategy", strategy, *args])


def one_line(result, *fragments: str) -> str:
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    stderr = result.stderr
    assert stderr.startswith("error: ") and stderr.count("\n") == 1, stderr
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in stderr, (fragment, stderr)
    assert len(stderr) < 600, stderr  # a huge value is never echoed whole
    return stderr


@pytest.mark.parametrize(
    ("option", "cards", "what"),
    [
        ("--hand", "7h 7h 9h 2c 2d 2s 5s 6d jc kd", "duplicate card '7h'"),
        ("--hand", "7h 7H 9h 2c 2d 2s 5s 6d jc kd", "duplicate card '7H'"),
        ("--hand", "7h 8x 9h 2c 2d 2s 5s 6d jc kd", "'8x'"),
        ("--hand", "7h 1h 9h 2c 2d 2s 5s 6d jc kd", "'1h'"),
        ("--hand", "7h 8h 9h 2c 2d 2s 5s 6d jc 11d", "'11d'"),
        ("--hand", "7h 8h 9h 2c 2d 2s 5s 6d jc kdd", "'kdd'"),
        ("--pile", "5h 5h", "duplicate card '5h'"),
        ("--pile", "5h zz", "'zz'"),
    ],
)
def test_a_bad_card_names_its_field_and_the_card(option, cards, what):
    args = {"--hand": HAND10, "--pile": "3c"} | {option: cards}
    result = advise("--decision", "draw", "--hand", args["--hand"], "--pile", args["--pile"])
    stderr = one_line(result, what, f"'{option[2:]}'")
    assert "stock_left" not in stderr and "is missing" not in stderr


@pytest.mark.parametrize(
    "field", ["hand", "pile", "own_taken", "opp_taken", "own_passed", "opp_passed", "taken"]
)
def test_a_bad_card_in_a_view_names_its_field(field):
    view = {"decision": "discard", "hand": HAND11, "pile": "3c", "dealer": "me",
            "taken_from_pile": False, field: "7h 7h" if field != "taken" else "9x"}  # fmt: skip
    result = runner.invoke(app, ["advise", "--view", "-"], input=json.dumps(view))
    stderr = one_line(result, f"view field '{field}'")
    assert "stock_left" not in stderr


@pytest.mark.parametrize("spelled", ["OFFER", "Offer", "oFfEr", " offer "])
@pytest.mark.first_case
def test_the_phase_is_read_in_any_case(spelled):
    plain = advise("--hand", HAND10, "--decision", "offer", "--upcard", "5h")
    other = advise("--hand", HAND10, "--phase", spelled, "--upcard", "5h")
    assert plain.exit_code == 0 and other.output == plain.output
    draw = advise("--hand", HAND10, "--phase", "DRAW", "--pile", "5h 3c")
    discard = advise("--hand", HAND11, "--phase", "Discard", "--pile", "5h")
    assert draw.exit_code == 0 and discard.exit_code == 0, (draw.output, discard.output)


@pytest.mark.parametrize("spelled", ["offr", "OFFERS", "take", "", "1"])
def test_a_phase_that_is_none_names_the_option_and_what_is_allowed(spelled):
    one_line(
        advise("--hand", HAND10, "--phase", spelled, "--upcard", "5h"),
        "--decision",
        "allowed offer, draw, discard",
    )


@pytest.mark.parametrize(
    ("args", "option"),
    [
        (["replay", "--seed", "1", "--deal", "0", "--score", f"{HUGE}:40"], "--score"),
        (["replay", "--seed", "1", "--deal", "0", "--score", f"10:{HUGE}"], "--score"),
        (
            [
                "replay",
                "--seed",
                "1",
                "--deal",
                "0",
                "--score-format",
                "hollywood",
                "--score",
                f"10:20,{HUGE}:0",
            ],
            "--score",
        ),
        (
            [
                "advise",
                "--hand",
                HAND10,
                "--decision",
                "offer",
                "--upcard",
                "5h",
                "--score",
                f"{HUGE}:1",
            ],
            "--score",
        ),
        (
            ["match", "--players", "simple,simple", "--matches", "2", "--start", f"{HUGE}:1"],
            "--start",
        ),
        (
            ["match", "--players", "simple,simple", "--matches", "2", "--start", "1" * 20 + ":1"],
            "--start",
        ),
    ],
)
def test_a_number_of_thousands_of_digits_names_its_option(args, option):
    stderr = one_line(runner.invoke(app, args), option, "digits")
    assert "sys.set_int_max_str_digits" not in stderr


@pytest.mark.parametrize(
    "text",
    ["", "{", "[1, 2]", "\xff\xfe", '{"kind": "gin-sim play record", "version": 7}', "null"],
)
def test_a_damaged_record_names_its_file(tmp_path, text):
    path = tmp_path / "record.json"
    path.write_bytes(text.encode("latin-1"))
    one_line(runner.invoke(app, ["replay", "--record", str(path)]), str(path))


def test_a_damaged_table_names_its_file(tmp_path):
    folder = tmp_path / "advice"
    folder.mkdir()
    mark = {"format": 1, "kind": "report advice", "finished": True,
            "options": {"rules": "hollywood", "compare": "none"}}  # fmt: skip
    (folder / ".gin-sim.json").write_text(json.dumps(mark))
    (folder / "knock-line.csv").write_bytes(b'stock_band,threshold\n"25-31,\x00\xff')
    (folder / "take-cells.csv").write_text("kind\n")
    result = runner.invoke(app, ["distill", str(folder), "--out", str(tmp_path / "a.toml")])
    one_line(result, "knock-line.csv")


# -- --from-pile: the take from the pile counted as the cards imply -------------------------
def test_from_pile_counts_its_take():
    base = ["--hand", HAND11, "--decision", "discard", "--pile", "5h", "--taken", "qh"]
    implied = advise(*base, "--from-pile", "--json")
    explicit = advise(*base, "--from-pile", "--pile-takes", "1", "--json")
    assert implied.exit_code == 0, implied.output
    assert json.loads(implied.output) == json.loads(explicit.output)
    assert json.loads(implied.output)["view"]["pile_takes"] == 1
    zero = advise(*base, "--from-pile", "--pile-takes", "0")
    one_line(zero, "pile_takes")  # given, so checked: it contradicts the take


@pytest.mark.parametrize(
    ("fields", "takes"),
    [
        ({"decision": "discard", "taken": "qh", "taken_from_pile": True}, 1),
        ({"decision": "discard", "taken": "qh", "taken_from_pile": True, "own_taken": "7h 8h"}, 3),
        ({"decision": "discard", "taken": "qh", "taken_from_pile": True, "own_taken": "qh"}, 1),
        ({"decision": "discard", "taken": "qh", "taken_from_pile": False, "opp_taken": "4d"}, 1),
        ({"decision": "discard", "taken_from_pile": False}, None),
        ({"decision": "draw", "opp_taken": "4d 4h", "own_taken": "7h"}, 3),
    ],
)
def test_what_the_cards_imply(fields, takes):
    view = complete_view({"hand": HAND11, "pile": "5h", "dealer": "me"} | fields)
    assert view.get("pile_takes") == takes
