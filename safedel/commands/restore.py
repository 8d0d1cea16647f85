"""`safedel restore`: put items back, by original path, by turn, or the last one trashed."""

import json
import os
from typing import Annotated, Optional

import typer

from ..core.contract import settings as core_settings
from ..core.git import undo as git_undo
from ..core.report import write as core_report
from ..trash import catalog, catalogquery
from ..trash import restore as restoring
from ..trash.restoreflow import Outcome, restore_one
from .list import append_events, warn

Text = Optional[str]  # noqa: UP045 - typer reads the annotation at run time


def present():
    """Every trash item whose info file still has its item (oldest first); an item
    whose Path= is invalid is never a candidate."""
    found = catalog.items(warn=warn)
    return [i for i in found if i.kind != "missing" and not getattr(i, "invalid", None)]


def orphan_item(name, destination):
    """An Item for a payload in some trash's files/ that has no info file."""
    from ..core.trash import info as trashinfo
    from ..core.trash import visible

    why = trashinfo.why_not_plain(name)
    if why:
        raise _fail(f"{catalog.printable(name)} is no entry of files/: {why}")
    for root in visible.visible_trash_dirs():
        info = os.path.join(root, b"info", name + trashinfo.INFO_SUFFIX)
        if os.path.lexists(os.path.join(root, b"files", name)) and not os.path.lexists(info):
            return restoring.Orphan(root, name, destination, "", (0, 0))
    raise _fail(f"no trash holds {catalog.printable(name)} without an info file")


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


def reapply_snapshots(settings, snapshots, outcome, say):
    """Re-apply git snapshots, newest first, into outcome; report each."""
    events = []
    for snapshot in snapshots:
        ok, message = git_undo.reapply(snapshot)
        say(message if ok else f"safedel restore: {message}", not ok)
        if ok:
            fields = {k: snapshot.get(k) for k in ("repo", "ref", "commit", "kind")}
            events.append(core_report.event("restore", settings, "cli", **fields))
        outcome.snapshots.append((ok, message))
    append_events(settings, events)


def _fail(message):
    typer.echo(f"safedel restore: {message}", err=True)
    return typer.Exit(1)


def restore_all(settings, items, conflict, outcome, quiet=False):
    """Restore each item into outcome, going on past failures; report each success.
    quiet (for --json) prints nothing per item."""
    from rich.console import Console
    from rich.progress import Progress

    console = Console(stderr=quiet)
    # The bar shows only on a terminal, and only when there is more than one item.
    live = len(items) > 1 and console.is_terminal and not quiet
    events = []
    with Progress(console=console, disable=not live) as bar:

        def say(text, err=False):
            if quiet:
                return
            if live:  # through the bar's console, so lines land above the bar
                bar.console.print(text, markup=False, highlight=False, soft_wrap=True)
            else:
                typer.echo(text, err=err)

        task = bar.add_task("Restoring", total=len(items))
        try:
            for item in items:
                event = restore_one(settings, item, conflict, outcome, say)
                if event is not None:
                    events.append(event)
                bar.advance(task)
        finally:
            # What came back is reported even if something unforeseen stops the rest:
            # otherwise undo would count those items as gone from the trash.
            append_events(settings, events)
    return say


def finish(outcome, as_json, label="safedel restore"):
    """Print the summary line (or the JSON object) and exit 1 unless all came back."""
    if as_json:
        typer.echo(json.dumps(outcome.as_json(), indent=2))
    else:
        typer.echo(f"{label}: {outcome.summary()}", err=not outcome.ok)
    if not outcome.ok:
        raise typer.Exit(1)


def run_restore(settings, items, snapshots, conflict, as_json, label="safedel restore"):
    outcome = Outcome()
    say = restore_all(settings, items, conflict, outcome, quiet=as_json)
    reapply_snapshots(settings, snapshots, outcome, lambda text, err: say(text, err))
    finish(outcome, as_json, label)


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
    everywhere: Annotated[
        bool, typer.Option("--all", help="Pick from everything, not only under this directory.")
    ] = False,
    as_json: Annotated[bool, typer.Option("--json", help="Print the outcome as JSON.")] = False,
    orphan: Annotated[
        Text, typer.Option(help="A trash item that lost its info file (see doctor --repair).")
    ] = None,
    to: Annotated[Text, typer.Option(help="Where --orphan goes back to.")] = None,
    report: Annotated[Text, typer.Option(help="Report to read and append to.")] = None,
) -> None:
    """Move trashed items back where they came from (by rename only, never a copy).

    With nothing to say what, on a terminal, it shows what was trashed from here and
    below, grouped by turn, and asks which to bring back."""
    chosen = sum((bool(paths), turn is not None, last, orphan is not None))
    if (orphan is None) != (to is None):
        raise typer.BadParameter("--orphan NAME and --to PATH go together")
    if chosen > 1:
        raise typer.BadParameter("give original PATHS, or --turn T, or --last")
    if rename and overwrite:
        raise typer.BadParameter("--rename and --overwrite do not go together")
    settings = core_settings.load()
    if report:
        settings.report = report
    snapshots = []
    if not chosen:
        from . import pick

        if as_json or not pick.interactive():
            typer.echo(
                "Usage: safedel restore PATH... | --turn T | --last "
                "(with none of them, on a terminal, it asks which)",
                err=True,
            )
            raise typer.Exit(2)
        items = pick.choose(settings.report, everywhere)
        if not items:
            return
    elif orphan is not None:
        items = [orphan_item(os.fsencode(orphan), os.path.abspath(os.fsencode(to)))]
    elif last:
        newest = catalogquery.newest_present(warn)  # the last of present(), as quick.py finds it
        if newest is None:
            raise _fail("the trash is empty")
        items = [newest]
    elif turn is not None:
        items, snapshots = by_turn(settings.report, session, turn)
    else:
        items = by_paths(paths)
    conflict = restoring.REFUSE
    if rename or overwrite:
        conflict = restoring.RENAME if rename else restoring.OVERWRITE
    run_restore(settings, items, snapshots, conflict, as_json)
