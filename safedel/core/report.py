"""The JSON-lines report: one event per line, appended with one O_APPEND write."""

import errno
import os
import sys
import time

from . import host, jsonl
from .private import EXCLUSIVE, Held, open_private

SCHEMA_VERSION = 1


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
    run = os.environ.get("SAFEDEL_RUN_ID")
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


def read(path, warn=None, offset=0):
    """Yield each event of the report (from byte offset on); a torn or garbled line is
    skipped with a warning."""
    warn = warn or _warn
    try:
        fd = open_private(path, os.O_RDONLY, create_parent=False)
    except FileNotFoundError:
        return
    with os.fdopen(fd, "rb") as handle:
        handle.seek(offset)
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                record = jsonl.loads(line)
            except ValueError:
                record = None
            if not isinstance(record, dict) or "operation" not in record:
                warn(f"{os.fsdecode(path)}:{number}: skipped a garbled report line")
                continue
            yield record


def _warn(message):
    sys.stderr.write(f"safedel: warning: {message}\n")
