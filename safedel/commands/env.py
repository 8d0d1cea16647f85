"""`safedel env`: the environment `safedel run` would set, for harnesses that spawn
commands themselves."""

import json
import os
from typing import Annotated, Optional

import typer

from ..executor import childenv, shimhome
from ..shells import SHELLS, export_lines

Text = Optional[str]  # noqa: UP045 - typer reads the annotation at run time


def env(
    shell: Annotated[str, typer.Option(help=f"One of: {', '.join(SHELLS)}.")] = "sh",
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON object.")] = False,
    session: Annotated[Text, typer.Option(help="Session id.")] = None,
    turn: Annotated[Text, typer.Option(help="Turn id (default: a new one).")] = None,
    tool_call: Annotated[Text, typer.Option(help="Tool-call id.")] = None,
    threshold: Annotated[Optional[int], typer.Option(min=1, max=99999)] = None,  # noqa: UP045
    report: Annotated[Text, typer.Option(help="JSON-lines report file.")] = None,
    trash_dir: Annotated[Text, typer.Option(help="Single trash directory.")] = None,
    no_exempt: Annotated[bool, typer.Option(help="Trash temp-dir paths too.")] = False,
) -> None:
    """Print the shim environment (only what changes) for SHELL or as JSON."""
    if shell not in SHELLS:
        raise typer.BadParameter(f"choose one of {', '.join(SHELLS)}", param_hint="--shell")
    options = childenv.RunOptions(
        session=session,
        turn=turn,
        tool_call=tool_call,
        threshold=threshold,
        report=report,
        trash_dir=trash_dir,
        no_exempt=no_exempt,
    )
    values = childenv.contract(os.environ, shimhome.materialize(), options)
    if as_json:
        typer.echo(json.dumps(values, indent=2, sort_keys=True))
    else:
        typer.echo(export_lines(shell, values), nl=False)
