"""Folders gin-sim owns (gin_sim.experiments.outputs): claims, the writer lock, names that become paths."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from gin_sim.experiments.outputs import FolderError, claim_folder, safe_name


def own_markdown(name: str) -> bool:
    return name.endswith(".md")


def test_a_refused_folder_is_left_exactly_as_it_was(tmp_path):
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(FolderError, match=r"holds files gin-sim did not write \(notes.txt\)"):
        claim_folder(tmp_path, "report knock", {"seed": 1}, own_markdown)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]  # no lock, no record


def test_a_claim_marks_the_folder_and_judges_the_next_one(tmp_path):
    out = tmp_path / "out"
    with claim_folder(out, "report knock", {"seed": 1}, own_markdown) as claim:
        assert not claim.finished and claim.created
        (out / "report.md").write_text("x")
        claim.finish()
    assert claim_folder(out, "report knock", {"seed": 1}, own_markdown).finished
    with pytest.raises(FolderError, match="finished report knock of other options"):
        claim_folder(out, "report knock", {"seed": 2}, own_markdown)
    with pytest.raises(FolderError, match="holds gin-sim's report knock output, not a tune"):
        claim_folder(out, "tune", {"seed": 1}, own_markdown)
    (out / "notes.txt").write_text("mine")  # finished: still only reported, never written
    assert claim_folder(out, "report knock", {"seed": 1}, own_markdown).finished


def test_a_folder_the_claim_made_and_left_empty_is_removed(tmp_path):
    out = tmp_path / "new"
    claim_folder(out, "report knock", {}, own_markdown).release()
    assert not out.exists()


def test_a_second_process_cannot_claim_a_held_folder(tmp_path):
    out = tmp_path / "out"
    code = (
        "import sys, time; from gin_sim.experiments.outputs import claim_folder; "
        f"c = claim_folder({str(out)!r}, 'tune', {{}}, lambda n: True); "
        "print('held', flush=True); time.sleep(60)"
    )
    holder = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        with pytest.raises(FolderError, match="being written by another gin-sim process"):
            claim_folder(out, "tune", {}, lambda n: True)
    finally:
        holder.kill()
        holder.wait()
    with claim_folder(out, "tune", {}, lambda n: True) as claim:  # free again
        assert not claim.finished


@given(st.text(max_size=40), st.text(max_size=40))
def test_safe_names_are_injective_and_stay_in_their_folder(first, second):
    a, b = safe_name(first), safe_name(second)
    assert (a == b) == (first == second)
    assert "/" not in a and a not in (".", "..") and len(a) <= 80
    assert Path("root", a).resolve().parent == Path("root").resolve()


def test_long_names_keep_a_hash_of_the_whole():
    long_a, long_b = "x" * 300, "x" * 299 + "y"
    assert safe_name(long_a) != safe_name(long_b)
    assert len(safe_name(long_a)) <= 80 and "~" in safe_name(long_a)
