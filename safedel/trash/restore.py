"""Put trashed items back where they came from, by rename only.

A restore never copies: the trash entry is the only copy, so a copy that failed half way
followed by a delete could lose it. If the original place is on another device, or
anything else stops the rename, the item stays in the trash and the caller is told why.
"""

import errno
import os
import stat

from ..core import lendmode
from ..core.printable import printable
from ..core.report import write
from ..core.trash import move
from . import catalog, opentrash, recyclebin, restorelanding, restorewalk
from .noreplace import rename_noreplace

REFUSE, RENAME, OVERWRITE = "refuse", "rename", "overwrite"


class RestoreError(OSError):
    """The item stayed in the trash; str(reason) says why."""

    def __init__(self, err, reason, path):
        super().__init__(err, reason, path)
        self.reason = reason


def free_name(original, parent_fd=None):
    """The first of original.restored-1, original.restored-2, ... that does not exist
    (looked up by its name in parent_fd, original's folder, when that is given)."""
    counter = 1
    while True:
        candidate = original + b".restored-" + str(counter).encode("ascii")
        if not _exists(candidate, parent_fd):
            return candidate
        counter += 1


def _exists(path, parent_fd):
    if parent_fd is None:
        return os.path.lexists(path)
    try:
        os.lstat(os.path.basename(path), dir_fd=parent_fd)
    except FileNotFoundError:
        return False
    return True


def destination(item, conflict, trash_dir=None, parent_fd=None):
    """Where item goes back to, after making room as conflict says. parent_fd: the
    destination's folder, open; names are then looked up in it, never by a path
    (which, past PATH_MAX, no call takes)."""
    target = item.original
    try:
        st = os.lstat(target if parent_fd is None else os.path.basename(target), dir_fd=parent_fd)
    except FileNotFoundError:
        return target
    shown = printable(target)
    if conflict == RENAME:
        return free_name(target, parent_fd)
    if conflict != OVERWRITE:
        reason = f"{shown} already exists (use --rename or --overwrite)"
        raise RestoreError(errno.EEXIST, reason, shown)
    if stat.S_ISDIR(st.st_mode):
        reason = f"{shown} is a directory, and --overwrite never replaces a directory"
        raise RestoreError(errno.EISDIR, reason, shown)
    # What is overwritten goes to the trash too, so --overwrite loses nothing either.
    try:
        move.trash(_in_folder(target, st, parent_fd), trash_dir)
    except OSError as exc:
        reason = f"cannot move the existing {shown} out of the way: {exc.strerror or exc}"
        raise RestoreError(exc.errno or errno.EIO, reason, shown) from None
    return target


def _in_folder(target, st, parent_fd):
    """What the trash is given for the entry at target: its path, or past PATH_MAX the
    entry in the folder open as parent_fd, as rm's deep walk hands one over."""
    if parent_fd is None or not restorewalk.past_path_max(target):
        return target
    from ..core import resolve

    parent, name = os.path.split(target)
    folder = os.fstat(parent_fd)
    entry = resolve.Target(target, parent, name, st, False, (folder.st_dev, folder.st_ino))
    entry.parent_fd = parent_fd
    return entry


class Orphan(catalog.Item):
    """A payload in files/ that has no info file (`restore --orphan NAME --to PATH`)."""

    __slots__ = ()


def restore(item, conflict=REFUSE, trash_dir=None):
    """Move item back and drop its info file. Return the path it was restored to.

    The trash dir is held open (opentrash.py): the info file is read again through
    info/'s descriptor and must still say what the item chosen said, and the entry is
    moved out of files/ by its descriptor, so a files/ or root swapped for a symlink
    since the listing leads nowhere. The destination's folder is reached by
    restorewalk (never through someone else's symlink, never into a trash dir or
    /proc: restorelanding.py; missing folders made relative to their parent's
    descriptor; past PATH_MAX neither a symlink nor a missing folder), and the item is
    renamed relative to that descriptor, never replacing what is there."""
    if getattr(item, "invalid", None):
        shown = printable(item.info_path)
        raise RestoreError(errno.EINVAL, f"{shown} is not restored: {item.invalid}", shown)
    if isinstance(item, recyclebin.RecycledItem):
        return recyclebin.restore(item, conflict, trash_dir)
    damaged = opentrash.why_not_actionable(item)
    if damaged:
        shown = printable(item.info_path)
        raise RestoreError(errno.EINVAL, f"{damaged}; not restored", shown)
    try:
        trash = opentrash.OpenTrash(item.root)
    except OSError as exc:
        shown = printable(item.file_path)
        reason = f"{shown} is not restored: {exc.strerror or exc}"
        raise RestoreError(exc.errno or errno.EIO, reason, shown) from None
    with trash:
        try:
            fresh = _as_it_is_now(trash, item)
        except RestoreError:
            raise
        except OSError as exc:  # one entry that cannot be looked at stops no other
            shown = printable(item.file_path)
            reason = f"{shown} is not restored: {exc.strerror or exc}"
            raise RestoreError(exc.errno or errno.EIO, reason, shown) from None
        return _put_back(trash, fresh, conflict, trash_dir)


def _as_it_is_now(trash, item):
    """item as its trash dir, held open, says it is now; RestoreError if that is not
    what was chosen, or nothing there can be restored."""
    if isinstance(item, Orphan):
        if trash.has_info(item.name):
            shown = printable(item.file_path)
            reason = f"{shown} has an info file: restore it by its original path"
            raise RestoreError(errno.EEXIST, reason, shown)
        fresh = item
    else:
        fresh = trash.read(item.name)
        shown = printable(item.info_path)
        if fresh is None:
            raise RestoreError(errno.ENOENT, f"{shown} is gone or cannot be read", shown)
        if not opentrash.same_entry(fresh, item):
            reason = f"{shown} changed since it was listed: not restored (list again)"
            raise RestoreError(errno.EAGAIN, reason, shown)
        if fresh.invalid:
            raise RestoreError(errno.EINVAL, f"{shown} is not restored: {fresh.invalid}", shown)
    if trash.payload(item.name) is None:
        shown = printable(item.file_path)
        raise RestoreError(errno.ENOENT, f"{shown} is gone from the trash", shown)
    return fresh


def _put_back(trash, item, conflict, trash_dir):
    shown = printable(item.original)
    landing = restorelanding.Landing.for_root(item.root)
    try:
        folder = os.path.dirname(item.original)
        if restorewalk.past_path_max(item.original):
            parent_fd = restorewalk.open_exactly(folder, landing)
        else:
            parent_fd = restorewalk.open_directory(folder, landing=landing)
    except OSError as exc:
        raise _failure(exc, shown) from None
    try:
        target = destination(item, conflict, trash_dir, parent_fd)
        shown = printable(target)
        # A directory its owner may not write went into the trash on a loan of u+wx;
        # it comes back the same way, with its own mode given back where it lands.
        loan, moved = lendmode.lend_for_move(item.name, trash.files_fd), False
        try:
            # something may have appeared there meanwhile: never replace it
            rename_noreplace(item.name, os.path.basename(target), parent_fd, trash.files_fd)
            moved = True
        finally:
            if loan is not None:
                loan.give_back(target if moved else None)
    except RestoreError:
        raise
    except OSError as exc:
        raise _failure(exc, shown) from None
    finally:
        os.close(parent_fd)
    # The item is back; an info file that cannot go only shows as "missing" in `list`.
    try:
        trash.drop_info(item.name)
    except OSError:
        pass
    return target


def _failure(exc, shown):
    """The RestoreError for an OSError met on the way back to shown."""
    if isinstance(exc, (restorewalk.UnsafePath, restorelanding.Refused)):
        return RestoreError(exc.errno, exc.strerror, shown)
    if exc.errno == errno.EXDEV:
        reason = f"{shown} is on another device than the trash, and safedel never copies"
    else:
        reason = f"cannot move it back to {shown}: {exc.strerror or exc}"
    return RestoreError(exc.errno or errno.EIO, reason, shown)


def restore_event(settings, item, target):
    fields = {
        "path": os.fsdecode(target),
        "trashPath": os.fsdecode(item.file_path),
        "infoPath": os.fsdecode(item.info_path),
        "kind": item.kind,
    }
    if target != item.original:
        fields["originalPath"] = os.fsdecode(item.original)
    return write.event("restore", settings, "cli", **fields)
