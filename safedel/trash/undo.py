"""Which of a session's turns can still be undone, newest first, and what each holds.

A turn's trash events name the items it put in the trash; each item is still there,
was restored already (a later restore event names its info file), or is gone (purged,
or restored by another tool). Its git snapshots are pending until a restore event names
their ref. A turn with nothing pending is already undone and is skipped.
"""

import os

from ..core.report import write
from . import catalog


class Turn:
    def __init__(self, session, turn):
        self.session, self.turn = session, turn
        self.trashes, self.snapshots, self.last = [], [], 0
        self.items, self.gone, self.pending_snapshots = [], [], []

    @property
    def pending(self):
        return bool(self.items or self.pending_snapshots)


def turns(report_path, session, warn=None):
    """The session's turns that still hold something to undo, newest first."""
    by_turn, restored_info, restored_refs = {}, set(), set()
    # Restores are found by their operation's bytes, the session's events by its own:
    # neither needs the whole history parsed.
    for record in write.read_matching(report_path, warn, operation="restore"):
        restored_info.add(record.get("infoPath"))
        restored_refs.add((record.get("ref"), record.get("commit")))
    for record in write.read_matching(report_path, warn, session=session):
        operation = record.get("operation")
        if operation not in ("trash", "snapshot"):
            continue
        key = str(record.get("turn"))
        turn = by_turn.setdefault(key, Turn(session, key))
        (turn.trashes if operation == "trash" else turn.snapshots).append(record)
        turn.last = max(turn.last, record.get("timestamp") or 0)
    found = []
    for turn in sorted(by_turn.values(), key=lambda t: t.last, reverse=True):
        _settle(turn, restored_info, restored_refs, warn)
        if turn.pending:
            found.append(turn)
    return found


def _settle(turn, restored_info, restored_refs, warn):
    for event in turn.trashes:
        if not event.get("infoPath"):
            continue
        (item,) = catalog.still_trashed([event], warn) or (None,)
        if item is not None and item.original == os.fsencode(event.get("path", "")):
            turn.items.append(item)
        elif event.get("infoPath") not in restored_info:
            turn.gone.append(event)
    turn.items.reverse()  # newest first: a directory before what was trashed from it
    turn.pending_snapshots = [
        s for s in turn.snapshots[::-1] if (s.get("ref"), s.get("commit")) not in restored_refs
    ]
