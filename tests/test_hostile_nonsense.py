"""Issue 29, class 9: nothing silently accepted. ``replay --record`` refuses every option
it would ignore (a record holds its deals, players, rules and score), even given at its
default; a record whose rules or hands were edited is refused, never replayed past its
game's end; ``distill`` refuses knock lines and counts out of range, empty tables and
rule sets the report does not compare; ``advise --view`` refuses the position options."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from gin_sim.interfaces.cli import app

runner = CliRunner()
CARDS = [f"{r}{s}" for s in "CDHS" for r in "A23456789TJQK"]
DULL = ("p\nd\n" + "\n".join(CARDS) + "\n") * 400


def one_line(result, *fragments: str) -> str:
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    stderr = result.stderr
    assert stderr.startswith("error: ") and stderr.count("\n") == 1, stderr
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in stderr, (fragment, stderr)
    return stderr


@pytest.fixture(scope="module")
def games(tmp_path_factory) -> dict[str, Path]:
    folder = tmp_path_factory.mktemp("records")
    made = {}
    for game_format in ("game", "hollywood"):
        path = folder / f"{game_format}.json"
        args = ["play", "--opponent", "simple", "--format", game_format, "--seed", "5"]
        assert runner.invoke(app, [*args, "--save", str(path)], input=DULL).exit_code == 0
        made[game_format] = path
    cut = folder / "cut.json"
    args = ["play", "--opponent", "simple", "--seed", "5", "--save", str(cut)]
    assert runner.invoke(app, args, input=DULL[: len(DULL) // 100]).exit_code == 0
    made["cut"] = cut
    return made


IGNORED = [
    ["--seed", "1"], ["--deal", "0"], ["--deck", " ".join(CARDS)], ["--dealer", "1"],
    ["--players", "simple,simple"], ["--players", "mc,expert"], ["--rules", "hollywood"],
    ["--rules", "standard"], ["--rule", "knock_limit=9"], ["--param1", "knock_threshold=5"],
    ["--param2", "knock_threshold=5"], ["--score", "10:20"], ["--score-format", "game"],
    ["--score-format", "hollywood"],
]  # fmt: skip


@pytest.mark.parametrize("option", IGNORED, ids=[" ".join(o)[:30] for o in IGNORED])
@pytest.mark.first_case
def test_replay_record_refuses_every_option_it_would_ignore(games, option):
    result = runner.invoke(app, ["replay", "--record", str(games["game"]), *option])
    one_line(result, f"drop {option[0]}")
    both = runner.invoke(app, ["replay", "--record", str(games["game"]), "--json", *option])
    one_line(both, f"drop {option[0]}")


def test_replay_record_takes_json(games):
    result = runner.invoke(app, ["replay", "--record", str(games["game"]), "--json"])
    assert result.exit_code == 0 and json.loads(result.output)["lines"]


def _edited(path: Path, tmp_path: Path, edit) -> Path:
    document = json.loads(path.read_text())
    edit(document)
    out = tmp_path / "edited.json"
    out.write_text(json.dumps(document))
    return out


def _set_rule(key, value):
    return lambda d: d["rules"].__setitem__(key, value)


EDITS = {
    "target lowered": ("game", _set_rule("game_target", 40), "follows the end of the game"),
    "target lowered (hollywood)": ("hollywood", _set_rule("game_target", 50), "the record"),
    "target raised": ("game", _set_rule("game_target", 5000), "says the game is finished"),
    "target raised (hollywood)": ("hollywood", _set_rule("game_target", 900), "finished"),
    "format to hand": ("game", lambda d: d.__setitem__("format", "hand"), "the record"),
    "format to hollywood": ("game", lambda d: d.__setitem__("format", "hollywood"), "finished"),
    "finished unset": ("game", lambda d: d.__setitem__("finished", False), "not finished"),
    "cut set finished": ("cut", lambda d: d.__setitem__("finished", True), "the record"),
    "seed changed": ("game", lambda d: d.__setitem__("seed", 6), "deal 1 of the record's seed"),
    "dealer changed": ("game", lambda d: d["hands"][1].__setitem__("dealer", 1 - d["hands"][1]["dealer"]), "R5"),
    "decks swapped": ("game", lambda d: d["hands"].reverse(), "the record was edited"),
    "hand dropped": ("game", lambda d: d["hands"].pop(0), "the record was edited"),
    "hand repeated": ("game", lambda d: d["hands"].append(copy.deepcopy(d["hands"][-1])), "the record"),
    "points edited": ("game", lambda d: d["points"][0].__setitem__(0, 999), "points"),
    "knock limit": ("game", _set_rule("knock_limit", 0), "hand"),
}  # fmt: skip


@pytest.mark.parametrize("edit", list(EDITS))
@pytest.mark.first_case
def test_an_edited_record_is_refused(games, tmp_path, edit):
    source, change, message = EDITS[edit]
    original = runner.invoke(app, ["replay", "--record", str(games[source])])
    assert original.exit_code == 0, original.output
    path = _edited(games[source], tmp_path, change)
    one_line(runner.invoke(app, ["replay", "--record", str(path)]), str(path), message)


# -- distill -------------------------------------------------------------------------------
BANDS = ["25-31", "19-24", "13-18", "7-12", "0-6"]


def _advice(folder: Path, compare: str = "none", line=None, positions=None, by_rules=None,
            takes=None, rules: str = "hollywood") -> Path:  # fmt: skip
    folder.mkdir()
    knock = {
        "stock_band": BANDS,
        "threshold": line or [10] * 5,
        "positions": positions or [200] * 5,
    }
    pd.DataFrame(knock).to_csv(folder / "knock-line.csv", index=False)
    cells = {"kind": ["draw"], "card_does": ["lowers nothing"], "positions": [50],
             "mean": [0.1], "low": [-0.2], "high": [0.4]}  # fmt: skip
    pd.DataFrame(takes if takes is not None else cells).to_csv(
        folder / "take-cells.csv", index=False
    )
    if by_rules is not None:
        by_rules.to_csv(folder / "knock-line-by-rules.csv", index=False)
    mark = {"format": 1, "kind": "report advice", "finished": True,
            "options": {"rules": rules, "compare": compare}}  # fmt: skip
    (folder / ".gin-sim.json").write_text(json.dumps(mark))
    return folder


def _by_rules(name: str, line=None, positions=None) -> pd.DataFrame:
    knock = {
        "stock_band": BANDS,
        "threshold": line or [10] * 5,
        "positions": positions or [200] * 5,
    }
    return pd.DataFrame(knock).assign(rules=name)


CASES = {
    "negative line": ({"line": [10, -2, 10, 10, 10]}, "knock-line.csv", "-1 to 10"),
    "line above 10": ({"line": [10, 11, 10, 10, 10]}, "knock-line.csv", "-1 to 10"),
    "fractional line": ({"line": [10, 3.5, 10, 10, 10]}, "knock-line.csv", "whole number"),
    "negative positions": ({"positions": [200, -5, 1, 1, 1]}, "knock-line.csv", "0 or more"),
    "fractional positions": ({"positions": [200, 2.5, 1, 1, 1]}, "knock-line.csv", "whole"),
    "negative cell count": (
        {"takes": {"kind": ["draw"], "card_does": ["lowers nothing"], "positions": [-1],
                   "mean": [0.1], "low": [0.0], "high": [0.2]}},
        "take-cells.csv", "0 or more",
    ),
    "empty take cells": (
        {"takes": pd.DataFrame(columns=["kind", "card_does", "positions", "mean", "low", "high"])},
        "take-cells.csv", "no rows",
    ),
    "unknown compared rules": ({"compare": "no-such-rules"}, ".gin-sim.json", "no-such-rules"),
    "unknown own rules": ({"rules": "no-such-rules"}, ".gin-sim.json", "no-such-rules"),
    "a rule set not compared": (
        {"compare": "standard", "by_rules": _by_rules("oklahoma")},
        "knock-line-by-rules.csv", "'oklahoma'",
    ),
    "empty by rules": (
        {"compare": "standard", "by_rules": _by_rules("standard").iloc[:0]},
        "knock-line-by-rules.csv", "no rows",
    ),
    "negative line by rules": (
        {"compare": "standard", "by_rules": _by_rules("standard", line=[10, 10, -3, 0, 0])},
        "knock-line-by-rules.csv", "-1 to 10",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", list(CASES))
def test_distill_refuses_nonsense_in_its_tables(tmp_path, case):
    setting, where, message = CASES[case]
    if "takes" in setting and isinstance(setting["takes"], dict):
        setting = setting | {"takes": pd.DataFrame(setting["takes"])}
    folder = _advice(tmp_path / "advice", **setting)
    out = tmp_path / "advised.toml"
    result = runner.invoke(app, ["distill", str(folder), "--out", str(out), "--deals", "10"])
    one_line(result, where, message)
    assert not out.exists()


def test_empty_knock_line_table(tmp_path):
    folder = _advice(tmp_path / "advice")
    (folder / "knock-line.csv").write_text("stock_band,threshold,positions\n")
    result = runner.invoke(app, ["distill", str(folder), "--out", str(tmp_path / "a.toml")])
    one_line(result, "knock-line.csv", "no rows")


# -- advise --view refuses the position options --------------------------------------------
@pytest.mark.parametrize(
    "option",
    [["--dealer", "opponent"], ["--pile-takes", "0"], ["--score-format", "game"],
     ["--score", "10:20"], ["--from-pile"], ["--phase", "offer"], ["--own-turns", "0"],
     ["--knock-limit", "10"]],
)  # fmt: skip
def test_advise_view_refuses_the_position_options(tmp_path, option):
    view = tmp_path / "view.json"
    view.write_text("{}")
    result = runner.invoke(app, ["advise", "--view", str(view), *option])
    one_line(result, f"drop {option[0]}" if option[0] != "--phase" else "drop --decision")
