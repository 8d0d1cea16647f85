"""Where an item's trash is: the home trash, a topdir trash, or SAFEDEL_TRASH_DIR.

All paths here are bytes, so non-UTF-8 names never need decoding.
"""

import errno
import os
import stat

from ..printable import printable
from ..private import EXCLUSIVE
from ..private import Held as PrivateHeld
from . import trust


class TrashUnavailable(OSError):
    """No trash on the item's device can take it; the caller fails closed."""


class Location:
    __slots__ = ("root", "topdir", "held")

    def __init__(self, root, topdir, held=None):
        self.root = root  # holds files/ and info/
        self.topdir = topdir  # Path= is relative to this, or None for absolute
        self.held = held if held is not None else hold(root)  # descriptors on both

    def path_field(self, absolute):
        if self.topdir is None:
            return absolute
        # absolute is the item's real location (core.resolve), as topdir is.
        return os.path.relpath(absolute, self.topdir)


def home_trash(environ=None):
    environ = os.environ if environ is None else environ
    data_home = environ.get("XDG_DATA_HOME") or os.path.join(
        os.path.expanduser("~"), ".local", "share"
    )
    return os.path.join(os.fsencode(data_home), b"Trash")


def ensure_trash_root(root, check_owner=True):
    """Create root, root/files and root/info (0700) as needed, and check all three are
    ours (trashtrust). Returns root's device."""
    try:
        st = os.lstat(root)
    except FileNotFoundError:
        try:
            os.makedirs(root, mode=0o700, exist_ok=True)
        except FileExistsError:
            pass  # made meanwhile by someone else, maybe as a link: judged below
        st = os.lstat(root)
    try:
        trust.check(root, st)
        for sub in (b"files", b"info"):
            path = os.path.join(root, sub)
            try:
                trust.check(path)
                continue  # there already, as at every call but the first
            except FileNotFoundError:
                pass
            try:
                os.mkdir(path, 0o700)
            except FileExistsError:
                pass
            trust.check(path)
    except trust.Untrusted as exc:
        raise TrashUnavailable(exc.errno, exc.strerror) from None
    return st.st_dev


shared_trash_usable = trust.shared_trash_usable
_DIR_OPEN = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class Held:
    """Descriptors on a checked trash root's files/ and info/: items go in through
    them, so nothing can be redirected by a path swapped after the check. The program
    owns the descriptor table (it may closerange or dup2 over them), so each is trusted
    only while fstat still shows the folder it was opened on, and closed only then."""

    __slots__ = ("ident", "dev", "files", "info", "files_fd", "info_fd")

    def __init__(self, ident, files_fd, info_fd):
        self.ident, self.dev = ident, ident[0]
        self.files, self.info = PrivateHeld(files_fd), PrivateHeld(info_fd)
        self.files_fd, self.info_fd = files_fd, info_fd

    def still_at(self, root):
        """root still leads (without a symlink) to this directory, and neither of its
        folders was removed (an emptied trash) or lost to the program: one lstat and
        two fstats per item."""
        try:
            st = os.lstat(root)
        except OSError:
            return False
        folders = (self.files.stat(), self.info.stat())
        if None in folders or 0 in (folders[0].st_nlink, folders[1].st_nlink):
            return False
        return (st.st_dev, st.st_ino) == self.ident and stat.S_ISDIR(st.st_mode)

    def close(self):
        self.files.close()
        self.info.close()


_held = {}
# Stale Helds that a call further out on this thread may still be using (a deletion
# re-entered from a finalizer or a signal handler): closed by the next outermost call.
_retired = []


def hold(root):
    """The Held descriptors of trash root, checked (trashtrust) when first opened and
    re-opened and re-checked whenever root no longer leads to them."""
    held = _held.get(root)
    if held is not None:
        if held.still_at(root):
            return held
        del _held[root]
        _retired.append(held)
    if EXCLUSIVE.depth <= 1:
        while _retired:
            _retired.pop().close()
    ensure_trash_root(root)
    try:
        root_fd = os.open(root, _DIR_OPEN)
    except OSError as exc:
        raise TrashUnavailable(exc.errno, f"{printable(root)}: {exc.strerror}") from None
    fds = []
    try:
        root_st = trust.check(root, os.fstat(root_fd))
        for sub in (b"files", b"info"):
            fds.append(os.open(sub, _DIR_OPEN, dir_fd=root_fd))
            trust.check(os.path.join(root, sub), os.fstat(fds[-1]))
    except OSError as exc:
        for fd in fds:
            os.close(fd)
        raise TrashUnavailable(exc.errno, exc.strerror) from None
    finally:
        os.close(root_fd)
    held = _held[root] = Held((root_st.st_dev, root_st.st_ino), *fds)
    return held


def _root_device(root):
    return hold(root).dev


def mount_topdir(directory, dev):
    """The highest ancestor of directory (a real path) that is still on dev."""
    current = directory
    while True:
        parent = os.path.dirname(current)
        if parent == current:
            return current
        try:
            if os.lstat(parent).st_dev != dev:
                return current
        except OSError:
            return current
        current = parent


def topdir_trash(topdir):
    """$topdir/.Trash/$uid when .Trash is a sticky real directory, else .Trash-$uid."""
    uid = str(os.getuid()).encode("ascii")
    errors = []
    if shared_trash_usable(topdir):
        root = os.path.join(topdir, b".Trash", uid)
        try:
            _root_device(root)
            return root
        except OSError as exc:
            errors.append(f"{printable(root)}: {exc.strerror}")
    root = os.path.join(topdir, b".Trash-" + uid)
    try:
        _root_device(root)
        return root
    except OSError as exc:
        errors.append(f"{printable(root)}: {exc.strerror}")
    raise TrashUnavailable(
        errno.EXDEV,
        f"no usable trash on device of {printable(topdir)} ({'; '.join(errors)})",
    )


def locate(absolute, dev, trash_dir=None, home=None):
    """The Location for an item at absolute path (bytes) on device dev. home: the home
    trash (bytes) a run fixed, else the environment's now."""
    if trash_dir:
        root = os.fsencode(trash_dir)
        held = hold(root)
        if held.dev != dev:
            raise TrashUnavailable(
                errno.EXDEV,
                f"{printable(absolute)} is on another device than the trash directory "
                f"{printable(root)}, and safedel never copies",
            )
        return Location(root, None, held)
    home = home or home_trash()
    try:
        held = hold(home)
        home_dev = held.dev
    except TrashUnavailable:
        # A home trash that is not ours: on its own device, say so rather than use
        # another trash the user never looks in.
        if _device_of(home) == dev:
            raise
        home_dev = None
    except OSError:
        home_dev = None
    if home_dev == dev:
        return Location(home, None, held)
    parent = os.path.dirname(absolute)  # absolute is already real (core.resolve)
    topdir = mount_topdir(parent, dev)
    return Location(topdir_trash(topdir), topdir)


def _device_of(path):
    try:
        return os.lstat(path).st_dev
    except OSError:
        return None


def topdir_of(root):
    """The directory that relative Path= values in root's info files start from."""
    name = os.path.basename(root)
    parent = os.path.dirname(root)
    if os.path.basename(parent) == b".Trash":
        return os.path.dirname(parent)
    if name.startswith(b".Trash-"):
        return parent
    return None
