"""Whether a file the net would leave to the kernel holds what safedel writes there.

A name proves nothing: a command can give any file any name, in any folder it can
write, safedel's own trash and state included. So before the kernel deletes a file of
safedel's bookkeeping for real, the net reads it through the caller's own directory
descriptor (a regular file of this uid, never through a link, a few bytes to a few
megabytes) and asks whether it is what safedel writes at that place: a trash info
file, the spec's directorysizes cache, safedel's catalog cache, a run pointer naming
its own process, a JSON object or JSON lines. Anything else is a file of the user's,
and is judged like any other (trashed, or refused with a marker).
"""

import json
import os
import stat

from ..core.trash import info

SMALL = 64 * 1024
LEDGER_MAX = 32 * 1024 * 1024  # a turn's ledger: one short line per deletion call
_OPEN = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC
_CATALOG = b"safedel catalog "  # core safedel/trash/catalogcache.py's MAGIC, any version


def read(entry, limit=SMALL):
    """The bytes of the regular file of ours at entry (parent descriptor, name), or
    None: not there, not a regular file (a device is never opened), another owner's,
    or longer than limit."""
    parent_fd, name = entry
    try:
        st = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
        if not _ours(st, limit):
            return None
        fd = os.open(name, _OPEN, dir_fd=parent_fd)
    except OSError:
        return None
    try:
        now = os.fstat(fd)
        if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino) or not _ours(now, limit):
            return None
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, limit + 1 - size)
            if not chunk:
                return b"".join(chunks)
            chunks.append(chunk)
            size += len(chunk)
        return None  # it grew past the limit meanwhile
    except OSError:
        return None
    finally:
        os.close(fd)


def _ours(st, limit):
    return stat.S_ISREG(st.st_mode) and st.st_uid == os.getuid() and st.st_size <= limit


def trash_info(content):
    """A trash info file, or an empty one (core/trash/info.py's well_formed)."""
    return content is not None and info.well_formed(content)


def _plain(value):
    """Printable ASCII without spaces: a percent-encoded name."""
    return all(0x21 <= byte <= 0x7E for byte in value)


def directory_sizes(content):
    """The spec's directorysizes cache: `size mtime percent-encoded-name` lines."""
    if content is None:
        return False
    for line in content.split(b"\n"):
        if not line:
            continue
        fields = line.split(b" ")
        if len(fields) != 3 or not (fields[0].isdigit() and fields[1].isdigit()):
            return False
        if not fields[2] or not _plain(fields[2]):
            return False
    return True


def catalog(content):
    """safedel's catalog cache, or its temporary file (written from the magic on)."""
    if content is None:
        return False
    return not content or content.startswith(_CATALOG) or _CATALOG.startswith(content)


def run_pointer(content, pid):
    """A run pointer (core/contract/runpointer.py) that process pid left for itself:
    a JSON object naming a run and that pid."""
    record = _object(content) or {}
    named = record.get("pid")
    return type(named) is int and named == pid and isinstance(record.get("run"), str)


def json_object(content):
    """One JSON object (a guard signal)."""
    return _object(content) is not None


def json_lines(content):
    """JSON lines, each an object (a guard ledger, or a signal)."""
    if content is None:
        return False
    return all(_object(line) is not None for line in content.split(b"\n") if line.strip())


def _object(content):
    if not content:
        return None
    try:
        found = json.loads(content)
    except ValueError:  # UnicodeDecodeError included
        return None
    return found if isinstance(found, dict) else None
