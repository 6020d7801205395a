"""Every example of the documentation runs, so none rots (issue 44).

- The command reference (docs/reference/commands.md) is what tools/command_reference.py
  writes from the command line now, and the API reference (docs/reference/api.md) shows
  every name of ``gin_sim.__all__``, each with a docstring.
- The doctests of the public API's docstrings pass (the examples the API reference shows).
- On every written page of the site (docs/*.md, docs/guide, docs/reference) and in the
  README, in document order in a scratch folder of the page's own:
  - every ``gin-sim`` command line of a ``sh`` block is parsed by the command line itself
    (an unknown command or option, a missing argument fail), then run with its sizes made
    small (`SMALL`: the same command, fewer deals, matches, samples, trials), with an
    output folder in the scratch folder and, for ``play`` and ``serve``, a few moves or
    requests on standard input; it must end with exit code 0. The fast tier runs the
    commands that take seconds (`FAST_COMMANDS`), the full tier every one;
  - every ``python`` block runs (an OpenSpiel one only where the extra is installed) and
    every ``pycon`` block passes as a doctest.
  Lines that are not ``gin-sim`` (``make``, ``git``, ``pip``, the bench scripts) are not run
  here: the Makefile targets are what CI runs, and the bench scripts are benchmarks.
"""

from __future__ import annotations

import doctest
import importlib.util
import inspect
import re
import shlex
import sys
from pathlib import Path

import pytest
import typer
from tiers import FULL
from typer.testing import CliRunner

import gin_sim
from gin_sim.interfaces.cli import app

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
PAGES = [
    ROOT / "README.md",
    *sorted(DOCS.glob("*.md")),
    *sorted(DOCS.glob("guide/*.md")),
    *sorted(DOCS.glob("reference/*.md")),
]
sys.path.insert(0, str(ROOT / "tools"))
import command_reference  # noqa: E402  (tools/ is not a package)

# Options whose value sets how much is played, and the value an example runs with here.
SMALL = {
    "--deals": "40",
    "--matches": "4",
    "--games": "4",
    "--trials": "2",
    "--samples": "16",
    "--select": "8",
    "--check-positions": "4",
    "--continuations": "2",
    "--confirm-deals": "200",
    "--holdout": "100",
    "--blocks": "2",
    "--top": "1",
    "--finalists": "2",
    "--advised-decks": "200",
}
# Size options a command takes only with another option: tune's --matches needs
# --objective matches.
ONLY_WITH = {("tune", "--matches"): "matches"}
# and some only without another: positions --samples and --select evaluate positions.
ONLY_WITHOUT = {
    ("positions", "--samples"): "--no-evaluate",
    ("positions", "--select"): "--no-evaluate",
}
# Options naming what a command writes: the scratch folder takes the place given.
OUTPUTS = {"--out", "--save"}
# Commands that take a second or so at the small sizes: the fast tier runs these (replay
# of a search player's deal shows its every search, seconds to half a minute).
FAST_COMMANDS = {
    "deadwood",
    "rules",
    "strategies",
    "simulate",
    "match",
    "summarize",
    "card",
    "advise",
    "serve",
    "play",
}
# Standard input for the commands that read it: a few hands of moves for play (every
# card offered as a discard in turn, as tests/test_play.py plays), no request for serve.
CARDS = [f"{r}{s}" for s in "CDHS" for r in "A23456789TJQK"]
STDIN = {"play": ("p\nd\n" + "\n".join(CARDS) + "\n") * 3, "serve": ""}
# The report set of make run: tests/test_reports.py builds it (its module fixture), at the
# sizes of make run; a second run here would add minutes and check nothing more.
NOT_RUN = {("report", "default"): "tests/test_reports.py runs the default set"}

ROOT_COMMAND = typer.main.get_command(app)


def _fences(text: str) -> list[tuple[str, str]]:
    """(language, body) of each fenced code block, in document order."""
    return re.findall(r"^```(\w*)\n(.*?)^```\s*$", text, flags=re.M | re.S)


def command_lines(body: str) -> list[list[str]]:
    """The gin-sim command lines of a shell block, as words, continuations joined and
    comments dropped."""
    commands = []
    for line in body.replace("\\\n", " ").splitlines():
        words = shlex.split(line.strip().removeprefix("$ "), comments=True)
        for redirect in ("<", ">", "|"):  # the shell's, not the command's (serve < requests)
            words = words[: words.index(redirect)] if redirect in words else words
        if words[:1] in (["gin-sim"], [".venv/bin/gin-sim"]):
            commands.append(words[1:])
        elif words[:3] == ["python", "-m", "gin_sim"]:
            commands.append(words[3:])
    return commands


def _command(words: list[str]):
    """The leaf command the words name, and the words that follow its name."""
    command, path = ROOT_COMMAND, []
    while hasattr(command, "commands"):
        assert words, f"gin-sim {' '.join(path)}: no command given"
        name, words = words[0], words[1:]
        assert name in command.commands, f"gin-sim {' '.join(path)}: no command {name!r}"
        command, path = command.commands[name], [*path, name]
    return command, tuple(path), words


def small(words: list[str]) -> list[str]:
    """The same command line with its sizes made small (every size option the command
    takes, given or not)."""
    command, path, rest = _command(words)
    flags = {flag for param in command.params for flag in getattr(param, "opts", [])}
    out, skip = [*path], False
    for i, word in enumerate(rest):
        if skip:
            skip = False
            continue
        flag = word.split("=", 1)[0]
        if flag in SMALL and flag in flags:
            skip = "=" not in word and i + 1 < len(rest)
            continue
        out.append(word)
    for flag, value in SMALL.items():
        needs = ONLY_WITH.get((path[0], flag))
        refused = ONLY_WITHOUT.get((path[0], flag))
        if flag in flags and (needs is None or needs in rest) and refused not in rest:
            out += [flag, value]
    return out


def _local(words: list[str], scratch: Path) -> list[str]:
    """Inputs that are the repository's files read from it; outputs go to the scratch
    folder (never into the repository)."""
    out, output_next = [], False
    for word in words:
        if output_next:
            out.append(str(scratch / word))
            output_next = False
            continue
        if word in OUTPUTS:
            output_next = True
        elif not word.startswith("-") and (scratch / word).exists():
            word = str(scratch / word)  # what an earlier example of the page wrote
        elif not word.startswith("-") and "/" in word and (ROOT / word).exists():
            word = str(ROOT / word)
        out.append(word)
    return out


def _examples():
    for page in PAGES:
        blocks = _fences(page.read_text())
        if any(
            lang in ("python", "pycon") or (lang == "sh" and command_lines(body))
            for lang, body in blocks
        ):
            yield pytest.param(page, blocks, id=str(page.relative_to(ROOT)))


EXAMPLES = list(_examples())


def test_the_command_line_examples_are_read_as_the_shell_would():
    body = (
        "make run   # not gin-sim\n.venv/bin/gin-sim card REPORT --json   # a comment\n"
        '$ gin-sim advise --hand "AS 2S" \\\n    --phase offer\npython -m gin_sim rules\n'
    )
    assert command_lines(body) == [
        ["card", "REPORT", "--json"],
        ["advise", "--hand", "AS 2S", "--phase", "offer"],
        ["rules"],
    ]
    assert small(["simulate", "--deals", "100000000", "--seed", "7"]) == [
        "simulate",
        "--seed",
        "7",
        "--deals",
        "40",
    ]
    assert small(["report", "knock", "--deals=9"]) == [
        "report",
        "knock",
        "--deals",
        "40",
        "--matches",
        "4",
    ]


def test_the_command_reference_is_what_the_command_line_says():
    written = command_reference.PAGE.read_text()
    assert written == command_reference.reference(), (
        "docs/reference/commands.md is out of date: run .venv/bin/python tools/command_reference.py"
    )


def test_the_api_reference_shows_every_public_name_with_its_docstring():
    page = (DOCS / "reference" / "api.md").read_text()
    shown = set(re.findall(r"^::: gin_sim\.(\w+)$", page, flags=re.M))
    public = set(gin_sim.__all__) - {"__version__"}
    assert shown == public
    for name in public:
        doc = inspect.getdoc(getattr(gin_sim, name)) or ""
        assert len(doc.split()) >= 12, f"gin_sim.{name}: its docstring says too little"


@pytest.mark.parametrize("name", sorted(set(gin_sim.__all__) - {"__version__"}))
def test_the_public_docstring_examples_run(name):
    item = getattr(gin_sim, name)
    module = inspect.getmodule(item)
    finder = doctest.DocTestFinder(recurse=False)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    for test in finder.find(item, name, globs=dict(vars(module))):
        runner.run(test)
    assert runner.failures == 0


def _run_command(words: list[str], scratch: Path, fast_only: bool) -> bool:
    """Parse the command line, run it unless the tier leaves it out; True if it ran."""
    command, path, rest = _command(words)
    # click reads the line as the shell gives it: an unknown option or a bad value fails.
    command.make_context(" ".join(path), list(rest))
    if path in NOT_RUN or (fast_only and path[0] not in FAST_COMMANDS):
        return False
    args = _local(small(words), scratch)
    result = CliRunner().invoke(app, args, input=STDIN.get(path[0]))
    assert result.exit_code == 0, f"gin-sim {' '.join(args)}\n{result.output}"
    return True


@pytest.mark.parametrize(("page", "blocks"), EXAMPLES)
def test_every_example_of_the_page_runs(page, blocks, tmp_path, monkeypatch, capsys):
    # Commands run from the repository's folder, as the pages say (gin-sim card reads
    # docs/advice-run from there), and write into the scratch folder; Python blocks run
    # in the scratch folder, where the page's commands wrote.
    monkeypatch.chdir(ROOT)
    fast_only = not FULL
    namespace: dict = {}
    left_out = False
    for lang, body in blocks:
        if lang == "sh":
            for words in command_lines(body):
                left_out |= not _run_command(words, tmp_path, fast_only)
        elif lang == "python":
            if "import pyspiel" in body and importlib.util.find_spec("pyspiel") is None:
                continue  # the openspiel extra (make test-all installs it)
            if left_out and fast_only:
                continue  # it may read what a command left out of this tier writes
            monkeypatch.chdir(tmp_path)
            exec(compile(body, f"{page.name}: python block", "exec"), namespace)
            monkeypatch.chdir(ROOT)
        elif lang == "pycon":
            test = doctest.DocTestParser().get_doctest(body, {}, page.name, str(page), 0)
            runner = doctest.DocTestRunner(
                optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
            )
            runner.run(test, out=sys.stdout.write)
            assert runner.failures == 0, capsys.readouterr().out
