"""find's entry judged by the descriptor of its directory, never by a path walked again.

findsync answers find's unlinkat(dirfd, name) with the directory find's dirfd holds,
reopened through /proc/<pid>/fd (an O_PATH descriptor). Each check GNU's call would
meet is made here relative to that descriptor, as rmcheck makes it by path: another
user may rename that directory and leave a symlink to someone else's in its place at
any moment, and a path would then lead there.
"""

import errno
import os
import stat


def real_path(fd, st):
    """The real path (bytes) of the directory open as fd, as the kernel says it now, or
    None when that path does not lead back to the same directory (renamed meanwhile,
    removed, outside our root): Path= must name where the entry really was."""
    if not stat.S_ISDIR(st.st_mode):
        return None
    try:
        real = os.readlink(b"/proc/self/fd/%d" % fd)
        again = os.lstat(real)
    except OSError:
        return None
    if not real.startswith(b"/") or (again.st_dev, again.st_ino) != (st.st_dev, st.st_ino):
        return None
    return real


_READ_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK


def empty(parent_fd, name, st, user):
    """Whether rmdir of name in parent_fd would find it empty (see rmtrash._is_empty)."""
    from .. import removable

    try:
        fd = os.open(name, _READ_DIR, dir_fd=parent_fd)
    except OSError:
        return removable.empty_despite_mode(name, st, user, parent_fd)
    try:
        with os.scandir(fd) as listing:
            return next(listing, None) is None
    except OSError:
        return False
    finally:
        os.close(fd)


def removal_errno(parent_fd, parent_st, st, user):
    """rmcheck.removal_errno, the parent known by descriptor (ACLs asked of it)."""
    from .. import removable

    err = user.may_delete_from(parent_st, st)
    if err == errno.EACCES and removable._granted(parent_fd, removable.W | removable.X):
        err = user.may_delete_from(parent_st, st, granted=True)
    if err == 0 and stat.S_ISDIR(st.st_mode) and parent_st.st_dev != st.st_dev:
        err = errno.EBUSY
    return err


def pinned_entry(parent_fd, name, st):
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
        return False
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
    return _pinned_at(name, flags, parent_fd)


def pinned_dir(parent_fd):
    """chattr +i/+a on the directory itself: reopened through its magic link (the same
    directory, not a walk of its path), since an O_PATH descriptor takes no ioctl."""
    return _pinned_at(b"/proc/self/fd/%d" % parent_fd, _READ_DIR & ~os.O_NOFOLLOW)


def _pinned_at(name, flags, dir_fd=None):
    """chattr +i/+a on what name opens to (False when it cannot be opened)."""
    from .. import removable

    try:
        fd = os.open(name, flags, dir_fd=dir_fd)
    except OSError:
        return False
    try:
        return removable.pinned_fd(fd)
    finally:
        os.close(fd)


def still_there(parent_fd, name, st):
    try:
        now = os.lstat(name, dir_fd=parent_fd)
    except OSError:
        return False
    return (now.st_dev, now.st_ino) == (st.st_dev, st.st_ino)
