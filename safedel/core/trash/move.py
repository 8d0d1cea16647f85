"""Move items to the trash: the freedesktop trash on Linux, send2trash elsewhere.

The order of operations is what keeps data safe: the info file is created with
O_EXCL (which also reserves the entry name against racing processes), then the item
is renamed into files/. If the rename fails the info file is removed again, so a
failure leaves the item where it was and no orphan behind. The info file stays locked
and read-only until the item is in: a process killed in between leaves one that the
next sweep knows for abandoned (inflight.py). A file that arrives with other hard
links gets an inode of its own there (hardlinks.py).
"""

import errno
import os
import stat
import sys

from .. import resolve
from ..outcome import DeletionError
from ..printable import printable
from ..private import EXCLUSIVE
from . import dirs, hardlinks, inflight, info

_INFO_FLAGS = (
    os.O_WRONLY
    | os.O_CREAT
    | os.O_EXCL
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
)
_NATIVE_TRASH = sys.platform in ("darwin", "win32")


class TrashFailure(DeletionError):
    """The item could not be trashed and was left in place. str(reason) says why."""


class TrashRecord:
    __slots__ = ("path", "trash_path", "info_path", "kind")

    def __init__(self, path, trash_path, info_path, kind):
        self.path = path
        self.trash_path = trash_path
        self.info_path = info_path
        self.kind = kind

    def as_event(self):
        return {
            "path": self.path,
            "trashPath": self.trash_path,
            "infoPath": self.info_path,
            "kind": self.kind,
        }


def kind_of(mode):
    if stat.S_ISLNK(mode):
        return "symlink"
    if stat.S_ISDIR(mode):
        return "dir"
    return "file"


def trash(path, trash_dir=None, home=None):
    """Trash one path (str, bytes, PathLike, or a resolve.Target the deletion pipeline
    has judged) into trash_dir, else its device's trash (home: the home trash a run
    fixed, bytes). Return a TrashRecord or raise OSError."""
    if isinstance(path, resolve.Target) and not path.via_link:
        # Judged a moment ago, but looked at again: an operand given twice, or removed
        # meanwhile, is missing now (ENOENT, as for the real tool), not a failed move.
        resolved, had_slash, path = path, False, path.shown
        resolved.st = _lstat_entry(resolved)
    else:
        target, had_slash = resolve.split_trailing_slash(os.fsencode(path))
        # Path= and the move both use where the kernel puts the item (`a/link/../f` is
        # not `a/f`); `link/` here still means the link itself.
        resolved = resolve.resolve(target)
    st = resolved.st
    if st is None:
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), path)
    if had_slash and not (stat.S_ISDIR(st.st_mode) or stat.S_ISLNK(st.st_mode)):
        raise NotADirectoryError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), path)
    absolute = target = resolved.path
    if absolute == b"/":
        raise TrashFailure(errno.EPERM, "refusing to trash '/'", os.fsdecode(absolute))
    if _NATIVE_TRASH:
        return _native_trash(absolute, kind_of(st.st_mode))
    if stat.S_ISDIR(st.st_mode) and _is_mount_point(absolute, st.st_dev, resolved.parent_fd):
        raise TrashFailure(
            errno.EBUSY,
            f"{printable(absolute)} is a mount point and cannot be moved to a trash",
            os.fsdecode(absolute),
        )
    if hardlinks.unreadable(st):
        reason = "a file with other hard links that cannot be read cannot be copied to the trash"
        raise TrashFailure(errno.EACCES, reason, os.fsdecode(absolute))
    # The held trash descriptors serve one thread at a time (trashdirs.hold).
    with EXCLUSIVE:
        try:
            location = dirs.locate(absolute, st.st_dev, trash_dir, home)
        except dirs.TrashUnavailable as exc:
            raise TrashFailure(
                _not_missing(exc.errno), exc.strerror, os.fsdecode(absolute)
            ) from None
        except OSError as exc:
            reason = f"cannot prepare the trash: {exc.strerror or exc}"
            raise TrashFailure(_not_missing(exc.errno), reason, os.fsdecode(absolute)) from None
        if resolved.parent_fd is not None:
            target = (resolved.name, resolved.parent_fd)
        return _move(target, absolute, st, location)


def _lstat_entry(target):
    if target.parent_fd is not None:
        return os.lstat(target.name, dir_fd=target.parent_fd)
    return os.lstat(target.path)


def _not_missing(code):
    """The errno for a trash that could not be prepared. A trash root that vanished
    meanwhile (swapped away by someone) gives ENOENT or ENOTDIR, which would tell the
    caller the item itself is gone: `rm -f` and `missing_ok=True` would then say
    nothing while the item is still in place. One made meanwhile gives EEXIST, which
    would blame the item as well."""
    return errno.EIO if code in (None, errno.ENOENT, errno.ENOTDIR, errno.EEXIST) else code


def _is_mount_point(absolute, dev, parent_fd=None):
    try:
        if parent_fd is not None:
            return os.fstat(parent_fd).st_dev != dev
        return os.lstat(os.path.dirname(absolute)).st_dev != dev
    except OSError:
        return False


def _move(target, absolute, st, location):
    content = info.render(location.path_field(absolute), info.deletion_date())
    files_fd, info_fd = location.held.files_fd, location.held.info_fd
    for name in info.candidate_names(os.path.basename(absolute)):
        info_name = name + info.INFO_SUFFIX
        info_path = os.path.join(location.root, b"info", info_name)
        entry = os.path.join(location.root, b"files", name)
        try:
            fd = os.open(info_name, _INFO_FLAGS, inflight.IN_FLIGHT, dir_fd=info_fd)
        except FileExistsError:
            continue
        except OSError as exc:
            raise _failure(exc, "cannot create the trash info file", absolute) from None
        try:
            # Locked from before its first byte until the item is in files/ (or it is
            # discarded): a sweep never takes it for an orphan meanwhile (inflight).
            if not inflight.hold(fd, info_name, info_fd):
                continue  # a sweep took the empty file before the lock was ours
            if _exists(name, files_fd):
                _discard(info_name, info_fd)
                continue
            try:
                if os.write(fd, content) != len(content):
                    # Only a full disk cuts a write this small short.
                    raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
                if isinstance(target, tuple):  # (name, parent descriptor): a long path
                    os.rename(target[0], name, src_dir_fd=target[1], dst_dir_fd=files_fd)
                else:
                    os.rename(target, name, dst_dir_fd=files_fd)
            except OSError as exc:
                _discard(info_name, info_fd)
                raise _failure(exc, "cannot move it into the trash", absolute) from None
            try:
                hardlinks.make_own(files_fd, name, target)
            except OSError as exc:  # back in place, under its own name
                _discard(info_name, info_fd)
                what = "cannot copy a file with other hard links to the trash"
                raise _failure(exc, what, absolute) from None
            inflight.done(fd)
        finally:
            os.close(fd)
        return TrashRecord(
            os.fsdecode(absolute),
            os.fsdecode(entry),
            os.fsdecode(info_path),
            kind_of(st.st_mode),
        )
    raise AssertionError("candidate_names is endless")


def _exists(name, dir_fd):
    try:
        os.lstat(name, dir_fd=dir_fd)
    except FileNotFoundError:
        return False
    return True


def _discard(info_name, info_fd):
    try:
        os.unlink(info_name, dir_fd=info_fd)
    except OSError:
        pass


def _failure(exc, what, absolute):
    reason = f"{what}: {exc.strerror or exc}"
    return TrashFailure(exc.errno or errno.EIO, reason, os.fsdecode(absolute))


def _native_trash(absolute, kind):
    try:
        from send2trash import send2trash
    except ImportError:
        raise TrashFailure(
            errno.ENOSYS, "send2trash is not importable here", os.fsdecode(absolute)
        ) from None
    try:
        send2trash(os.fsdecode(absolute))
    except OSError as exc:
        raise _failure(exc, "the system trash refused it", absolute) from None
    return TrashRecord(os.fsdecode(absolute), None, None, kind)


def trash_batch(paths, trash_dir=None):
    """Trash each path, going on past failures. Yield (path, record, error) in order."""
    for path in paths:
        try:
            yield path, trash(path, trash_dir), None
        except OSError as exc:
            yield path, None, exc
