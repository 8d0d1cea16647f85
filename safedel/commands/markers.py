"""`safedel markers`: the last marker of each kind in a command's output, decoded."""

import json
import sys
from typing import Annotated, Optional

import typer

from ..core.report import markerscan

Text = Optional[str]  # noqa: UP045 - typer reads the annotation at run time


def markers(
    source: Annotated[
        Text, typer.Argument(help="A file holding the output (stderr), or - for stdin.")
    ] = "-",
    as_json: Annotated[
        bool, typer.Option("--json", help='Print {"markers", "askUser", "ask"} as JSON.')
    ] = False,
) -> None:
    """Read marker lines the way a harness should, and say whether to ask the user."""
    try:
        if source in (None, "-"):
            scan = markerscan.scan_stream(sys.stdin.buffer)
        else:
            with open(source, "rb") as handle:
                scan = markerscan.scan_stream(handle)
    except OSError as exc:
        typer.echo(f"safedel markers: {source}: {exc.strerror or exc}", err=True)
        raise typer.Exit(2) from None
    if as_json:
        typer.echo(json.dumps(scan.as_json(), indent=2))
        return
    for kind in scan.order:
        typer.echo(f"{kind} {json.dumps(scan.markers[kind])}")
    asking = scan.ask()
    typer.echo(f"ask the user: {'yes, ' + asking[0] if asking else 'no'}")
