"""The report past the retention: rotated segments that nothing can restore from go.

A segment is dropped only when all of this holds:
- it is a rotated segment, never the current file (a harness may be tailing it);
- its last write (rotation time and mtime, the later) is older than the retention;
- no trash event in it names an item that is still in the trash, and no git snapshot
  in it still has its ref: restoring or undoing those turns needs these lines. An info
  file in a trash dir `list` does not read (not ours right now) counts as still there,
  and so does every item of a trash dir that is absent (a drive not plugged in).

A segment goes whole, by one unlink, and only if it is still the very file that was
read (same inode, size and mtime), so no reader ever meets a torn file and a late
append to it is never dropped unseen.
"""

import os
import stat
import time

from ..core.report import segments
from ..core.trash import visible
from . import catalog

_TRASH = segments.field("operation", "trash")
_SNAPSHOT = segments.field("operation", "snapshot")


class Segment:
    def __init__(self, path, info):
        self.path, self.info = path, info
        self.size = info.st_size

    def unchanged(self):
        try:
            now = os.lstat(self.path)
        except OSError:
            return False
        fields = ("st_dev", "st_ino", "st_size", "st_mtime_ns")
        return all(getattr(now, f) == getattr(self.info, f) for f in fields)


def stale(report_path, max_age, live_items, now=None):
    """The segments of the report at report_path that can go, oldest first.
    live_items() gives what is in the trash; called only if some segment is old."""
    if not report_path:
        return []
    cutoff = (time.time() if now is None else now) - max_age
    old = []
    for rotated, path in segments.segments(report_path, with_time=True):
        try:
            info = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISREG(info.st_mode) and max(rotated / 1e9, info.st_mtime) < cutoff:
            old.append(Segment(path, info))
    if not old:
        return []
    live = {item.info_path: item for item in live_items() if item.kind != "missing"}
    roots = set(visible.visible_trash_dirs())
    return [segment for segment in old if not _needed(segment, live, roots)]


def _needed(segment, live, roots):
    for line in segments.matching_lines(segment.path, [_TRASH]):
        event = _parse(line)
        if event is None or event.get("operation") != "trash":
            continue
        info_path = event.get("infoPath")
        if not isinstance(info_path, str):
            continue
        info_path = os.fsencode(info_path)
        item = live.get(info_path)
        if item is not None and catalog.same_item(item, event):
            return True
        root = os.path.dirname(os.path.dirname(info_path))
        if root not in roots and (os.path.lexists(info_path) or not os.path.lexists(root)):
            # A trash dir we do not read now, or one that is not there at all (its
            # drive unplugged, or mounted over): its items may come back, so may undo.
            return True
    for line in segments.matching_lines(segment.path, [_SNAPSHOT]):
        event = _parse(line)
        if event is not None and event.get("operation") == "snapshot" and _ref_kept(event):
            return True
    return False


def _ref_kept(event):
    from ..core.git import undo as git_undo

    return git_undo.ref_exists(event)


def _parse(line):
    import json

    try:
        record = json.loads(line)
    except ValueError:
        return None  # a garbled line names nothing to keep
    return record if isinstance(record, dict) else None


def drop(segment):
    """Remove one segment if it is still the file that was judged. True if removed."""
    if not segment.unchanged():
        return False
    try:
        os.unlink(segment.path)
    except FileNotFoundError:
        return False
    return True
