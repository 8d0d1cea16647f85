"""`safedel report [FILE]`: per turn, how many items were trashed, refused and restored."""

import datetime
import json
import os
from typing import Annotated, Optional

import typer

from ..core.contract import settings as core_settings
from ..core.report import write as core_report
from ..trash.catalog import printable
from .list import warn

Text = Optional[str]  # noqa: UP045 - typer reads the annotation at run time
COUNTED = {"trash": "trashed", "refuse": "refused", "restore": "restored"}


def summarize(records):
    """One summary per (session, turn), in the order the turns first appear. A restore
    counts for the turn that trashed the item, so undoing a turn shows up on its row."""
    turns = {}
    trashed_by = {}
    for record in records:
        key = (str(record.get("session", "")), str(record.get("turn", "")))
        if record.get("operation") == "trash":
            trashed_by[record.get("trashPath")] = key
        elif record.get("operation") == "restore":
            key = trashed_by.pop(record.get("trashPath"), key)
        summary = turns.get(key)
        if summary is None:
            summary = turns[key] = {
                "session": key[0],
                "turn": key[1],
                "trashed": 0,
                "refused": 0,
                "restored": 0,
                "first": None,
                "last": None,
            }
        counter = COUNTED.get(record.get("operation"))
        if counter:
            summary[counter] += 1
        stamp = record.get("timestamp")
        if isinstance(stamp, (int, float)):
            summary["first"] = stamp if summary["first"] is None else min(summary["first"], stamp)
            summary["last"] = stamp if summary["last"] is None else max(summary["last"], stamp)
    return list(turns.values())


def _when(stamp):
    if stamp is None:
        return "?"
    return datetime.datetime.fromtimestamp(stamp / 1000).strftime("%Y-%m-%d %H:%M:%S")


def table(path, summaries):
    from rich.table import Table
    from rich.text import Text as RichText

    grid = Table(title=f"safedel report {os.fsdecode(path)}")
    for column in ("Session", "Turn", "Trashed", "Refused", "Restored", "First", "Last"):
        justify = "right" if column in ("Trashed", "Refused", "Restored") else "left"
        grid.add_column(column, justify=justify, overflow="fold")
    for s in summaries:
        grid.add_row(
            RichText(printable(s["session"].encode("utf-8", "surrogateescape"))),
            RichText(printable(s["turn"].encode("utf-8", "surrogateescape"))),
            str(s["trashed"]),
            str(s["refused"]),
            str(s["restored"]),
            _when(s["first"]),
            _when(s["last"]),
        )
    return grid


def report(
    file: Annotated[Text, typer.Argument(help="Report file (default: the current one).")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON array.")] = False,
    since: Annotated[
        Text, typer.Option(help="From when: 30m, 2h, 1d, 1w or 2026-11-29T14:30 (default 7d).")
    ] = None,
    everything: Annotated[bool, typer.Option("--all", help="The whole history.")] = False,
) -> None:
    """Summarize a report: per turn, the items trashed, refused and restored (the last
    7 days unless --since or --all)."""
    from .list import parse_since

    path = file or core_settings.load().report
    if not os.path.lexists(path):
        typer.echo(f"safedel report: no report at {path}", err=True)
        raise typer.Exit(1 if file else 0)
    try:
        if everything:
            events = core_report.read(path, warn)
        else:
            cutoff = int(parse_since(since or "7d") * 1000)
            events = core_report.read_since(path, cutoff, warn)
        summaries = summarize(events)
    except OSError as exc:
        typer.echo(f"safedel report: cannot read {path}: {exc.strerror or exc}", err=True)
        raise typer.Exit(1) from None
    if as_json:
        typer.echo(json.dumps(summaries, indent=2))
    elif not summaries:
        typer.echo(f"{path}: no events yet")
    elif len(summaries) > PLAIN_ROWS:
        typer.echo(plain(path, summaries))
    else:
        from rich.console import Console

        Console().print(table(path, summaries))


# Past this many turns a rich table costs seconds to lay out; plain columns do not.
PLAIN_ROWS = 100


def plain(path, summaries):
    lines = [f"safedel report {os.fsdecode(path)} ({len(summaries)} turns)"]
    lines.append(f"{'trashed':>8} {'refused':>8} {'restored':>8}  {'first':19}  {'last':19}  turn")
    for s in summaries:
        who = printable(f"{s['session']} / {s['turn']}".encode("utf-8", "surrogateescape"))
        lines.append(
            f"{s['trashed']:>8} {s['refused']:>8} {s['restored']:>8}  "
            f"{_when(s['first']):19}  {_when(s['last']):19}  {who}"
        )
    return "\n".join(lines)
