"""Trash entries that lost half of themselves, and their repair.

An info file without its payload is left when a process is killed between creating
the info file and the rename (or mid-purge): trash-list shows an entry that cannot be
restored. A young one may be a trash in flight in another process, so only those older
than ten minutes are removed. A payload without an info file is never deleted: it is
listed, and `safedel restore --orphan NAME --to PATH` can put it back.
"""

import os
import time

from . import info as trashinfo

GRACE_SECONDS = 600
SWEEP_EVERY_SECONDS = 3600


def scan(root, now=None):
    """(info files older than the grace without a payload, payload names without info)."""
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
        try:
            if now - os.lstat(path).st_mtime > GRACE_SECONDS:
                stale.append(path)
        except OSError:
            continue
    return stale, sorted(payloads - named)


def repair(root, now=None):
    """Remove root's stale info files; return (removed, payloads without info)."""
    stale, lonely = scan(root, now)
    removed = []
    for path in stale:
        # Re-check just before: a payload that arrived meanwhile keeps its info file.
        name = os.path.basename(path)[: -len(trashinfo.INFO_SUFFIX)]
        if os.path.lexists(os.path.join(root, b"files", name)):
            continue
        try:
            os.unlink(path)
            removed.append(path)
        except OSError:
            continue
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
