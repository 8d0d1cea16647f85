"""`safedel undo`: restore everything the session's most recent turn trashed.

Run again, it undoes the turn before, as an undo stack: a turn already fully restored
is skipped. Git snapshots of the turn are part of it.
"""

import os
from typing import Annotated, Optional

import typer

from ..core.contract import settings as core_settings
from ..core.policy import workspace
from ..trash import catalog, restore
from ..trash import undo as undoing
from .list import warn
from .restore import Outcome, finish, reapply_snapshots, restore_all

Text = Optional[str]  # noqa: UP045 - typer reads the annotation at run time


def undo(
    session: Annotated[
        Text,
        typer.Option(
            help="Whose turns (default: SAFEDEL_SESSION, this shell's own, else this "
            "project's `safedel run`s)."
        ),
    ] = None,
    count: Annotated[int, typer.Option("-n", min=1, help="Undo the last N turns.")] = 1,
    dry_run: Annotated[
        bool, typer.Option("--dry-run", help="Only list what would come back.")
    ] = False,
    rename: Annotated[
        bool, typer.Option("--rename", help="If a path exists, restore as NAME.restored-N.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the outcome as JSON.")] = False,
    report: Annotated[Text, typer.Option(help="Report to read and append to.")] = None,
) -> None:
    """Undo the most recent turn of this session: put back all it trashed."""
    settings = core_settings.load()
    if report:
        settings.report = report
    session = session or workspace.session_for(os.environ, os.getcwd())
    turns = undoing.turns(settings.report, session, warn)[:count]
    if not turns:
        typer.echo(f"safedel undo: nothing to undo in session {session}", err=True)
        raise typer.Exit(1)
    if dry_run:
        return _preview(turns, as_json)
    outcome = Outcome()
    conflict = restore.RENAME if rename else restore.REFUSE
    for turn in turns:
        say = restore_all(settings, turn.items, conflict, outcome, quiet=as_json)
        for event in turn.gone:
            outcome.failed.append((os.fsencode(event["path"]), "no longer in the trash"))
        reapply_snapshots(settings, turn.pending_snapshots, outcome, say)
    label = "safedel undo: " + ", ".join(f"turn {t.turn}" for t in turns)
    finish(outcome, as_json, label)


def _preview(turns, as_json):
    if as_json:
        import json

        rows = [
            {
                "turn": turn.turn,
                "items": [os.fsdecode(item.original) for item in turn.items],
                "gone": [event["path"] for event in turn.gone],
                "snapshots": [s.get("ref") for s in turn.pending_snapshots],
            }
            for turn in turns
        ]
        typer.echo(json.dumps(rows, indent=2))
        return
    for turn in turns:
        typer.echo(f"turn {catalog.printable(os.fsencode(turn.turn))}:")
        for item in turn.items:
            typer.echo(f"  would restore {catalog.printable(item.original)}")
        for event in turn.gone:
            shown = catalog.printable(os.fsencode(event["path"]))
            typer.echo(f"  cannot restore {shown}: no longer in the trash")
        for snapshot in turn.pending_snapshots:
            typer.echo(f"  would re-apply git {snapshot.get('kind')} {snapshot.get('ref')}")
