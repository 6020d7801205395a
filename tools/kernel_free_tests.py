"""Which test modules call a numba kernel, and which start a gin-sim command: the evidence
behind ``KERNEL_FREE`` in tests/conftest.py (the modules that run beside the kernels'
warm-up on a fresh clone).

Each module runs alone in a fresh pytest process (the fast tier, no xdist, the cache as it
is: warm it first), with this file as a plugin that watches numba's compile entry
(``Dispatcher._compile_for_args``, reached at a kernel's first call in a process) and
``subprocess.Popen``. One line per module: its test time, the tests that called a kernel
and the gin-sim commands it started; then the name of each test that called a kernel
first in this module (``KERNEL_CALLS``). A module fit for KERNEL_FREE calls none, or only
in a few tests, and starts no command that plays.

    .venv/bin/python tools/kernel_free_tests.py [test_module ...]   # default: every module
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
OUT = "KERNEL_FREE_TESTS_OUT"
_current: dict[str, str | None] = {"test": None}
_found: dict[str, dict[str, list[str]]] = {"kernel": {}, "spawn": {}}


def pytest_configure(config) -> None:  # the plugin side, in the module's pytest process
    from numba.core.dispatcher import Dispatcher

    compile_for_args = Dispatcher._compile_for_args

    def watched(self, *args, **kwargs):
        if _current["test"]:
            _found["kernel"].setdefault(_current["test"], []).append(self.py_func.__name__)
        return compile_for_args(self, *args, **kwargs)

    Dispatcher._compile_for_args = watched
    popen_init = subprocess.Popen.__init__

    def started(self, args, *rest, **kwargs):
        command = args if isinstance(args, str) else " ".join(map(str, args))
        if _current["test"] and "gin_sim" in command:
            _found["spawn"].setdefault(_current["test"], []).append(command[:120])
        popen_init(self, args, *rest, **kwargs)

    subprocess.Popen.__init__ = started


def pytest_runtest_setup(item) -> None:
    _current["test"] = item.nodeid


def pytest_unconfigure(config) -> None:
    if os.environ.get(OUT):
        Path(os.environ[OUT]).write_text(json.dumps(_found))


def main(names: list[str]) -> None:
    modules = names or sorted(p.stem for p in (ROOT / "tests").glob("test_*.py"))
    python = ROOT / ".venv" / "bin" / "python"
    for name in modules:
        with tempfile.NamedTemporaryFile(suffix=".json") as out:
            env = os.environ | {OUT: out.name, "PYTHONPATH": str(Path(__file__).parent),
                                "GIN_SIM_TEST_TIER": "fast"}  # fmt: skip
            started = time.perf_counter()
            subprocess.run(
                [python, "-m", "pytest", "-q", "-p", "kernel_free_tests", "-p", "no:cacheprovider",
                 "-p", "no:xdist", f"tests/{name}.py"],
                cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            )  # fmt: skip
            took = time.perf_counter() - started
            found = json.loads(Path(out.name).read_text() or '{"kernel": {}, "spawn": {}}')
        kernels = sorted({k for calls in found["kernel"].values() for k in calls})
        commands = sorted({c for calls in found["spawn"].values() for c in calls})
        print(f"{name}: {took:.0f} s; {len(found['kernel'])} tests call a kernel {kernels[:4]}; "
              f"commands {commands[:4]}", flush=True)  # fmt: skip
        # by function name, as conftest.KERNEL_CALLS lists them
        for test in sorted({t.split("::", 1)[1].split("[", 1)[0] for t in found["kernel"]}):
            print(f"    calls a kernel: {test}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
