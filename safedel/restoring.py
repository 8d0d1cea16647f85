"""Put trashed items back where they came from, by rename only.

A restore never copies: the trash entry is the only copy, so a copy that failed half way
followed by a delete could lose it. If the original place is on another device, or
anything else stops the rename, the item stays in the trash and the caller is told why.
"""

import errno
import os
import stat

from . import recyclebin, restorewalk
from .core import lendmode, report, trash
from .core.printable import printable
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
    shown = printable(target)
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
    """Move item back and drop its info file. Return the path it was restored to.

    The destination's folders are reached by restorewalk (never through someone else's
    symlink, missing ones made relative to their parent's descriptor), and the item is
    renamed relative to that descriptor, never replacing what is there."""
    if getattr(item, "invalid", None):
        shown = printable(item.info_path)
        raise RestoreError(errno.EINVAL, f"{shown} is not restored: {item.invalid}", shown)
    if isinstance(item, recyclebin.RecycledItem):
        return recyclebin.restore(item, conflict, trash_dir)
    if item.kind == "missing":
        shown = printable(item.file_path)
        raise RestoreError(errno.ENOENT, f"{shown} is gone from the trash", shown)
    target = destination(item, conflict, trash_dir)
    shown = printable(target)
    try:
        parent_fd = restorewalk.open_directory(os.path.dirname(target))
        try:
            # A directory its owner may not write went into the trash on a loan of u+wx;
            # it comes back the same way, with its own mode given back where it lands.
            loan, moved = lendmode.lend_for_move(item.file_path), False
            try:
                # something may have appeared there meanwhile: never replace it
                rename_noreplace(item.file_path, os.path.basename(target), parent_fd)
                moved = True
            finally:
                if loan is not None:
                    loan.give_back(target if moved else None)
        finally:
            os.close(parent_fd)
    except restorewalk.UnsafePath as exc:
        raise RestoreError(exc.errno, exc.strerror, shown) from None
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
