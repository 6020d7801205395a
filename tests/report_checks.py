"""Checks every report folder must pass, shared by the tests of the default set
(tests/test_reports.py) and of the reports tested on their own (tests/test_equity.py)."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from typer.testing import CliRunner

from gin_sim.interfaces.cli import app
from gin_sim.reports.build import _LONGER_RUN, LONGER

SECTIONS = ("## What was run", "## Findings", "Reproduce with:", "## Data", "## A longer run")


def check_longer_run(folder: Path) -> None:
    """Issue 28: the report in ``folder`` says what a run LONGER times as long adds and the
    exact command: the report's own, its sizes times LONGER, every other option the same,
    in a folder of its own; the command line knows every option it gives."""
    markdown = (folder / "report.md").read_text()
    for section in SECTIONS:
        assert section in markdown, (folder, section)
    own = shlex.split(re.search(r"Reproduce with:\n\n```sh\n(.+)\n```", markdown)[1])
    section = markdown.split("## A longer run\n", 1)[1]
    longer = shlex.split(re.search(r"```sh\n(.+)\n```", section)[1])
    assert own[:3] == longer[:3], folder  # gin-sim report KIND
    # gin-sim report KIND, then --option value pairs
    mine = dict(zip(own[3::2], own[4::2], strict=True))
    theirs = dict(zip(longer[3::2], longer[4::2], strict=True))
    assert mine.keys() == theirs.keys(), folder
    scaled = {"--" + name.replace("_", "-") for name in _LONGER_RUN[own[2]][0]}
    for option, value in mine.items():
        if option in scaled:
            assert int(theirs[option]) == int(value) * LONGER, (folder, option)
        elif option == "--out":
            assert theirs[option] == f"{Path(value).name}-x{LONGER}", folder
        else:
            assert theirs[option] == value, (folder, option)
    # --help is eager: the options are parsed (an unknown one fails) but nothing runs
    result = CliRunner().invoke(app, [*longer[1:], "--help"])
    assert result.exit_code == 0, (folder, result.output)
