"""The environment variables that gin-sim and its numba kernels read, checked before numba
is imported.

numba reads its variables once, when it is imported: ``NUMBA_NUM_THREADS=0`` raises inside
that import, a number of threads far above the cores crashes the process, and a value it
cannot parse (``NUMBA_DISABLE_JIT=x``) is a multi-line warning with a traceback. So the
package checks them first (``prepare``, run by ``gin_sim/__init__.py``): a bad value is
taken out of the environment, so that the import succeeds, and kept as a problem that
``check_environment`` raises as one ``ConfigError`` naming the variable and what is
allowed. The command line checks at its start; the library when it sets threads
(``simulate.use_threads``) and in ``decide``.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import tempfile
import warnings
from pathlib import Path

from gin_sim.game.config import ConfigError, shown

# The threading layers numba knows (numba's documentation, "Selecting a threading layer").
THREADING_LAYERS = ("default", "safe", "forksafe", "threadsafe", "omp", "tbb", "workqueue")
_NUMBA_PARSE_WARNING = re.compile(
    r"Environment variable '(?P<name>[^']+)' is defined but its associated value '(?P<value>.*)' could not be parsed",
    re.S,
)
_PROBLEMS: list[str] = []
_FIGURE_PROBLEMS: list[str] = []


def cores() -> int:
    """The cores this process may run on (numba's default number of threads)."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def _whole_numbers(text: str) -> list[int] | None:
    parts = text.split(",")
    if not all(re.fullmatch(r"\s*\d{1,9}\s*", part) for part in parts):
        return None
    return [int(part) for part in parts]


def _problems_before_numba() -> list[tuple[str, str]]:
    """(variable, problem) for each variable numba or OpenMP would fail on."""
    found = []
    available = cores()
    text = os.environ.get("NUMBA_NUM_THREADS")
    if text is not None:
        numbers = _whole_numbers(text)
        if numbers is None or len(numbers) != 1 or not 1 <= numbers[0] <= available:
            found.append(
                (
                    "NUMBA_NUM_THREADS",
                    f"NUMBA_NUM_THREADS={shown(text)}: allowed a whole number from 1 to {available} (the cores available); unset it to use them all",
                )
            )
    text = os.environ.get("OMP_NUM_THREADS")
    if text is not None:
        numbers = _whole_numbers(text)
        if numbers is None or not all(1 <= n <= 4096 for n in numbers):
            found.append(
                (
                    "OMP_NUM_THREADS",
                    f"OMP_NUM_THREADS={shown(text)}: allowed a whole number of threads from 1 (or a comma-separated list of them); unset it for the default",
                )
            )
    text = os.environ.get("NUMBA_THREADING_LAYER")
    if text is not None and text.strip().lower() not in THREADING_LAYERS:
        found.append(
            (
                "NUMBA_THREADING_LAYER",
                f"NUMBA_THREADING_LAYER={shown(text)}: allowed {', '.join(THREADING_LAYERS)}",
            )
        )
    return found


KERNELS = Path(__file__).resolve().parents[1] / "kernels"


def kernel_cache_folder(kernels: Path = KERNELS) -> Path:
    """Where numba keeps the compiled kernels: a folder named by a hash of every kernel
    module's source. numba checks a cached function against its own file only, so a kernel
    compiled with another module's older code inlined (a decision rule, the slots of a
    vector) would be loaded again after that module changed; a new folder whenever any
    kernel source changes never loads such a function. Older folders are removed."""
    digest = hashlib.sha256()
    for source in sorted(kernels.glob("*.py")):
        digest.update(source.name.encode() + b"\0" + source.read_bytes())
    return kernels / "__pycache__" / f"numba-{digest.hexdigest()[:16]}"


def writable_folder(folder: Path) -> bool:
    """Whether ``folder`` exists or can be made, and a file can be written in it (tried,
    as numba and matplotlib try it: a permission bit does not say it for root or /proc)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        tempfile.TemporaryFile(dir=folder).close()
    except OSError:
        return False
    return True


def _cache_homes(name: str) -> list[Path]:
    """Folders for a cache when the install cannot hold it: the user's cache folder
    (XDG_CACHE_HOME, else ~/.cache), then one of this user's in the temporary folder."""
    homes = []
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        homes.append(Path(xdg))
    with contextlib.suppress(RuntimeError):  # no home at all
        homes.append(Path.home() / ".cache")
    places = [home / "gin-sim" / name for home in homes]
    return [*places, Path(tempfile.gettempdir()) / f"gin-sim-{os.getuid()}" / name]


def _use_matplotlib_folder() -> None:
    """matplotlib writes a cache in MPLCONFIGDIR, else ~/.config/matplotlib; when it cannot
    it warns on stderr, several lines. A folder set by the user that cannot be written is a
    problem for the commands that draw (``check_figures``); without one, and with a home
    that cannot be written, a folder of this user's in the temporary folder is given."""
    given = os.environ.get("MPLCONFIGDIR")
    if given:
        if not writable_folder(Path(given)):
            _FIGURE_PROBLEMS.append(
                f"MPLCONFIGDIR={shown(given)}: not a folder matplotlib can write its cache in; allowed a writable folder (unset it for matplotlib's default)"
            )
        return
    xdg = os.environ.get("XDG_CONFIG_HOME")
    try:
        default = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".config"
    except RuntimeError:
        default = None
    if default is not None and writable_folder(default / "matplotlib"):
        return
    fallback = Path(tempfile.gettempdir()) / f"gin-sim-{os.getuid()}" / "matplotlib"
    if writable_folder(fallback):
        os.environ["MPLCONFIGDIR"] = str(fallback)


def check_figures() -> None:
    """Raise a problem matplotlib would print as warnings (an unusable MPLCONFIGDIR) as one
    ``ConfigError``: the command line checks at its start, the figures before drawing."""
    if _FIGURE_PROBLEMS:
        raise ConfigError(_FIGURE_PROBLEMS[0])


def _use_kernel_cache() -> None:
    import sys

    if "NUMBA_CACHE_DIR" in os.environ:  # the user's choice
        return
    folder = kernel_cache_folder()
    if not writable_folder(folder):
        # An install the user cannot write (a container user without a home too): numba
        # would find no cache folder and refuse ("cannot cache function ... no locator
        # available"). The user's cache folder, else the temporary folder, keeps the kernels.
        folder = next(
            (candidate for candidate in _cache_homes(folder.name) if writable_folder(candidate)),
            None,
        )
        if folder is None:  # nowhere to write: numba says so when a kernel is compiled
            return
    for old in folder.parent.glob("numba-*"):
        if old != folder:
            shutil.rmtree(old, ignore_errors=True)  # another process may be removing it too
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    if "numba" in sys.modules:  # imported first (by a test runner, a user's program): numba
        # read its variables then; the kernels, imported after this module, read this
        sys.modules["numba"].config.CACHE_DIR = str(folder)


def prepare() -> None:
    """Check the variables, take the bad ones out of the environment and import numba with
    its warnings about values it cannot parse turned into problems (once per process)."""
    import sys

    _use_kernel_cache()
    if "matplotlib" not in sys.modules:  # it reads the folder when imported
        _use_matplotlib_folder()
    if "numba" in sys.modules:  # imported before gin-sim: its own checks have run
        return
    for name, problem in _problems_before_numba():
        del os.environ[name]
        _PROBLEMS.append(problem)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        import numba  # noqa: F401  (reads its variables now)
    for warning in caught:
        match = _NUMBA_PARSE_WARNING.search(str(warning.message))
        if match is None:
            warnings.showwarning(
                warning.message, warning.category, warning.filename, warning.lineno
            )
            continue
        _PROBLEMS.append(
            f"{match['name']}={shown(match['value'])}: numba cannot read this value (see numba's documentation of {match['name']}); unset it or give a valid one"
        )


def check_environment() -> None:
    """Raise the first problem ``prepare`` found, as one ``ConfigError``; and check the
    variables of gin-sim itself that the command line reads at its start."""
    if _PROBLEMS:
        raise ConfigError(_PROBLEMS[0])
    folder = os.environ.get("GIN_SIM_CONFIGS")
    if folder and not os.path.isdir(folder):
        raise ConfigError(
            f"GIN_SIM_CONFIGS={shown(folder)}: not a folder; allowed a folder holding strategies/ and rules/ (unset it for the configs beside the package)"
        )
    if folder:
        missing = [part for part in ("strategies", "rules") if not (Path(folder) / part).is_dir()]
        if missing:
            raise ConfigError(
                f"GIN_SIM_CONFIGS={shown(folder)}: no {missing[0]}/ in it; allowed a folder holding strategies/ and rules/ as configs/ does (unset it for the configs beside the package)"
            )


# -- signals while the command starts ----------------------------------------------------------
# The ``gin-sim`` command handles Ctrl-C and SIGTERM in ``interfaces.cli.main`` (exit 130 or
# 143 with one line); but before main runs, importing the package takes a second or two,
# and a signal then would be a traceback (Ctrl-C) or a silent death (SIGTERM). So when this
# process is the command, the two signals stop it here with the same line and code until
# main takes over (nothing has started that could be saved). Elsewhere (the library in a
# user's program) the handlers are left alone.
_STARTING = {2: (b"interrupted\n", 130), 15: (b"terminated\n", 143)}  # SIGINT, SIGTERM


def _stopped_while_starting(signum: int, frame: object) -> None:
    line, code = _STARTING[signum]
    os.write(2, line)
    os._exit(code)


def is_the_command() -> bool:
    """Whether this process was started as ``gin-sim`` or ``python -m gin_sim``."""
    import sys

    argv = list(getattr(sys, "orig_argv", []))
    if len(argv) >= 2 and os.path.basename(argv[1]) == "gin-sim":
        return True
    return "-m" in argv[:-1] and argv[argv.index("-m") + 1] == "gin_sim"


def handle_signals_while_starting() -> None:
    import signal

    if not is_the_command():
        return
    for number in (signal.SIGINT, signal.SIGTERM):
        if signal.getsignal(number) in (signal.default_int_handler, signal.SIG_DFL):
            signal.signal(number, _stopped_while_starting)


def starting_handler(handler: object) -> bool:
    """Whether ``handler`` is the one ``handle_signals_while_starting`` installed."""
    return handler is _stopped_while_starting


handle_signals_while_starting()  # first of all: gin_sim/__init__.py imports this module first
prepare()  # on import: gin_sim/__init__.py imports this module before any other
