"""`safedel purge`: the one command that really deletes, and only from the trash."""

import os
import sys
from typing import Annotated, Optional

import typer

from ..core.contract import settings as core_settings
from ..core.report import write as core_report
from ..trash import catalog
from ..trash import purge as purging
from ..trash.health import human
from .list import append_events, warn

Text = Optional[str]  # noqa: UP045 - typer reads the annotation at run time


def _usage(message):
    typer.echo(f"safedel purge: {message}", err=True)
    return typer.Exit(2)


def purge(
    prefix: Annotated[Text, typer.Argument(help="Only items trashed from under this path.")] = None,
    older_than: Annotated[
        Text, typer.Option(help="Only items trashed over this long ago: 30d.")
    ] = None,
    turn: Annotated[Text, typer.Option(help="Only what this turn trashed.")] = None,
    session: Annotated[Text, typer.Option(help="Only what this session trashed.")] = None,
    regenerable: Annotated[
        bool, typer.Option("--regenerable", help="Only items the guard did not count.")
    ] = False,
    everything: Annotated[bool, typer.Option("--all", help="Everything in the trash.")] = False,
    max_size: Annotated[
        Text, typer.Option(help="Remove the oldest items until the trash fits: 10G.")
    ] = None,
    yes: Annotated[bool, typer.Option("--yes", help="Do not ask.")] = False,
    dry_run: Annotated[bool, typer.Option("--dry-run", help="Only list what would go.")] = False,
    report: Annotated[Text, typer.Option(help="Report to read and append to.")] = None,
    retention_pass: Annotated[bool, typer.Option("--retention-pass", hidden=True)] = False,
    retention_values: Annotated[Text, typer.Option("--retention-values", hidden=True)] = None,
) -> None:
    """Delete items from the trash for good (every trash dir safedel lists)."""
    from ..executor.approval import refuse_inside

    why = refuse_inside("deleting from the trash for good")
    if why is not None and not dry_run:
        typer.echo(f"safedel purge: {why}", err=True)
        raise typer.Exit(1)
    if retention_pass:
        return _retention_pass(report, retention_values)
    selection = purging.Selection(None, turn, session, regenerable)
    try:
        if older_than is not None:
            selection.older_than = purging.parse_age(older_than)
        limit = purging.parse_size(max_size) if max_size is not None else None
    except ValueError as exc:
        raise _usage(str(exc)) from None
    if prefix is not None:
        selection.prefix = os.path.abspath(os.fsencode(prefix))
    chosen = (prefix, older_than, turn, session, regenerable or None, everything or None, max_size)
    if all(value is None for value in chosen):
        raise _usage(
            "say what to purge: PREFIX, --older-than, --turn, --session, "
            "--regenerable, --max-size or --all"
        )
    settings = core_settings.load()
    if report:
        settings.report = report
    items = purging.select(selection, settings.report, warn)
    size_of = purging.sizes(items)
    snapshots = [] if limit is not None else _kept(purging.snapshots(selection, settings.report))
    if limit is not None:
        items = purging.oldest_over(items, size_of, limit)
    segments = _stale_segments(settings, items)
    if not items and not snapshots and not segments:
        typer.echo("Nothing in the trash matches.")
        return
    total = sum(size_of.get(item.file_path, 0) for item in items)
    for item in items[:20] if not dry_run else items:
        size = human(size_of.get(item.file_path, 0))
        typer.echo(
            f"{item.deleted.replace('T', ' ')}  {size:>10}  {catalog.printable(item.original)}"
        )
    if not dry_run and len(items) > 20:
        typer.echo(f"… and {len(items) - 20} more")
    for snapshot in snapshots:
        typer.echo(f"git snapshot {snapshot.get('ref')} in {snapshot.get('repo')}")
    for segment in segments:
        shown = catalog.printable(os.fsdecode(segment.path))
        typer.echo(f"report segment past the retention  {human(segment.size):>10}  {shown}")
    summary = f"{len(items)} item{'s' if len(items) != 1 else ''}, {human(total)}"
    if snapshots:
        summary += f", {len(snapshots)} git snapshot{'s' if len(snapshots) != 1 else ''}"
    if segments:
        summary += f", {len(segments)} report segment{'s' if len(segments) != 1 else ''}"
    if dry_run:
        typer.echo(f"would delete {summary} for good")
        return
    if not yes:
        if not (sys.stdin.isatty() and sys.stdout.isatty()):
            raise _usage(f"would delete {summary} for good; add --yes to do it without asking")
        if not typer.confirm(f"Delete {summary} for good?", default=False):
            raise typer.Exit(1)
    failed = _purge_all(settings, items, size_of) + _drop_snapshots(settings, snapshots)
    if segments:  # judged again now: an item that failed to go still holds its segment
        listed = {segment.path for segment in segments}
        judged = [s for s in _stale_segments(settings) if s.path in listed]
        dropped = _drop_segments(settings, judged)
        typer.echo(f"dropped {dropped} of {len(segments)} report segments past the retention")
    count = len(items) + len(snapshots)
    typer.echo(f"purged {count - failed} of {count} ({human(total)})")
    if failed:
        raise typer.Exit(1)


def _purge_all(settings, items, size_of):
    from rich.console import Console
    from rich.progress import Progress

    live = len(items) > 20 and Console().is_terminal
    failed, events = 0, []
    with Progress(disable=not live) as bar:
        task = bar.add_task("Purging", total=len(items))
        for item in items:
            try:
                purging.purge_item(item)
            except OSError as exc:
                failed += 1
                reason = getattr(exc, "strerror", None) or exc
                warn(f"could not purge {os.fsdecode(item.file_path)}: {reason}")
            else:
                events.append(purging.purge_event(settings, item, size_of.get(item.file_path, 0)))
            bar.advance(task)
            if len(events) >= 500:
                append_events(settings, events)
                events = []
    append_events(settings, events)
    return failed


def _stale_segments(settings, purged=(), values=None):
    """Report segments past the configured retention (or values') that no restore or
    undo needs once this purge is done (the items it purges no longer hold a segment
    back)."""
    from ..trash import reportretention, retention

    age = (retention.configured() if values is None else values).get("retention")
    if not age:
        return []
    try:
        max_age = purging.parse_age(age)
    except ValueError as exc:
        warn(f"retention setting ignored: {exc}")
        return []
    going = {item.info_path for item in purged}

    def left():
        return [item for item in catalog.items(warn=warn) if item.info_path not in going]

    return reportretention.stale(settings.report, max_age, left)


def _drop_segments(settings, segments):
    """Each segment goes whole; one that changed since it was judged stays. A segment
    dropped is one purge event in the current report, for the audit trail."""
    from ..trash import reportretention

    events = []
    for segment in segments:
        try:
            dropped = reportretention.drop(segment)
        except OSError as exc:
            warn(f"could not drop {os.fsdecode(segment.path)}: {exc.strerror or exc}")
            continue
        if dropped:
            fields = {"path": os.fsdecode(segment.path), "kind": "report", "size": segment.size}
            events.append(core_report.event("purge", settings, "cli", **fields))
    append_events(settings, events)
    return len(events)


def _kept(events):
    from ..core.git import undo as git_undo

    return [event for event in events if git_undo.ref_exists(event)]


def _drop_snapshots(settings, snapshots):
    from ..core.git import undo as git_undo

    failed, events = 0, []
    for snapshot in snapshots:
        if git_undo.drop(snapshot):
            fields = {k: snapshot.get(k) for k in ("repo", "ref", "commit", "kind")}
            events.append(core_report.event("purge", settings, "cli", **fields))
        else:
            failed += 1
            warn(f"could not delete {snapshot.get('ref')} in {snapshot.get('repo')}")
    append_events(settings, events)
    return failed


def _retention_pass(report, values_json):
    """What `safedel run` starts in the background: the configured purges, quietly.
    values_json: the retention settings the run read before its command started (a
    command that rewrote the config file meanwhile does not choose what is purged).
    max_size purges nothing here (retention.py): list and doctor name it instead."""
    from ..trash import retention

    values = retention.configured() if values_json is None else retention.parse(values_json)

    try:
        os.nice(19)
    except OSError:
        pass
    settings = core_settings.load()
    if report:
        settings.report = report
    for older, regenerable in retention.passes(values):
        try:
            selection = purging.Selection(None, None, None, regenerable)
            selection.older_than = purging.parse_age(older)
        except ValueError as exc:
            warn(f"retention setting ignored: {exc}")
            continue
        # Decided from the trash alone: a report line can only narrow --regenerable.
        items = purging.select(selection, settings.report)
        _purge_all(settings, items, purging.sizes(items))
    _drop_segments(settings, _stale_segments(settings, values=values))
