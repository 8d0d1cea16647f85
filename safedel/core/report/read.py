"""Reading the JSON-lines report back (core/report/write.py writes it): every segment,
oldest first, or what came after a mark, since a time, or with given fields.

A torn or garbled line is skipped with a warning, never an error.
"""

import os
import sys

from .. import jsonl
from ..private import open_private


def read(path, warn=None, offset=0):
    """Yield each event of the report, every segment oldest first (or, with an offset,
    only the current file from that byte on); a torn or garbled line is skipped with a
    warning."""
    if offset:
        yield from _read_file(path, offset, warn or _warn)
        return
    from . import segments

    for name in segments.all_files(path):
        yield from _read_file(name, 0, warn or _warn)


def read_after(path, mark, warn=None):
    """The events appended since reportfiles.position(path) returned mark, even across
    a rotation in between."""
    from . import segments

    for name, offset in segments.files_after(path, mark):
        yield from _read_file(name, offset, warn or _warn)


def read_since(path, cutoff_ms, warn=None):
    """Events with a timestamp from cutoff_ms on, found by bisecting each file."""
    from . import segments

    for name, offset in segments.files_since(path, cutoff_ms):
        for record in _read_file(name, offset, warn or _warn, skip_first_partial=bool(offset)):
            if (record.get("timestamp") or 0) >= cutoff_ms:
                yield record


def read_matching(path, warn=None, **fields):
    """Events whose fields equal the given values (session=..., turn=...), found by
    searching each file's bytes for the exact JSON and parsing only those lines."""
    from . import segments

    needles = [segments.field(name, value) for name, value in fields.items()]
    for name in segments.all_files(path):
        for line in segments.matching_lines(name, needles):
            record = _parse(line)
            if record is None:
                (warn or _warn)(f"{os.fsdecode(name)}: skipped a garbled report line")
            elif all(record.get(k) == v for k, v in fields.items()):
                yield record


def _parse(line):
    # The CLI has the C json parser loaded already, many times faster on a long
    # history; the shims' hot paths never import it, and use jsonl.
    decoder = sys.modules.get("json")
    try:
        record = decoder.loads(line) if decoder is not None else jsonl.loads(line)
    except ValueError:
        return None
    return record if isinstance(record, dict) and "operation" in record else None


def _read_file(path, offset, warn, skip_first_partial=False):
    try:
        fd = open_private(path, os.O_RDONLY, create_parent=False)
    except FileNotFoundError:
        return
    try:
        handle = os.fdopen(fd, "rb")
    except OSError as exc:  # a directory opens, and fails here: name the path, not the fd
        os.close(fd)
        raise OSError(exc.errno, exc.strerror, path) from None
    with handle:
        handle.seek(offset)
        if skip_first_partial:
            handle.readline()  # entered mid-line by a bisection
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            record = _parse(line)
            if record is None:
                warn(f"{os.fsdecode(path)}:{number}: skipped a garbled report line")
                continue
            yield record


def _warn(message):
    sys.stderr.write(f"safedel: warning: {message}\n")
