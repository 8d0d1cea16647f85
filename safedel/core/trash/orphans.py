"""Trash entries that lost half of themselves, and their repair.

An info file without its payload is left when a process is killed between creating
the info file and the rename (or mid-purge): trash-list shows an entry that cannot be
restored. One whose mover is known to be gone (inflight.py: still read-only, and its
lock free) is removed at once; any other may be a trash in flight in another process
(the Node shim's, which cannot lock), so only those older than ten minutes are. What
is removed must read as an info file (info.well_formed): a file of the user's named
like one stays. A payload without an info file is never deleted: it is listed, and
`safedel restore --orphan NAME --to PATH` can put it back.
"""

import os
import stat
import time

from . import inflight
from . import info as trashinfo

GRACE_SECONDS = 600
SWEEP_EVERY_SECONDS = 3600
_OPEN = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
_OPEN |= getattr(os, "O_CLOEXEC", 0)
_INFO_MAX = 64 * 1024


def scan(root, now=None):
    """(info files without a payload that a sweep removes now, payload names without
    info)."""
    now = time.time() if now is None else now
    info_dir, files_dir = os.path.join(root, b"info"), os.path.join(root, b"files")
    try:
        infos = [n for n in os.listdir(info_dir) if n.endswith(trashinfo.INFO_SUFFIX)]
    except OSError:
        infos = []
    try:
        payloads = set(os.listdir(files_dir))
    except OSError:
        payloads = set()
    stale, named = [], set()
    for info in infos:
        name = info[: -len(trashinfo.INFO_SUFFIX)]
        named.add(name)
        if name in payloads:
            continue
        path = os.path.join(info_dir, info)
        fd = _sweepable(path, now)
        if fd is not None:
            os.close(fd)  # its lock goes with it: repair() takes it again
            stale.append(path)
    return stale, sorted(payloads - named)


def _sweepable(path, now):
    """A descriptor holding the lock of the info file at path when a sweep may remove
    it now (an info file whose mover is gone, or older than the grace), else None."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return None  # a device is never opened, whatever its name
        fd = os.open(path, _OPEN)
    except OSError:
        return None
    try:
        if not inflight.lock(fd):
            raise OSError  # a move under way
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or not _still(path, st):
            raise OSError
        if not inflight.abandoned(st) and now - st.st_mtime <= GRACE_SECONDS:
            raise OSError  # one that may be under way (a mover that cannot lock)
        content = os.read(fd, _INFO_MAX + 1)
        if len(content) > _INFO_MAX or not trashinfo.well_formed(content):
            raise OSError  # not an info file, whatever its name
    except OSError:
        os.close(fd)
        return None
    return fd


def _still(path, st):
    """Whether path still names the file st describes."""
    try:
        now = os.lstat(path)
    except OSError:
        return False
    return (now.st_dev, now.st_ino) == (st.st_dev, st.st_ino)


def repair(root, now=None):
    """Remove root's stale info files; return (removed, payloads without info)."""
    now = time.time() if now is None else now
    stale, lonely = scan(root, now)
    removed = []
    for path in stale:
        fd = _sweepable(path, now)  # held locked: no other sweep acts on it meanwhile
        if fd is None:
            continue
        try:
            # Re-checked just before: a payload that arrived meanwhile keeps its info
            # file, and only the very file judged goes.
            name = os.path.basename(path)[: -len(trashinfo.INFO_SUFFIX)]
            if os.path.lexists(os.path.join(root, b"files", name)):
                continue
            if _still(path, os.fstat(fd)):
                os.unlink(path)
                removed.append(path)
        except OSError:
            continue
        finally:
            os.close(fd)
    return removed, lonely


def repair_all(now=None):
    """repair() on every trash dir safedel can see: [(root, removed, lonely)]."""
    from . import visible

    return [(root, *repair(root, now)) for root in visible.visible_trash_dirs()]


def sweep_if_due(root, state_dir, now=None):
    """repair(root) at most once an hour per trash dir (a stamp under the state dir)."""
    now = time.time() if now is None else now
    stamp_dir = os.path.join(os.fsencode(state_dir), b"orphan-sweeps")
    stamp = os.path.join(stamp_dir, b"%08x" % _fnv1a(root))
    try:
        if now - os.stat(stamp).st_mtime < SWEEP_EVERY_SECONDS:
            return
    except OSError:
        pass
    try:
        os.makedirs(stamp_dir, mode=0o700, exist_ok=True)
        with open(stamp, "wb"):
            pass
        os.utime(stamp, (now, now))
    except OSError:
        return
    repair(root, now)


def _fnv1a(data):
    """A 32-bit name for a trash dir's stamp: after every trash, so no zlib to load."""
    value = 0x811C9DC5
    for byte in data:
        value = ((value ^ byte) * 0x01000193) & 0xFFFFFFFF
    return value


_swept = set()


def after_trash(trash_path, state_dir):
    """Called once an item is in the trash: sweep that trash dir if an hour has passed.
    Costs one stat per trash dir per process."""
    root = os.path.dirname(os.path.dirname(os.fsencode(trash_path)))
    if root in _swept:
        return
    _swept.add(root)
    try:
        sweep_if_due(root, state_dir)
    except OSError:
        pass
