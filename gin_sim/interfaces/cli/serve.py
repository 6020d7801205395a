"""``gin-sim serve``: a decision process speaking JSON lines on stdin and stdout (docs/serve.md)."""

from __future__ import annotations

import sys
from typing import Annotated

import typer

from gin_sim.interfaces.cli import options
from gin_sim.interfaces.cli.common import user_errors


def serve(
    rules: options.Rules = "hollywood",
    strategy: Annotated[
        str, typer.Option(help="The strategy of requests that name none (a name or a TOML file).")
    ] = "mc",
) -> None:
    """Answer decision requests, one JSON object per line on stdin, one answer per line on
    stdout, until stdin ends. The protocol: docs/serve.md.

    Example: `gin-sim serve --strategy mc < requests.jsonl`
    """
    from gin_sim.interfaces.serve import Server, serve_lines

    with user_errors():
        if sys.stdin is None:  # Python's stand-in when file descriptor 0 is closed
            raise ValueError("standard input is closed (<&-): the requests come from it")
        server = Server(rules, strategy)  # bad defaults: one line, exit 2, before any request
    serve_lines(server, sys.stdin.buffer, sys.stdout)


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
