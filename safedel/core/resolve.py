"""Where a deletion target really is: resolved by the kernel, never as text.

`a/link/../f` names `f` in the parent of wherever `link` points, not `a/f`; and
`link/` names the directory the link leads to, not the link. abspath and normpath get
both wrong. So resolve() opens the operand's parent directory the way the kernel would
(following every symlink and `..` in order), asks the kernel which directory that
descriptor is, and pairs it with the final name. The protected check, the location
class and the trash info file's `Path=` are all judged from that pair.

The cost is one open, one readlink, one fstat and one lstat per target (no realpath
walk). All paths here are bytes, so any file name survives.
"""

import os
import stat
import sys

_O_PATH = getattr(os, "O_PATH", 0)
_DIR_FLAGS = (_O_PATH or os.O_RDONLY) | getattr(os, "O_DIRECTORY", 0) | os.O_CLOEXEC
_LINUX = sys.platform.startswith("linux")


class Target:
    """One resolved deletion target.

    given    the operand as the caller wrote it (str, bytes or PathLike)
    parent   the real absolute directory (bytes) that holds the entry, no symlinks in it
    name     the entry's name in parent (bytes); b"" for `/` itself
    path     where the entry really is: parent/name, or, for `link/` (a trailing slash
             on a symlink), the real directory the link leads to
    st       lstat of the entry (of the link for `link`), or None when nothing is there
    slash    the operand ended in a slash
    via_link the operand was `link/`: the link's target is meant, the link stays
    dots     the last component was `.` or `..` (front ends refuse those operands)
    parent_id (st_dev, st_ino) of parent when it was resolved, to detect a swap later
    dir_id   for `link/`, (st_dev, st_ino) of the directory the link led to
    klass, reason  filled in by the deletion pipeline: the location class and, when
             refused, why
    """

    __slots__ = (
        "given",
        "parent",
        "name",
        "path",
        "st",
        "slash",
        "via_link",
        "dots",
        "parent_id",
        "head",
        "klass",
        "reason",
        "parent_fd",
        "dir_id",
    )

    def __init__(self, given, parent, name, st, slash, parent_id, dots=False):
        self.given, self.parent, self.name, self.st = given, parent, name, st
        self.slash, self.parent_id, self.dots = slash, parent_id, dots
        self.path = _join(parent, name)
        self.via_link = False
        self.dir_id = None
        self.head = None  # the directory part as given, when it may be remembered
        self.klass = self.reason = None
        # An open descriptor of parent, for an entry whose path is longer than the
        # kernel takes (reached by descriptor): the trash moves it relative to it.
        self.parent_fd = None

    @property
    def shown(self):
        """path as str (surrogate-escaped), for messages and report events."""
        return os.fsdecode(self.path)

    @property
    def is_dir(self):
        return self.st is not None and stat.S_ISDIR(self.st.st_mode)

    def __repr__(self):
        return f"Target({self.given!r} -> {self.path!r})"


def _join(parent, name):
    if not name:
        return parent
    return (parent if parent.endswith(b"/") else parent + b"/") + name


def split(raw):
    """(directory part, last component, had trailing slashes) of bytes raw."""
    stripped = raw.rstrip(b"/")
    if not stripped:  # `/`, `//`
        return b"/", b"", bool(raw)
    head, _, last = stripped.rpartition(b"/")
    if not head and stripped.startswith(b"/"):
        head = b"/"
    return head or b".", last, stripped != raw


def real_directory(directory, dir_fd=None):
    """(real absolute path, (dev, ino)) of directory as the kernel resolves it."""
    fd = os.open(directory, _DIR_FLAGS, dir_fd=dir_fd)
    try:
        st = os.fstat(fd)
        real = _fd_path(fd, st)
    finally:
        os.close(fd)
    if real is None:
        # No /proc (or a directory removed meanwhile): realpath walks the same way the
        # kernel does, resolving each symlink before the `..` that follows it.
        base = directory
        if dir_fd is not None and not directory.startswith(b"/"):
            raise OSError(2, "cannot tell where dir_fd points", os.fsdecode(directory))
        real = os.path.realpath(base)
        check = os.stat(real)
        if (check.st_dev, check.st_ino) != (st.st_dev, st.st_ino):
            raise OSError(2, "the directory moved while it was resolved", os.fsdecode(real))
    return real, (st.st_dev, st.st_ino)


def real_path(raw):
    """os.path.realpath(raw) for bytes raw, asked of the kernel when raw is a directory
    it can open: a few calls where realpath lstats every component (the exempt roots
    and the home, which every launcher resolves once)."""
    try:
        return real_directory(raw)[0]
    except OSError:
        return os.path.realpath(raw)


def _fd_path(fd, st):
    if not _LINUX:
        return None
    try:
        link = os.readlink(b"/proc/self/fd/%d" % fd)
    except OSError:
        return None
    # A removed directory reads as "/x (deleted)"; a path outside our root as relative.
    if not link.startswith(b"/") or link.endswith(b" (deleted)"):
        return None
    return link


def resolve(given, dir_fd=None):
    """The Target that given (str, bytes or PathLike; relative to dir_fd if given) names.

    Raises OSError as the kernel would for an unreachable parent (ENOENT, ENOTDIR,
    EACCES, ELOOP); a missing final entry is not an error (st is None).
    """
    raw = os.fsencode(given)
    head, last, slash = split(raw)
    if last in (b".", b".."):
        # `x/..` names a directory by itself, not an entry: resolve the whole of it.
        real, _ = real_directory(raw, dir_fd)
        parent, _, name = real.rpartition(b"/")
        target = Target(given, parent or b"/", name, os.lstat(real), slash, None, dots=True)
        return target
    if not last:  # the root directory
        st = os.lstat(b"/")
        return Target(given, b"/", b"", st, slash, (st.st_dev, st.st_ino))
    parent, ident = _known_directory(head) if dir_fd is None else (None, None)
    if parent is None:
        parent, ident = real_directory(head, dir_fd)
    try:
        st = os.lstat(_join(parent, last))
    except FileNotFoundError:
        st = None
    target = Target(given, parent, last, st, slash, ident)
    if dir_fd is None:
        target.head = head
    if slash and st is not None and stat.S_ISLNK(st.st_mode):
        # `link/`: the kernel follows the link; what is meant lives where it leads.
        try:
            real, target.dir_id = real_directory(_join(parent, last))
        except OSError:
            return target  # a dangling or non-directory link: the syscall fails anyway
        target.via_link = True
        target.path = real
    return target


# Directory text and identity -> real path, for parents the deletion pipeline found
# outside every exempt root (remember()). A build deleting thousands of files in one
# folder then pays one stat for it, not an open and a readlink. A stale entry (the
# folder moved, its old name now a link to it) can only name a place outside the
# exempt roots, so it errs towards the trash, never towards a real delete.
_known = {}


def _known_directory(head):
    try:
        st = os.stat(head)
    except OSError:
        return None, None
    ident = (st.st_dev, st.st_ino)
    return _known.get((head, ident)), ident


def remember(target):
    """Let later targets whose directory is spelled as target's reuse its real parent.
    Only for a parent outside (and not equal to) every exempt root."""
    if target.head is None or target.parent_id is None:
        return
    if len(_known) > 4096:
        _known.clear()
    _known[(target.head, target.parent_id)] = target.parent


def resolve_or_none(given, dir_fd=None):
    try:
        return resolve(given, dir_fd)
    except (OSError, ValueError):
        return None


def split_trailing_slash(raw):
    """`link/` names the link itself; strip the slashes but remember them."""
    stripped = raw.rstrip(b"/")
    if not stripped:
        return raw[:1], False
    return stripped, stripped != raw


def absolute(path):
    """The absolute str form of path as the kernel resolves it (trailing slashes off)."""
    if isinstance(path, Target):
        return path.shown
    target = resolve_or_none(path)
    if target is not None:
        return target.shown
    raw, _ = split_trailing_slash(os.fsencode(path))
    return os.fsdecode(os.path.abspath(raw))
