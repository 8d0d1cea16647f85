"""`safedel serve`: the typer face of serve/server.py."""

from typing import Annotated, Optional

import typer

Text = Optional[str]  # noqa: UP045 - typer reads the annotation at run time


def serve(
    socket: Annotated[Text, typer.Option(help="Listen on this Unix socket (owner only).")] = None,
    stdio: Annotated[
        bool, typer.Option("--stdio", help="Serve one client on stdin/stdout.")
    ] = False,
    allow_unprotected: Annotated[
        bool,
        typer.Option("--allow-unprotected", help="Let RunExecutable ask for unprotected: true."),
    ] = False,
) -> None:
    """Run commands for an agent harness over NDJSON (a Unix socket or stdio)."""
    if bool(socket) == stdio:
        raise typer.BadParameter("give exactly one of --socket PATH and --stdio")
    from ..executor.approval import refuse_inside
    from ..serve import server, transport

    # A server started by a command would let that command answer its own runs' guard
    # questions: the harness of a server is the user's side.
    why = refuse_inside("starting a server for commands")
    if why is not None:
        typer.echo(f"safedel serve: {why}", err=True)
        raise typer.Exit(1)

    try:
        if stdio:
            code = server.serve_stdio(allow_unprotected)
        else:
            code = server.serve_socket(socket, allow_unprotected)
    except (transport.StartError, OSError) as exc:
        typer.echo(f"safedel serve: {exc}", err=True)
        raise typer.Exit(1) from None
    raise typer.Exit(code)
