"""Issue 29, class 5: nothing is written outside --out. Every path derived from a user's
input (a rule set's or strategy's name) goes through one check, ``outputs.inside``:
``report advice --compare`` with a rule set whose name climbs is refused before anything
is written, and so is a report table or figure whose name would leave its folder."""

from __future__ import annotations

import os
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from gin_sim.experiments.outputs import FolderError, inside
from gin_sim.interfaces.cli import app
from gin_sim.reports.document import Report, write_report

runner = CliRunner()
CLIMBING = ["../../..", "../escaped", "a/../../b", "/tmp/abs", "x/y", "../" * 20 + "etc"]


def _tree(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*")}


def _rules(folder: Path, name: str, knock_limit: int) -> Path:
    path = folder / f"rules{abs(hash((name, knock_limit)))}.toml"
    path.write_text(f"name = {name!r}\nknock_limit = {knock_limit}\n".replace("'", '"'))
    return path


@pytest.mark.parametrize("name", CLIMBING)
@pytest.mark.parametrize("knock_limit", [10, 8])  # paired (tables named after it) or not
def test_report_advice_compare_with_a_climbing_name_writes_nothing(tmp_path, name, knock_limit):
    work = tmp_path / "a" / "b" / "c"
    work.mkdir(parents=True)
    rules = _rules(tmp_path, name, knock_limit)
    before = _tree(tmp_path)
    out = work / "report"
    result = runner.invoke(
        app,
        ["report", "advice", "--out", str(out), "--compare", str(rules), "--deals", "10",
         "--players", "simple,simple", "--quiet"],
    )  # fmt: skip
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("error: ") and result.stderr.count("\n") == 1
    assert "would be written outside" in result.stderr and "Traceback" not in result.output
    assert _tree(tmp_path) == before  # not the report, not a dataset anywhere
    assert not Path("/tmp/abs").exists() or name != "/tmp/abs"


@pytest.mark.parametrize("name", ["my.rules", "r\u00e9gles", "rules with spaces", "a..b"])
def test_names_that_stay_inside_are_kept(tmp_path, name):
    assert inside(tmp_path, f"positions-{name}") == tmp_path / f"positions-{name}"


@pytest.mark.parametrize("name", ["..", ".", "", "a/b", "../x", "x/../../y", "/abs"])
def test_inside_refuses_what_leaves(tmp_path, name):
    with pytest.raises(FolderError, match="would be written outside"):
        inside(tmp_path, name, "a test name")


def test_inside_refuses_a_link_that_leads_out(tmp_path):
    root = tmp_path / "out"
    root.mkdir()
    (tmp_path / "elsewhere").mkdir()
    os.symlink(tmp_path / "elsewhere", root / "positions-x")
    with pytest.raises(FolderError, match="would be written outside"):
        inside(root, "positions-x")
    (root / "inner").mkdir()
    os.symlink(root / "inner", root / "positions-y")
    assert inside(root, "positions-y") == root / "positions-y"  # a link that stays: fine


@pytest.mark.parametrize("kind", ["table", "figure"])
def test_a_report_never_writes_a_table_or_figure_outside_its_folder(tmp_path, kind):
    out = tmp_path / "deep" / "report"
    report = Report("knock", "t", "gin-sim report knock", [], ["nothing"])
    escape = "../../escaped"
    if kind == "table":
        report.tables[escape] = pd.DataFrame({"a": [1]})
    else:
        report.figures[escape] = lambda path: path.write_text("figure")
    with pytest.raises(FolderError, match="would be written outside"):
        write_report(report, out)
    assert not list(tmp_path.rglob("escaped*"))
