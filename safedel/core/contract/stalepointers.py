"""Run pointers that outlived their run: found, and removed from every place.

A run removes its pointers (runpointer.py) when it ends. One that was killed (kill -9
of `safedel run`, of `safedel serve` with its runs) leaves them: a pointer whose
process is gone, or whose pid now names a later process, which nothing reads any more
(every reader checks the start time), but which says that a run did not end.
"""

import os

from . import runpointer


def dead():
    """{name: pointer (a dict, or None when unreadable)} of the pointers, in the first
    place that opens, whose process is gone: runs that did not end (a run leaves its
    pointer in every place that takes one)."""
    for root, parts in runpointer.places():
        try:
            folder = runpointer.open_place(root, parts, create=False)
        except OSError:
            continue
        with folder:
            found = {}
            for name in folder.listdir():
                pid, dash, started = name.partition("-")
                if not (dash and pid.isdigit() and started.isdigit()):
                    continue  # not a pointer's name
                if _gone(pid, started):
                    found[name] = runpointer.read_pointer([folder], name)
            return found
    return {}


def _gone(pid, started):
    """Whether process pid, started at that time, has ended (a zombie has)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return True
    return fields[0] in (b"Z", b"X") or fields[19] != started.encode("ascii")


def forget(names):
    """Remove the pointers of these names (`<pid>-<start time>`) from every place."""
    for root, parts in runpointer.places() if names else ():
        try:
            folder = runpointer.open_place(root, parts, create=False)
        except OSError:
            continue
        with folder:
            for name in names:
                try:
                    folder.unlink(name)
                except OSError:
                    pass


def trash_roots(pointer):
    """The trash dirs (bytes) a run's pointer names: its home trash and trash dir."""
    if not isinstance(pointer, dict):
        return []
    found = [pointer.get("homeTrash"), pointer.get("trashDir")]
    return [os.fsencode(p) for p in found if isinstance(p, str) and os.path.isabs(p)]
