"""State and report files: 0600 files in 0700 directories, never through a symlink.

Under a state root every directory is opened with O_NOFOLLOW relative to its parent's
descriptor, so a state directory swapped for a symlink is refused, not followed.
"""

import errno
import os

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW
_HAS_DIR_FD = os.open in getattr(os, "supports_dir_fd", ())


def _symlink_error(path):
    return OSError(errno.ELOOP, "refusing a state directory that is a symlink", path)


def _open_dir(name, dir_fd, create, shown):
    try:
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except FileNotFoundError:
        if not create:
            raise
        try:
            os.mkdir(name, 0o700, dir_fd=dir_fd)
        except FileExistsError:
            pass
        return os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise _symlink_error(shown) from None
        raise


def open_under(root, parts, flags, create_dirs=True):
    """Open root/parts[0]/.../parts[-1] (a file) with every directory checked.

    root itself is made 0700 if missing (its own parents as the umask says).
    """
    if not _HAS_DIR_FD:
        path = os.path.join(root, *parts)
        if create_dirs:
            os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
        return os.open(path, flags | _NOFOLLOW, 0o600)
    if create_dirs:
        parent = os.path.dirname(os.path.abspath(root))
        if not os.path.isdir(parent):
            os.makedirs(parent, exist_ok=True)
    fd = _open_dir(os.path.abspath(root), None, create_dirs, root)
    shown = root
    try:
        for name in parts[:-1]:
            shown = os.path.join(shown, name)
            next_fd = _open_dir(name, fd, create_dirs, shown)
            os.close(fd)
            fd = next_fd
        return os.open(parts[-1], flags | _NOFOLLOW, 0o600, dir_fd=fd)
    finally:
        os.close(fd)


def open_private(path, flags, create_parent=True):
    """A single file outside the state tree (the report): O_NOFOLLOW, 0600, parent 0700."""
    if create_parent and flags & os.O_CREAT:
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            os.makedirs(parent, mode=0o700, exist_ok=True)
    return os.open(path, flags | _NOFOLLOW, 0o600)
