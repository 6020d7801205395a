"""Issue 29, class 7: no traceback on bad input. ``advise`` with its input closed or a view
field of any wrong type, ``replay --record`` on records damaged in every field (no
players, one, three...), ``distill`` with text where its tables hold numbers: each is one
line naming the problem (and the file), exit 2. And the record writer and reader agree on
their bounds: a long game's record is replayed."""

from __future__ import annotations

import copy
import json
import os
import subprocess
import sys
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from gin_sim.game.config import check_document
from gin_sim.game.rules import load_rules
from gin_sim.interfaces.cli import app
from gin_sim.interfaces.play import (
    MAX_RECORD_VALUES,
    Game,
    GameSettings,
    RecordFull,
    count_values,
    load_record,
    record_text,
    replay_record,
)
from gin_sim.players.decide import VIEW_FIELDS
from gin_sim.players.strategies import load_strategy

runner = CliRunner()
CARDS = [f"{r}{s}" for s in "CDHS" for r in "A23456789TJQK"]
DULL = ("p\nd\n" + "\n".join(CARDS) + "\n") * 400
VIEW = {
    "decision": "discard",
    "hand": "AS 2S 3S 4H 4D 4C 9H TH JH QS KD",
    "taken": "KD",
    "taken_from_pile": True,
    "pile": "",
    "stock_left": 31,
    "own_turns": 1,
    "opp_turns": 0,
    "pile_takes": 1,
    "dealer": "opponent",
}


def one_line(result, *fragments: str) -> str:
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    stderr = result.stderr
    assert stderr.startswith("error: ") and stderr.count("\n") == 1, stderr
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in stderr, (fragment, stderr)
    return stderr


# -- advise --------------------------------------------------------------------------------
def test_the_view_used_here_is_good():
    result = runner.invoke(
        app, ["advise", "--view", "-", "--strategy", "simple"], input=json.dumps(VIEW)
    )
    assert result.exit_code == 0, result.output


WRONG = [5, 2.5, True, None, ["7H", 3], {"a": 1}, "nonsense", [[["7H"]]]]


@pytest.mark.parametrize("field", list(VIEW_FIELDS))
@pytest.mark.first_case
def test_advise_names_a_view_field_of_any_wrong_type(field):
    for value in WRONG:
        view = VIEW | {field: value}
        result = runner.invoke(
            app, ["advise", "--view", "-", "--strategy", "simple"], input=json.dumps(view)
        )
        if result.exit_code == 0:  # a value that happens to be allowed ("" for a card list)
            continue
        stderr = one_line(result)
        assert field in stderr or "view field" in stderr, (field, value, stderr)


@pytest.mark.parametrize("document", ["[]", "5", '"view"', "null", "{", "\xff", "[" * 10_000])
def test_advise_names_a_view_that_is_not_an_object(document):
    result = runner.invoke(app, ["advise", "--view", "-"], input=document)
    one_line(
        result, "standard input" if document not in ("[]", "5", '"view"', "null") else "--view"
    )


@pytest.mark.parametrize("command", [["advise", "--view", "-"], ["play"], ["serve"]])
@pytest.mark.first_case
def test_a_closed_standard_input_is_one_line(command):
    result = subprocess.run(
        [sys.executable, "-m", "gin_sim", *command],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: os.close(0),
    )
    assert result.returncode == 2, result.stderr
    assert result.stderr.count("\n") == 1 and "standard input is closed" in result.stderr


# -- replay --record -----------------------------------------------------------------------
@pytest.fixture(scope="module")
def record(tmp_path_factory) -> dict:
    path = tmp_path_factory.mktemp("record") / "game.json"
    args = ["play", "--opponent", "simple", "--format", "game", "--seed", "5"]
    assert runner.invoke(app, [*args, "--save", str(path)], input=DULL).exit_code == 0
    return json.loads(path.read_text())


def _damaged(document: dict, how: str):
    d = copy.deepcopy(document)
    field, _, value = how.partition("=")
    if how == "drop-players":
        del d["players"]
    elif how == "no-hands-key":
        del d["hands"]
    elif field.startswith("hand0."):
        key = field.split(".", 1)[1]
        if value == "DEL":
            del d["hands"][0][key]
        else:
            d["hands"][0][key] = json.loads(value)
    else:
        d[field] = json.loads(value)
    return d


DAMAGE = [
    "players=[]", "players=[\"you\"]", "players=[\"a\", \"b\", \"c\"]", "players=\"you\"",
    "players=[1, 2]", "players=null", "players={\"a\": 1}", "drop-players", "players=[\"\", \"x\"]",
    "rules=[]", "rules=\"hollywood\"", "rules={\"knock_limit\": \"x\"}", "rules={\"colour\": 1}",
    "format=\"chess\"", "format=null", "seed=-1", "seed=\"5\"", "seed=1e400", "seed=18446744073709551616",
    "hands={}", "hands=[1, 2]", "hands=\"x\"", "no-hands-key", "finished=\"yes\"", "finished=null",
    "unfinished=5", "unfinished=[]", "hand0.deck=5", "hand0.deck=\"AS\"", "hand0.dealer=7",
    "hand0.dealer=\"x\"", "hand0.dealer=true", "hand0.moves=5", "hand0.moves=[1, 2]",
    "hand0.moves=[[\"t\"]]", "hand0.record=5", "hand0.deck=DEL", "hand0.moves=DEL",
    "hand0.record=DEL", "points=\"x\"", "points=[[1]]",
]  # fmt: skip


@pytest.mark.parametrize("how", DAMAGE)
@pytest.mark.first_case
def test_replay_names_the_record_for_every_damaged_field(tmp_path, record, how):
    path = tmp_path / "damaged.json"
    path.write_text(json.dumps(_damaged(record, how)))
    one_line(runner.invoke(app, ["replay", "--record", str(path)]), str(path))


@pytest.mark.parametrize(
    "text", ["", "[]", "5", "{", '{"kind": "gin-sim play record"}', "\xff\xfe", "[" * 50_000]
)
def test_replay_names_a_file_that_is_no_record(tmp_path, text):
    path = tmp_path / "r.json"
    path.write_bytes(text.encode("latin-1"))
    one_line(runner.invoke(app, ["replay", "--record", str(path)]), str(path))


def test_the_undamaged_record_replays(tmp_path, record):
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record))
    assert runner.invoke(app, ["replay", "--record", str(path)]).exit_code == 0


@pytest.mark.full
def test_a_long_game_is_written_within_the_bounds_it_is_read_with(tmp_path):
    """The writer checks the reader's bounds: a game of 150+ hands (beyond what any other
    file gin-sim reads may hold) is saved and replayed; a record beyond the bounds is
    never written (the game stops, its record whole)."""
    rules = replace(load_rules("hollywood"), game_target=8000, name="long")
    settings = GameSettings(rules, load_strategy("simple").for_rules(rules), "game", 7)
    moves = iter((["p", "d", *CARDS]) * 100_000)
    path = tmp_path / "long.json"
    game = Game(settings, lambda prompt: next(moves) + "\n", lambda line: None, path)
    assert game.play() and len(game.hands) > 150
    assert len(replay_record(path)) > 1000
    document = load_record(path)
    assert document["finished"]
    values = count_values(document)
    assert values > 10_000  # what every other file may hold
    check_document(document, str(path), MAX_RECORD_VALUES)  # the reader's own bounds
    full = dict(document, hands=document["hands"][:1] * (MAX_RECORD_VALUES // 20))
    with pytest.raises(RecordFull, match="more than 2,000,000 keys and items"):
        record_text(full)


# -- distill ---------------------------------------------------------------------------------
BANDS = ["25-31", "19-24", "13-18", "7-12", "0-6"]


def _advice(folder: Path, line=None, positions=None, takes=None) -> Path:
    folder.mkdir()
    knock = pd.DataFrame(
        {"stock_band": BANDS, "threshold": line or [10] * 5, "positions": positions or [200] * 5}
    )
    knock.to_csv(folder / "knock-line.csv", index=False)
    cells = {"kind": ["draw"], "card_does": ["lowers nothing"], "positions": [50],
             "mean": [0.1], "low": [-0.2], "high": [0.4]} | (takes or {})  # fmt: skip
    pd.DataFrame(cells).to_csv(folder / "take-cells.csv", index=False)
    mark = {"format": 1, "kind": "report advice", "finished": True,
            "options": {"rules": "hollywood", "compare": "none"}}  # fmt: skip
    (folder / ".gin-sim.json").write_text(json.dumps(mark))
    return folder


@pytest.mark.parametrize(
    ("table", "setting"),
    [
        ("knock-line", {"line": ["ten", 10, 10, 10, 10]}),
        ("knock-line", {"line": [10, None, 10, 10, 10]}),
        ("knock-line", {"positions": ["many", 1, 1, 1, 1]}),
        ("knock-line", {"positions": [True, 1, 1, 1, 1]}),
        ("knock-line", {"line": ["1e999", 10, 10, 10, 10]}),
        ("take-cells", {"takes": {"positions": ["x"]}}),
        ("take-cells", {"takes": {"high": ["high"]}}),
        ("take-cells", {"takes": {"mean": ["[1, 2]"]}}),
    ],
)
def test_distill_names_the_table_with_text_where_numbers_belong(tmp_path, table, setting):
    folder = _advice(tmp_path / "advice", **setting)
    result = runner.invoke(
        app, ["distill", str(folder), "--out", str(tmp_path / "a.toml"), "--deals", "10"]
    )
    one_line(result, f"{table}.csv")
    assert not (tmp_path / "a.toml").exists()


@pytest.mark.parametrize("text", ["", "\xff\xfe\x00", 'a,"b\n', "stock_band\n" + "x" * 5000])
def test_distill_names_a_table_that_cannot_be_read(tmp_path, text):
    folder = _advice(tmp_path / "advice")
    (folder / "knock-line.csv").write_bytes(text.encode("latin-1"))
    result = runner.invoke(app, ["distill", str(folder), "--out", str(tmp_path / "a.toml")])
    one_line(result, "knock-line.csv")
