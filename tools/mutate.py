"""Mutation testing, one module at a time against the test files that cover it
(``make mutate``; docs/testing.md).

mutmut reads its settings from ``pyproject.toml`` in the folder it runs in and runs the
whole test selection once before it tries any mutant, so one run over every module would
run every module's tests for each. Instead each module listed in
``[tool.gin-sim-mutate.modules]`` gets a folder of its own, ``mutants/<module>/``, holding
links to gin_sim, tests and configs and a ``pyproject.toml`` that is the project's with
``[tool.mutmut]`` narrowed to that module and its test files. mutmut keeps its results
there, so a later run tries only what changed (or the mutants named).

    .venv/bin/python tools/mutate.py [MODULE-PATTERN ...] [-- MUTMUT-RUN-ARGUMENTS]

``MODULE-PATTERN`` picks modules by a part of their path (``holdout``, ``experiments/``);
none: every module. Arguments after ``--`` go to ``mutmut run`` (mutant names or
patterns, to try those again).
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
WORK = ROOT / "mutants"
LINKED = ("gin_sim", "tests", "configs", "docs")


def modules() -> dict[str, list[str]]:
    """Module path -> its test files (and pytest arguments), from pyproject.toml."""
    with open(ROOT / "pyproject.toml", "rb") as file:
        return tomllib.load(file)["tool"]["gin-sim-mutate"]["modules"]


def module_name(path: str) -> str:
    return path.removesuffix(".py").replace("/", ".")


def _toml_list(values: list[str]) -> str:
    return "[" + ", ".join(json.dumps(v) for v in values) + "]"


def prepare(path: str, tests: list[str]) -> Path:
    """The module's folder: links to the sources and its own pyproject.toml."""
    folder = WORK / module_name(path)
    folder.mkdir(parents=True, exist_ok=True)
    for name in LINKED:
        link = folder / name
        if not link.is_symlink():
            link.symlink_to(ROOT / name, target_is_directory=True)
    text = (ROOT / "pyproject.toml").read_text()
    # the project's settings, with [tool.mutmut] narrowed to this module (the per-module
    # table goes: mutmut does not read it)
    text = re.sub(r"\n\[tool\.gin-sim-mutate\.modules\]\n.*?(?=\n\[|\Z)", "\n", text, flags=re.S)
    narrowed = (
        f"only_mutate = {_toml_list([path])}\n"
        f"pytest_add_cli_args_test_selection = {_toml_list(tests)}\n"
    )
    text = text.replace("[tool.mutmut]\n", "[tool.mutmut]\n" + narrowed, 1)
    target = folder / "pyproject.toml"
    if not target.exists() or target.read_text() != text:
        target.write_text(text)
    return folder


def main(argv: list[str]) -> int:
    patterns, extra = (
        (argv[: argv.index("--")], argv[argv.index("--") + 1 :]) if "--" in argv else (argv, [])
    )
    table = modules()
    chosen = [path for path in table if not patterns or any(p in path for p in patterns)]
    if not chosen:
        print(f"no module matches {patterns}: allowed parts of {', '.join(table)}")
        return 2
    mutmut = Path(sys.executable).parent / "mutmut"
    failed = []
    for path in chosen:
        folder = prepare(path, table[path])
        print(f"== {path}: {folder.relative_to(ROOT)}", flush=True)
        # mutmut's own spinner output is long; its result files say what happened
        with open(folder / "mutmut-run.log", "w") as log:
            code = subprocess.call(
                ["nice", "-n", "10", str(mutmut), "run", "--max-children", "2", *extra],
                cwd=folder, stdout=log, stderr=subprocess.STDOUT, env=os.environ.copy(),
            )  # fmt: skip
        if code != 0:
            failed.append(path)
            print(f"   mutmut exited {code}: see {(folder / 'mutmut-run.log').relative_to(ROOT)}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
