"""Where an item's trash is: the home trash, a topdir trash, or SAFEDEL_TRASH_DIR.

All paths here are bytes, so non-UTF-8 names never need decoding.
"""

import errno
import os

from . import trashtrust
from .printable import printable


class TrashUnavailable(OSError):
    """No trash on the item's device can take it; the caller fails closed."""


class Location:
    __slots__ = ("root", "topdir")

    def __init__(self, root, topdir):
        self.root = root  # holds files/ and info/
        self.topdir = topdir  # Path= is relative to this, or None for absolute

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
    ours (trashtrust). Done before every item: nothing is cached that could go stale.
    Returns root's device."""
    try:
        st = os.lstat(root)
    except FileNotFoundError:
        os.makedirs(root, mode=0o700, exist_ok=True)
        st = os.lstat(root)
    try:
        trashtrust.check(root, st)
        for sub in (b"files", b"info"):
            path = os.path.join(root, sub)
            try:
                os.mkdir(path, 0o700)
            except FileExistsError:
                pass
            trashtrust.check(path)
    except trashtrust.Untrusted as exc:
        raise TrashUnavailable(exc.errno, exc.strerror) from None
    return st.st_dev


_root_device = ensure_trash_root
shared_trash_usable = trashtrust.shared_trash_usable


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


def locate(absolute, dev, trash_dir=None):
    """The Location for an item at absolute path (bytes) on device dev."""
    if trash_dir:
        root = os.fsencode(trash_dir)
        if _root_device(root) != dev:
            raise TrashUnavailable(
                errno.EXDEV,
                f"{printable(absolute)} is on another device than the trash directory "
                f"{printable(root)}, and safedel never copies",
            )
        return Location(root, None)
    home = home_trash()
    try:
        home_dev = _root_device(home)
    except TrashUnavailable:
        # A home trash that is not ours: on its own device, say so rather than use
        # another trash the user never looks in.
        if _device_of(home) == dev:
            raise
        home_dev = None
    except OSError:
        home_dev = None
    if home_dev == dev:
        return Location(home, None)
    parent = os.path.dirname(absolute)  # absolute is already real (core.resolve)
    topdir = mount_topdir(parent, dev)
    return Location(topdir_trash(topdir), topdir)


def _device_of(path):
    try:
        return os.lstat(path).st_dev
    except OSError:
        return None


def mount_points():
    """Mount points from /proc/self/mounts (Linux); octal escapes decoded."""
    points = []
    try:
        with open("/proc/self/mounts", "rb") as handle:
            for line in handle:
                fields = line.split(b" ")
                if len(fields) > 1:
                    points.append(_unescape_mount(fields[1]))
    except OSError:
        pass
    return points


def _unescape_mount(field):
    out = bytearray()
    i = 0
    while i < len(field):
        if field[i] == 0x5C and i + 3 < len(field) and field[i + 1 : i + 4].isdigit():
            out.append(int(field[i + 1 : i + 4], 8))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return bytes(out)


def visible_trash_dirs(environ=None):
    """Every trash root that exists: home, SAFEDEL_TRASH_DIR, and each mount's topdir trash."""
    environ = os.environ if environ is None else environ
    uid = str(os.getuid()).encode("ascii")
    found = []
    candidates = [home_trash(environ)]
    if environ.get("SAFEDEL_TRASH_DIR"):
        candidates.append(os.fsencode(environ["SAFEDEL_TRASH_DIR"]))
    for point in mount_points():
        if shared_trash_usable(point):
            candidates.append(os.path.join(point, b".Trash", uid))
        candidates.append(os.path.join(point, b".Trash-" + uid))
    for root in candidates:
        info = os.path.join(root, b"info")
        if root in found or not os.path.isdir(info):
            continue
        if trashtrust.why_not_listed(root) is None:
            found.append(root)
    return found


def foreign_trash_dirs(environ=None):
    """(root, why) for each trash dir on a mount that `list` and `restore` skip because
    it is not ours (another owner, a symlink, writable by others)."""
    uid = str(os.getuid()).encode("ascii")
    skipped = []
    for point in mount_points():
        for root in (os.path.join(point, b".Trash", uid), os.path.join(point, b".Trash-" + uid)):
            why = trashtrust.why_not_listed(root) if os.path.lexists(root) else None
            if why:
                skipped.append((root, why))
    environ = os.environ if environ is None else environ
    for root in (home_trash(environ), os.fsencode(environ.get("SAFEDEL_TRASH_DIR") or b"")):
        why = trashtrust.why_not_listed(root) if root and os.path.lexists(root) else None
        if why:
            skipped.append((root, why))
    return skipped


def topdir_of(root):
    """The directory that relative Path= values in root's info files start from."""
    name = os.path.basename(root)
    parent = os.path.dirname(root)
    if os.path.basename(parent) == b".Trash":
        return os.path.dirname(parent)
    if name.startswith(b".Trash-"):
        return parent
    return None
