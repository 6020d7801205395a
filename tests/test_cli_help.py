"""The command-line help reads well: its prose wraps to the terminal's width (no ragged
lines left by a docstring's hard line breaks), and every command shows one example that
the command line accepts (issue 44)."""

from __future__ import annotations

import re
import shlex
from itertools import pairwise

import pytest
import typer
from typer.testing import CliRunner

from gin_sim.interfaces.cli import app, leaf_commands

WIDTH = 100
EXAMPLE = re.compile(r"^Example: `(gin-sim [^`]+)`$", re.M)


ROOT = typer.main.get_command(app)
COMMANDS = dict(leaf_commands(ROOT))


def _help(*path: str) -> str:
    result = CliRunner().invoke(app, [*path, "--help"], env={"COLUMNS": str(WIDTH)})
    assert result.exit_code == 0, result.output
    return result.output


def ragged_lines(paragraph_lines: list[str], width: int) -> list[str]:
    """The lines of a paragraph that end although the next line's first word would have
    fitted after them: a greedy wrap to ``width`` never leaves one."""
    ragged = []
    for line, following in pairwise(paragraph_lines):
        if not line.strip() or not following.strip():
            continue
        first_word = following.split()[0]
        if len(line.rstrip()) + 1 + len(first_word) <= width:
            ragged.append(line)
    return ragged


def _prose(help_text: str) -> list[str]:
    """The description under the usage line, as printed (up to the first panel)."""
    lines = help_text.splitlines()
    start = next(i for i, line in enumerate(lines) if "Usage:" in line) + 1
    end = next((i for i, line in enumerate(lines) if line.startswith("╭")), len(lines))
    return [line.strip() for line in lines[start:end]]


def _panel_column(help_text: str, column: int) -> list[str]:
    """The commands panel's description column: each command's text as its lines."""
    lines = help_text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("╭─ Commands"))
    rows = []
    for line in lines[start + 1 :]:
        if line.startswith("╰"):
            break
        inner = line.strip("│").rstrip()
        name = inner[:column].strip()
        if name and rows:
            rows.append("")  # a new command: its text is a paragraph of its own
        rows.append(inner[column:].strip())
    return rows


def test_the_ragged_line_check_finds_a_hard_break():
    width = 38
    wrapped = ["The strategy card of each rule set:", "when to knock and when to take it."]
    broken = ["The strategy card of each", "rule set: when to knock and when", "to take it."]
    assert ragged_lines(wrapped, width) == []
    assert ragged_lines(broken, width) == broken[:2]


@pytest.mark.parametrize("path", sorted(COMMANDS), ids=" ".join)
def test_a_command_help_wraps_to_the_terminal(path):
    prose = _prose(_help(*path))
    # The description sits inside the help's margin of one space each side.
    assert ragged_lines(prose, WIDTH - 2) == [], "\n".join(prose)


def test_the_commands_panel_wraps_to_the_terminal():
    text = _help()
    header = next(line for line in text.splitlines() if line.startswith("│ deadwood"))
    column = header.index("Print") - 1  # where the descriptions start inside the border
    texts = _panel_column(text, column)
    assert len([t for t in texts if t == ""]) >= len(ROOT.commands) - 1
    assert ragged_lines(texts, WIDTH - 2 - column - 1) == [], "\n".join(texts)


@pytest.mark.parametrize("path", sorted(COMMANDS), ids=" ".join)
def test_every_command_shows_one_example_the_command_line_accepts(path):
    command = COMMANDS[path]
    examples = EXAMPLE.findall(command.help or "")
    assert len(examples) == 1, f"gin-sim {' '.join(path)}: {len(examples)} examples in its help"
    words = shlex.split(examples[0].split(" < ")[0])
    assert words[: 1 + len(path)] == ["gin-sim", *path]
    # click parses the example as the command line would: unknown options, a missing
    # argument, a value of the wrong type or out of its range fail here.
    command.make_context(" ".join(path), words[1 + len(path) :])
    assert f"Example: gin-sim {' '.join(path)}" in " ".join(_help(*path).split())
