"""The JSON-lines report: one event per line, appended with one O_APPEND write.

The writing half stays here, with the rotation of a full report into segments; reading
it back (core/report/read.py, over the segments of core/report/segments.py) is loaded only
by readers: a launcher appends. report.read, .read_after, .read_since and
.read_matching lead there.
"""

import errno
import os
import time

from .. import jsonl
from ..contract import host
from ..private import EXCLUSIVE, Held, open_private

SCHEMA_VERSION = 1
_READERS = frozenset(("read", "read_after", "read_since", "read_matching"))


def __getattr__(name):
    if name in _READERS:
        from . import read

        return getattr(read, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


SEGMENT_BYTES = 64 * 1024 * 1024


def event(operation, settings, runtime, **fields):
    record = {"v": SCHEMA_VERSION, "operation": operation}
    record.update(fields)
    record.update(
        {
            "runtime": runtime,
            "timestamp": int(time.time() * 1000),
            "session": settings.session,
            "turn": settings.turn,
            "toolCall": settings.tool_call,
            "pid": os.getpid(),
            "host": host.current().name,
        }
    )
    run = getattr(settings, "run", None) or os.environ.get("SAFEDEL_RUN_ID")
    if run:  # the `safedel run` this process is under: its result lists exactly these
        record["run"] = run
    return record


def encode(record):
    # ensure_ascii keeps every line pure ASCII: a non-UTF-8 name (a lone surrogate
    # after fsdecode) or a newline in a name cannot break the line.
    return (jsonl.dumps(record) + "\n").encode("ascii")


# The report descriptor this process keeps open: [(path, Held)].
_held = []
_FLAGS = os.O_WRONLY | os.O_APPEND | os.O_CREAT


def _report_fd(path):
    """An O_APPEND descriptor for path, reused while it is still ours and path still
    names its file (a report moved aside or deleted gets a new file, as a fresh process
    would). Called with EXCLUSIVE held, not nested."""
    if _held:
        held_path, held = _held[0]
        info = held.stat()
        if info is not None and held_path == path:
            try:
                current = os.lstat(path)
                if (current.st_dev, current.st_ino) == held.identity:
                    return held.fd
            except OSError:
                pass
        _held.clear()
        held.close()  # only if still ours
    held = Held(open_private(path, _FLAGS))
    _held.append((path, held))
    return held.fd


def _write(fd, data):
    # A torn line (a full disk) is skipped by readers, with a warning.
    if os.write(fd, data) != len(data):
        raise OSError(errno.ENOSPC, "short write: the disk is full")


def append(path, records):
    """Append records to the report at path. One write call for the whole batch."""
    if not path or not records:
        return
    data = b"".join(encode(r) for r in records)
    with EXCLUSIVE as nested:
        if nested:  # re-entered mid-append: a descriptor of its own
            fd = open_private(path, _FLAGS)
            try:
                _write(fd, data)
            finally:
                os.close(fd)
            return
        fd = _report_fd(path)
        try:
            _write(fd, data)
        except OSError:
            # A full disk leaves the descriptor good, so it is kept; one that is no
            # longer ours is forgotten, and never closed.
            if _held and _held[0][1].stat() is None:
                _held.clear()
            raise
        if rotate_if_full(path, fd) and _held:
            _, held = _held.pop()
            held.close()  # the next append opens the new current file


def segment_limit():
    raw = os.environ.get("SAFEDEL_REPORT_SEGMENT_BYTES", "")
    return int(raw) if raw.isdigit() and int(raw) > 0 else SEGMENT_BYTES


def rotate_if_full(path, fd):
    """After an append through fd: move a full report aside as a segment. True if done."""
    try:
        st = os.fstat(fd)
        if st.st_size <= segment_limit():
            return False
        current = os.lstat(path)
        if (current.st_dev, current.st_ino) != (st.st_dev, st.st_ino):
            return False  # another process rotated it already
        # Nanoseconds: two rotations within one millisecond still sort in order.
        os.rename(path, os.fsencode(path) + b".%019d-%d" % (time.time_ns(), st.st_ino))
        return True
    except OSError:
        return False
