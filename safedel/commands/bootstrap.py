"""`safedel bootstrap [SHELL]`: the script an interactive shell's rc file evaluates.

bash, zsh, sh: eval "$(safedel bootstrap bash)"    fish: safedel bootstrap fish | source
PowerShell:    safedel bootstrap powershell | Out-String | Invoke-Expression
"""

from typing import Annotated, Optional

import typer

from ..shells import SHELLS
from ..shells import bootstrap as scripts


def bootstrap(
    shell: Annotated[
        Optional[str],  # noqa: UP045 - typer reads the annotation at run time
        typer.Argument(help=f"One of: {', '.join(SHELLS)} (default: the calling shell)."),
    ] = None,
) -> None:
    """Print the script that puts safedel into an interactive shell (one turn a line)."""
    raise typer.Exit(scripts.main([shell] if shell else []))
