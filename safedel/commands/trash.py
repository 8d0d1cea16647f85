"""`safedel trash`: move literal paths to the trash as one guarded batch.

Hidden from --help: people type rm or Remove-Item. It is the PowerShell prelude's
helper (which runs safedel/shells/trash_helper.py directly, skipping typer) and serves
harnesses that have literal paths in hand.
"""

from typing import Annotated, Optional

import typer

from ..shells import trash_helper

Paths = Optional[list[str]]  # noqa: UP045 - typer reads the annotation at run time


def trash(
    paths: Annotated[Paths, typer.Argument(help="Literal paths, no wildcards.")] = None,
    runtime: Annotated[str, typer.Option(help="The runtime named in the report.")] = "powershell",
    recurse: Annotated[bool, typer.Option(help="Allow directories with children.")] = False,
    stdin: Annotated[bool, typer.Option(help="Read a JSON array of paths from stdin.")] = False,
    as_json: Annotated[bool, typer.Option("--json", help="One JSON result a path.")] = False,
) -> None:
    """Move literal PATHS to the trash as one guarded batch (for the PowerShell prelude)."""
    try:
        status = trash_helper.run(paths, runtime, recurse, stdin, as_json)
    except trash_helper.UsageError as exc:
        raise typer.BadParameter(str(exc)) from None
    raise typer.Exit(status)
