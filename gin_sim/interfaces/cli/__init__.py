"""The ``gin-sim`` command line: one module per command, registered on one typer app.

Bad input (a ``ValueError`` from the library, a usage error, a file that cannot be read or
written, a bad environment variable) is one line on stderr and exit code 2, never a
traceback. Ctrl-C exits with code 130 and SIGTERM with 143, each after one line saying
what was saved. As other Unix tools do, a command whose reader goes away (``gin-sim ... |
head``) stops quietly with code 141 (128 + SIGPIPE), and one started with its standard
output closed (``>&-``) is an error, since what it prints would be lost.
"""

from __future__ import annotations

import os
import select
import signal
import sys

import typer

from gin_sim.game.environment import check_environment, check_figures, starting_handler
from gin_sim.interfaces.cli.common import (
    SIGINT_EXIT,
    SIGTERM_EXIT,
    Terminated,
    describe_os_error,
    fail,
)
from gin_sim.interfaces.cli.signals import listen, stop_listening

SIGPIPE_EXIT = 141  # 128 + SIGPIPE, as shells report a writer whose reader went away

app = typer.Typer(
    name="gin-sim",
    help="Monte Carlo strategy simulator for Hollywood Gin.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="markdown",
)

from gin_sim.interfaces.cli import (  # noqa: E402  (they register on app)
    advise,
    card,
    deadwood,
    distill,
    listing,
    match,
    play,
    positions,
    replay,
    report,
    review,
    serve,
    simulate,
    summarize,
    tune,
)

deadwood.register(app)
simulate.register(app)
match.register(app)
summarize.register(app)
replay.register(app)
review.register(app)
card.register(app)
listing.register(app)
report.register(app)
tune.register(app)
positions.register(app)
distill.register(app)
serve.register(app)
advise.register(app)
play.register(app)


def leaf_commands(command=None, path: tuple[str, ...] = ()):
    """(path, command) for every command of the app that runs, the subcommands of groups
    (``report knock``) included: what the command reference and the help's tests walk."""
    if command is None:
        command = typer.main.get_command(app)
    if hasattr(command, "commands"):  # a group (typer vendors its own click classes)
        for name, sub in command.commands.items():
            yield from leaf_commands(sub, (*path, name))
    else:
        yield path, command


def _is_usage_error(error: Exception) -> bool:
    # typer raises click's exceptions (vendored in newer typer): match them by shape.
    return hasattr(error, "format_message") and isinstance(getattr(error, "exit_code", None), int)


def _reader_gone() -> bool:
    """True when standard output is a pipe (or socket) whose reading end is closed."""
    try:
        poller = select.poll()
        poller.register(sys.stdout.fileno(), select.POLLOUT)
        return any(events & select.POLLERR for _, events in poller.poll(0))
    except (AttributeError, OSError, ValueError):
        return False


def _quiet_after_broken_pipe() -> int:
    # What is still buffered cannot be delivered: standard output goes to /dev/null so
    # that the interpreter's last flush does not fail again with a traceback.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return SIGPIPE_EXIT


def _check_terminal_width() -> None:
    """``COLUMNS=0`` (or below) makes rich print nothing at all: refuse it. A value that is
    not a number is ignored by rich, as by other tools."""
    text = os.environ.get("COLUMNS", "").strip()
    if text.lstrip("+-").isdigit() and int(text) < 1:
        raise ValueError(
            f"COLUMNS={text!r}: allowed a whole number of characters from 1 (or unset it for the terminal's width)"
        )


def _run_command(args: list[str]) -> object:
    """Parse ``args`` and run the command, as typer's own entry would, but letting
    ``KeyboardInterrupt`` (Ctrl-C, and SIGTERM's ``Terminated``) reach ``main``: typer
    turns it into a silent ``Exit(130)``, which would lose SIGTERM's 143 and the line that
    says what happened. A command's ``typer.Exit`` gives its code."""
    command = typer.main.get_command(app)
    try:
        with command.make_context("gin-sim", list(args)) as context:
            return command.invoke(context)
    except typer.Exit as stop:
        return stop.exit_code


def main(argv: list[str] | None = None) -> None:
    """Entry point of the ``gin-sim`` script and ``python -m gin_sim``.

    Signals are handled here, once for every command: SIGTERM raises ``Terminated`` (a
    ``KeyboardInterrupt``), so a command that keeps results (a run, a game's record)
    saves them and says so as it does for Ctrl-C; one that does not is stopped with the
    line ``interrupted`` (exit 130) or ``terminated`` (exit 143)."""
    args = sys.argv[1:] if argv is None else argv
    # The start is over: Ctrl-C raises (unless it is ignored or the host handles it).
    ctrl_c = signal.getsignal(signal.SIGINT)
    listen(ctrl_c is signal.default_int_handler or starting_handler(ctrl_c))
    try:
        check_environment()
        check_figures()
        _check_terminal_width()
        if sys.stdout is None:  # Python's stand-in when file descriptor 1 is closed
            raise ValueError(
                "standard output is closed (>&-): nothing could be printed; redirect it to a file or to /dev/null instead"
            )
        code = _run_command(args or ["--help"])
        sys.stdout.flush()  # a write that fails shows here, not after exit
    except BrokenPipeError as error:
        if not _reader_gone():
            fail(describe_os_error(error), exit=False)
            code = 2
        else:
            code = _quiet_after_broken_pipe()
    except SystemExit as stop:
        # rich answers a broken pipe with SystemExit(1) of its own, output already sent
        # to /dev/null
        if not isinstance(stop.__context__, BrokenPipeError):
            raise
        code = SIGPIPE_EXIT
    except (typer.Abort, KeyboardInterrupt) as error:
        stop_listening()
        # click turns KeyboardInterrupt into Abort; ours (SIGTERM) is its context
        stop = error if isinstance(error, KeyboardInterrupt) else error.__context__
        terminated = isinstance(stop, Terminated)
        typer.echo("terminated" if terminated else "interrupted", err=True)
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
        message = error.format_message()  # type: ignore[attr-defined]
        if message:  # empty after a group's help, printed for want of a command
            fail(message, exit=False)
        code = error.exit_code  # type: ignore[attr-defined]
    sys.exit(code if isinstance(code, int) else 0)
