"""The caller's walk to the parent of what it deletes, redone as the kernel does it.

The supervisor opens the caller's own starting point (/proc/TID/root, cwd or fd/N)
and walks the rest with openat2, so that the walk cannot become the supervisor's:

- an absolute path is walked with RESOLVE_IN_ROOT from the caller's root: '..' and
  absolute symlinks stay inside a chroot (or another mount namespace's root) as they
  do for the caller;
- a relative path is walked with RESOLVE_BENEATH first (nearly every walk stays below
  its start); one that climbs out or meets an absolute symlink is walked freely when
  the caller's root is the supervisor's (same directory, same mount namespace), else
  redone inside the caller's root from the start's path below it, once that path is
  shown to lead to the start (a start outside the root fails closed);
- every walk has RESOLVE_NO_MAGICLINKS: /proc/self, /proc/N/cwd, /dev/fd/N... name the
  walker's own things, and a walk by the supervisor meeting one (spelled `//proc/self`,
  `/proc/1/../self`, or through a user's symlink) would reach safedel's cwd, not the
  caller's. The spellings the shims use (/proc/self|thread-self|N/cwd|root|fd/M and
  /dev/fd/M, with '//' or '/./' anywhere) are opened as the caller's own /proc entry,
  /proc/self as its process (Tgid), /proc/thread-self as its thread; any other walk
  through a magic link fails closed.
"""

import ctypes
import errno
import os
import re

AT_FDCWD = -100
_SYS_OPENAT2 = 437  # the same number on x86_64 and aarch64
RESOLVE_NO_XDEV = 0x01
RESOLVE_NO_MAGICLINKS = 0x02
RESOLVE_NO_SYMLINKS = 0x04
RESOLVE_BENEATH = 0x08
RESOLVE_IN_ROOT = 0x10
_FLAGS = os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC

# /proc/<who>/<cwd|root|fd/N>[/rest] or /dev/fd/N[/rest], once '//' and '/./' are gone.
_KNOWN = re.compile(rb"/(?:proc/(self|thread-self|\d+)/(cwd|root|fd/\d+)|dev/(fd/\d+))(?:/(.*))?\Z")
_NEUTRAL = re.compile(rb"/(?:\.?/)+")  # '//' or '/./' anywhere: the same directory


class FailClosed(OSError):
    """A walk the net cannot redo for the caller: answered EPERM with a marker."""

    def __init__(self, reason, path=None):
        super().__init__(errno.EPERM, reason, path)
        self.reason = reason


class _Libc:
    def __init__(self):
        libc = ctypes.CDLL(None, use_errno=True)
        self.syscall = libc.syscall
        self.syscall.restype = ctypes.c_long
        self.how = (ctypes.c_uint64 * 3)(_FLAGS, 0, 0)


_libc = None


def openat2(dirfd, path, resolve):
    """openat2(dirfd, path, O_PATH|O_DIRECTORY, resolve): a descriptor or OSError."""
    global _libc
    if _libc is None:
        _libc = _Libc()
    how = _libc.how
    how[2] = resolve
    fd = _libc.syscall(_SYS_OPENAT2, dirfd, path, ctypes.byref(how), 24)
    if fd < 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), path)
    return fd


def open_parent(tid, dirfd, head, absolute):
    """An O_PATH descriptor of the directory head (the path without its last name, as
    the caller spelled it) names for thread tid; OSError with the kernel's errno, or
    FailClosed."""
    known = _known(tid, head) if b"proc" in head or b"dev" in head else None
    if known is not None:
        start_path, rest, in_root = known
    elif absolute:
        start_path, rest, in_root = b"/proc/%d/root" % tid, head.lstrip(b"/"), True
    elif dirfd == AT_FDCWD:
        start_path, rest, in_root = b"/proc/%d/cwd" % tid, head, False
    else:
        start_path, rest, in_root = b"/proc/%d/fd/%d" % (tid, dirfd), head, False
    start = os.open(start_path, _FLAGS)
    if rest in (b"", b"."):
        return start
    try:
        return _walk(tid, start, rest, in_root)
    finally:
        os.close(start)


def _walk(tid, start, rest, in_root):
    strict = RESOLVE_NO_MAGICLINKS | (RESOLVE_IN_ROOT if in_root else RESOLVE_BENEATH)
    try:
        return openat2(start, rest, strict)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            _loop_or_magic(start, rest, strict & ~RESOLVE_NO_MAGICLINKS)
        if exc.errno != errno.EXDEV or in_root:
            raise
    # A relative walk out of its start: '..' above it, or an absolute symlink. With
    # the supervisor's own root that walk is the caller's; else it is redone from the
    # caller's root, the start spelled as a path below it.
    if not shares_root(tid):
        return _from_root(tid, start, rest)
    try:
        return openat2(start, rest, RESOLVE_NO_MAGICLINKS)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            _loop_or_magic(start, rest, 0)
        raise


def _from_root(tid, start, rest):
    """rest walked from start for a caller whose root is not the supervisor's: as
    start/rest inside that root (RESOLVE_IN_ROOT), once the start's path below the
    root is shown to lead back to the start itself. Otherwise (a start outside the
    root, renamed meanwhile) FailClosed."""
    root = os.open(b"/proc/%d/root" % tid, _FLAGS)
    try:
        below = _below(os.readlink(b"/proc/self/fd/%d" % root), _spelled(start))
        if below is None:
            raise FailClosed("a walk out of the caller's own root")
        again = openat2(root, below or b".", RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS)
        try:
            mine, theirs = os.fstat(again), os.fstat(start)
        finally:
            os.close(again)
        if (mine.st_dev, mine.st_ino) != (theirs.st_dev, theirs.st_ino):
            raise FailClosed("a walk out of the caller's own root")
        path = below + b"/" + rest if below else rest
        return _walk_in_root(root, path)
    finally:
        os.close(root)


def _walk_in_root(root, path):
    strict = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS
    try:
        return openat2(root, path, strict)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            _loop_or_magic(root, path, RESOLVE_IN_ROOT)
        raise


def _spelled(fd):
    return os.readlink(b"/proc/self/fd/%d" % fd)


def _below(top, path):
    """path relative to top (b"" for top itself), or None when it is not below it."""
    if path.endswith(b" (deleted)") or not path.startswith(b"/"):
        return None
    if top == b"/":
        return path.lstrip(b"/")
    if path == top:
        return b""
    return path[len(top) + 1 :] if path.startswith(top + b"/") else None


def _loop_or_magic(start, rest, resolve):
    """After ELOOP under RESOLVE_NO_MAGICLINKS: a real symlink loop is the caller's
    ELOOP too (return); a magic link on the way fails closed."""
    try:
        os.close(openat2(start, rest, resolve))
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return
    raise FailClosed("a path through another process's /proc entry")


def tgid_of(tid):
    """The thread group (process) id of thread tid, from /proc/TID/status."""
    with open(b"/proc/%d/status" % tid, "rb") as status:
        for line in status:
            if line.startswith(b"Tgid:"):
                return int(line.split()[1])
    raise OSError(errno.ESRCH, f"no Tgid for thread {tid}")


def _known(tid, head):
    """(the caller's own /proc entry, the rest, rest is walked in a root) for a spelling
    of /proc/self, /proc/thread-self, /proc/N or /dev/fd; None for any other head."""
    found = _KNOWN.match(_NEUTRAL.sub(b"/", head + b"/").rstrip(b"/") or b"/")
    if found is None:
        return None
    who, kind, devfd, rest = found.groups()
    if devfd is not None:
        who, kind = b"self", devfd
    if who == b"self":
        entry = b"/proc/%d/%s" % (tgid_of(tid), kind)
    elif who == b"thread-self":
        entry = b"/proc/%d/%s" % (tid, kind)
    else:  # a pid as the caller's own /proc numbers it: through its root
        entry = b"/proc/%d/root/proc/%s/%s" % (tid, who, kind)
    return entry, rest or b"", kind == b"root"


_own = []  # (st_dev, st_ino) of the supervisor's root, and its mount namespace's inode


def shares_root(tid):
    """Whether thread tid has the supervisor's root: the same directory in the same
    mount namespace (a chroot or another namespace makes '..' and '/' its own)."""
    if not _own:
        st = os.stat(b"/")
        _own.extend(((st.st_dev, st.st_ino), os.stat(b"/proc/self/ns/mnt").st_ino))
    try:
        st = os.stat(b"/proc/%d/root" % tid)
        ns = os.stat(b"/proc/%d/ns/mnt" % tid).st_ino
    except OSError:
        return False
    return (st.st_dev, st.st_ino) == _own[0] and ns == _own[1]
