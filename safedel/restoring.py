"""Put trashed items back where they came from, by rename only.

A restore never copies: the trash entry is the only copy, so a copy that failed half way
followed by a delete could lose it. If the original place is on another device, or
anything else stops the rename, the item stays in the trash and the caller is told why.
"""

import errno
import os
import stat

from . import recyclebin
from .core import report, trash
from .noreplace import rename_noreplace

REFUSE, RENAME, OVERWRITE = "refuse", "rename", "overwrite"


class RestoreError(OSError):
    """The item stayed in the trash; str(reason) says why."""

    def __init__(self, err, reason, path):
        super().__init__(err, reason, path)
        self.reason = reason


def free_name(original):
    """The first of original.restored-1, original.restored-2, ... that does not exist."""
    counter = 1
    while True:
        candidate = original + b".restored-" + str(counter).encode("ascii")
        if not os.path.lexists(candidate):
            return candidate
        counter += 1


def destination(item, conflict, trash_dir=None):
    """Where item goes back to, after making room as conflict says."""
    target = item.original
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        return target
    shown = os.fsdecode(target)
    if conflict == RENAME:
        return free_name(target)
    if conflict != OVERWRITE:
        reason = f"{shown} already exists (use --rename or --overwrite)"
        raise RestoreError(errno.EEXIST, reason, shown)
    if stat.S_ISDIR(st.st_mode):
        reason = f"{shown} is a directory, and --overwrite never replaces a directory"
        raise RestoreError(errno.EISDIR, reason, shown)
    # What is overwritten goes to the trash too, so --overwrite loses nothing either.
    try:
        trash.trash(target, trash_dir)
    except OSError as exc:
        reason = f"cannot move the existing {shown} out of the way: {exc.strerror or exc}"
        raise RestoreError(exc.errno or errno.EIO, reason, shown) from None
    return target


def restore(item, conflict=REFUSE, trash_dir=None):
    """Move item back and drop its info file. Return the path it was restored to."""
    if isinstance(item, recyclebin.RecycledItem):
        return recyclebin.restore(item, conflict, trash_dir)
    if item.kind == "missing":
        shown = os.fsdecode(item.file_path)
        raise RestoreError(errno.ENOENT, f"{shown} is gone from the trash", shown)
    target = destination(item, conflict, trash_dir)
    shown = os.fsdecode(target)
    try:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        rename_noreplace(item.file_path, target)  # something may have appeared there
    except OSError as exc:
        if exc.errno == errno.EXDEV:
            reason = f"{shown} is on another device than the trash, and safedel never copies"
        else:
            reason = f"cannot move it back to {shown}: {exc.strerror or exc}"
        raise RestoreError(exc.errno or errno.EIO, reason, shown) from None
    try:
        os.unlink(item.info_path)
    except OSError:
        pass  # The item is back; a stale info file only shows up as "missing" in `list`.
    return target


def restore_event(settings, item, target):
    fields = {
        "path": os.fsdecode(target),
        "trashPath": os.fsdecode(item.file_path),
        "infoPath": os.fsdecode(item.info_path),
        "kind": item.kind,
    }
    if target != item.original:
        fields["originalPath"] = os.fsdecode(item.original)
    return report.event("restore", settings, "cli", **fields)
