"""The tuner's study under hostile conditions (issue 18, item 4): a damaged, truncated,
empty or foreign ``study.db``, storage that cannot be written, a multi-line ``--space``,
Ctrl-C and Optuna's own messages. Each is one ``error:`` line or works, and the study file
is left as it was."""

from __future__ import annotations

import json
import shutil
import sqlite3
import subprocess
import sys

import pytest
from typer.testing import CliRunner

from gin_sim.interfaces.cli import app
from gin_sim.players.strategies import load_strategy

runner = CliRunner()
SPACE = "knock_threshold=6:10,keep_weight=0.0:1.0"
SMALL = ["--strategy", "basic", "--opponents", "simple", "--trials", "3", "--deals", "200"]
SMALL += ["--blocks", "2", "--top", "1", "--holdout", "100", "--quiet"]


def tune(out, space=SPACE, *more):
    return runner.invoke(app, ["tune", "--space", space, *SMALL, *more, "--out", str(out)])


def assert_one_line_error(result, *fragments: str) -> None:
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1, result.stderr
    for fragment in fragments:
        assert fragment in result.stderr, (fragment, result.stderr)


@pytest.fixture(scope="module")
def finished(tmp_path_factory):
    out = tmp_path_factory.mktemp("tune") / "done"
    result = tune(out)
    assert result.exit_code == 0, result.output
    return out


def _unfinished_copy(finished, out):
    """A tuning folder of the same command, stopped before its study was written: its
    configuration and gin-sim's owner record (unfinished)."""
    out.mkdir()
    shutil.copy(finished / "tune.json", out / "tune.json")
    record = json.loads((finished / ".gin-sim.json").read_text())
    (out / ".gin-sim.json").write_text(json.dumps(record | {"finished": False}))


def _foreign(path, _finished):
    with sqlite3.connect(path) as connection:
        connection.execute("CREATE TABLE recipes (name TEXT)")


def _other_study(path, finished):
    import optuna

    shutil.copy(finished / "study.db", path)
    optuna.create_study(study_name="mine", storage=f"sqlite:///{path}")


@pytest.mark.parametrize(
    "damage, fragment",
    [
        (lambda path, _: path.write_bytes(b"not a database at all\n" * 50), "not an SQLite"),
        (lambda path, done: path.write_bytes((done / "study.db").read_bytes()[:3000]), "damaged"),
        (_foreign, "a database of something else"),
        (_other_study, "other Optuna studies: mine, tune"),
    ],
    ids=["garbage", "truncated", "foreign", "another-study"],
)
@pytest.mark.first_case
def test_a_study_file_optuna_cannot_use_is_one_line_and_kept(tmp_path, finished, damage, fragment):
    out = tmp_path / "t"
    _unfinished_copy(finished, out)
    damage(out / "study.db", finished)
    before = (out / "study.db").read_bytes()
    assert_one_line_error(tune(out), str(out / "study.db"), fragment)
    assert (out / "study.db").read_bytes() == before  # left exactly as it was


def test_an_empty_study_file_is_a_new_study(tmp_path, finished):
    out = tmp_path / "t"
    _unfinished_copy(finished, out)
    (out / "study.db").write_bytes(b"")
    result = tune(out)
    assert result.exit_code == 0, result.output
    assert (out / "best.toml").read_text() == (finished / "best.toml").read_text().replace(
        str(finished), str(out)
    )


def test_storage_that_cannot_be_written_is_one_line(tmp_path, monkeypatch):
    """A read-only folder or a database locked by another process: SQLite refuses the
    write (simulated, since the tests may run as root, whom permissions do not stop)."""
    import optuna
    import sqlalchemy.exc

    def refuse(*args, **kwargs):
        raise sqlalchemy.exc.OperationalError(
            "INSERT", {}, sqlite3.OperationalError("attempt to write a readonly database")
        )

    monkeypatch.setattr(optuna.storages.RDBStorage, "_create_new_trial", refuse)
    out = tmp_path / "t"
    assert_one_line_error(tune(out), str(out / "study.db"), "attempt to write a readonly database")


def test_a_multi_line_space_is_kept_on_one_line_and_the_same_study(tmp_path):
    out = tmp_path / "t"
    result = tune(out, "knock_threshold = 6:10,\n  keep_weight=0.0 : 1.0\n")
    assert result.exit_code == 0, result.output
    assert json.loads((out / "tune.json").read_text())["space"] == SPACE
    text = (out / "best.toml").read_text()
    assert all(line.startswith("#") or "=" in line for line in text.splitlines())
    assert load_strategy(str(out / "best.toml")).name == "basic-tuned"
    # the same space written on one line is the same study: it resumes, nothing refused
    again = tune(out, SPACE)
    assert again.exit_code == 0, again.output


def _run_tune(tmp_path, patch: str = "") -> subprocess.CompletedProcess:
    """The command in a fresh process, as a user runs it (Optuna's log handler writes to
    the real stderr, which the test runner does not capture); ``patch`` runs first."""
    code = (
        "import sys\nimport gin_sim.experiments.tuner\n"
        + patch
        + "from gin_sim.interfaces.cli import main\nsys.argv = ['gin-sim'] + sys.argv[1:]\nmain()\n"
    )
    arguments = ["tune", "--space", SPACE, *SMALL, "--out", str(tmp_path / "t")]
    return subprocess.run(
        [sys.executable, "-c", code, *arguments], capture_output=True, text=True, timeout=300
    )


@pytest.mark.full
def test_ctrl_c_in_a_trial_is_one_line_and_optuna_says_nothing_raw(tmp_path):
    interrupt = (
        "real = gin_sim.experiments.tuner.play_units\ncalls = 0\n"
        "def play_units(*args):\n"
        "    global calls\n    calls += 1\n"
        "    if calls == 3:\n        raise KeyboardInterrupt\n"
        "    return real(*args)\n"
        "gin_sim.experiments.tuner.play_units = play_units\n"
    )
    result = _run_tune(tmp_path, interrupt)
    assert result.returncode == 130, result.stderr
    assert (
        result.stderr.startswith("interrupted; the finished trials are saved")
        and result.stderr.count("\n") == 1
    ), result.stderr
    # then the same command finishes; Optuna's warnings (here PED-ANOVA's, on too few
    # trials) come as one line each, never as Python's two-line warnings
    result = _run_tune(tmp_path)
    assert result.returncode == 0, result.stderr
    lines = result.stderr.splitlines()
    assert all(line.startswith("warning: ") for line in lines), result.stderr
    assert "Traceback" not in result.stderr and "optuna_warn" not in result.stderr


# -- the tuning folder: gin-sim's own, one writer (issue 18, item 2) ---------------------------
def _snapshot(folder):
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in folder.iterdir()}


def test_a_finished_tune_rerun_prints_it_and_rewrites_nothing(tmp_path, finished):
    out = tmp_path / "t"
    shutil.copytree(finished, out)
    edited = (out / "best.toml").read_text() + "# my note\n"
    (out / "best.toml").write_text(edited)
    before = _snapshot(out)
    result = tune(out)
    assert result.exit_code == 0, result.output
    assert "already written by this command: nothing played or rewritten" in result.stdout
    assert _snapshot(out) == before  # the user's edit of best.toml survives
    # other options on the finished folder are refused; the same study with more trials too
    for more, fragment in (
        (["--top", "2"], "top 1 there, 2 asked"),
        (["--seed", "2"], "another tuning study"),
    ):
        arguments = ["tune", "--space", SPACE, *SMALL, *more, "--out", str(out)]
        assert_one_line_error(runner.invoke(app, arguments), str(out), fragment)
    assert _snapshot(out) == before


def test_an_unfinished_tune_goes_on_with_new_output_options(tmp_path, finished):
    out = tmp_path / "t"
    _unfinished_copy(finished, out)
    result = runner.invoke(app, ["tune", "--space", SPACE, *SMALL, "--top", "2", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert json.loads((out / ".gin-sim.json").read_text())["options"]["top"] == 2


@pytest.mark.parametrize("name", ["best.toml", "notes.txt", "report.md"])
def test_a_folder_holding_a_users_files_is_refused_and_left_alone(tmp_path, name):
    out = tmp_path / "t"
    out.mkdir()
    (out / name).write_text("mine\n")
    assert_one_line_error(tune(out), str(out), "gin-sim did not write", name)
    assert [p.name for p in out.iterdir()] == [name] and (out / name).read_text() == "mine\n"


def test_two_tunes_at_once_on_one_folder_the_second_is_refused(tmp_path):
    import fcntl
    import os

    out = tmp_path / "t"
    first = tune(out, SPACE, "--trials", "2")  # a tuning folder of gin-sim's, unfinished below
    assert first.exit_code == 0, first.output
    record = json.loads((out / ".gin-sim.json").read_text())
    (out / ".gin-sim.json").write_text(json.dumps(record | {"finished": False}))
    # another process writing there holds the folder's lock (flock: another descriptor)
    descriptor = os.open(out / ".gin-sim.lock", os.O_RDWR)
    fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
    try:
        before = _snapshot(out)
        assert_one_line_error(tune(out, SPACE, "--trials", "2"), "being written by another")
        assert _snapshot(out) == before
    finally:
        os.close(descriptor)
