"""Hostile input (issue 12): every bad input is one ``error:`` line naming the problem (and
its file) and what is allowed, exit code 2, no traceback, and finished results are never
lost or overwritten. Sections follow the issue's items."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shlex
import shutil
import socket
import stat
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pyarrow.parquet as pq
import pytest
from typer.testing import CliRunner

import gin_sim
from gin_sim.experiments.runs import RunConfig, execute, read_manifest
from gin_sim.game.cards import FULL_DECK, parse_cards
from gin_sim.game.deadwood import min_deadwood_many
from gin_sim.game.limits import MAX_CHUNKS, MAX_COUNT, MAX_HAND_CARDS
from gin_sim.game.rules import load_rules
from gin_sim.interfaces.cli import app
from gin_sim.interfaces.replay import replay_deal
from gin_sim.players.strategies import parse_players

runner = CliRunner()
HUGE = str(10**20)


def invoke(*args: str):
    return runner.invoke(app, list(args))


def assert_one_line_error(result, *fragments: str) -> str:
    """Exit code 2, one ``error:`` line on stderr holding every fragment, no traceback."""
    assert result.exit_code == 2, (result.exit_code, result.output, result.exception)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    stderr = result.stderr
    assert stderr.startswith("error: ") and stderr.count("\n") == 1, stderr
    for fragment in fragments:
        assert fragment in stderr, (fragment, stderr)
    assert "Traceback" not in result.output
    return stderr


def snapshot(folder: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in folder.iterdir() if p.is_file()}


def simulate_args(out: Path, *more: str) -> list[str]:
    return [
        "simulate",
        "--deals",
        "3000",
        "--chunk-size",
        "1000",
        "--out",
        str(out),
        "--quiet",
        *more,
    ]


# -- 1. a user's own files -------------------------------------------------------------
REPORT = ["report", "knock", "--deals", "100", "--matches", "0", "--quiet"]


def test_report_writes_no_index_in_a_folder_gin_sim_does_not_own(tmp_path):
    (tmp_path / "index.md").write_text("notes\n")
    result = invoke(*REPORT, "--out", str(tmp_path / "knock"))
    assert result.exit_code == 0, result.output
    assert (tmp_path / "index.md").read_text() == "notes\n"
    assert (tmp_path / "knock" / "report.md").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["index.md", "knock"]
    assert "index:" not in result.stdout


@pytest.mark.full
def test_report_rewrites_its_own_index_and_skips_a_broken_sibling(tmp_path):
    root = tmp_path / "reports"  # made by gin-sim: a report set, with its index
    result = invoke(*REPORT, "--out", str(root / "knock"))
    assert result.exit_code == 0, result.output
    assert f"index: {root / 'index.md'}" in result.stdout
    (root / "broken").mkdir()
    (root / "broken" / "report.json").write_bytes(b"\xff{ not json")
    result = invoke(*REPORT, "--out", str(root / "again"))
    assert result.exit_code == 0, result.output  # the broken sibling does not fail the report
    assert f"warning: {root / 'broken' / 'report.json'}" in result.stderr
    index = (root / "index.md").read_text()
    assert index.startswith("<!-- written by gin-sim")
    assert "(knock/report.md)" in index and "(again/report.md)" in index
    assert "broken" not in index


# Every report command, with small counts (a tournament of two fast strategies).
REPORTS = {
    "knock": ["report", "knock", "--deals", "100", "--matches", "0"],
    "undercut": ["report", "undercut", "--deals", "100"],
    "variants": ["report", "variants", "--rules", "hollywood,standard", "--deals", "50", "--matches", "0"],
    "schedule": ["report", "schedule", "--phases", "10", "--thresholds", "0,10", "--deals", "50", "--confirm-deals", "50", "--finalists", "1"],
    "tournament": ["report", "tournament", "--players", "simple,basic", "--deals", "50", "--matches", "0"],
}  # fmt: skip


@pytest.mark.parametrize("kind", sorted(REPORTS))
def test_a_report_refuses_a_folder_holding_a_users_files(tmp_path, kind):
    """Issue 18, item 2: a user's report.md, report.json, ranking.csv... are never replaced."""
    for name in ("report.md", "report.json", "ranking.csv", "notes.txt"):
        (tmp_path / name).write_text(f"my {name}")
    result = invoke(*REPORTS[kind], "--quiet", "--out", str(tmp_path))
    assert_one_line_error(result, "holds files gin-sim did not write (notes.txt, ranking.csv")
    for name in ("report.md", "report.json", "ranking.csv", "notes.txt"):
        assert (tmp_path / name).read_text() == f"my {name}"
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["report.md", "report.json", "ranking.csv", "notes.txt"]
    )


@pytest.mark.parametrize("kind", ["knock", "undercut"])
@pytest.mark.first_case
def test_a_finished_report_is_not_rewritten_and_other_options_are_refused(tmp_path, kind):
    out = tmp_path / "out"
    assert invoke(*REPORTS[kind], "--quiet", "--out", str(out)).exit_code == 0
    (out / "report.md").write_text("my edit")
    before = {p.name: p.stat().st_mtime_ns for p in out.iterdir()}
    again = invoke(*REPORTS[kind], "--quiet", "--out", str(out))
    assert again.exit_code == 0 and "already written by this command" in again.stdout
    assert {p.name: p.stat().st_mtime_ns for p in out.iterdir()} == before
    assert (out / "report.md").read_text() == "my edit"
    other = [a if a != "100" else "120" for a in REPORTS[kind]]
    assert_one_line_error(
        invoke(*other, "--quiet", "--out", str(out)), "holds a finished report", "deals 100 there"
    )
    # another kind of report in the same folder is refused too
    other_kind = "undercut" if kind == "knock" else "knock"
    assert_one_line_error(
        invoke(*REPORTS[other_kind], "--quiet", "--out", str(out)),
        f"holds gin-sim's report {kind} output",
    )
    assert (out / "report.md").read_text() == "my edit"


def test_a_report_set_refuses_a_folder_holding_a_users_files(tmp_path):
    (tmp_path / "variants").mkdir()
    (tmp_path / "variants" / "report.md").write_text("mine")
    result = invoke("report", "default", "--deals", "50", "--matches", "0", "--out", str(tmp_path))
    assert_one_line_error(result, "holds files gin-sim did not write (variants)")
    assert (tmp_path / "variants" / "report.md").read_text() == "mine"


def test_tournament_names_that_differ_by_a_space_or_underscore_get_their_own_folders(tmp_path):
    """Issue 18, item 3: folder names are injective and stay inside --out."""
    for name in ("my basic", "my_basic", "my.basic"):
        (tmp_path / f"{name}.toml").write_text(f'name = "{name}"\nknock_threshold = 5\n')
    hollywood = (Path(__file__).parent.parent / "configs" / "rules" / "hollywood.toml").read_text()
    (tmp_path / "dots.toml").write_text(hollywood.replace('name = "hollywood"', 'name = ".."'))
    players = ",".join(str(tmp_path / f"{n}.toml") for n in ("my basic", "my_basic", "my.basic"))
    out = tmp_path / "out"
    result = invoke(
        "report", "tournament", "--players", players, "--rules", str(tmp_path / "dots.toml"),
        "--deals", "30", "--matches", "0", "--quiet", "--out", str(out),
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    runs = out / "runs"
    assert [p.name for p in runs.iterdir() if p.is_dir()] == ["_2e_2e"]
    pairs = sorted(p.name for p in (runs / "_2e_2e").iterdir())
    assert pairs == [
        "my_20basic_vs_my_2ebasic",
        "my_20basic_vs_my_5fbasic",
        "my_5fbasic_vs_my_2ebasic",
    ]
    assert len(gin_sim.load_run(runs / "_2e_2e" / pairs[0] / "hands")) == 60
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        ["my basic.toml", "my_basic.toml", "my.basic.toml", "dots.toml", "out"]
    )
    assert (out / "cross-table-_2e_2e.png").exists()


@pytest.mark.parametrize("overwrite", [False, True])
def test_a_run_refuses_a_folder_holding_a_users_files(tmp_path, overwrite):
    """A run writes only into a folder of its own files: new, resumed or overwritten."""
    out = tmp_path / "run"
    first = invoke(*simulate_args(out, "--deals", "2000", "--chunk-size", "1000"))
    assert first.exit_code == 0, first.output
    (out / "hands-000001.parquet").unlink()  # unfinished: resuming would write
    mine = {
        "data.parquet": b"my own data",
        "hands-1.parquet": b"not a chunk name",
        "notes.txt": b"notes",
        ".scratch.tmp": b"my temporary file",
    }
    for name, data in mine.items():
        (out / name).write_bytes(data)
    more = ["--seed", "9", "--overwrite"] if overwrite else []
    result = invoke(*simulate_args(out, "--deals", "2000", "--chunk-size", "1000", *more))
    assert result.exit_code == 2
    assert "holds files that are not this run's (.scratch.tmp, data.parquet" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1
    for name, data in mine.items():
        assert (out / name).read_bytes() == data
    assert read_manifest(out).seed == 1 and (out / "hands-000000.parquet").exists()


def test_a_new_run_refuses_a_non_empty_folder(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    result = invoke(*simulate_args(tmp_path))
    assert result.exit_code == 2 and "notes.txt" in result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]  # not even a lock


# -- 2. hangs and runaway memory -------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["simulate", "--deals", HUGE], "allowed 1 to 10,000,000,000"),
        (["match", "--matches", HUGE], "allowed 1 to 100,000,000"),
        (["simulate", "--deals", "1000", "--chunk-size", HUGE], "chunk size"),
        (["match", "--matches", "1000", "--chunk-size", HUGE], "chunk size"),
        (["simulate", "--deals", str(MAX_COUNT), "--chunk-size", "1000"], "at most 1,000,000"),
        (["simulate", "--workers", HUGE], "workers"),
        (["report", "knock", "--deals", HUGE], "allowed 2 to 10,000,000"),
        (["report", "knock", "--matches", HUGE], "matches"),
        (["report", "undercut", "--deals", HUGE], "deals"),
        (["report", "variants", "--deals", HUGE], "deals"),
        (["report", "variants", "--matches", HUGE], "matches"),
        (["report", "schedule", "--deals", HUGE], "deals"),
        (["report", "schedule", "--confirm-deals", HUGE], "confirm deals"),
        (["report", "schedule", "--finalists", HUGE], "finalists"),
        (["report", "default", "--deals", HUGE], "deals"),
        (["report", "default", "--matches", HUGE], "matches"),
        (["report", "tournament", "--deals", HUGE], "deals"),
        (["report", "tournament", "--matches", HUGE], "matches"),
        (["tune", "--space", "knock_threshold=0:10", "--trials", HUGE], "trials"),
        (["tune", "--space", "knock_threshold=0:10", "--deals", HUGE], "deals"),
        (["tune", "--space", "knock_threshold=0:10", "--holdout", HUGE], "holdout"),
        (["tune", "--space", "knock_threshold=0:10", "--blocks", HUGE], "blocks"),
        (["tune", "--space", "knock_threshold=0:10", "--top", HUGE], "top"),
    ],
)
def test_every_count_is_bounded(tmp_path, args, fragment):
    if args[0] in ("report", "tune"):
        args = [*args, "--out", str(tmp_path / "r"), "--quiet"]
    started = time.perf_counter()
    assert_one_line_error(invoke(*args), fragment, "allowed")
    assert time.perf_counter() - started < 10
    assert not (tmp_path / "r").exists()


def test_a_manifest_with_a_huge_count_is_refused_at_once(tmp_path):
    out = tmp_path / "run"
    assert invoke(*simulate_args(out)).exit_code == 0
    document = json.loads((out / "manifest.json").read_text())
    document["config"]["count"] = 10**20
    (out / "manifest.json").write_text(json.dumps(document))
    started = time.perf_counter()
    assert_one_line_error(invoke("summarize", str(out)), "manifest.json", "allowed 1 to")
    assert time.perf_counter() - started < 10


class _LazyTask:
    def __init__(self, function, args) -> None:
        self.function, self.args = function, args

    def result(self):
        return self.function(*self.args)


class _CountingClient:
    """Enough of a Dask client to count what a run submits (a task runs in-process when
    its result is asked for)."""

    def __init__(self) -> None:
        self.submitted = 0

    def nthreads(self) -> dict[str, int]:
        return {"worker": 1}

    def submit(self, function, *args, pure=False, retries=0):
        self.submitted += 1
        return _LazyTask(function, args)


def test_a_cluster_run_submits_a_window_of_chunks_not_all_of_them():
    config = RunConfig(
        "hands", load_rules("hollywood"), parse_players("simple,simple"), 1, MAX_COUNT, False,
        MAX_COUNT // MAX_CHUNKS,
    )  # fmt: skip
    assert config.n_chunks == MAX_CHUNKS
    client = _CountingClient()
    frames = execute(config, client=client)
    first = next(frames)  # chunk 0 is collected while chunk 1 is under way
    frames.close()
    assert len(first) == config.chunk_size
    assert 2 <= client.submitted <= 64 + 2


def _server(reply: bytes | None) -> tuple[socket.socket, int]:
    """A local server that accepts connections and answers ``reply`` (None: stays silent)."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen(8)
    held: list[socket.socket] = []

    def serve() -> None:
        while True:
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            held.append(connection)
            if reply is not None:
                connection.sendall(reply)

    threading.Thread(target=serve, daemon=True).start()
    return listener, listener.getsockname()[1]


@pytest.mark.parametrize(
    ("reply", "fragment"),
    [
        (None, "no answer within 2 s"),
        (b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello" * 8, "cannot reach the Dask"),
    ],
)
def test_a_scheduler_that_is_silent_or_not_dask_is_one_line(monkeypatch, reply, fragment):
    monkeypatch.setenv("GIN_SIM_SCHEDULER_TIMEOUT", "2")
    listener, port = _server(reply)
    try:
        started = time.perf_counter()
        result = invoke("simulate", "--deals", "10", "--scheduler", f"tcp://127.0.0.1:{port}")
        assert time.perf_counter() - started < 15
    finally:
        listener.close()
    assert_one_line_error(result, fragment, f"tcp://127.0.0.1:{port}")


def test_the_scheduler_timeout_setting_is_checked(monkeypatch):
    monkeypatch.setenv("GIN_SIM_SCHEDULER_TIMEOUT", "forever")
    result = invoke("simulate", "--deals", "10", "--scheduler", "tcp://127.0.0.1:9")
    assert_one_line_error(result, "GIN_SIM_SCHEDULER_TIMEOUT", "allowed")


def test_deadwood_refuses_hands_beyond_the_limit_at_once():
    started = time.perf_counter()
    result = invoke("deadwood", " ".join(gin_sim.format_cards(FULL_DECK).split()))
    assert_one_line_error(result, "52 cards", f"allowed 0 to {MAX_HAND_CARDS}")
    for function in (gin_sim.min_deadwood, gin_sim.best_arrangement):
        with pytest.raises(ValueError, match=f"allowed 0 to {MAX_HAND_CARDS} cards"):
            function(FULL_DECK)
    with pytest.raises(ValueError, match="17 cards"):
        min_deadwood_many(np.array([0, (1 << 17) - 1], dtype=np.uint64))
    assert time.perf_counter() - started < 10
    eleven = "AS 2S 3S 4H 4D 4C 9H TH JH QS KC"
    assert invoke("deadwood", eleven).exit_code == 0
    assert gin_sim.min_deadwood(parse_cards(eleven)) == 20


# -- 3. tracebacks instead of one-line errors ------------------------------------------
@pytest.mark.parametrize("option", ["--rules", "--players"])
def test_a_config_path_that_is_a_folder(tmp_path, option):
    folder = tmp_path / "dir.toml"
    folder.mkdir()
    value = str(folder) if option == "--rules" else f"{folder},simple"
    assert_one_line_error(invoke("simulate", "--deals", "10", option, value), str(folder), "folder")


def test_report_out_on_a_file_or_below_one(tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("mine")
    for out in (blocker, blocker / "below"):
        result = invoke(*REPORT, "--out", str(out))
        assert_one_line_error(result, str(blocker), "is a file")
    assert blocker.read_text() == "mine"


def test_a_full_disk_is_one_line_and_keeps_the_saved_chunks(tmp_path, monkeypatch):
    out = tmp_path / "run"
    real = pq.write_table
    calls = []

    def write_table(table, where, **options):
        calls.append(where)
        if len(calls) >= 2:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(where))
        real(table, where, **options)

    monkeypatch.setattr(pq, "write_table", write_table)
    result = invoke(*simulate_args(out))
    assert_one_line_error(result, "hands-000001.parquet", "No space left on device", "resume")
    assert (out / "hands-000000.parquet").exists()
    assert not [p for p in out.iterdir() if p.name.endswith(".tmp")]
    monkeypatch.setattr(pq, "write_table", real)
    assert invoke(*simulate_args(out)).exit_code == 0  # the same command finishes the run
    assert len(gin_sim.load_run(out)) == 6000


def test_a_chunk_of_another_schema(tmp_path):
    out = tmp_path / "run"
    assert invoke(*simulate_args(out)).exit_code == 0
    pd.DataFrame({"something": np.arange(2000)}).to_parquet(out / "hands-000001.parquet")
    before = snapshot(out)
    for args in (simulate_args(out), ["summarize", str(out)]):
        assert_one_line_error(invoke(*args), "hands-000001.parquet", "no column 'deal'")
    with pytest.raises(ValueError, match="no column 'deal'"):
        gin_sim.load_run(out)
    assert snapshot(out) == before


# -- 4. seeds and indices: one validation ----------------------------------------------
@pytest.mark.parametrize(
    "args",
    [
        ["simulate", "--deals", "10", "--seed", str(2**64)],
        ["match", "--matches", "10", "--seed", str(2**64)],
        ["replay", "--seed", str(2**64 + 1), "--deal", "0"],
        ["replay", "--seed", "-1", "--deal", "0"],
        ["report", "knock", "--seed", str(2**64), "--quiet", "--out", "{tmp}/r"],
    ],
)
def test_seeds_beyond_64_bits_are_refused_everywhere(tmp_path, args):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    assert_one_line_error(invoke(*args), "seed", "allowed 0 to 2**64 - 1")


@pytest.mark.parametrize("deal", [str(2**64), str(2**64 + 42), str(MAX_COUNT), "-1"])
def test_deal_indices_do_not_wrap_around(deal):
    assert_one_line_error(invoke("replay", "--seed", "1", "--deal", deal), "deal", "allowed 0 to")
    with pytest.raises(ValueError, match="out of range"):
        replay_deal(1, int(deal), load_rules("hollywood"), parse_players("simple,simple"))


# -- 5. strict JSON --------------------------------------------------------------------
def strict_json(text: str):
    def refuse(constant: str):
        raise AssertionError(f"{constant} is not JSON")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize(
    "args",
    [
        ["simulate", "--deals", "1", "--json"],
        ["simulate", "--deals", "1", "--no-duplicate", "--json"],
        ["match", "--matches", "1", "--json"],
    ],
)
def test_json_is_strict_when_a_figure_is_undefined(tmp_path, args):
    out = str(tmp_path / "run")
    result = invoke(*args, "--out", out)
    assert result.exit_code == 0, result.output
    assert "null" in result.stdout  # one deck: no interval, so there is something to encode
    strict_json(result.stdout)
    summarized = invoke("summarize", out, "--json")
    assert summarized.exit_code == 0, summarized.output
    strict_json(summarized.stdout)


# -- 6. errors that name the file ------------------------------------------------------
@pytest.mark.parametrize("content", [b"\xff\xfe\x00\x01binary", b'name = "caf\xe9"\n'])
@pytest.mark.parametrize("option", ["--rules", "--players"])
def test_a_binary_or_non_utf8_toml_file(tmp_path, content, option):
    path = tmp_path / "bad.toml"
    path.write_bytes(content)
    value = str(path) if option == "--rules" else f"{path},simple"
    assert_one_line_error(invoke("simulate", "--deals", "10", option, value), str(path), "UTF-8")


def test_a_manifest_with_bad_bytes(tmp_path):
    out = tmp_path / "run"
    assert invoke(*simulate_args(out)).exit_code == 0
    (out / "manifest.json").write_bytes(b'{"format": 1, "config": "\xff\xfe"}')
    before = snapshot(out)
    for args in (simulate_args(out), ["summarize", str(out)]):
        assert_one_line_error(invoke(*args), str(out / "manifest.json"), "UTF-8")
    assert snapshot(out) == before


# -- 7. manifests and chunks that do not belong ----------------------------------------
@pytest.mark.parametrize(
    ("key", "value", "fragment"),
    [
        ("seed", "one", "seed = 'one'"),
        ("seed", 2**64, "seed"),
        ("count", "3000", "deals = '3000'"),
        ("count", 1.5, "deals = 1.5"),
        ("chunk_size", True, "chunk size = True"),
        ("duplicate", "yes", "duplicate = 'yes'"),
        ("with_hands", 1, "with_hands = 1"),
        ("kind", ["hands"], "run kind"),
        ("rules", "hollywood", "not a gin-sim run manifest"),
    ],
)
@pytest.mark.first_case
def test_manifest_values_of_the_wrong_type(tmp_path, key, value, fragment):
    out = tmp_path / "run"
    assert invoke(*simulate_args(out)).exit_code == 0
    document = json.loads((out / "manifest.json").read_text())
    document["config"][key] = value
    (out / "manifest.json").write_text(json.dumps(document))
    before = snapshot(out)
    for args in (simulate_args(out), ["summarize", str(out)]):
        assert_one_line_error(invoke(*args), "manifest.json", fragment)
    assert snapshot(out) == before


def test_a_chunk_from_a_run_with_another_seed(tmp_path):
    ours, theirs = tmp_path / "ours", tmp_path / "theirs"
    assert invoke(*simulate_args(ours)).exit_code == 0
    assert invoke(*simulate_args(theirs, "--seed", "6")).exit_code == 0
    shutil.copy(theirs / "hands-000001.parquet", ours / "hands-000001.parquet")
    before = snapshot(ours)
    for args in (simulate_args(ours), ["summarize", str(ours)]):
        assert_one_line_error(invoke(*args), "hands-000001.parquet", "another run (seed 6")
    assert snapshot(ours) == before


def test_a_chunk_without_the_run_stamp_is_checked_by_its_deal_range(tmp_path):
    out = tmp_path / "run"
    assert invoke(*simulate_args(out)).exit_code == 0
    table = pq.read_table(out / "hands-000000.parquet")
    assert b"gin_sim" in table.schema.metadata
    pq.write_table(table.replace_schema_metadata({}), out / "hands-000001.parquet")
    for args in (simulate_args(out), ["summarize", str(out)]):
        assert_one_line_error(invoke(*args), "hands-000001.parquet", "deals 0 to 999")
    # an unstamped chunk of the right range (from before chunks carried their run's identity)
    # cannot be told apart from another pairing's chunk: refused too
    pq.write_table(
        pq.read_table(out / "hands-000002.parquet").replace_schema_metadata({}),
        out / "hands-000002.parquet",
    )
    shutil.move(out / "hands-000001.parquet", tmp_path / "moved.parquet")
    assert_one_line_error(invoke(*simulate_args(out)), "hands-000002.parquet is not this run's")


# -- 8. stale temporary files ----------------------------------------------------------
@pytest.mark.parametrize("overwrite", [False, True])
def test_stale_temporary_files_of_the_run_are_removed(tmp_path, overwrite):
    out = tmp_path / "run"
    iterator = execute(
        RunConfig("hands", load_rules("hollywood"), parse_players("simple,simple"), 1, 3000, True, 1000),
        out,
    )  # fmt: skip
    next(iterator)
    iterator.close()
    stale = [".hands-000002.parquet.1a2b3c.tmp", ".manifest.json.ffee00112233.tmp"]
    for name in stale:
        (out / name).write_bytes(b"half-written")
    result = invoke(*simulate_args(out, *(["--overwrite"] if overwrite else [])))
    assert result.exit_code == 0, result.output
    names = {p.name for p in out.iterdir()}
    assert not names & set(stale)
    # names that only look like the run's temporary files are a user's: refused, kept
    kept = [".notes.tmp", "hands.tmp", ".hands-000002.parquet.keep", ".data.parquet.1a2b.tmp"]
    for name in kept:
        (out / name).write_bytes(b"mine")
    result = invoke(*simulate_args(out, "--seed", "2", "--overwrite"))
    assert result.exit_code == 2 and set(kept) <= {p.name for p in out.iterdir()}


# -- 9. permissions --------------------------------------------------------------------
@pytest.mark.parametrize("umask", [0o022, 0o002])
def test_run_files_have_the_usual_permissions(tmp_path, umask):
    previous = os.umask(umask)
    try:
        out = tmp_path / "run"
        assert invoke(*simulate_args(out)).exit_code == 0
    finally:
        os.umask(previous)
    for path in out.iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask, path.name


# -- 10. a finished run in a read-only folder ------------------------------------------
def _read_only(folder: Path, monkeypatch) -> None:
    folder.chmod(0o555)
    # root may write anywhere: make the folder look read-only to the run as well
    real = os.access
    monkeypatch.setattr(
        "gin_sim.experiments.runs.os.access",
        lambda path, mode: False if Path(path) == folder and mode & os.W_OK else real(path, mode),
    )


def test_a_finished_run_in_a_read_only_folder_prints_its_summary(tmp_path, monkeypatch):
    out = tmp_path / "run"
    first = invoke(*simulate_args(out, "--json"))
    assert first.exit_code == 0
    before = snapshot(out)
    _read_only(out, monkeypatch)
    try:
        again = invoke(*simulate_args(out, "--json"))
        assert again.exit_code == 0, again.output
        assert json.loads(again.stdout)["players"] == json.loads(first.stdout)["players"]
        assert snapshot(out) == before
        (out.chmod(0o755), (out / "hands-000002.parquet").unlink(), out.chmod(0o555))
        assert_one_line_error(invoke(*simulate_args(out)), "cannot write to the run folder")
    finally:
        out.chmod(0o755)


# -- 11. silently ignored options ------------------------------------------------------
@pytest.mark.parametrize(
    ("args", "fragment"),
    [
        (["simulate", "--workers-write"], "--workers-write needs --out"),
        (["match", "--workers-write"], "--workers-write needs --out"),
        (["simulate", "--workers-write", "--out", "{tmp}/r"], "needs --workers N or --scheduler"),
        (["simulate", "--overwrite"], "--overwrite needs --out"),
        (["match", "--with-hands"], "--with-hands needs --out"),
    ],
)
def test_options_that_would_be_ignored_are_refused(tmp_path, args, fragment):
    args = [a.replace("{tmp}", str(tmp_path)) for a in args]
    assert_one_line_error(invoke(*args, "--quiet"), fragment)
    assert not (tmp_path / "r").exists()


def test_every_command_turns_an_os_error_into_one_line(tmp_path, monkeypatch):
    """Any OSError that reaches the command line names its file (here: a chunk that
    --overwrite cannot delete)."""
    out = tmp_path / "run"
    assert invoke(*simulate_args(out)).exit_code == 0
    real = Path.unlink

    def unlink(path, missing_ok=False):
        if path.name.startswith("hands-"):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), str(path))
        real(path, missing_ok=missing_ok)

    monkeypatch.setattr(Path, "unlink", unlink)
    result = invoke(*simulate_args(out, "--seed", "2", "--overwrite"))
    assert_one_line_error(result, str(out / "hands-00000"), "Permission denied")


def test_warnings_of_other_libraries_pass_through_once():
    """The command line prints gin-sim's warnings as one line each and shows any other
    warning once, as Python would (not recorded again while being shown)."""
    code = (
        "import warnings\n"
        "from gin_sim.interfaces.cli.common import user_errors\n"
        "from gin_sim.game.config import GinSimWarning\n"
        "with user_errors():\n"
        "    warnings.warn('from a library', UserWarning)\n"
        "    warnings.warn('index left alone', GinSimWarning)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60
    )
    assert result.returncode == 0, result.stderr
    assert result.stderr.count("from a library") == 1
    assert "warning: index left alone\n" in result.stderr


# -- issue 18, item 5: hostile configuration files -------------------------------------
def _adapt_tables(count: int) -> str:
    return "".join(
        f"[[adapt]]\nwhen = {{gin_bonus = [0, {i}]}}\nundercut_risk = 0.5\n" for i in range(count)
    )


HOSTILE_TOML = {
    "nested arrays": ("a = " + "[" * 3000 + "]" * 3000 + "\n", "nested more than 16"),
    "nested tables": ("a = " + "{b = " * 3000 + "1" + "}" * 3000 + "\n", "nested more than 16"),
    "dotted keys": ("a" + ".a" * 40 + " = 1\n", "nested more than 16"),
    "thousands of [[adapt]] tables": (_adapt_tables(4000), "at most 10,000"),
    "too many [[adapt]] tables": (_adapt_tables(65), "65 tables: allowed at most 64"),
    "a file of megabytes": ('description = "' + "x" * 2_000_000 + '"\n', "1,048,576 bytes"),
    "a long string": ('description = "' + "x" * 20_000 + '"\n', "longer than 10,000"),
    "a long key": ("k" * 20_000 + " = 1\n", "longer than 10,000"),
    "a long name": ('name = "' + "n" * 5_000 + '"\n', "allowed 1 to 100 printable"),
    "a name with escapes": ('name = "a\\u001b[2Jb"\n', "allowed 1 to 100 printable"),
    "a number of 4,000 digits": ("wall = " + "9" * 4000 + "\n", "too large: allowed whole"),
    "a number of 5,000 digits": ("wall = " + "9" * 5000 + "\n", "not valid TOML"),
}


@pytest.mark.parametrize(
    ("option", "case"),
    [
        (option, case)
        for case in HOSTILE_TOML
        for option in ("--rules", "--players")
        if option == "--players" or case != "too many [[adapt]] tables"  # a strategy's only
    ],
)
def test_hostile_config_files_are_refused_at_once(tmp_path, option, case):
    """Every bound on what a TOML file may hold: one short line within seconds."""
    content, fragment = HOSTILE_TOML[case]
    path = tmp_path / "hostile.toml"
    path.write_text(content)
    value = str(path) if option == "--rules" else f"{path},simple"
    started = time.perf_counter()
    stderr = assert_one_line_error(invoke("simulate", "--deals", "10", option, value), fragment)
    assert time.perf_counter() - started < 10
    assert len(stderr) < 600, stderr[:200]  # a huge value is never quoted in full


def _fifo(path: Path) -> Path:
    """A FIFO nobody writes to; if a reader blocks on it, a writer frees it after 20 s
    (so that a regression fails the time check instead of hanging the suite)."""
    os.mkfifo(path)

    def free() -> None:
        time.sleep(20)
        with contextlib.suppress(OSError):
            os.close(os.open(path, os.O_WRONLY | os.O_NONBLOCK))

    threading.Thread(target=free, daemon=True).start()
    return path


def test_files_that_are_not_regular_files_are_refused_without_blocking(tmp_path):
    """A FIFO in the place of each file gin-sim reads: strategy and rule TOML, a run's
    manifest and chunks, a tuning study's settings, the undercut model; a report folder's
    description or index is left alone."""
    started = time.perf_counter()
    fifo = _fifo(tmp_path / "fifo.toml")
    for value in (f"{fifo},simple", str(fifo)):
        option = "--players" if "," in value else "--rules"
        result = invoke("simulate", "--deals", "10", option, value)
        assert_one_line_error(result, str(fifo), "is a FIFO, not a regular file")

    run = tmp_path / "run"
    assert invoke(*simulate_args(run)).exit_code == 0
    (run / "manifest.json").rename(tmp_path / "manifest.json")
    _fifo(run / "manifest.json")
    assert_one_line_error(invoke("summarize", str(run)), "manifest.json", "FIFO")
    (run / "manifest.json").unlink()
    (tmp_path / "manifest.json").rename(run / "manifest.json")
    chunk = sorted(run.glob("*.parquet"))[0]
    chunk.unlink()
    _fifo(chunk)
    assert_one_line_error(invoke("summarize", str(run)), str(chunk), "not a regular file")

    tuning = tmp_path / "tuning"
    tuning.mkdir()
    _fifo(tuning / "tune.json")
    result = invoke("tune", "--out", str(tuning), "--space", "knock_threshold=0:10", "--quiet")
    assert_one_line_error(result, "tune.json", "FIFO")

    from gin_sim.reports.document import _sibling_reports, is_generated_index

    (tmp_path / "report").mkdir()
    _fifo(tmp_path / "report" / "report.json")
    with pytest.warns(gin_sim.game.config.GinSimWarning, match="report.json"):
        assert _sibling_reports(tmp_path) == []
    assert not is_generated_index(_fifo(tmp_path / "index.md"))

    from gin_sim.players.calibration import read_undercut_table  # from $GIN_SIM_CONFIGS/models

    with pytest.raises(gin_sim.game.config.ConfigError, match="is a FIFO, not a regular file"):
        read_undercut_table(_fifo(tmp_path / "undercut.csv"))
    assert time.perf_counter() - started < 15


@pytest.mark.parametrize(
    "document",
    [
        "[" * 100_000 + "]" * 100_000,
        json.dumps({"format": 1, "config": {"players": [{"name": "x" * 20_000}]}}),
        json.dumps({"format": 1, "config": list(range(20_000))}),
        '{"format": 1, "config": {"seed": ' + "9" * 5000 + "}}",
    ],
    ids=["nested", "long string", "many items", "huge number"],
)
def test_a_hostile_manifest_is_one_line(tmp_path, document):
    out = tmp_path / "run"
    out.mkdir()
    (out / "manifest.json").write_text(document)
    stderr = assert_one_line_error(invoke("summarize", str(out)), "manifest.json")
    assert len(stderr) < 600


@pytest.mark.parametrize(
    "args",
    [
        ["--players", "x" * 100_000 + ",simple"],
        ["--players", "x" * 100_000 + ".toml,simple"],
        ["--param1", "knock_threshold=" + "9" * 100_000],
        ["--rule", "knock_limit=" + "x" * 100_000],
        ["--rule", "x" * 100_000 + "=1"],
        ["--rules", "y" * 100_000],
    ],
    ids=["name", "path", "number", "value", "key", "rules"],
)
def test_error_messages_never_quote_a_huge_value_in_full(args):
    stderr = assert_one_line_error(invoke("simulate", "--deals", "10", *args))
    assert len(stderr) < 1100, stderr[:200]


# -- issue 18, item 6: the environment and standard output -----------------------------
def _gin_sim(*args: str, env: dict[str, str] | None = None, **options):
    """``python -m gin_sim ARGS`` in a fresh interpreter (numba reads its variables once)."""
    return subprocess.run(
        [sys.executable, "-m", "gin_sim", *args],
        env={**os.environ, **(env or {})},
        capture_output="stdout" not in options,
        stderr=subprocess.PIPE if "stdout" in options else None,
        timeout=120,
        **options,
    )


@pytest.mark.parametrize(
    ("variable", "value"),
    [
        ("NUMBA_NUM_THREADS", "0"),
        ("NUMBA_NUM_THREADS", "99999"),  # numba itself crashes the process
        ("OMP_NUM_THREADS", "x"),
        ("NUMBA_DISABLE_JIT", "x"),  # any value numba cannot parse
        ("COLUMNS", "0"),  # rich would print nothing at all
    ],
)
@pytest.mark.first_case
def test_a_bad_environment_variable_is_one_line(variable, value):
    result = _gin_sim("rules", env={variable: value})
    stderr = result.stderr.decode()
    assert result.returncode == 2, stderr
    assert stderr.startswith(f"error: {variable}={value!r}:") and stderr.count("\n") == 1, stderr
    assert "allowed" in stderr or "valid" in stderr
    assert result.stdout == b""


def test_the_library_imports_under_a_bad_variable_and_refuses_to_run():
    code = (
        "import gin_sim\n"
        "assert gin_sim.min_deadwood(gin_sim.parse_cards('AS 2S 3S')) == 0\n"
        "try:\n"
        "    gin_sim.simulate_deals('hollywood', 'simple,simple', 10, seed=1)\n"
        "except ValueError as error:\n"
        "    print(error)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", code],
        env={**os.environ, "NUMBA_NUM_THREADS": "-1"},
        capture_output=True,
        timeout=120,
    )
    assert result.returncode == 0 and result.stderr == b"", result.stderr.decode()
    assert result.stdout.decode().startswith("NUMBA_NUM_THREADS='-1': allowed")


@pytest.mark.parametrize("args", [["strategies"], ["deadwood", "AS 2S 3S"]], ids=["rich", "echo"])
@pytest.mark.first_case
def test_a_reader_that_went_away_is_a_quiet_exit_141(args):
    """As ``yes | head`` does: no traceback, no message, 128 + SIGPIPE."""
    read, write = os.pipe()
    os.close(read)  # the reader is gone before the first write
    try:
        result = _gin_sim(*args, stdout=write)
    finally:
        os.close(write)
    assert result.returncode == 141, result.stderr.decode()
    assert result.stderr == b""


def test_a_closed_standard_output_is_an_error():
    result = subprocess.run(
        f"{shlex.quote(sys.executable)} -m gin_sim strategies >&-",
        shell=True,
        capture_output=False,
        stderr=subprocess.PIPE,
        timeout=120,
    )
    stderr = result.stderr.decode()
    assert result.returncode == 2 and stderr.startswith("error: standard output is closed"), stderr
    assert stderr.count("\n") == 1


@pytest.mark.parametrize(
    "content",
    [b"[1, 2]", b"[" * 100_000, b'{"a": "' + b"x" * 20_000 + b'"}'],
    ids=["a list", "nested", "a long string"],
)
def test_a_hostile_tune_json_is_one_line(tmp_path, content):
    (tmp_path / "tune.json").write_bytes(content)
    result = invoke("tune", "--out", str(tmp_path), "--space", "knock_threshold=0:10", "--quiet")
    stderr = assert_one_line_error(result, "tune.json")
    assert len(stderr) < 600
