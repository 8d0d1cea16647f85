"""`safedel list`: what is in every trash dir we can see, ours or anyone's."""

import json
import os
import re
import time
from typing import Annotated, Optional

import typer

from ..core.contract import settings as core_settings
from ..trash import catalog, catalogquery

Text = Optional[str]  # noqa: UP045 - typer reads the annotation at run time
_DURATION = re.compile(r"(\d+)([smhdw])")
_UNIT_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
_DATE_FORMATS = ("%Y-%m-%dT%H:%M:%S", "%Y-%m-%dT%H:%M", "%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M")


def parse_since(text, now=None):
    """Seconds since the epoch for `2h`, `90m`, `1d12h` (ago) or a local date/time."""
    text = text.strip()
    pieces = _DURATION.findall(text)
    if pieces and "".join(n + u for n, u in pieces) == text:
        now = time.time() if now is None else now
        return now - sum(int(n) * _UNIT_SECONDS[u] for n, u in pieces)
    for layout in (*_DATE_FORMATS, "%Y-%m-%d"):
        try:
            return time.mktime(time.strptime(text, layout))
        except ValueError:
            continue
    raise typer.BadParameter(
        "use a duration like 30m, 2h, 1d12h or 1w, or a local time like "
        "2026-11-29 or 2026-11-29T14:30",
        param_hint="--since",
    )


def warn(message):
    # Every warning may carry a file name: escaped here, once, for the whole line.
    typer.echo(f"safedel: warning: {catalog.printable(message)}", err=True)


def append_events(settings, events):
    """Add events to the report; a report that cannot be written is a warning only
    (what the command did is done)."""
    from ..core.report import write as core_report

    try:
        core_report.append(settings.report, events)
    except OSError as exc:
        warn(f"cannot write the report {settings.report}: {exc.strerror or exc}")


def select(prefix=None, since=None, session=None, turn=None, report_path=None):
    """The trash items that pass every filter given, oldest first."""
    found = catalog.items(warn=warn)
    if prefix is not None:
        base = os.path.abspath(os.fsencode(prefix))
        found = [item for item in found if catalog.under(item, base)]
    if since is not None:
        cutoff = parse_since(since)
        found = [item for item in found if item.order[0] >= cutoff]
    if session is not None or turn is not None:
        events = catalog.reported_trashes(report_path, session, turn, warn)
        wanted = {os.fsencode(event["trashPath"]) for event in events if event.get("trashPath")}
        found = [item for item in found if item.file_path in wanted]
    return found


def table(found, size_of):
    from rich.table import Table
    from rich.text import Text as RichText

    from ..trash.health import human

    total = human(sum(size_of.get(item.file_path, 0) for item in found))
    title = f"{len(found)} item{'s' if len(found) != 1 else ''} in the trash, {total}"
    grid = Table(title=title)
    for column in ("Deleted", "Kind", "Size", "Original path", "In trash"):
        grid.add_column(column, overflow="fold", justify="right" if column == "Size" else "left")
    for item in found:
        # Text() never reads markup, and printable() escapes control characters.
        invalid = getattr(item, "invalid", None)
        kind = f"invalid ({invalid})" if invalid else item.kind
        size = size_of.get(item.file_path)
        grid.add_row(
            item.deleted.replace("T", " "),
            kind,
            human(size) if size is not None else "",
            RichText(catalog.printable(item.original)),
            RichText(catalog.printable(item.file_path)),
        )
    return grid


def by_turn(found, size_of, report_path):
    """[{session, turn, items, size, last}] newest first; other tools' items as one group."""
    turn_of = {}
    for record in catalog.reported_trashes(report_path, warn=warn):
        turn_of[os.fsencode(record["trashPath"])] = (record.get("session"), record.get("turn"))
    groups = {}
    for item in found:
        key = turn_of.get(item.file_path, (None, None))
        group = groups.setdefault(key, {"session": key[0], "turn": key[1], "items": 0, "size": 0})
        group["items"] += 1
        group["size"] += size_of.get(item.file_path, 0)
        group["last"] = item.deleted
    return sorted(groups.values(), key=lambda g: g["last"], reverse=True)


def print_turns(groups):
    from ..trash.health import human

    for group in groups:
        who = (
            f"{group['session']} / {group['turn']}"
            if group["turn"] is not None
            else "(trashed by other tools)"
        )
        shown = catalog.printable(os.fsencode(who))
        when = group["last"].replace("T", " ")
        typer.echo(f"{when}  {group['items']:>6} items  {human(group['size']):>10}  {shown}")


def list_(
    prefix: Annotated[Text, typer.Argument(help="Only items trashed from under this path.")] = None,
    turn: Annotated[Text, typer.Option(help="Only what this turn trashed (the report).")] = None,
    session: Annotated[Text, typer.Option(help="Only items this session trashed.")] = None,
    since: Annotated[
        Text, typer.Option(help="Only items trashed since: 30m, 2h, 1d, 1w or 2026-11-29T14:30.")
    ] = None,
    report: Annotated[Text, typer.Option(help="Report to read for --turn/--session.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON array.")] = False,
    git: Annotated[
        bool, typer.Option("--git", help="List git snapshots (reset, checkout, stash, branch).")
    ] = False,
    turns: Annotated[
        bool, typer.Option("--turns", help="One line per session and turn: items, size, when.")
    ] = False,
) -> None:
    """List the items in every trash dir safedel can see, including other tools' items."""
    report_path = report or core_settings.load().report
    if git:
        from . import list_git

        cutoff = parse_since(since) * 1000 if since is not None else None
        return list_git.show(report_path, session, turn, cutoff, as_json)
    from ..trash import recyclebin

    if as_json and not (turns or since or session or turn) and not recyclebin.in_use():
        # Each item's row as the catalog cache keeps it: what quick.py prints too.
        base = os.path.abspath(os.fsencode(prefix)) if prefix is not None else None
        rows = catalogquery.json_rows(base, warn)
        typer.echo(b"[" + b", ".join(rows) + b"]")
        return
    from ..trash.purge import sizes

    found = select(prefix, since, session, turn, report_path)
    size_of = sizes(found)
    if turns:
        groups = by_turn(found, size_of, report_path)
        if as_json:
            typer.echo(json.dumps(groups, indent=2))
        else:
            print_turns(groups)
    elif as_json:
        rows = [dict(item.as_json(), size=size_of.get(item.file_path)) for item in found]
        # One line: the C encoder (indent makes json use its slow pure-Python one).
        typer.echo(json.dumps(rows))
    elif not found:
        filtered = prefix or since or turn or session
        skipped = catalog.say_skipped(warn)
        if skipped:
            dirs = f"{skipped} trash dir{'s' if skipped != 1 else ''}"
            typer.echo(f"Nothing listed: {dirs} could not be read safely (see above).")
        else:
            typer.echo("Nothing in the trash matches." if filtered else "The trash is empty.")
    else:
        from rich.console import Console

        Console().print(table(found, size_of))
    if not (prefix or since or turn or session):
        from ..trash import retention

        over = retention.over_max_size(sum(size_of.get(i.file_path, 0) for i in found))
        if over:
            warn(over)
