"""The JSON-lines report: one event per line, appended with one O_APPEND write."""

import os
import sys
import time

from . import jsonl
from .private import open_private

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
        }
    )
    return record


def encode(record):
    # ensure_ascii keeps every line pure ASCII: a non-UTF-8 name (a lone surrogate
    # after fsdecode) or a newline in a name cannot break the line.
    return (jsonl.dumps(record) + "\n").encode("ascii")


# The report descriptor this process keeps open: (path, fd, (st_dev, st_ino)).
_held = []


def _report_fd(path):
    """An O_APPEND descriptor for path, reused while path still names the same file
    (a report moved aside or deleted gets a new file, as a fresh process would)."""
    if _held:
        held_path, fd, identity = _held[0]
        try:
            info = os.fstat(fd)
            current = os.lstat(path)
            same = (info.st_dev, info.st_ino) == identity == (current.st_dev, current.st_ino)
            if held_path == path and same:
                return fd
        except OSError:
            pass
        _held.clear()
        try:
            os.close(fd)
        except OSError:
            pass
    fd = open_private(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
    info = os.fstat(fd)
    _held.append((path, fd, (info.st_dev, info.st_ino)))
    return fd


def append(path, records):
    """Append records to the report at path. One write call for the whole batch."""
    if not path or not records:
        return
    data = b"".join(encode(r) for r in records)
    fd = _report_fd(path)
    try:
        os.write(fd, data)
    except OSError:
        _held.clear()
        os.close(fd)
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
