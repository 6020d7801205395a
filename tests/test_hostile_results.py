"""Issue 29, class 4: finished results are never replaced, nor is a file gin-sim did not
write. ``play --save`` holds its record for one game (a lock) and refuses a finished
game's record; ``--overwrite`` replaces only gin-sim's own files (one rule in the shared
run-folder code, ``runs._refuse_files_not_written_by_gin_sim``), for simulate, match and
positions alike."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from gin_sim.game.config import ConfigError
from gin_sim.interfaces.cli import app
from gin_sim.interfaces.play import RECORD_KIND, RecordFile

runner = CliRunner()
CARDS = [f"{r}{s}" for s in "CDHS" for r in "A23456789TJQK"]
DULL = ("p\nd\n" + "\n".join(CARDS) + "\n") * 400  # a player that always passes and draws


def _one_line_error(result, *fragments: str) -> str:
    assert result.exit_code == 2, (result.exit_code, result.output)
    stderr = result.stderr
    assert stderr.startswith("error: ") and stderr.count("\n") == 1, stderr
    for fragment in fragments:
        assert fragment in stderr, (fragment, stderr)
    return stderr


def _play(path: Path, *more: str, game_format: str = "hand", seed: int = 3):
    args = ["play", "--opponent", "simple", "--format", game_format, "--seed", str(seed)]
    return runner.invoke(app, [*args, "--save", str(path), *more], input=DULL)


@pytest.mark.parametrize("game_format", ["hand", "game"])
def test_a_finished_game_is_never_replaced(tmp_path, game_format):
    path = tmp_path / "game.json"
    assert _play(path, game_format=game_format).exit_code == 0
    before = path.read_bytes()
    document = json.loads(before)
    assert document["finished"]
    for seed, again in ((3, game_format), (9, "hand"), (9, "hollywood")):
        result = _play(path, game_format=again, seed=seed)
        _one_line_error(result, f"--save {path}", "holds a finished game", "give another path")
        assert "Traceback" not in result.output
    # nor through the library
    with pytest.raises(ConfigError, match="holds a finished game"):
        RecordFile(path).claim()
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]  # nothing left beside it


def test_an_unfinished_game_may_be_started_again_but_a_record_without_its_state_may_not(
    tmp_path,
):
    path = tmp_path / "game.json"
    cut = runner.invoke(
        app, ["play", "--opponent", "simple", "--seed", "5", "--save", str(path)], input="p\n"
    )
    assert cut.exit_code == 0 and not json.loads(path.read_text())["finished"]
    assert _play(path).exit_code == 0  # the game left in the middle is played afresh
    assert json.loads(path.read_text())["finished"]
    for damage in ({"finished": None}, {"finished": "no"}, {"kind": "something else"}):
        document = json.loads(path.read_text()) | damage
        if damage.get("finished", True) is None:
            del document["finished"]
        path.write_text(json.dumps(document))
        before = path.read_bytes()
        result = _play(path)
        assert result.exit_code == 2 and path.read_bytes() == before, damage


@pytest.mark.parametrize("kind", ["folder", "fifo", "symlink", "link-to-record", "notes"])
def test_what_is_not_a_record_gin_sim_wrote_is_left_alone(tmp_path, kind):
    path = tmp_path / "save.json"
    finished = tmp_path / "finished.json"
    assert _play(finished).exit_code == 0
    if kind == "folder":
        path.mkdir()
    elif kind == "fifo":
        os.mkfifo(path)
    elif kind == "symlink":
        (tmp_path / "mine.txt").write_text("my notes")
        path.symlink_to(tmp_path / "mine.txt")
    elif kind == "link-to-record":
        path.symlink_to(finished)
    else:
        path.write_text('{"kind": "my notes"}')
    before = finished.read_bytes()
    started = time.time()
    result = _play(path)
    assert time.time() - started < 60  # a FIFO is never waited on
    _one_line_error(result, f"--save {path}")
    assert finished.read_bytes() == before
    if kind == "symlink":
        assert (tmp_path / "mine.txt").read_text() == "my notes" and path.is_symlink()


@pytest.mark.full
def test_one_record_one_game(tmp_path):
    """A game in play holds its record: a second game on it is refused at once (whether
    the record is new or an unfinished game's), and the first goes on to save it."""
    path = tmp_path / "game.json"
    first = subprocess.Popen(
        [sys.executable, "-m", "gin_sim", "play", "--opponent", "simple", "--format", "hand",
         "--seed", "3", "--save", str(path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert first.stdout is not None
    seen = b""
    while b" > " not in seen:  # at its first prompt: its record is saved, and held
        more = first.stdout.read1(4096)
        assert more, first.stderr.read() if first.stderr else b""
        seen += more
    second = _play(path)
    _one_line_error(second, f"--save {path}", "another gin-sim play is saving its game there")
    with pytest.raises(ConfigError, match="another gin-sim play"):
        RecordFile(path).claim()
    out, err = first.communicate(DULL.encode(), timeout=300)
    assert first.returncode == 0, err
    document = json.loads(path.read_text())
    assert document["kind"] == RECORD_KIND and document["finished"]
    assert len(document["hands"]) == 1 and b"Saved to" in out


def test_two_claims_in_one_process_and_a_claim_that_is_let_go(tmp_path):
    path = tmp_path / "game.json"
    held = RecordFile(path).claim()
    with pytest.raises(ConfigError, match="another gin-sim play"):
        RecordFile(path).claim()
    held.release()
    assert not path.exists()  # claimed, never saved: nothing is left
    with RecordFile(path).claim() as record:
        record.save({"kind": RECORD_KIND, "finished": False, "hands": []})
        with pytest.raises(ConfigError, match="another gin-sim play"):
            RecordFile(path).claim()
    RecordFile(path).claim().release()  # unfinished and let go: free again
    assert json.loads(path.read_text())["finished"] is False
    assert [p.name for p in tmp_path.iterdir()] == ["game.json"]


@pytest.mark.full
def test_a_game_stopped_by_sigterm_keeps_its_record(tmp_path):
    path = tmp_path / "game.json"
    process = subprocess.Popen(
        [sys.executable, "-m", "gin_sim", "play", "--opponent", "simple", "--seed", "3",
         "--save", str(path)],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    process.stdin.write(b"p\nd\n")
    process.stdin.flush()
    seen = b""
    while seen.count(b" > ") < 3:
        more = process.stdout.read1(4096)
        assert more
        seen += more
    process.send_signal(signal.SIGTERM)
    _, err = process.communicate(timeout=60)
    assert process.returncode == 143 and err.count(b"\n") == 1, err
    document = json.loads(path.read_text())
    assert not document["finished"] and document["unfinished"]["moves"]
    replayed = runner.invoke(app, ["replay", "--record", str(path)])
    assert replayed.exit_code == 0, replayed.output


# -- --overwrite never replaces a user's file ---------------------------------------------
COMMANDS = {
    "simulate": ["simulate", "--deals", "200", "--players", "simple,simple", "--quiet"],
    "match": ["match", "--matches", "20", "--players", "simple,simple", "--quiet"],
    "positions": ["positions", "--deals", "2", "--players", "simple,simple", "--no-evaluate",
                  "--quiet"],
}  # fmt: skip


def _chunk_of_mine(path: Path) -> None:
    pd.DataFrame({"deal": [0, 1], "mine": [1, 2]}).to_parquet(path, index=False)


@pytest.mark.parametrize("command", list(COMMANDS))
@pytest.mark.parametrize(
    "mine",
    ["web-manifest", "not-json", "json-list", "empty", "gin-sim-like-without-version",
     "chunk-without-manifest", "manifest-symlink"],
)  # fmt: skip
def test_overwrite_never_replaces_a_users_file(tmp_path, command, mine):
    out = tmp_path / "out"
    out.mkdir()
    manifest = out / "manifest.json"
    if mine == "web-manifest":
        manifest.write_text(json.dumps({"name": "my app", "icons": [], "start_url": "/"}))
    elif mine == "not-json":
        manifest.write_text("my notes, not JSON\n")
    elif mine == "json-list":
        manifest.write_text("[1, 2, 3]")
    elif mine == "empty":
        manifest.write_text("")
    elif mine == "gin-sim-like-without-version":
        manifest.write_text(json.dumps({"format": 1, "config": {}}))
    elif mine == "chunk-without-manifest":
        name = {"simulate": "hands", "match": "matches", "positions": "positions"}[command]
        _chunk_of_mine(out / f"{name}-000000.parquet")
    else:
        (tmp_path / "elsewhere.json").write_text('{"format": 1}')
        manifest.symlink_to(tmp_path / "elsewhere.json")
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    result = runner.invoke(app, [*COMMANDS[command], "--out", str(out), "--overwrite"])
    _one_line_error(result, "--overwrite replaces only gin-sim's own files")
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before


@pytest.mark.parametrize("command", list(COMMANDS))
def test_overwrite_still_replaces_gin_sims_own_run(tmp_path, command):
    out = tmp_path / "out"
    first = runner.invoke(app, [*COMMANDS[command], "--out", str(out), "--seed", "5"])
    assert first.exit_code == 0, first.output
    refused = runner.invoke(app, [*COMMANDS[command], "--out", str(out), "--seed", "6"])
    assert refused.exit_code == 2
    # a manifest of gin-sim's whose configuration this version cannot read: replaceable
    document = json.loads((out / "manifest.json").read_text())
    document["config"]["from_the_future"] = 1
    (out / "manifest.json").write_text(json.dumps(document))
    replaced = runner.invoke(
        app, [*COMMANDS[command], "--out", str(out), "--seed", "6", "--overwrite"]
    )
    assert replaced.exit_code == 0, replaced.output
    assert json.loads((out / "manifest.json").read_text())["config"]["seed"] == 6


# -- distill --overwrite: only a strategy distill wrote -----------------------------------------
def _advice_folder(folder: Path) -> Path:
    folder.mkdir()
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


@pytest.mark.parametrize("mine", ["my strategy", "shipped", "fifo", "link"])
def test_distill_overwrite_replaces_only_what_distill_wrote(tmp_path, mine):
    report = _advice_folder(tmp_path / "advice")
    out = tmp_path / "advised.toml"
    args = ["distill", str(report), "--out", str(out), "--deals", "10", "--quiet"]
    assert runner.invoke(app, args).exit_code == 0  # the tables propose nothing: quick
    written = out.read_bytes()
    assert runner.invoke(app, [*args, "--overwrite"]).exit_code == 0
    assert out.read_bytes() == written
    target = tmp_path / "mine.toml"
    if mine == "my strategy":
        target.write_text('name = "mine"\nknock_threshold = 4\n')
    elif mine == "shipped":
        target.write_text(
            (Path(__file__).parents[1] / "configs/strategies/expert.toml").read_text()
        )
    elif mine == "fifo":
        os.mkfifo(target)
    else:
        target.symlink_to(out)
    before = target.read_bytes() if mine != "fifo" else None
    args = ["distill", str(report), "--out", str(target), "--deals", "10", "--overwrite"]
    _one_line_error(runner.invoke(app, args), str(target))
    if before is not None:
        assert target.read_bytes() == before
    assert out.read_bytes() == written
