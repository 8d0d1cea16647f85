"""`safedel list --git`: the git snapshots the report holds, and whether each is kept."""

import json
import os
import time

import typer

from ..core.git import undo as git_undo
from ..trash import catalog


def snapshot_events(report_path, session, turn, since_ms):
    events = catalog.reported_trashes(report_path, session, turn, operations=("snapshot",))
    return [e for e in events if since_ms is None or e.get("timestamp", 0) >= since_ms]


def show(report_path, session=None, turn=None, since_ms=None, as_json=False):
    events = snapshot_events(report_path, session, turn, since_ms)
    rows = []
    for event in events:
        what = event.get("name") or event.get("message") or "uncommitted changes"
        rows.append(
            {
                "when": event.get("timestamp"),
                "kind": event.get("kind"),
                "repo": event.get("repo"),
                "what": what,
                "ref": event.get("ref"),
                "commit": event.get("commit"),
                "command": event.get("command"),
                "session": event.get("session"),
                "turn": event.get("turn"),
                "kept": git_undo.ref_exists(event),
            }
        )
    if as_json:
        typer.echo(json.dumps(rows, indent=2))
        return
    if not rows:
        typer.echo("No git snapshots match.")
        return
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    grid = Table(title=f"{len(rows)} git snapshot{'s' if len(rows) != 1 else ''}")
    for column in ("Saved", "Kind", "Repository", "What", "Turn", "Ref"):
        grid.add_column(column, overflow="fold")
    for row in rows:
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime((row["when"] or 0) / 1000))
        ref = row["ref"] if row["kept"] else f"{row['ref']} (gone)"
        cells = (row["kind"], row["repo"], row["what"], row["turn"], ref)
        grid.add_row(when, *(Text(catalog.printable(os.fsencode(str(c)))) for c in cells))
    Console().print(grid)
