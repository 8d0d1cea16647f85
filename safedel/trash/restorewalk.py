"""Reach the directory an item is restored into without passing through anyone else's
symlink.

A restore puts a private file back into a path that may run through a shared
directory (a 1777 one). If another user swapped a folder on that path for a symlink
to a directory of theirs, a plain rename would move the file in there for them to read
or delete. So the destination is walked from `/` one component at a time, with
O_NOFOLLOW: a symlink is followed (its target walked the same way) only when it is
owned by us or by root; a missing folder is created relative to the descriptor of its
parent. The caller renames relative to the descriptor this returns.
"""

import errno
import os
import stat

from ..core.printable import printable
from . import restorelanding

_OPEN = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_MAX_LINKS = 40  # as the kernel's own limit on symlinks in one lookup
try:
    PATH_MAX = os.pathconf("/", "PC_PATH_MAX")
except (OSError, ValueError, AttributeError):
    PATH_MAX = 4096


class UnsafePath(OSError):
    """The destination cannot be reached safely (a symlink we must not follow, or past
    PATH_MAX a folder missing); strerror says why."""


def past_path_max(path):
    """Whether path (absolute bytes) is too long for any call that takes a path."""
    return len(path) >= PATH_MAX


def open_exactly(path, landing=None):
    """A descriptor on directory path (absolute bytes), every component an existing
    directory reached by descriptor, no symlink followed: for a path past PATH_MAX.
    landing (restorelanding.Landing) checks each folder opened on the way."""
    fd = os.open(b"/", _OPEN)
    walked = b""
    landing = landing or restorelanding.Landing()
    try:
        for part in path.split(b"/"):
            if part in (b"", b"."):
                continue
            walked += b"/" + part
            try:
                next_fd = os.open(part, _OPEN, dir_fd=fd)
            except OSError as exc:
                raise _not_there(exc, fd, part, walked) from None
            os.close(fd)
            fd = next_fd
            landing.check(fd, walked)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _not_there(exc, dir_fd, name, walked):
    """Why the walk of open_exactly stopped at walked, as an UnsafePath (or exc)."""
    shown = printable(walked)
    if exc.errno == errno.ENOENT:
        why = "is missing; past PATH_MAX no folder is made (restore that folder first)"
        return UnsafePath(errno.ENOENT, f"{shown} {why}")
    if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
        return exc
    try:
        link = stat.S_ISLNK(os.lstat(name, dir_fd=dir_fd).st_mode)
    except OSError:
        link = False
    if link:
        why = "is a symlink now; past PATH_MAX none is followed"
        return UnsafePath(errno.ELOOP, f"{shown} {why}")
    return UnsafePath(errno.ENOTDIR, f"{shown} is not a directory")


def open_directory(path, create=True, landing=None):
    """A descriptor on directory path (absolute bytes), reached safely; missing folders
    are created (0777 less the umask, as makedirs would) when create is set. landing
    (restorelanding.Landing) checks each folder opened, before anything is made in it."""
    parts = [p for p in path.split(b"/") if p]
    fd = os.open(b"/", _OPEN)
    links = 0
    landing = landing or restorelanding.Landing()
    try:
        while parts:
            part = parts.pop(0)
            if part == b".":
                continue
            try:
                next_fd = os.open(part, _OPEN, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                try:
                    os.mkdir(part, 0o777, dir_fd=fd)
                except FileExistsError:
                    pass  # made meanwhile; the open below judges it like any other
                next_fd = None
            except OSError as exc:
                if exc.errno not in (errno.ELOOP, errno.ENOTDIR):
                    raise
                links += 1
                if links > _MAX_LINKS:
                    raise
                target = _trusted_link(fd, part, path)
                if target is None:
                    raise
                # Walk the link's own target the same way, from / or from here.
                parts = [p for p in target.split(b"/") if p] + parts
                if target.startswith(b"/"):
                    os.close(fd)
                    fd = os.open(b"/", _OPEN)
                continue
            if next_fd is None:
                parts.insert(0, part)
                continue
            os.close(fd)
            fd = next_fd
            # Through a symlink of ours too: /proc's links lead on to any process's cwd.
            landing.check(fd, path)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _trusted_link(dir_fd, name, whole):
    """The target of symlink name in dir_fd if we may follow it; None for a non-link;
    UnsafePath for someone else's link."""
    st = os.lstat(name, dir_fd=dir_fd)
    if not stat.S_ISLNK(st.st_mode):
        return None
    if st.st_uid not in (0, os.getuid()):
        raise UnsafePath(
            errno.EPERM,
            f"{printable(whole)} runs through {printable(name)}, a symlink owned by uid "
            f"{st.st_uid}: not restoring into another user's directory",
        )
    return os.readlink(name, dir_fd=dir_fd)
