"""`safedel purge`'s engine: choose trash items, then delete each for good.

The payload goes first and its info file last, so a purge killed at any moment leaves
at worst an info file without its payload (which `doctor --repair` removes), never a
payload that nothing lists. The payload is removed by descriptor, never following a
link, as every real delete in safedel is.
"""

import errno
import os
import re
import time

from ..core import resolve
from ..core.report import write
from ..core.trash import dirsizes, realdelete
from . import catalog, itemtimes, opentrash, recyclebin

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b?)\s*$", re.I)
_AGE = re.compile(r"(\d+)([smhdw])")
_AGE_SECONDS = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}


def parse_size(text):
    """Bytes for `20G`, `500M`, `1.5GiB`, `4096`; ValueError otherwise."""
    match = _SIZE.match(str(text))
    if not match:
        raise ValueError(f"not a size: {text!r} (use e.g. 500M, 20G)")
    number, unit = float(match.group(1)), match.group(2).lower()
    return int(number * 1024 ** " kmgt".index(unit or " "))


def parse_age(text):
    """Seconds for `30d`, `12h`, `2w`, `1d12h`; ValueError otherwise."""
    text = str(text).strip()
    pieces = _AGE.findall(text)
    if not pieces or "".join(n + u for n, u in pieces) != text:
        raise ValueError(f"not an age: {text!r} (use e.g. 30d, 12h, 2w)")
    return sum(int(n) * _AGE_SECONDS[u] for n, u in pieces)


class Selection:
    def __init__(self, older_than=None, turn=None, session=None, regenerable=False):
        self.older_than, self.turn, self.session = older_than, turn, session
        self.regenerable = regenerable
        self.prefix = None
        self.everything = False


def select(selection, report_path, warn=None, now=None):
    """The items every given selector agrees on, oldest first. A damaged entry (its
    name not one plain component) is never among them: it is named and left."""
    found = []
    for item in catalog.items(warn=warn):
        damaged = opentrash.why_not_actionable(item)
        if damaged and warn:
            warn(f"not purged: {damaged}")
        elif not damaged and item.kind != "missing":
            found.append(item)
    if selection.prefix is not None:
        found = [item for item in found if catalog.under(item, selection.prefix)]
    if selection.older_than is not None:
        cutoff = (time.time() if now is None else now) - selection.older_than
        found = [item for item in found if trashed_at(item) < cutoff]
    if selection.turn or selection.session or selection.regenerable:
        found = _reported(selection, found, report_path, warn)
    if selection.regenerable:
        window = selection.older_than or CHURN_DEFAULT
        found = [item for item in found if churn(item, window)]
    return [item for item in found if _as_listed(item, warn)]


def _as_listed(item, warn):
    """Whether item's info file says now what the listing said (a catalog cache line
    is a hint, and any process of the user may write one): what purge lists, it
    read from the info file itself."""
    if isinstance(item, recyclebin.RecycledItem):
        return True
    fresh = catalog.refresh(item)
    if fresh is not item and opentrash.same_entry(fresh, item):
        return True
    if warn:
        shown = os.fsdecode(item.info_path)
        warn(f"not purged: {shown} cannot be read, or does not say what the listing said")
    return False


# How short a life makes an item churn, for `purge --regenerable` without --older-than.
CHURN_DEFAULT = 86400


def _reported(selection, found, report_path, warn):
    """The items of found whose trash event puts them in the turn, the session, or
    among the uncounted. The report only narrows, and an item has one event: the first
    that names its own info file and original path after it entered the trash by the
    kernel's clock (itemtimes.py), not by its DeletionDate= (text). A line appended
    later, claiming an item safedel trashed for another turn, never moves it."""
    by_info = {item.info_path: item for item in found}
    first = {}
    for event in write.read_matching(report_path, warn, operation="trash"):
        info_path = event.get("infoPath")
        if not isinstance(info_path, str):
            continue
        key = os.fsencode(info_path)
        item = by_info.get(key)
        if item is not None and key not in first and _names(item, event):
            first[key] = event
    return [item for item in found if _chosen(selection, first.get(item.info_path))]


def _chosen(selection, event):
    if event is None:
        return False
    if selection.turn and event.get("turn") != selection.turn:
        return False
    if selection.session and event.get("session") != selection.session:
        return False
    return not selection.regenerable or event.get("counted", True) is False


def _names(item, event):
    stamp = event.get("timestamp")
    if not isinstance(stamp, (int, float)) or not catalog.same_item(item, event):
        return False
    return stamp / 1000 + 1 >= itemtimes.entered_trash(item)


def churn(item, window):
    """Whether the trash itself shows item was short-lived: its inode, the one renamed
    into the trash, had lived no longer than window (seconds) when it went in. A line
    in the report may claim any item was uncounted; a birth time cannot be set back."""
    lived = itemtimes.lived_before_trash(item)
    return lived is not None and lived <= window


def sizes(items):
    """{file_path: bytes} for items, directories through the directorysizes cache."""
    by_root = {}
    found = {}
    for item in items:
        if opentrash.why_not_actionable(item):
            continue  # files/ + a damaged name is files/ itself, or the trash dir
        # A recycle-bin entry, or a catalog-cache line, already says its size.
        if getattr(item, "size", None) is not None:
            found[item.file_path] = item.size
            continue
        by_root.setdefault(item.root, []).append(item.name)
    for root, names in by_root.items():
        for name, size in dirsizes.sizes(root, names).items():
            found[os.path.join(root, b"files", name)] = size
    return found


def oldest_over(items, size_of, max_bytes):
    """The oldest items to remove so that what is left fits in max_bytes."""
    total = sum(size_of.get(item.file_path, 0) for item in items)
    chosen = []
    for item in sorted(items, key=lambda i: (trashed_at(i), i.order)):
        if total <= max_bytes:
            break
        chosen.append(item)
        total -= size_of.get(item.file_path, 0)
    return chosen


def trashed_at(item):
    """When item went into the trash, as far as anyone can show: the later of its
    DeletionDate and the ctime of its payload. An info file is plain text any process
    may rewrite (a DeletionDate of 2001 would make a minute-old item look old enough
    to purge); the rename into the trash sets the payload's ctime, which nothing can
    set back. Later changes to the payload only make an item look younger."""
    try:
        changed = os.lstat(item.file_path).st_ctime
    except FileNotFoundError:
        changed = 0  # no payload: only its info file is left to remove
    except OSError:
        changed = float("inf")  # cannot tell: never old enough
    return max(item.order[0], changed)


def mount_inside(path):
    """A mount point at or below path, or None: purge never deletes into another
    file system (a bind mount carried into the trash leads to someone's live data)."""
    from ..core.mounts import mount_points

    path = os.fsencode(path)
    real = os.path.join(os.path.realpath(os.path.dirname(path)), os.path.basename(path))
    prefix = real.rstrip(b"/") + b"/"
    for point in mount_points():
        if point == real or point.startswith(prefix):
            return point
    return None


def purge_item(item):
    """Delete one item for good: payload, then its info file. Raises OSError.

    Through its trash dir held open (opentrash.py): the info file is read again and
    must still say what the chosen item said (a catalog cache line is a hint), and the
    payload is removed in the files/ directory that was checked, by descriptor (a
    files/ swapped for a symlink since is never followed). An entry whose name is not
    one plain component, or that has no info file, is never purged."""
    if isinstance(item, recyclebin.RecycledItem):
        return _purge_recycled(item)
    damaged = opentrash.why_not_actionable(item)
    if damaged:
        raise OSError(errno.EINVAL, damaged)
    with opentrash.OpenTrash(item.root) as trash:
        fresh = trash.read(item.name)
        if fresh is None:
            raise OSError(errno.ENOENT, "its info file is gone or cannot be read")
        if not opentrash.same_entry(fresh, item):
            raise OSError(errno.EAGAIN, "its info file no longer says what was chosen")
        st = trash.payload(item.name)
        if st is not None:
            point = mount_inside(item.file_path)
            if point is not None:
                shown = os.fsdecode(point)
                raise OSError(errno.EBUSY, f"a file system is mounted inside it, at {shown}")
            files = os.path.join(item.root, b"files")
            target = resolve.Target(item.file_path, files, item.name, st, False, trash.files_id)
            realdelete.remove(target)
        trash.drop_info(item.name)
    dirsizes.forget(item.root, item.name)


def _purge_recycled(item):
    if os.path.lexists(item.file_path):
        realdelete.remove(resolve.resolve(item.file_path))
    try:
        os.unlink(item.info_path)
    except FileNotFoundError:
        pass


def purge_event(settings, item, size):
    fields = {
        "path": os.fsdecode(item.original),
        "trashPath": os.fsdecode(item.file_path),
        "infoPath": os.fsdecode(item.info_path),
        "kind": item.kind,
        "size": size,
    }
    return write.event("purge", settings, "cli", **fields)


def snapshots(selection, report_path, warn=None, now=None):
    """The git snapshot events the time, turn and session selectors name (a path prefix,
    --regenerable and --max-size are about trash items only)."""
    if selection.prefix is not None or selection.regenerable:
        return []
    cutoff = None
    if selection.older_than is not None:
        cutoff = ((time.time() if now is None else now) - selection.older_than) * 1000
    found = []
    for event in write.read(report_path, warn):
        if event.get("operation") != "snapshot":
            continue
        if selection.turn and event.get("turn") != selection.turn:
            continue
        if selection.session and event.get("session") != selection.session:
            continue
        if cutoff is not None and (event.get("timestamp") or 0) >= cutoff:
            continue
        found.append(event)
    return found
