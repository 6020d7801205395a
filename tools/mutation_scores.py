"""The mutation score per module of the last ``make mutate`` run (docs/testing.md).

Reads mutmut's result files (``mutants/<module>/mutants/<module path>.meta``, written by
``tools/mutate.py``). The score is killed mutants
over the mutants tried (killed, survived, timed out, no test reached them, other: a
crash, a stop by a signal, a suspicious run); mutants not
yet tried (an interrupted run) are counted apart, so a partial run says how far it got.
A timeout is counted apart and not as killed: on a shared machine a test can run past
its limit for want of a core, whatever the mutant does.

    .venv/bin/python tools/mutation_scores.py [--survivors [MODULE]]
"""

from __future__ import annotations

import json
import sys
from collections import Counter

from mutate import WORK, module_name, modules

# mutmut's exit codes by outcome (mutmut/stats.py)
KILLED = {1, 3}
TIMEOUT = {24, -24, 152, 255, 36}
SURVIVED = {0}
NO_TESTS = {5, 33}
NOT_TRIED = {None}


def results() -> dict[str, dict[str, int | None]]:
    """Module name -> mutant name -> exit code (None: not tried yet), for the modules run."""
    found = {}
    for path in modules():
        name = module_name(path)
        meta = WORK / name / "mutants" / f"{path}.meta"
        if meta.exists():
            found[name] = json.loads(meta.read_text())["exit_code_by_key"]
    return found


def outcome(code: int | None) -> str:
    if code in NOT_TRIED:
        return "not tried"
    if code in KILLED:
        return "killed"
    if code in TIMEOUT:
        return "timeout"
    if code in SURVIVED:
        return "survived"
    if code in NO_TESTS:
        return "no tests"
    return "other"


def main(argv: list[str]) -> int:
    found = results()
    if not found:
        print("no mutation results: run make mutate first")
        return 2
    if argv and argv[0] == "--survivors":
        for module, codes in found.items():
            if len(argv) < 2 or argv[1] == module:
                for name, code in codes.items():
                    if outcome(code) not in ("killed", "not tried"):
                        print(name)
        return 0
    print(f"{'module':36} {'mutants':>7} {'killed':>6} {'survived':>8} {'no tests':>8} "
          f"{'timeout':>7} {'other':>5} {'not tried':>9} {'score':>6}")  # fmt: skip
    for module, codes in found.items():
        count = Counter(outcome(code) for code in codes.values())
        tried = len(codes) - count["not tried"]
        score = f"{100 * count['killed'] / tried:.1f}%" if tried else "-"
        print(f"{module:36} {len(codes):7} {count['killed']:6} {count['survived']:8} "
              f"{count['no tests']:8} {count['timeout']:7} {count['other']:5} {count['not tried']:9} {score:>6}")  # fmt: skip
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
