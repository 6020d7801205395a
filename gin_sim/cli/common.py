"""Helpers every command shares: one-line errors and option parsing."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

import typer


def fail(message: str, exit: bool = True) -> None:
    """Print ``error: message`` on one line to stderr; exit with code 2 unless told not to."""
    typer.echo(f"error: {' '.join(str(message).split())}", err=True)
    if exit:
        raise typer.Exit(2)


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Turn a ValueError (bad card, config value, name...) into a one-line error, exit 2."""
    try:
        yield
    except ValueError as error:
        fail(str(error))
