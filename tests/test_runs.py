"""Run folders: Parquet chunks, manifest, resume, faults, summarize, load_run."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

import gin_sim
from gin_sim.experiments.outputs import FolderError
from gin_sim.experiments.runs import RunConfig, RunError, execute, load_run, read_manifest
from gin_sim.game.rules import load_rules
from gin_sim.interfaces.cli import app
from gin_sim.players.strategies import parse_players

runner = CliRunner()


def run_cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "gin_sim", *args], capture_output=True, text=True)


def hands_config(**changes) -> RunConfig:
    values = dict(
        kind="hands", rules=load_rules("hollywood"), players=parse_players("expert,simple"),
        seed=5, count=3_000, duplicate=True, chunk_size=1_000,
    )  # fmt: skip
    return RunConfig(**(values | changes))


def test_run_writes_chunks_and_manifest_and_reads_back(tmp_path):
    frames = list(execute(hands_config(), tmp_path / "run"))
    files = sorted(p.name for p in (tmp_path / "run").iterdir())
    assert files == [
        ".gin-sim.lock",  # the writer lock (gin_sim.experiments.outputs): kept, never replaced
        "hands-000000.parquet",
        "hands-000001.parquet",
        "hands-000002.parquet",
        "manifest.json",
    ]
    manifest = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert manifest["config"]["seed"] == 5 and manifest["config"]["players"][0]["name"] == "expert"
    assert (
        manifest["config"]["rules"]["gin_bonus"] == 25
        and "gin_sim_version" in manifest
        and "created" in manifest
    )
    assert read_manifest(tmp_path / "run") == hands_config()
    loaded = gin_sim.load_run(tmp_path / "run")
    assert len(loaded) == 6_000 and loaded["gin"].dtype == bool
    assert isinstance(loaded["draw_reason"].dtype, pd.CategoricalDtype)
    assert set(loaded["seat0_strategy"].cat.categories) == {"expert", "simple"}
    direct = pd.concat(frames, ignore_index=True)
    assert (loaded["points"].to_numpy() == direct["points"].to_numpy()).all()


def test_results_do_not_depend_on_chunk_size_or_threads(tmp_path):
    a = pd.concat(
        execute(hands_config(chunk_size=700), tmp_path / "a", threads=1), ignore_index=True
    )
    b = pd.concat(
        execute(hands_config(chunk_size=3_000), tmp_path / "b", threads=2), ignore_index=True
    )
    pd.testing.assert_frame_equal(a, b)
    pd.testing.assert_frame_equal(
        gin_sim.load_run(tmp_path / "a"), gin_sim.load_run(tmp_path / "b")
    )


def test_resume_skips_finished_chunks_and_gives_identical_results(tmp_path):
    whole = pd.concat(execute(hands_config(), tmp_path / "whole"), ignore_index=True)
    partial = tmp_path / "partial"
    iterator = execute(hands_config(), partial)
    next(iterator)  # one chunk finished, then the run "stops"
    iterator.close()
    # chunk 0 is done; chunk 1 may have been played and saved meanwhile (the writer thread)
    saved = sorted(p.name for p in partial.glob("*.parquet"))
    assert saved[0] == "hands-000000.parquet" and len(saved) < 3
    before = (partial / "hands-000000.parquet").stat().st_mtime_ns
    resumed_flags = []
    resumed = pd.concat(
        execute(hands_config(), partial, on_chunk=lambda n, r: resumed_flags.append(r)),
        ignore_index=True,
    )
    assert resumed_flags == [True] * len(saved) + [False] * (3 - len(saved))
    assert (partial / "hands-000000.parquet").stat().st_mtime_ns == before  # never rewritten
    pd.testing.assert_frame_equal(whole, resumed)


@pytest.mark.full
def test_killed_process_resumes_to_the_same_results(tmp_path):
    """A subprocess killed mid-run leaves only whole chunks; the same command finishes the run."""
    out = tmp_path / "killed"
    args = [
        "simulate",
        "--deals",
        "600000",
        "--chunk-size",
        "20000",
        "--players",
        "expert,simple",
        "--out",
        str(out),
        "--quiet",
        "--json",
    ]
    process = subprocess.Popen(
        [sys.executable, "-m", "gin_sim", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    deadline = time.time() + 120
    while time.time() < deadline and len(list(out.glob("hands-*.parquet"))) < 3:
        time.sleep(0.05)
    process.send_signal(signal.SIGKILL)
    process.wait()
    written = list(out.glob("hands-*.parquet"))
    assert 0 < len(written) < 30, "the kill should land mid-run"
    finished = run_cli(*args)
    assert finished.returncode == 0, finished.stderr
    reference = run_cli(*[a if a != str(out) else str(tmp_path / "clean") for a in args])
    assert json.loads(finished.stdout) | {"out": ""} == json.loads(reference.stdout) | {"out": ""}
    assert not list(out.glob(".*tmp"))  # no half-written file left behind


@pytest.mark.parametrize(("stop", "code", "word"), [(signal.SIGINT, 130, "interrupted"), (signal.SIGTERM, 143, "terminated")])  # fmt: skip
@pytest.mark.first_case
def test_ctrl_c_and_sigterm_stop_cleanly_with_how_to_resume(tmp_path, stop, code, word):
    out = tmp_path / "interrupted"
    # Minutes of work: a run of 2,000,000 deals (two seconds on two cores) was once done
    # before the signal came, this test's process starved of the cores by the others.
    deals = 200_000_000
    args = [
        sys.executable,
        "-m",
        "gin_sim",
        "simulate",
        "--deals",
        str(deals),
        "--chunk-size",
        "20000",
        "--out",
        str(out),
        "--quiet",
    ]
    # A shell that starts the tests in the background makes them ignore SIGINT, and Python
    # keeps an inherited "ignore": restore the default as a terminal would have it.
    process = subprocess.Popen(
        args,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.time() + 120
    while time.time() < deadline and len(list(out.glob("hands-*.parquet"))) < 2:
        time.sleep(0.05)
    process.send_signal(stop)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == code, stderr
    assert stderr.count("\n") == 1 and stderr.startswith(word), stderr
    assert "run the same command again to resume" in stderr and "Traceback" not in stderr
    # the count is what is on disk, including the chunk the writer thread finished last
    saved = int(stderr.split(f"{word}; ")[1].split(" of ")[0].replace(",", ""))
    on_disk = len(list(out.glob("hands-*.parquet"))) * 20_000
    assert saved == on_disk and 0 < saved < deals
    assert not list(out.glob(".*.tmp"))


@pytest.mark.full
def test_another_configuration_is_refused_and_overwrite_replaces(tmp_path):
    out = str(tmp_path / "run")
    assert run_cli("simulate", "--deals", "2000", "--out", out, "--quiet").returncode == 0
    refused = run_cli("simulate", "--deals", "2000", "--seed", "9", "--out", out, "--quiet")
    assert refused.returncode == 2 and "holds another run (seed 1 there, 9 asked)" in refused.stderr
    assert refused.stderr.count("\n") == 1
    replaced = run_cli(
        "simulate", "--deals", "2000", "--seed", "9", "--out", out, "--quiet", "--overwrite"
    )
    assert replaced.returncode == 0 and read_manifest(out).seed == 9


def test_summarize_prints_what_the_run_printed(tmp_path):
    out = str(tmp_path / "run")
    printed = runner.invoke(
        app, ["simulate", "--deals", "3000", "--chunk-size", "1000", "--out", out, "--json"]
    )
    summarized = runner.invoke(app, ["summarize", out, "--json"])
    assert printed.exit_code == 0 and summarized.exit_code == 0, summarized.output
    first, second = json.loads(printed.output), json.loads(summarized.output)
    first.pop("out")
    assert first == second
    matches_out = str(tmp_path / "matches")
    printed = runner.invoke(
        app,
        [
            "match",
            "--matches",
            "500",
            "--chunk-size",
            "200",
            "--out",
            matches_out,
            "--with-hands",
            "--json",
        ],
    )
    summarized = runner.invoke(app, ["summarize", matches_out, "--json"])
    first, second = json.loads(printed.output), json.loads(summarized.output)
    first.pop("out")
    assert first == second
    hands = gin_sim.load_run(matches_out)
    matches = gin_sim.load_run(matches_out, level="match")
    assert len(hands) == matches["hands"].sum() and {"match", "deal", "swapped"} <= set(
        hands.columns
    )


def damaged(path: Path) -> None:
    data = path.read_bytes()
    path.write_bytes(data[: len(data) // 2])


@pytest.mark.parametrize(
    ("fault", "message"),
    [
        ("truncate-chunk", "is damaged"),
        ("corrupt-manifest", "manifest.json is damaged"),
        ("foreign-manifest", "is not a gin-sim run manifest"),
    ],
)
@pytest.mark.first_case
def test_faults_give_one_line_errors_and_keep_finished_chunks(tmp_path, fault, message):
    out = tmp_path / "run"
    args = ["simulate", "--deals", "3000", "--chunk-size", "1000", "--out", str(out), "--quiet"]
    assert run_cli(*args).returncode == 0
    if fault == "truncate-chunk":
        damaged(out / "hands-000001.parquet")
    elif fault == "corrupt-manifest":
        (out / "manifest.json").write_text("{ not json")
    else:
        (out / "manifest.json").write_text(json.dumps({"name": "something else"}))
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    for attempt in (run_cli(*args), run_cli("summarize", str(out))):
        assert attempt.returncode == 2, attempt.stderr
        assert (
            message in attempt.stderr
            and attempt.stderr.count("\n") == 1
            and "Traceback" not in attempt.stderr
        )
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before  # nothing deleted or rewritten


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["simulate", "--deals", "-5"], "deals = -5"),
        (["simulate", "--chunk-size", "0", "--out", "{tmp}/x"], "chunk size = 0"),
        (["match", "--matches", "0"], "matches = 0"),
        (["simulate", "--out", "/proc/gin-sim-cannot-write-here"], "cannot create the run folder"),
        (["summarize", "{tmp}/nothing-here"], "does not exist"),
    ],
)
@pytest.mark.first_case
def test_bad_run_input(tmp_path, args, message):
    result = run_cli(*[a.replace("{tmp}", str(tmp_path)) for a in args])
    assert result.returncode == 2 and message in result.stderr and result.stderr.count("\n") == 1


def test_unwritable_out(tmp_path):
    """Root (as in CI) may write anywhere, so block the folder with a file in its path."""
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    result = run_cli("simulate", "--deals", "100", "--out", str(blocker / "run"))
    assert result.returncode == 2 and "cannot create the run folder" in result.stderr
    if os.geteuid() != 0:
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o500)
        result = run_cli("simulate", "--deals", "100", "--out", str(locked))
        assert result.returncode == 2 and "cannot write to the run folder" in result.stderr


def test_unfinished_run_is_reported(tmp_path):
    iterator = execute(hands_config(), tmp_path / "run")
    next(iterator)
    iterator.close()
    with pytest.raises(RunError, match=r"unfinished: [12] of 3 chunks missing"):
        gin_sim.load_run(tmp_path / "run")
    list(execute(hands_config(), tmp_path / "run"))
    assert len(gin_sim.load_run(tmp_path / "run")) == 6_000


# -- one run per folder (issue 18, item 1) ----------------------------------------------------
@pytest.mark.full
def test_two_runs_started_at_once_on_one_folder_never_mix(tmp_path):
    """Two ``simulate --out D`` of different pairings started together: one plays, the other
    is refused in one line (the folder's writer lock, or the first run's manifest), and the
    folder holds exactly the one run."""
    out = tmp_path / "run"
    common = [
        "simulate",
        "--deals",
        "60000",
        "--chunk-size",
        "6000",
        "--out",
        str(out),
        "--quiet",
    ]
    processes = [
        subprocess.Popen(
            [sys.executable, "-m", "gin_sim", *common, "--players", players],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for players in ("simple,simple", "basic,simple")
    ]
    results = [(p.wait(timeout=600), p.stderr.read()) for p in processes]
    codes = sorted(code for code, _ in results)
    assert codes == [0, 2], results
    refused = next(err for code, err in results if code == 2)
    assert refused.startswith("error: ") and len(refused.strip().splitlines()) == 1
    assert "another gin-sim process" in refused or "holds another run" in refused
    frame = load_run(out)
    names = set(frame["seat0_strategy"]) | set(frame["seat1_strategy"])
    assert names == {p.name for p in read_manifest(out).players}
    assert len(frame) == 120_000


def test_a_folder_locked_by_another_process_is_refused(tmp_path):
    """The lock is held by another process for as long as it writes."""
    out = tmp_path / "run"
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time; from pathlib import Path; from gin_sim.experiments.outputs import lock_folder; "
            f"Path({str(out)!r}).mkdir(); lock_folder(Path({str(out)!r})); print('locked', flush=True); time.sleep(60)",
        ],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(FolderError, match="being written by another gin-sim process"):
            list(execute(hands_config(), out))
        assert sorted(p.name for p in out.iterdir()) == [".gin-sim.lock"]
    finally:
        holder.kill()
        holder.wait()
    assert len(pd.concat(execute(hands_config(), out))) == 6000  # free again: it plays


def test_a_chunk_of_another_pairing_with_the_same_seed_and_range_is_refused(tmp_path):
    """Chunks carry their run's identity (players, rules, seed, settings), checked on resume
    and when the run is read (summarize, load_run)."""
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    list(execute(hands_config(), ours))
    list(execute(hands_config(players=parse_players("simple,simple")), theirs))
    shutil.copy(theirs / "hands-000001.parquet", ours / "hands-000001.parquet")
    with pytest.raises(RunError, match=r"hands-000001.parquet is not this run's"):
        load_run(ours)
    with pytest.raises(RunError, match=r"hands-000001.parquet is not this run's"):
        list(execute(hands_config(), ours))
    result = run_cli("summarize", str(ours))
    assert result.returncode == 2 and "is not this run's" in result.stderr
