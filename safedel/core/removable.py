"""Whether GNU's unlink, rmdir or whole-tree removal would succeed, as this user.

safedel trashes a directory as one rename, which is faithful only where GNU's own
traversal would have removed every entry. Permission bits are the owner saying "not
this": a directory inside that this user may not read, write or search, another
user's file in a sticky directory, or a mount point inside, each makes GNU fail part
way and keep the rest, and then so must safedel. whole_tree() answers that question
walking by directory descriptors (no path length limit), and removal_errno() predicts
the errno of one unlink or rmdir from its parent, so that GNU's own failures get
GNU's message and no marker.
"""

import errno
import os
import stat

R, W, X = 4, 2, 1
_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK


class User:
    """The effective ids the kernel will judge this process by."""

    def __init__(self):
        self.uid = os.geteuid()
        self.privileged = self.uid == 0
        self.groups = {os.getegid(), *os.getgroups()}

    def may(self, st, bits):
        if self.privileged:
            return True
        if st.st_uid == self.uid:
            mode = st.st_mode >> 6
        elif st.st_gid in self.groups:
            mode = st.st_mode >> 3
        else:
            mode = st.st_mode
        return mode & bits == bits

    def may_delete_from(self, parent_st, st, granted=False):
        """0, or the errno unlink/rmdir of an entry (lstat st) in parent gives.

        granted: the kernel allows write and search on parent (ACLs) whatever the bits."""
        if self.privileged:
            return 0
        if not granted and not self.may(parent_st, W | X):
            return errno.EACCES
        sticky = parent_st.st_mode & stat.S_ISVTX
        if sticky and self.uid not in (st.st_uid, parent_st.st_uid):
            return errno.EPERM
        return 0


_mounts = None


def mount_points():
    """Every mount point of this process's namespace, read once per process (the same
    reader the trash uses to find topdirs)."""
    global _mounts
    if _mounts is None:
        from .mounts import mount_points as read

        _mounts = set(read())
    return _mounts


def is_mount_point(path):
    return os.path.realpath(os.fsencode(path)) in mount_points()


def mounts_within(path, real=None):
    """Mount points at or below the directory path (judged where the kernel resolves
    it), or at or below real, its real path when the caller knows it already."""
    real = real or os.path.realpath(os.fsencode(path))
    prefix = real.rstrip(b"/") + b"/"
    return [m for m in mount_points() if m == real or m.startswith(prefix)]


def removal_errno(path, st, user, parent_st=None):
    """The errno GNU's unlink/rmdir of path (lstat st) would meet at its parent, or 0."""
    head = path.rstrip(b"/")
    parent = head[: head.rindex(b"/") + 1] if b"/" in head else b"."
    if parent_st is None:
        try:
            parent_st = os.stat(parent)
        except OSError as exc:
            return exc.errno
    err = user.may_delete_from(parent_st, st)
    if err == errno.EACCES and _parent_granted(parent):
        err = user.may_delete_from(parent_st, st, granted=True)
    if err == 0 and stat.S_ISDIR(st.st_mode) and parent_st.st_dev != st.st_dev:
        err = errno.EBUSY
    return err


def _parent_granted(parent):
    try:
        return os.access(parent, W | X, effective_ids=True)
    except (OSError, NotImplementedError):
        return False


_FS_IOC_GETFLAGS = 0x80086601
_PINNED = 0x10 | 0x20  # FS_IMMUTABLE_FL, FS_APPEND_FL: no unlink, not even for root


def pinned(path, st, dir_fd=None):
    """True when chattr +i or +a forbids removing entries of, or the entry itself at,
    path (a regular file or a directory; others are not opened)."""
    if not (stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode)):
        return False
    try:
        flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
        fd = os.open(path, flags, dir_fd=dir_fd)
    except OSError:
        return False
    try:
        return pinned_fd(fd)
    finally:
        os.close(fd)


def pinned_fd(fd):
    """pinned() for an open file or directory."""
    import fcntl

    flags = bytearray(8)
    try:
        fcntl.ioctl(fd, _FS_IOC_GETFLAGS, flags)
    except OSError:
        return False  # no such flags on this file system
    return bool(int.from_bytes(flags[:4], "little") & _PINNED)


def whole_tree(path, st, user, asks=False, at=None):
    """True when GNU rm -r, as user, would remove every entry of the directory path.

    at: (dir_fd, name, real path) for a directory reached by descriptor, whose path
    may be longer than the kernel takes.

    st is lstat(path). Nobody may remove a mount point, or entries of a directory
    with chattr +i or +a (one ioctl per directory; a +i file is not looked for, that
    would be one per file); the root may remove anything else. Everyone else also
    needs, in every non-empty directory, read, write and search permission, and the
    sticky rule on each entry of a sticky directory. With asks (stdin a terminal),
    GNU would also stop to ask about each write-protected entry, so the tree is
    whole only if it holds none.
    """
    dir_fd, name, real = at or (None, path, None)
    if mounts_within(path, real):
        return False
    asks = asks and not user.privileged  # GNU asks the root nothing here
    if asks and not user.may(st, W):
        return False
    try:
        fd = os.open(name, _FLAGS, dir_fd=dir_fd)
    except OSError:
        return empty_despite_mode(name, st, user, dir_fd)
    try:
        return _walk(fd, st, user, asks)
    finally:
        os.close(fd)


def _walk(top_fd, top_st, user, asks):
    """Depth first, one descriptor per level, so depth has no limit but the fd table."""
    stack = [[top_fd, top_st, None]]
    try:
        while stack:
            level = stack[-1]
            if level[2] is None:
                level[2] = _listing(level[0], level[1], user, asks)
                if level[2] is None:
                    return False
            if not level[2]:
                stack.pop()
                if level[0] != top_fd:
                    os.close(level[0])
                continue
            name = level[2].pop()
            try:
                child_st = os.stat(name, dir_fd=level[0], follow_symlinks=False)
            except OSError:
                return False
            try:
                child_fd = os.open(name, _FLAGS, dir_fd=level[0])
            except OSError:
                if not empty_despite_mode(name, child_st, user, level[0]):
                    return False
                continue
            stack.append([child_fd, child_st, None])
    finally:
        for fd, _, _ in stack:
            if fd != top_fd:
                os.close(fd)
    return True


def _listing(fd, st, user, asks):
    """The subdirectory names of the directory fd, or None if GNU could not empty it.

    A directory's link count is 2 plus its subdirectories on the usual filesystems
    (1 on btrfs: unknown), so once they are all found the rest of a large listing
    needs no look, unless the sticky rule asks for every entry's owner.
    """
    if pinned_fd(fd):
        return None  # chattr +i/+a: no entry goes, nor the directory itself
    subdirs, empty = [], True
    sticky = st.st_mode & stat.S_ISVTX and st.st_uid != user.uid and not user.privileged
    wanted = st.st_nlink - 2 if st.st_nlink >= 2 and not (sticky or asks) else -1
    try:
        with os.scandir(fd) as entries:
            for entry in entries:
                empty = False
                if sticky or asks:
                    entry_st = entry.stat(follow_symlinks=False)
                    if sticky and entry_st.st_uid != user.uid:
                        return None
                    if asks and not stat.S_ISLNK(entry_st.st_mode) and not user.may(entry_st, W):
                        return None
                if len(subdirs) == wanted:
                    break
                if entry.is_dir(follow_symlinks=False):
                    subdirs.append(entry.name)
    except OSError:
        return None
    if not empty and not (user.may(st, R | W | X) or _granted(fd, R | W | X)):
        return None
    return subdirs


def _granted(fd, bits):
    """What the kernel says, ACLs included, when the mode bits said no."""
    try:
        return os.access(f"/proc/self/fd/{fd}", bits, effective_ids=True)
    except (OSError, NotImplementedError):
        return False


def empty_despite_mode(name, st, user, dir_fd):
    """A directory this user may not open: GNU still removes it if it is empty.

    Only its owner can tell without removing it, by lending itself u+rx for a look,
    and only if it can put the mode back whole (see lendmode.keeps_its_bits).
    """
    from . import lendmode

    if st.st_uid != user.uid or st.st_nlink > 2 or not lendmode.keeps_its_bits(st):
        return False
    try:
        loan = lendmode.lend(name, st, 0o500, dir_fd)
    except OSError:
        return False
    if loan is None:
        return False  # readable after all: not this function's case
    try:
        return loan.is_empty()
    except OSError:
        return False
    finally:
        loan.give_back()
