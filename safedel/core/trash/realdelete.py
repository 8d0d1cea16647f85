"""Deleting an exempt target for real, the way GNU rm's fts does: by descriptor, never
following a symlink, and never into another mount.

Exempt directories are often shared (/tmp), so another user may swap a subdirectory
for a symlink while the walk is under way. Every step here works relative to a
directory descriptor already held: entries are removed with unlinkat/rmdirat, a
subdirectory is opened with O_NOFOLLOW relative to its parent's descriptor, and its
device and inode are checked against what lstat saw, so a swapped entry is unlinked
(it is the link, not what it points at) or skipped, never followed.

A mount met on the way (a project bind-mounted into a temp directory) is no part of
what was judged exempt: the walk leaves it in place and says so (EXDEV, a marker).
"""

import errno
import os
import stat

from .. import mounts
from ..outcome import DeletionError, RemovalError  # noqa: F401 (re-exported)

_DIR_OPEN = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC
_SWAPPED = (errno.ELOOP, errno.ENOTDIR)


def remove(target):
    """Delete target (a resolve.Target) for real. `link/` empties the directory the link
    leads to, then fails with ENOTDIR as rmdir("link/") does. Raises RemovalError."""
    shown = os.fsencode(target.given).rstrip(b"/") or b"/"
    parent_fd = _open_verified(target.parent, target.parent_id, shown)
    try:
        if target.via_link:
            _empty_link_target(parent_fd, target, shown)
            raise RemovalError(errno.ENOTDIR, os.fsencode(target.given))
        try:
            st = os.lstat(target.name, dir_fd=parent_fd)
        except OSError as exc:
            raise RemovalError(exc.errno, shown) from None
        if target.st is not None and not os.path.samestat(st, target.st):
            raise RemovalError(errno.EAGAIN, shown)  # replaced since it was judged
        if not stat.S_ISDIR(st.st_mode):
            _call(os.unlink, target.name, parent_fd, shown)
            return
        fd = _open_dir(target.name, parent_fd, st, shown)
        try:
            errors = _empty(fd, shown, _mount(fd, st))
        finally:
            os.close(fd)
        if errors:
            raise errors[0]
        _call(os.rmdir, target.name, parent_fd, shown)
    finally:
        os.close(parent_fd)


def _open_verified(path, ident, shown):
    try:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError as exc:
        raise RemovalError(exc.errno, shown) from None
    st = os.fstat(fd)
    if ident is not None and (st.st_dev, st.st_ino) != ident:
        # A directory on the way was swapped after the target was judged.
        os.close(fd)
        raise RemovalError(errno.EAGAIN, shown)
    return fd


def _empty_link_target(parent_fd, target, shown):
    try:
        fd = os.open(target.name, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=parent_fd)
    except OSError as exc:
        raise RemovalError(exc.errno, shown) from None
    try:
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) != target.dir_id:
            # The link was pointed elsewhere after it was judged.
            raise RemovalError(errno.EAGAIN, shown)
        errors = _empty(fd, shown, _mount(fd, st))
    finally:
        os.close(fd)
    if errors:
        raise errors[0]


def _mount(fd, st):
    """(device, mount id) of the directory open as fd: what every directory the walk
    enters must share."""
    try:
        return st.st_dev, mounts.mount_id(fd) if mounts.LINUX else None
    except (OSError, ValueError):
        return st.st_dev, None  # no fdinfo to read: the device alone decides


def _call(function, name, dir_fd, shown):
    try:
        function(name, dir_fd=dir_fd)
    except OSError as exc:
        raise RemovalError(exc.errno, shown) from None


def _open_dir(name, parent_fd, st, shown):
    """A descriptor on the directory name in parent_fd, checked to be the one lstat saw."""
    try:
        fd = os.open(name, _DIR_OPEN, dir_fd=parent_fd)
    except OSError as exc:
        raise RemovalError(exc.errno, shown) from None
    if not os.path.samestat(os.fstat(fd), st):
        os.close(fd)
        raise RemovalError(errno.EAGAIN, shown)
    return fd


def _empty(fd, shown, top):
    """Remove everything inside the directory open as fd; a list of RemovalErrors."""
    errors = []
    try:
        with os.scandir(fd) as listing:
            entries = [(entry.name, entry.is_dir(follow_symlinks=False)) for entry in listing]
    except OSError as exc:
        return [RemovalError(exc.errno, shown)]
    for name, is_dir in entries:
        child = shown + b"/" + os.fsencode(name)
        try:
            if is_dir:
                _remove_subdir(fd, name, child, top)
            else:
                _call(os.unlink, name, fd, child)
        except RemovalError as exc:
            errors.append(exc)
    return errors


def _remove_subdir(parent_fd, name, shown, top):
    try:
        st = os.lstat(name, dir_fd=parent_fd)
    except FileNotFoundError:
        return  # someone else removed it
    except OSError as exc:
        raise RemovalError(exc.errno, shown) from None
    if not stat.S_ISDIR(st.st_mode):
        _call(os.unlink, name, parent_fd, shown)  # swapped for a link or file: unlink that
        return
    try:
        fd = _open_dir(name, parent_fd, st, shown)
    except RemovalError as exc:
        if exc.errno not in _SWAPPED:
            raise
        _call(os.unlink, name, parent_fd, shown)  # swapped between lstat and open
        return
    try:
        if _mount(fd, st) != top:
            raise _left_mount(shown)
        errors = _empty(fd, shown, top)
    finally:
        os.close(fd)
    if errors:
        raise errors[0]
    _call(os.rmdir, name, parent_fd, shown)


def _left_mount(shown):
    from ..report.markers import FAIL_CLOSED, emit  # only when a mount is met

    reason = "another mount: not part of the exempt directory, left in place"
    emit(FAIL_CLOSED, {"path": os.fsdecode(shown), "reason": reason})
    return RemovalError(errno.EXDEV, shown)
