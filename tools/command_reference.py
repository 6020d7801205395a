"""Write docs/reference/commands.md, the command reference, from the command line itself.

Every command of ``gin-sim`` (the subcommands of ``report`` too) with its description, its
example, and a table of its arguments and options: the flag, the kind of value, the default
and the help text, as ``--help`` shows them. The bounds of the numbers come from
``gin_sim/game/limits.py``, the one place they are defined. tests/test_doc_examples.py checks
that the committed page is what this script writes now, so the page cannot fall behind the
code. Run it after changing a command or an option:

    .venv/bin/python tools/command_reference.py
"""

from __future__ import annotations

import ast
import inspect
import sys
from pathlib import Path

from gin_sim.interfaces.cli import leaf_commands

ROOT = Path(__file__).resolve().parents[1]
PAGE = ROOT / "docs" / "reference" / "commands.md"
LIMITS = ROOT / "gin_sim" / "game" / "limits.py"

INTRO = """\
# Every command and option

Generated from the command line itself by `tools/command_reference.py` (a test fails when
this page and the code differ). Every command is `.venv/bin/gin-sim COMMAND` (or
`python -m gin_sim COMMAND`); `gin-sim COMMAND --help` prints the same at the terminal.

**Errors.** Bad input (a malformed card, a number out of its bounds, an unknown rule,
strategy, key or name, a folder gin-sim does not own, a broken run folder) is one line
`error: ...` on standard error naming the problem and what is allowed, with exit code 2 and
no traceback; nothing finished is lost or overwritten (`--overwrite` replaces only a run's
own files). Ctrl-C exits with 130 and SIGTERM with 143, each after a line saying what was
saved. More on errors, files, signals and determinism: [Bounds, errors, files and
determinism](../command-line.md).
"""


def _cell(text: str) -> str:
    return " ".join(str(text).split()).replace("|", "\\|")


def _default(param) -> str:
    if param.required:
        return "required"
    default = param.default
    if default is None or default == () or default == []:
        return ""
    if isinstance(default, bool) and getattr(param, "secondary_opts", None):
        flag = param.opts[0] if default else param.secondary_opts[0]
        return f"`{flag}`"
    if isinstance(default, bool):
        return "on" if default else "off"
    return f"`{default}`"


def _kind(param) -> str:
    annotation = param.type_descriptor.annotation
    if annotation is bool or getattr(param, "is_flag", False):
        return "flag"
    repeatable = getattr(annotation, "__origin__", None) is list
    if repeatable:
        annotation = annotation.__args__[0]
    kind = {int: "whole number", float: "number", str: "text"}.get(annotation, "text")
    for word, value in (("from", param.min), ("to", param.max)):
        kind += f", {word} {value}" if value is not None else ""
    return f"{kind}, repeatable" if repeatable else kind


def _flags(param) -> str:
    if type(param).__name__ == "TyperArgument":
        return f"`{param.name.upper()}` (argument)"
    return " / ".join(f"`{flag}`" for flag in [*param.opts, *param.secondary_opts])


def _description(help_text: str) -> tuple[str, str]:
    """The prose of a command's docstring, and its example."""
    text = inspect.cleandoc(help_text or "")
    paragraphs = [" ".join(p.split()) for p in text.split("\n\n") if p.strip()]
    examples = [p for p in paragraphs if p.startswith("Example: ")]
    prose = [p for p in paragraphs if not p.startswith("Example: ")]
    example = examples[0].removeprefix("Example: ").strip("`") if examples else ""
    return "\n\n".join(prose), example


def _limits() -> list[tuple[str, str, str]]:
    """(name, value, why) of each bound in gin_sim/game/limits.py, with its comment."""
    source = LIMITS.read_text()
    lines = source.splitlines()
    bounds = []
    for node in ast.parse(source).body:
        if not (isinstance(node, ast.Assign) and len(node.targets) == 1):
            continue
        target = node.targets[0]
        if not (isinstance(target, ast.Name) and target.id.startswith("MAX_")):
            continue
        comment = []
        row = node.lineno - 2
        while row >= 0 and lines[row].lstrip().startswith("#"):
            comment.insert(0, lines[row].lstrip("# ").strip())
            row -= 1
        trailing = lines[node.lineno - 1].partition("#")[2].strip()
        why = " ".join([*comment, trailing]).strip()
        value = ast.get_source_segment(source, node.value)
        bounds.append((target.id, value, why))
    return bounds


def reference() -> str:
    """The page, as Markdown."""
    out = [INTRO]
    for path, command in leaf_commands():
        name = " ".join(path)
        prose, example = _description(command.help)
        out += [f"## `gin-sim {name}`", "", prose, ""]
        if example:
            out += ["```sh", example, "```", ""]
        params = [p for p in command.params if p.name != "help"]
        if params:
            out += ["| argument or option | value | default | what it is |", "|---|---|---|---|"]
            for param in params:
                out.append(
                    f"| {_flags(param)} | {_kind(param)} | {_default(param)} "
                    f"| {_cell(getattr(param, 'help', '') or '')} |"
                )
            out.append("")
    out += [
        "## The bounds of the numbers",
        "",
        "Every number a command takes is checked before anything is played; these are the",
        "bounds (`gin_sim/game/limits.py`), beside each count's own limits in its help above.",
        "Seeds are whole numbers 0 to 2**64 - 1.",
        "",
        "| bound | value | why |",
        "|---|---|---|",
    ]
    out += [f"| `{name}` | `{value}` | {_cell(why)} |" for name, value, why in _limits()]
    return "\n".join(out).rstrip() + "\n"


def main() -> int:
    PAGE.parent.mkdir(parents=True, exist_ok=True)
    PAGE.write_text(reference())
    print(f"wrote {PAGE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
