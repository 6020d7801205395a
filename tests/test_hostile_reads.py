"""Issue 29, class 6: every file gin-sim reads goes through one bounded, non-blocking
opener (``config.opened_user_file``): a FIFO is refused at once (never waited on), a huge
or sparse file is refused by its size before anything is read. Owner marks
(``.gin-sim.json``) included. And a score-aware search never makes a table for a game
target it cannot hold: such a target is one line naming the value and what is allowed."""

from __future__ import annotations

import json
import os
import threading
import time
from dataclasses import replace
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from gin_sim.experiments.tuner import TuneError, check_study_file
from gin_sim.game.config import ConfigError, opened_user_file, read_user_file
from gin_sim.game.limits import MAX_SCORE_TABLE_TARGET
from gin_sim.game.rules import load_rules
from gin_sim.interfaces.cli import app
from gin_sim.players.decide import Decider
from gin_sim.players.search_value import game_table
from gin_sim.players.strategies import load_strategy

runner = CliRunner()
HUGE = 3 << 30  # a sparse file of 3 GiB: nothing of it may be read


def _invoke(args: list[str], seconds: float = 120):
    """The command's result, or a failure if it has not ended within ``seconds`` (a FIFO
    waited on): then every FIFO under the test's folders is opened to free it."""
    box: dict = {}
    thread = threading.Thread(target=lambda: box.update(result=runner.invoke(app, args)))
    thread.daemon = True
    started = time.time()
    thread.start()
    thread.join(seconds)
    if thread.is_alive():
        pytest.fail(f"gin-sim {' '.join(args)} hung for {seconds} s")
    box["seconds"] = time.time() - started
    return box["result"]


def _refused(result, *fragments: str) -> None:
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    stderr = result.stderr
    assert stderr.startswith("error: ") and stderr.count("\n") == 1, stderr
    assert "Traceback" not in result.output
    for fragment in fragments:
        assert fragment in stderr, (fragment, stderr)


def _make(path: Path, kind: str) -> str:
    """A hostile file at ``path``; what its error says."""
    if kind == "fifo":
        os.mkfifo(path)
        return "is a FIFO, not a regular file"
    if kind == "sparse":
        with path.open("wb") as handle:
            handle.truncate(HUGE)
        return "is larger than"
    if kind == "nested":
        path.write_text("[" * 5_000 + "]" * 5_000)
        return "nested"
    path.write_text(json.dumps(json.loads("[" * 20 + "1" + "]" * 20)))  # "deep": past 16
    return "nested more than"


def _advice_folder(folder: Path) -> Path:
    folder.mkdir(parents=True)
    bands = ["25-31", "19-24", "13-18", "7-12", "0-6"]
    pd.DataFrame({"stock_band": bands, "threshold": [10] * 5, "positions": [200] * 5}).to_csv(
        folder / "knock-line.csv", index=False
    )
    pd.DataFrame(
        {"kind": ["draw"], "card_does": ["lowers nothing"], "positions": [50],
         "mean": [0.1], "low": [-0.2], "high": [0.4]}
    ).to_csv(folder / "take-cells.csv", index=False)  # fmt: skip
    mark = {"format": 1, "kind": "report advice", "finished": True,
            "options": {"rules": "hollywood", "compare": "none"}}  # fmt: skip
    (folder / ".gin-sim.json").write_text(json.dumps(mark))
    return folder


# The commands that read an owner mark in a folder they are given.
OWNER_READERS = {
    "distill": lambda folder, tmp: ["distill", str(folder), "--out", str(tmp / "a.toml")],
    "report advice": lambda folder, tmp: ["report", "advice", "--out", str(folder)],
    "report equity": lambda folder, tmp: ["report", "equity", "--out", str(folder)],
    "report knock": lambda folder, tmp: ["report", "knock", "--out", str(folder)],
    "tune": lambda folder, tmp: ["tune", "--space", "knock_threshold=6:10", "--out", str(folder)],
}


@pytest.mark.parametrize("kind", ["fifo", "sparse", "nested", "deep"])
@pytest.mark.parametrize("command", list(OWNER_READERS))
def test_an_owner_mark_is_read_as_every_file(tmp_path, command, kind):
    folder = tmp_path / "out"
    if command == "distill":
        _advice_folder(folder)
        (folder / ".gin-sim.json").unlink()
    else:
        folder.mkdir()
    message = _make(folder / ".gin-sim.json", kind)
    result = _invoke([*OWNER_READERS[command](folder, tmp_path), "--quiet"])
    _refused(result, ".gin-sim.json", message)
    assert sorted(p.name for p in folder.iterdir()) == sorted(
        [".gin-sim.json", "knock-line.csv", "take-cells.csv"][: 3 if command == "distill" else 1]
    )


def _run_folder(tmp_path: Path) -> Path:
    out = tmp_path / "run"
    result = runner.invoke(
        app, ["simulate", "--deals", "100", "--players", "simple,simple", "--out", str(out)]
    )
    assert result.exit_code == 0, result.output
    return out


def _record(tmp_path: Path) -> Path:
    path = tmp_path / "game.json"
    dull = ("p\nd\n" + "\n".join(f"{r}{s}" for s in "CDHS" for r in "A23456789TJQK") + "\n") * 40
    args = ["play", "--opponent", "simple", "--format", "hand", "--save", str(path)]
    assert runner.invoke(app, args, input=dull).exit_code == 0
    return path


# Every other kind of file a command reads: (how to make the setting, the file, the command)
def _case(name: str, tmp_path: Path) -> tuple[Path, list[str]]:
    if name == "manifest":
        out = _run_folder(tmp_path)
        (out / "manifest.json").unlink()
        return out / "manifest.json", ["summarize", str(out)]
    if name == "chunk":
        out = _run_folder(tmp_path)
        (out / "hands-000000.parquet").unlink()
        return out / "hands-000000.parquet", ["summarize", str(out)]
    if name == "rules":
        return tmp_path / "r.toml", [
            "replay",
            "--seed",
            "1",
            "--deal",
            "0",
            "--rules",
            str(tmp_path / "r.toml"),
        ]
    if name == "strategy":
        return tmp_path / "s.toml", [
            "simulate",
            "--deals",
            "10",
            "--players",
            f"{tmp_path / 's.toml'},simple",
        ]
    if name == "record":
        return tmp_path / "g.json", ["replay", "--record", str(tmp_path / "g.json")]
    if name == "view":
        return tmp_path / "v.json", ["advise", "--view", str(tmp_path / "v.json")]
    if name == "table":
        folder = _advice_folder(tmp_path / "advice")
        (folder / "knock-line.csv").unlink()
        return folder / "knock-line.csv", [
            "distill",
            str(folder),
            "--out",
            str(tmp_path / "a.toml"),
        ]
    raise AssertionError(name)


@pytest.mark.parametrize("kind", ["fifo", "sparse"])
@pytest.mark.parametrize(
    "name", ["manifest", "chunk", "rules", "strategy", "record", "view", "table"]
)
def test_every_file_read_is_refused_at_once_when_it_is_a_fifo_or_huge(tmp_path, name, kind):
    path, args = _case(name, tmp_path)
    message = _make(path, kind)
    result = _invoke(args)
    _refused(result, path.name, message.split(",")[0])
    assert path.exists()


@pytest.mark.parametrize("kind", ["fifo", "sparse"])
def test_a_tuning_study_is_looked_at_as_every_file(tmp_path, kind):
    """tune's look at its study.db before Optuna opens it (``check_study_file``)."""
    path = tmp_path / "study.db"
    message = _make(path, kind)
    with pytest.raises(TuneError, match=message.split(",")[0]):
        check_study_file(path)


@pytest.mark.parametrize("kind", ["fifo", "sparse", "folder", "device"])
def test_the_opener_itself(tmp_path, kind):
    path = tmp_path / "file"
    if kind == "folder":
        path.mkdir()
        with pytest.raises(IsADirectoryError):
            read_user_file(path)
        return
    if kind == "device":
        path = Path("/dev/zero")  # endless: refused, not read
        with pytest.raises(ConfigError, match="is a device"):
            read_user_file(path)
        return
    message = _make(path, kind)
    started = time.time()
    with pytest.raises(ConfigError, match=message), opened_user_file(path, 1 << 20):
        pass
    assert time.time() - started < 5


# -- a game target a score-aware search cannot hold ------------------------------------------
@pytest.mark.parametrize("target", [MAX_SCORE_TABLE_TARGET + 1, 5_000, 100_000])
def test_a_score_aware_searcher_refuses_a_target_beyond_its_table(tmp_path, target):
    rules_file = tmp_path / "long.toml"
    rules_file.write_text(f'name = "long"\ngame_target = {target}\n')
    started = time.time()
    with pytest.raises(ConfigError, match=f"game_target = {target:,}"):
        Decider("mc-match", rules_file)
    with pytest.raises(ConfigError, match="allowed targets up to 1,000"):
        game_table(replace(load_rules("hollywood"), game_target=target), "expert", "simple")
    for args in (
        ["advise", "--strategy", "mc-match", "--rules", str(rules_file), "--hand",
         "7h 8h 9h 2c 2d 2s 5s 6d jc kd", "--decision", "offer", "--upcard", "5h",
         "--score", "10:20"],
        ["match", "--players", "mc-match,simple", "--rules", str(rules_file), "--matches", "2"],
        ["simulate", "--players", "simple,mc-match", "--rules", str(rules_file), "--deals", "2"],
        ["play", "--opponent", "mc-match", "--rules", str(rules_file)],
        ["replay", "--seed", "1", "--deal", "0", "--players", "mc-match,simple", "--rules",
         str(rules_file)],
    ):  # fmt: skip
        result = _invoke(args, seconds=60)
        _refused(result, f"game_target = {target:,}", "allowed 1 to 1,000")
    assert time.time() - started < 120


def test_a_target_the_table_holds_and_players_without_tables_are_unbounded():
    rules = replace(load_rules("hollywood"), game_target=MAX_SCORE_TABLE_TARGET)
    load_strategy("mc-match").for_rules(rules)  # accepted
    far = replace(load_rules("hollywood"), game_target=100_000)
    for name in ("mc", "expert", "simple"):
        load_strategy(name).for_rules(far)  # they read no table
