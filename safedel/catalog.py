"""What is in the trash: every entry of every trash dir we can see, whoever trashed it.

An entry is an info file in `<root>/info/` and its item in `<root>/files/`, so items put
there by trash-cli, gio or a file manager are read exactly like our own. Paths stay
bytes until they are shown, so a non-UTF-8 name is never mangled.
"""

import os
import stat
import time

from . import recyclebin
from .core import report, trashdirs, trashinfo
from .core.printable import printable  # noqa: F401 - the commands' import


class Item:
    __slots__ = ("root", "name", "original", "deleted", "info_path", "file_path", "kind", "order")

    def __init__(self, root, name, original, deleted, order):
        self.root = root
        self.name = name
        self.original = original  # absolute bytes path the item came from
        self.deleted = deleted  # the DeletionDate= text (local time)
        self.info_path = os.path.join(root, b"info", name + trashinfo.INFO_SUFFIX)
        self.file_path = os.path.join(root, b"files", name)
        self.kind = _kind(self.file_path)
        self.order = order  # sorts items by when they were trashed

    def as_json(self):
        return {
            "path": os.fsdecode(self.original),
            "trashPath": os.fsdecode(self.file_path),
            "infoPath": os.fsdecode(self.info_path),
            "trashDir": os.fsdecode(self.root),
            "deletionDate": self.deleted,
            "kind": self.kind,
        }


def _kind(file_path):
    try:
        mode = os.lstat(file_path).st_mode
    except OSError:
        return "missing"
    if stat.S_ISLNK(mode):
        return "symlink"
    return "dir" if stat.S_ISDIR(mode) else "file"


def deletion_epoch(date):
    """Seconds since the epoch for a DeletionDate= value, or 0 if it is not one."""
    try:
        return time.mktime(time.strptime(date, "%Y-%m-%dT%H:%M:%S"))
    except (ValueError, OverflowError):
        return 0.0


def read_item(info_path, warn=None):
    """The Item for one info file, or None (with a warning) if it cannot be read."""
    root = os.path.dirname(os.path.dirname(info_path))
    name = os.path.basename(info_path)[: -len(trashinfo.INFO_SUFFIX)]
    try:
        with open(info_path, "rb") as handle:
            content = handle.read(65536)
            info_mtime = os.fstat(handle.fileno()).st_mtime_ns
        path, date = trashinfo.parse(content)
    except (OSError, ValueError) as exc:
        if warn:
            warn(f"skipped {os.fsdecode(info_path)}: {getattr(exc, 'strerror', None) or exc}")
        return None
    if not os.path.isabs(path):
        # A relative Path= starts from the top of the trash dir's device.
        path = os.path.join(trashdirs.topdir_of(root) or b"/", path)
    # The info file's own mtime breaks ties between items trashed in the same second.
    return Item(root, name, os.path.normpath(path), date, (deletion_epoch(date), info_mtime))


def items(roots=None, warn=None):
    """Every entry in the given trash roots (default: all visible ones), oldest first."""
    if roots is None and recyclebin.in_use():
        return recyclebin.items(warn)
    found = []
    for root in trashdirs.visible_trash_dirs() if roots is None else roots:
        info_dir = os.path.join(root, b"info")
        try:
            names = os.listdir(info_dir)
        except OSError:
            continue
        for entry in names:
            if entry.endswith(trashinfo.INFO_SUFFIX):
                item = read_item(os.path.join(info_dir, entry), warn)
                if item is not None:
                    found.append(item)
    found.sort(key=lambda item: item.order)
    return found


def under(item, prefix):
    """True if item was trashed from prefix (bytes, absolute) or from below it."""
    if prefix == b"/":
        return True
    prefix = prefix.rstrip(b"/")
    return item.original == prefix or item.original.startswith(prefix + b"/")


def reported_trashes(report_path, session=None, turn=None, warn=None, operations=("trash",)):
    """The report's trash events (or other operations) for a session and/or turn, in
    the order they happened."""
    events = []
    for record in report.read(report_path, warn):
        operation = record.get("operation")
        if operation not in operations or (operation == "trash" and not record.get("infoPath")):
            continue
        if session is not None and record.get("session") != session:
            continue
        if turn is not None and record.get("turn") != turn:
            continue
        events.append(record)
    return events


def still_trashed(events, warn=None):
    """The Items that the given trash events put in the trash and that are still there."""
    found = []
    for record in events:
        info_path = os.fsencode(record["infoPath"])
        if os.path.lexists(info_path):
            item = read_item(info_path, warn)
            if item is not None and item.kind != "missing":
                found.append(item)
    return found
