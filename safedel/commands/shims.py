"""`safedel shims`: write the shim directory and print its path."""

from typing import Annotated, Optional

import typer

from ..executor import shimhome


def shims(
    directory: Annotated[
        Optional[str],  # noqa: UP045 - typer reads the annotation at run time
        typer.Option("--dir", help="Root to write under (default: the user cache dir)."),
    ] = None,
) -> None:
    """Materialise the shims (bin/, python/, node/, hooks) and print their directory."""
    typer.echo(shimhome.materialize(directory))
