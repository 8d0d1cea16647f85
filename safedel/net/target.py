"""Where a notified call points: resolved by descriptor, as the kernel would resolve it.

The parent is opened O_PATH from the caller's own cwd or dirfd (through /proc), with
every symlink on the way followed, as unlinkat follows them; the last component is
never followed. The kernel's own errors (EISDIR, ENOTDIR, ENOTEMPTY, EINVAL...) are
worked out here, so that a call that would fail anyway fails with its own errno.
"""

import errno
import os
import stat

from . import walk

AT_FDCWD = -100
AT_REMOVEDIR = 0x200


class Target:
    """parent_fd (O_PATH) + name, with the real absolute path and what the call wants."""

    __slots__ = ("parent_fd", "name", "path", "parent", "removes_dir", "trailing", "st", "judged")

    def __init__(self, parent_fd, name, path, removes_dir, trailing, parent=None):
        self.parent_fd = parent_fd
        self.name = name
        self.path = path
        self.parent = parent if parent is not None else os.path.dirname(path)
        self.removes_dir = removes_dir
        self.trailing = trailing
        self.st = None
        # The identity (birth.Entry.identity) of an entry found git's to delete
        # unjudged: deleted by that identity, not by its name (see gitunlink).
        self.judged = None

    def inspect(self, may_delete=None):
        """lstat the item and check the call suits it; OSError with the kernel's errno.
        Only needed when safedel acts: a call left to the kernel gets its own checks.
        may_delete(parent_st, st): 0 or the errno the caller's credentials earn it."""
        self.st = os.stat(self.name, dir_fd=self.parent_fd, follow_symlinks=False)
        if may_delete is not None:  # the kernel checks the caller's right before the kind
            denied = may_delete(os.fstat(self.parent_fd), self.st)
            if denied:
                raise OSError(denied, os.strerror(denied))
        _check_kind(self.st, self.removes_dir, self.trailing)

    def acts_here(self, caller_parent):
        """Whether the directory the call acts in, as the kernel resolves it for the
        caller, is the directory self.parent names for safedel. Inside another mount
        namespace the path read back from the caller's descriptor is the caller's own
        spelling: a project bind-mounted at /tmp/x reads back as /tmp/x. Every answer
        that leaves a call to the kernel reasons on self.parent, so it must name this
        very directory (st_dev, st_ino). caller_parent: the caller's parent as stat()
        saw it through the caller's walk, or None to fstat the descriptor."""
        if caller_parent is None:
            caller_parent = os.fstat(self.parent_fd)
        try:
            mine = os.stat(self.parent)
        except OSError:
            return False  # not even there for safedel: not what its reasoning named
        return mine.st_ino == caller_parent.st_ino and mine.st_dev == caller_parent.st_dev

    def same_file_here(self):
        """Whether self.path, as safedel sees it, is the very file the caller named
        (inspect() done)."""
        try:
            mine = os.lstat(self.path)
        except OSError:
            return False
        return (mine.st_dev, mine.st_ino) == (self.st.st_dev, self.st.st_ino)

    def close(self):
        os.close(self.parent_fd)


def call_of(names, notif):
    """(dirfd, path address, removes_dir) of a notify.Notification."""
    return arguments(names, notif.nr, notif.args)


def arguments(names, nr, args):
    """(dirfd, path address, removes_dir) from a call's number and raw arguments."""
    name = names.get(nr)
    if name == "unlinkat":
        return dirfd_of(args[0]), args[1], bool(args[2] & AT_REMOVEDIR)
    return AT_FDCWD, args[0], name == "rmdir"


def dirfd_of(raw):
    """A dirfd argument (an int in a 64-bit register) as the signed int it is."""
    dirfd = raw & 0xFFFFFFFF
    return dirfd - (1 << 32) if dirfd & 0x80000000 else dirfd


def locate(tid, dirfd, raw, removes_dir):
    """(base, name, trailing, head): base names the parent for the caller, through
    /proc, head as the caller spelled it; OSError carrying the errno the kernel would
    give a path it refuses outright. base is walked by the supervisor's own rules: it
    is the caller's parent only for a head with no walk in it (see supervisor)."""
    if not raw:
        raise OSError(errno.ENOENT, "empty path")
    stripped = raw.rstrip(b"/")
    trailing = stripped != raw
    if not stripped:  # "/" itself
        raise OSError(errno.EBUSY if removes_dir else errno.EISDIR, "the root")
    head, _, name = stripped.rpartition(b"/")
    if name == b".":
        raise OSError(errno.EINVAL if removes_dir else errno.EISDIR, "'.'")
    if name == b"..":
        raise OSError(errno.ENOTEMPTY if removes_dir else errno.EISDIR, "'..'")
    if stripped[:1] == b"/":
        base = b"/proc/%d/root/%s" % (tid, head.lstrip(b"/"))
    elif dirfd == AT_FDCWD:
        base = b"/proc/%d/cwd/%s" % (tid, head)
    else:
        if dirfd < 0 or not os.path.lexists(b"/proc/%d/fd/%d" % (tid, dirfd)):
            raise OSError(errno.EBADF, "no such descriptor")  # the kernel's answer
        base = b"/proc/%d/fd/%d/%s" % (tid, dirfd, head)
    return base, name, trailing, head


def resolve(tid, dirfd, raw, removes_dir, located=None):
    """A Target, or OSError carrying the errno the kernel would have returned.
    located: what locate() gave for these arguments already."""
    _, name, trailing, head = located or locate(tid, dirfd, raw, removes_dir)
    # The caller's own walk, redone from its own root, cwd or dirfd (see walk); with
    # no head, "link/" is where the link points.
    parent = walk.open_parent(tid, dirfd, head, raw[:1] == b"/")
    try:
        real_parent = os.fsdecode(real_path(parent))
        path = real_parent.rstrip("/") + "/" + os.fsdecode(name)  # only "/" ends in "/"
        return Target(parent, name, path, removes_dir, trailing, real_parent)
    except BaseException:
        os.close(parent)
        raise


def real_path(fd):
    """The real path (bytes) of the directory open as fd. Past PATH_MAX the kernel will
    not spell it (GNU rm walks such trees by descriptor): then climb '..' to the nearest
    ancestor it will spell, and name each step down by its device and inode."""
    try:
        return os.readlink(b"/proc/self/fd/%d" % fd)
    except OSError as exc:
        if exc.errno != errno.ENAMETOOLONG:
            raise
    names, here = [], os.dup(fd)
    try:
        while True:
            st = os.fstat(here)
            up = os.open(b"..", os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=here)
            os.close(here)
            here = up
            names.append(_name_in(here, st))
            try:
                base = os.readlink(b"/proc/self/fd/%d" % here)
                break
            except OSError as exc:
                if exc.errno != errno.ENAMETOOLONG:
                    raise
    finally:
        os.close(here)
    if not base.startswith(b"/") or base.endswith(b" (deleted)"):
        raise OSError(errno.ENAMETOOLONG, "a directory past PATH_MAX with no path here")
    return base.rstrip(b"/") + b"/" + b"/".join(reversed(names))


def _name_in(directory_fd, st):
    with os.scandir(directory_fd) as entries:
        for entry in entries:
            if not entry.is_dir(follow_symlinks=False):
                continue
            other = os.stat(entry.name, dir_fd=directory_fd, follow_symlinks=False)
            if (other.st_dev, other.st_ino) == (st.st_dev, st.st_ino):
                return os.fsencode(entry.name)
    raise OSError(errno.ENAMETOOLONG, "a directory past PATH_MAX is not in its parent")


def _check_kind(st, removes_dir, trailing):
    is_dir = stat.S_ISDIR(st.st_mode)
    if removes_dir and not is_dir:
        raise OSError(errno.ENOTDIR, "not a directory")
    if not removes_dir and is_dir:
        raise OSError(errno.EISDIR, "is a directory")
    if trailing and not is_dir:
        raise OSError(errno.ENOTDIR, "not a directory")


def is_empty_dir(target):
    fd = os.open(
        target.name,
        os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC,
        dir_fd=target.parent_fd,
    )
    try:
        with os.scandir(fd) as listing:
            return next(listing, None) is None
    finally:
        os.close(fd)
