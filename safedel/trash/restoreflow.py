"""What every restore shares, without typer or rich: the outcome, one item put back,
and the report events. `safedel restore --last` runs on this alone (quick.py)."""

import os
import sys

from . import catalog, restore


def echo(text, err=False):
    stream = sys.stderr if err else sys.stdout
    stream.write(text + "\n")
    stream.flush()


def warn(message):
    # Every warning may carry a file name: escaped here, once, for the whole line.
    echo(f"safedel: warning: {catalog.printable(message)}", err=True)


def append_events(settings, events, warn=warn):
    """Add events to the report; a report that cannot be written is a warning only
    (what the command did is done)."""
    from ..core.report import write as core_report

    try:
        core_report.append(settings.report, events)
    except OSError as exc:
        warn(f"cannot write the report {settings.report}: {exc.strerror or exc}")


class Outcome:
    """What a restore did: items back (item, where), items not (item or path, why), and
    git snapshots re-applied or not."""

    def __init__(self):
        self.restored, self.failed, self.snapshots = [], [], []

    def as_json(self):
        return {
            "restored": [
                {"path": os.fsdecode(target), "from": os.fsdecode(item.file_path)}
                for item, target in self.restored
            ],
            "notRestored": [{"path": os.fsdecode(path), "why": why} for path, why in self.failed],
            "snapshots": [{"ok": ok, "message": message} for ok, message in self.snapshots],
        }

    def summary(self):
        """One line: what came back, what did not and why."""
        came = len(self.restored) + sum(ok for ok, _ in self.snapshots)
        missed = len(self.failed) + sum(not ok for ok, _ in self.snapshots)
        line = f"restored {came} of {came + missed}"
        if self.failed:
            reasons = "; ".join(
                f"{catalog.printable(os.fsencode(path))}: {why}" for path, why in self.failed[:10]
            )
            more = f"; and {len(self.failed) - 10} more" if len(self.failed) > 10 else ""
            line += f"; not restored: {reasons}{more}"
        return line

    @property
    def ok(self):
        return not self.failed and all(ok for ok, _ in self.snapshots)


def restore_one(settings, item, conflict, outcome, say):
    """Put one item back, into outcome; returns its report event, or None."""
    try:
        if isinstance(item, catalog.Item) and os.path.lexists(item.info_path):
            item = catalog.refresh(item)  # the info file, not a cached line
        target = restore.restore(item, conflict, settings.trash_dir)
    except restore.RestoreError as exc:
        outcome.failed.append((item.original, exc.reason))
        say(f"safedel restore: {catalog.printable(os.fsencode(exc.reason))}", True)
        return None
    outcome.restored.append((item, target))
    say(f"restored {catalog.printable(target)}")
    return restore.restore_event(settings, item, target)
