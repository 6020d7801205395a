"""The ``gin-sim`` command line: one module per command, registered on one typer app.

Bad input (a ``ValueError`` from the library, a usage error, a file that cannot be read or
written) is one line on stderr and exit code 2, never a traceback. Ctrl-C exits with code
130 and SIGTERM with 143, each after one line saying what was saved.
"""

from __future__ import annotations

import signal
import sys

import typer

from gin_sim.cli.common import (
    SIGINT_EXIT,
    SIGTERM_EXIT,
    Terminated,
    describe_os_error,
    fail,
)

app = typer.Typer(
    name="gin-sim",
    help="Monte Carlo strategy simulator for Hollywood Gin.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)

from gin_sim.cli import (  # noqa: E402  (they register on app)
    deadwood,
    listing,
    match,
    positions,
    replay,
    report,
    simulate,
    summarize,
    tune,
)

deadwood.register(app)
simulate.register(app)
match.register(app)
summarize.register(app)
replay.register(app)
listing.register(app)
report.register(app)
tune.register(app)
positions.register(app)


def _is_usage_error(error: Exception) -> bool:
    # typer raises click's exceptions (vendored in newer typer): match them by shape.
    return hasattr(error, "format_message") and isinstance(getattr(error, "exit_code", None), int)


def _terminate(signum: int, frame: object) -> None:
    # SIGTERM (kill, a batch system's time limit) stops a run as Ctrl-C does: the chunks
    # being written are finished, the user is told what is saved, exit code 143.
    raise Terminated()


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``gin-sim`` script and ``python -m gin_sim``."""
    args = sys.argv[1:] if argv is None else argv
    signal.signal(signal.SIGTERM, _terminate)
    try:
        code = app(args=args or ["--help"], prog_name="gin-sim", standalone_mode=False)
    except (typer.Abort, KeyboardInterrupt) as error:
        # click turns KeyboardInterrupt into Abort; ours (SIGTERM) is its context
        stop = error if isinstance(error, KeyboardInterrupt) else error.__context__
        terminated = isinstance(stop, Terminated)
        fail("terminated" if terminated else "interrupted", exit=False)
        code = SIGTERM_EXIT if terminated else SIGINT_EXIT
    except ValueError as error:  # library validation outside a command body
        fail(str(error), exit=False)
        code = 2
    except OSError as error:  # a file outside a command body, an unwritable terminal...
        fail(describe_os_error(error), exit=False)
        code = 2
    except Exception as error:
        if not _is_usage_error(error):
            raise
        fail(error.format_message(), exit=False)  # type: ignore[attr-defined]
        code = error.exit_code  # type: ignore[attr-defined]
    sys.exit(code if isinstance(code, int) else 0)
