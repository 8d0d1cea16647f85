"""What is in the trash: every entry of every trash dir we can see, whoever trashed it.

An entry is an info file in `<root>/info/` and its item in `<root>/files/`, so items put
there by trash-cli, gio or a file manager are read exactly like our own. Paths stay
bytes until they are shown, so a non-UTF-8 name is never mangled.
"""

import os
import stat
import time

from ..core.printable import printable  # noqa: F401 - the commands' import
from ..core.report import write
from ..core.trash import dirs, info, trust, visible
from . import entrycheck, recyclebin
from .catalogcache import kind_of, paired


class Item:
    __slots__ = (
        "root",
        "name",
        "original",
        "deleted",
        "info_path",
        "file_path",
        "kind",
        "order",
        "invalid",
        "size",
    )

    def __init__(self, root, name, original, deleted, order, invalid=None, kind=None, size=None):
        self.root = root
        self.name = name
        self.original = original  # absolute bytes path the item came from
        self.invalid = invalid  # why its Path= can't be trusted: shown, never restored
        self.deleted = deleted  # the DeletionDate= text (local time)
        # Plain concatenation: a listing builds 100,000 of these (root has no trailing /).
        self.info_path = root + b"/info/" + name + info.INFO_SUFFIX
        self.file_path = root + b"/files/" + name
        self.kind = kind_of(self.file_path) if kind is None else kind
        self.order = order  # sorts items by when they were trashed
        self.size = size  # bytes, when the catalog cache knows it

    def as_json(self):
        return {
            "path": os.fsdecode(self.original),
            "trashPath": os.fsdecode(self.file_path),
            "infoPath": os.fsdecode(self.info_path),
            "trashDir": os.fsdecode(self.root),
            "deletionDate": self.deleted,
            "kind": self.kind,
            "invalid": self.invalid,
        }


def deletion_epoch(date):
    """Seconds since the epoch for a DeletionDate= value, or 0 if it is not one."""
    try:
        return time.mktime(time.strptime(date, "%Y-%m-%dT%H:%M:%S"))
    except (ValueError, OverflowError):
        return 0.0


_INFO_OPEN = os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_CLOEXEC


def read_item(info_path, warn=None, dir_fd=None):
    """The Item for one info file, or None (with a warning) if it cannot be read.

    Opened without following a symlink and without blocking, and read only if it is a
    regular file: a FIFO planted as `x.trashinfo` must not hang `list` or `restore`.
    dir_fd: info/ held open (opentrash.py); the file is then opened by its name in it.
    An entry whose name is not one plain component is shown as damaged, never sized,
    restored or purged."""
    root = os.path.dirname(os.path.dirname(info_path))
    name = os.path.basename(info_path)[: -len(info.INFO_SUFFIX)]
    try:
        where = info_path if dir_fd is None else os.path.basename(info_path)
        fd = os.open(where, _INFO_OPEN, dir_fd=dir_fd)
        try:
            st = os.fstat(fd)
            if not stat.S_ISREG(st.st_mode):
                raise ValueError("not a regular file")
            content = os.read(fd, 65536)
        finally:
            os.close(fd)
        path, date = info.parse(content)
    except (OSError, ValueError) as exc:
        if warn:
            reason = getattr(exc, "strerror", None) or exc
            # warn (commands/list.py) escapes the whole line, name and reason alike.
            warn(f"skipped {os.fsdecode(info_path)}: {reason}")
        return None
    topdir = dirs.topdir_of(root)
    invalid = entrycheck.invalid_path(path, topdir)
    if not os.path.isabs(path):
        # A relative Path= starts from the top of the trash dir's device.
        path = os.path.join(topdir or b"/", path)
    path = os.path.normpath(path)
    damaged = info.why_not_plain(name)
    invalid = damaged or invalid or entrycheck.landing_text(path, root)
    # The info file's own mtime breaks ties between items trashed in the same second.
    order = (deletion_epoch(date), st.st_mtime_ns)
    return Item(root, name, path, date, order, invalid, "damaged" if damaged else None)


def rebuilt_if_damaged(function):
    """Run function; if a catalog cache turns out to be damaged half way, remove it and
    run function again (which rebuilds it from the info files)."""
    from functools import wraps

    @wraps(function)
    def careful(*args, **kwargs):
        from . import catalogcache

        try:
            return function(*args, **kwargs)
        except catalogcache.Damaged as exc:
            try:
                os.unlink(os.path.join(exc.root, catalogcache.NAME))
            except OSError:
                pass
            return function(*args, **kwargs)

    return careful


@rebuilt_if_damaged
def items(roots=None, warn=None):
    """Every entry in the given trash roots (default: all visible ones), oldest first."""
    if roots is None and recyclebin.in_use():
        return recyclebin.items(warn)
    import gc

    found = []
    gc.disable()  # many objects, no cycles: the collector would only slow the build
    try:
        for table in tables(roots, warn):
            root = table.root
            for name, order, original, (deleted, invalid, kind, size) in paired(
                table.names, table.orders, table.originals, table.rest
            ):
                found.append(Item(root, name, original, deleted, order, invalid, kind, size))
    finally:
        gc.enable()
    found.sort(key=lambda item: item.order)  # stable: ties stay in root, then name order
    return found


def tables(roots=None, warn=None):
    """Each trash root's catalogtable.Table (default: every visible root)."""
    from . import catalogtable

    found = []
    if roots is None and warn:
        say_skipped(warn)
    for root in visible.visible_trash_dirs() if roots is None else roots:
        root = root.rstrip(b"/") or b"/"
        found.append(catalogtable.table(root, read_item, render_row, warn))
    return found


def say_skipped(warn):
    """Warn of each trash dir that is there but not read, and why (a symlinked files/
    or info/, another owner, writable by others): never silently "empty". The count."""
    skipped = visible.foreign_trash_dirs()
    for root, why in skipped:
        if (root, why) not in _warned:  # once a process, however often items() is read
            _warned.add((root, why))
            warn(f"skipped the trash dir {os.fsdecode(root)}: {why}; nothing in it is read")
    return len(skipped)


_warned = set()


def render_row(root, name, original, deleted, invalid, kind, size):
    """One entry as `safedel list --json` prints it (json.dumps of a list of these
    dicts is "[" + ", ".join(rows) + "]")."""
    import json

    item = Item(root, name, original, deleted, (0, 0), invalid, kind, size)
    return json.dumps(dict(item.as_json(), size=size)).encode("ascii")


def refresh(item, warn=None):
    """item as its info file says now: what restore acts on, never a cached line."""
    fresh = read_item(item.info_path, warn)
    return item if fresh is None else fresh


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
    wanted = {k: v for k, v in (("session", session), ("turn", turn)) if v is not None}
    # A turn or session is looked up by its exact bytes, not by parsing the history.
    records = (
        write.read_matching(report_path, warn, **wanted)
        if wanted
        else write.read(report_path, warn)
    )
    for record in records:
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
    """The Items that the given trash events put in the trash and that are still there,
    in trash dirs that are still ours: a root swapped since then is not read."""
    found, foreign = [], {}
    for record in events:
        info_path = os.fsencode(record["infoPath"])
        if not entrycheck.plain_info_path(info_path):
            continue  # not a path any trash ever wrote: `..`, or not in an info/ dir
        root = os.path.dirname(os.path.dirname(info_path))
        if root not in foreign:
            foreign[root] = trust.why_not_listed(root)
            if foreign[root] and warn:
                warn(f"skipped {os.fsdecode(root)}: {foreign[root]}")
        if not foreign[root] and os.path.lexists(info_path):
            item = read_item(info_path, warn)
            if item is not None and item.kind != "missing" and same_item(item, record):
                found.append(item)
    return found


def same_item(item, event):
    """True when item is what event trashed, not a later item that took the same name
    in the trash after the first was restored or purged: same original path, and a
    DeletionDate= no later than the event: the info file is written before the event,
    and the date is cut to whole seconds, so one second covers clock rounding."""
    if item.original != os.path.normpath(os.fsencode(event.get("path", ""))):
        return False
    stamp = event.get("timestamp")
    if not isinstance(stamp, (int, float)) or not item.order[0]:
        return True  # nothing to compare with: the path alone decides
    return item.order[0] <= stamp / 1000 + 1
