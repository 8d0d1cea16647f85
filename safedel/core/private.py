"""State and report files: 0600 files in 0700 directories, never through a symlink.

Under a state root every directory is opened with O_NOFOLLOW relative to its parent's
descriptor, and every later operation names entries relative to that descriptor, so a
state directory swapped for a symlink is refused, not followed.
"""

import errno
import os
import stat
import sys
from _thread import RLock

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_DIR_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW
# Windows has no dir_fd; there the directories are named by path (and has no symlink
# race worth the name for a per-user state directory).
_HAS_DIR_FD = os.open in getattr(os, "supports_dir_fd", ())


def _refusal(name, dir_fd, shown):
    # O_NOFOLLOW|O_DIRECTORY fails the same for a symlink and for a plain file (or a
    # file where a parent should be); the message says which it is.
    try:
        is_link = stat.S_ISLNK(os.stat(name, dir_fd=dir_fd, follow_symlinks=False).st_mode)
    except OSError:
        is_link = False
    if is_link:
        return OSError(errno.ELOOP, "refusing a state directory that is a symlink", shown)
    return OSError(errno.ENOTDIR, "a state directory that is not a directory", shown)


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
            raise _refusal(name, dir_fd, shown) from None
        raise


class PrivateDir:
    """A directory under a state root, opened without following symlinks.

    Entry names are resolved relative to it, never as whole paths.
    """

    def __init__(self, fd, path):
        self.fd = fd
        self.path = path

    def __enter__(self):
        return self

    def __exit__(self, *_exc):
        self.close()

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def _name(self, name):
        return name if _HAS_DIR_FD else os.path.join(self.path, name)

    def subdir(self, name, create=False):
        shown = os.path.join(self.path, name)
        if not _HAS_DIR_FD:
            if create:
                os.makedirs(shown, mode=0o700, exist_ok=True)
            elif not os.path.isdir(shown):
                raise FileNotFoundError(errno.ENOENT, "no such directory", shown)
            return PrivateDir(None, shown)
        return PrivateDir(_open_dir(name, self.fd, create, shown), shown)

    def open(self, name, flags):
        return os.open(self._name(name), flags | _NOFOLLOW, 0o600, dir_fd=self.fd)

    def write(self, name, data, exclusive=False):
        """Create name (0600) holding data; replace its content, or with exclusive fail
        if it exists."""
        flags = os.O_WRONLY | os.O_CREAT | (os.O_EXCL if exclusive else os.O_TRUNC)
        fd = self.open(name, flags)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)

    def listdir(self):
        return os.listdir(self.fd if _HAS_DIR_FD else self.path)

    def lstat(self, name):
        return os.stat(self._name(name), dir_fd=self.fd, follow_symlinks=False)

    def unlink(self, name):
        os.unlink(self._name(name), dir_fd=self.fd)

    def rmdir(self, name):
        os.rmdir(self._name(name), dir_fd=self.fd)

    def replace(self, source, target):
        os.replace(self._name(source), self._name(target), src_dir_fd=self.fd, dst_dir_fd=self.fd)


def open_dir(root, parts, create_dirs=True):
    """root/parts[0]/.../parts[-1] as a PrivateDir, every directory checked.

    root itself is made 0700 if missing (its own parents as the umask says).
    """
    root = os.path.abspath(root)
    if create_dirs:
        parent = os.path.dirname(root)
        if not os.path.isdir(parent):
            os.makedirs(parent, exist_ok=True)
    if _HAS_DIR_FD:
        directory = PrivateDir(_open_dir(root, None, create_dirs, root), root)
    else:
        directory = PrivateDir(None, os.path.dirname(root)).subdir(
            os.path.basename(root), create_dirs
        )
    for name in parts:
        try:
            inner = directory.subdir(name, create_dirs)
        finally:
            directory.close()
        directory = inner
    return directory


def open_under(root, parts, flags, create_dirs=True):
    """Open the file root/parts[0]/.../parts[-1] with every directory checked."""
    with open_dir(root, parts[:-1], create_dirs) as directory:
        return directory.open(parts[-1], flags)


def open_private(path, flags, create_parent=True):
    """A single file outside the state tree (the report): O_NOFOLLOW, 0600, parent 0700."""
    if create_parent and flags & os.O_CREAT:
        parent = os.path.dirname(os.path.abspath(path))
        if not os.path.isdir(parent):
            os.makedirs(parent, mode=0o700, exist_ok=True)
    return os.open(path, flags | _NOFOLLOW, 0o600)


class Held:
    """A descriptor this process keeps open between calls (the report, the ledger).

    The program owns the descriptor table: it may close every descriptor (closerange)
    or dup2 over ours, and the number then names a file of its own. So the number is
    trusted only while fstat still shows the file it was opened on; otherwise it is
    forgotten, and neither written to nor closed.
    """

    __slots__ = ("fd", "identity")

    def __init__(self, fd):
        info = os.fstat(fd)
        self.fd = fd
        self.identity = (info.st_dev, info.st_ino)

    def stat(self):
        """The descriptor's fstat while it is still ours, else None."""
        try:
            info = os.fstat(self.fd)
        except OSError:
            return None
        return info if (info.st_dev, info.st_ino) == self.identity else None

    def close(self):
        if self.stat() is not None:
            os.close(self.fd)


class _Exclusive:
    """The engine's per-process caches (held descriptors, ledger cursors) serve one
    thread at a time. A deletion that re-enters on the thread already inside (a
    finalizer run by the garbage collector, a signal handler) finds `nested` true: the
    outer call is in the middle of using the caches, so it must use its own descriptors
    and leave the caches alone. One lock for all of them, so re-entry can never take
    two locks in opposite orders."""

    def __init__(self):
        self.lock = RLock()
        self.depth = 0

    def __enter__(self):
        self.lock.acquire()
        self.depth += 1
        return self.depth > 1

    def __exit__(self, *_exc):
        self.depth -= 1
        self.lock.release()

    def after_fork(self):
        # A thread that held the lock does not exist in the child.
        self.lock = RLock()
        self.depth = 0


EXCLUSIVE = _Exclusive()
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=EXCLUSIVE.after_fork)


def digest(value):
    """The first 16 hex digits of value's sha256: how a state file is named after a
    session or turn (ledgers, signals, workspaces, approvals; shims/node/private.cjs)."""
    if not _sha256:
        _sha256.append(_load_sha256())
    return _sha256[0](value.encode("utf-8", "surrogatepass")).hexdigest()[:16]


_sha256 = []


def _load_sha256():
    """The bare C hash, loaded at the first digest: hashlib would load OpenSSL, a large
    cost for one digest, and a launcher under `safedel run` needs none at all (the run
    record names its ledger: core/contract/runrecord.py)."""
    try:
        if sys.version_info >= (3, 12):  # its module's name, so no failed search first
            from _sha2 import sha256
        else:
            from _sha256 import sha256
    except ImportError:
        from hashlib import sha256
    return sha256
