"""`safedel restore`: put items back, by original path, by turn, or the last one trashed."""

import os
from typing import Annotated, Optional

import typer

from .. import catalog, restoring
from ..core import report as core_report
from ..core import settings as core_settings
from ..core.git import undo as git_undo
from .list import warn

Text = Optional[str]  # noqa: UP045 - typer reads the annotation at run time


def present():
    """Every trash item whose info file still has its item (oldest first); an item
    whose Path= is invalid is never a candidate."""
    found = catalog.items(warn=warn)
    return [i for i in found if i.kind != "missing" and not getattr(i, "invalid", None)]


def by_paths(paths):
    """For each path, the newest item trashed from exactly there."""
    everything = present()
    chosen = []
    for path in paths:
        wanted = os.path.normpath(os.path.abspath(os.fsencode(path)))
        matches = [item for item in everything if item.original == wanted]
        if not matches:
            raise _fail(f"nothing in the trash was deleted from {catalog.printable(wanted)}")
        chosen.append(matches[-1])
    return chosen


def by_turn(report_path, session, turn):
    """What the turn trashed that is still in the trash, and its git snapshots, both
    newest first (so a directory comes back before the items that were trashed from
    inside it earlier)."""
    events = catalog.reported_trashes(report_path, session, turn, warn, ("trash", "snapshot"))
    sessions = sorted({str(event.get("session")) for event in events})
    if session is None and len(sessions) > 1:
        raise _fail(f"turn {turn} is in several sessions ({', '.join(sessions)}): add --session")
    found = catalog.still_trashed([e for e in events if e["operation"] == "trash"], warn)
    snapshots = git_undo.snapshots(events)
    if not found and not snapshots:
        raise _fail(f"nothing that turn {turn} trashed is still in the trash ({report_path})")
    return found[::-1], snapshots[::-1]


def reapply_snapshots(settings, snapshots):
    """Re-apply a turn's git snapshots, newest first; report each. Return failures."""
    failures, events = 0, []
    for snapshot in snapshots:
        ok, message = git_undo.reapply(snapshot)
        typer.echo(message if ok else f"safedel restore: {message}", err=not ok)
        if ok:
            fields = {k: snapshot.get(k) for k in ("repo", "ref", "commit", "kind")}
            events.append(core_report.event("restore", settings, "cli", **fields))
        failures += not ok
    try:
        core_report.append(settings.report, events)
    except OSError as exc:
        warn(f"cannot write the report {settings.report}: {exc.strerror or exc}")
    return failures


def _fail(message):
    typer.echo(f"safedel restore: {message}", err=True)
    return typer.Exit(1)


def restore_all(settings, items, conflict):
    """Restore each item, going on past failures; report each success. Return failures."""
    from rich.console import Console
    from rich.progress import Progress

    console = Console()
    # The bar shows only on a terminal, and only when there is more than one item.
    live = len(items) > 1 and console.is_terminal
    failures, events = 0, []
    with Progress(console=console, disable=not live) as bar:

        def say(text, err=False):
            if live:  # through the bar's console, so lines land above the bar
                bar.console.print(text, markup=False, highlight=False, soft_wrap=True)
            else:
                typer.echo(text, err=err)

        task = bar.add_task("Restoring", total=len(items))
        for item in items:
            try:
                target = restoring.restore(item, conflict, settings.trash_dir)
            except restoring.RestoreError as exc:
                failures += 1
                say(f"safedel restore: {catalog.printable(os.fsencode(exc.reason))}", err=True)
            else:
                events.append(restoring.restore_event(settings, item, target))
                say(f"restored {catalog.printable(target)}")
            bar.advance(task)
    try:
        core_report.append(settings.report, events)
    except OSError as exc:
        warn(f"cannot write the report {settings.report}: {exc.strerror or exc}")
    return failures


def restore(
    paths: Annotated[
        Optional[list[str]],  # noqa: UP045
        typer.Argument(help="Original paths to put back (the newest trashed item of each)."),
    ] = None,
    turn: Annotated[Text, typer.Option(help="Undo a whole turn: restore what it trashed.")] = None,
    session: Annotated[Text, typer.Option(help="The session of --turn.")] = None,
    last: Annotated[bool, typer.Option("--last", help="Restore the item trashed last.")] = False,
    rename: Annotated[
        bool, typer.Option("--rename", help="If the path exists, restore as NAME.restored-N.")
    ] = False,
    overwrite: Annotated[
        bool,
        typer.Option(
            "--overwrite", help="If the path exists, trash it and restore (never a directory)."
        ),
    ] = False,
    report: Annotated[Text, typer.Option(help="Report to read and append to.")] = None,
) -> None:
    """Move trashed items back where they came from (by rename only, never a copy)."""
    if sum((bool(paths), turn is not None, last)) != 1:
        raise typer.BadParameter("give original PATHS, or --turn T, or --last")
    if rename and overwrite:
        raise typer.BadParameter("--rename and --overwrite do not go together")
    settings = core_settings.load()
    if report:
        settings.report = report
    snapshots = []
    if last:
        everything = present()
        if not everything:
            raise _fail("the trash is empty")
        items = everything[-1:]
    elif turn is not None:
        items, snapshots = by_turn(settings.report, session, turn)
    else:
        items = by_paths(paths)
    conflict = restoring.REFUSE
    if rename or overwrite:
        conflict = restoring.RENAME if rename else restoring.OVERWRITE
    failures = restore_all(settings, items, conflict) if items else 0
    if failures + reapply_snapshots(settings, snapshots):
        raise typer.Exit(1)
