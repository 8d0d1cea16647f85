"""The config files a person confirmed: the record `safedel config trust` keeps.

A config file is as much a command's to write as a person's: a command under `safedel
run` can put `workspace = ["/"]` in `.safedel/config.local.toml`, or `threshold = 99999`
in the user config, as easily as anyone. So what a file widens applies only while its
content is what a person read and confirmed at a terminal (core/contract/userconfig.py
and core/policy/scopes.py apply that rule; safedel/commands/config.py confirms).

<state dir>/confirmed.json holds, for each file path, the text that was confirmed, its
sha256, the file's device, inode and owner at that moment, and its workspace roots as
they resolved then (core/policy/scopes.py: a root counts where the person saw it, not
where its name leads once a command has swapped a folder for a symlink). A file is confirmed
while its content is that text, byte for byte: the content is what the person read, so
neither a new inode (an editor saving by rename) nor a symlink changes the answer, and
no digest needs computing to give it. The record is private state, 0600 in the 0700
state dir, written whole by rename, read without following symlinks; one that cannot
be read confirms nothing, which only narrows.
"""

import os
import stat

from .. import jsonl
from ..private import open_dir

RECORD = "confirmed.json"
VERSION = 1
MAX_BYTES = 1 << 20  # a config file is a few lines; anything this big is not one
_O_READ = os.O_RDONLY | getattr(os, "O_CLOEXEC", 0)
# A FIFO put where a config file goes must not hang every deletion: opened without
# waiting, and read only when it is a regular file.
_O_CONFIG = _O_READ | getattr(os, "O_NONBLOCK", 0)
# state dir -> ((device, inode, size, mtime), {path: entry}): read once per change.
_records = {}


def read_text(path):
    """The config file's content as text, or None: missing, unreadable, too big, or not
    UTF-8: such a file sets nothing."""
    return read(path)[0]


def read(path):
    """(read_text's answer, the file's fstat or None), from one descriptor."""
    try:
        fd = os.open(path, _O_CONFIG)
    except (OSError, ValueError):
        return None, None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return None, info
        chunks, size = [], 0
        while size <= MAX_BYTES:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError:
        return None, None
    finally:
        os.close(fd)
    if size > MAX_BYTES:
        return None, info
    try:
        return b"".join(chunks).decode("utf-8"), info
    except UnicodeDecodeError:
        return None, info


def records(state_dir):
    """{path: entry} of the files confirmed in state_dir ({} when there is no record, or
    it is damaged: then nothing is confirmed)."""
    if not state_dir:
        return {}
    try:
        with open_dir(state_dir, [], create_dirs=False) as directory:
            fd = directory.open(RECORD, _O_READ | getattr(os, "O_NONBLOCK", 0))
    except OSError:
        _records.pop(state_dir, None)
        return {}
    try:
        info = os.fstat(fd)
        key = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)
        known = _records.get(state_dir)
        if known is not None and known[0] == key:
            return known[1]
        data = _read_regular(fd, info)
    finally:
        os.close(fd)
    files = _valid(data)
    _records[state_dir] = (key, files)
    return files


def _read_regular(fd, info):
    """The record's bytes from fd, or b"" when it is not a regular file (a directory or
    a FIFO planted where the record goes) or cannot be read."""
    if not stat.S_ISREG(info.st_mode):
        return b""
    chunks, size = [], 0
    try:
        while size <= MAX_BYTES * 4:
            chunk = os.read(fd, 65536)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError:
        return b""
    return b"".join(chunks)


def _valid(data):
    try:
        found = jsonl.loads(data)
    except ValueError:
        return {}
    if not isinstance(found, dict) or found.get("v") != VERSION:
        return {}
    files = found.get("files")
    if not isinstance(files, dict):
        return {}
    return {
        path: entry
        for path, entry in files.items()
        if isinstance(entry, dict) and isinstance(entry.get("text"), str)
    }


def kept(path, state_dir):
    """What a person last confirmed for the file at path (its record entry: "text", and
    "roots" and "relative" for its workspace roots), or None."""
    return records(state_dir).get(os.path.abspath(path))


def kept_text(path, state_dir):
    """The text a person last confirmed for the file at path, or None."""
    entry = kept(path, state_dir)
    return None if entry is None else entry["text"]


def kept_roots(entry):
    """(the real paths of the workspace roots confirmed with entry, the entries of the
    user config relative to where a command starts, confirmed as text)."""
    found = []
    for value in (entry.get("roots"), entry.get("relative")):
        value = value if isinstance(value, list) else []
        found.append([v for v in dict.fromkeys(value) if isinstance(v, str)])
    return found[0], found[1]


def confirm(state_dir, path, text, info, roots=(), relative=()):
    """Record that a person confirmed text as the content of the file at path (info: its
    fstat when it was read), and its workspace roots where they were when the person
    saw them: roots, their real paths; relative, the entries of the user config that
    name a folder relative to where a command starts. safedel/commands/configview.py
    calls this, outside any run, with a person at the terminal."""
    import hashlib

    entry = {
        "text": text,
        "sha256": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        "dev": info.st_dev,
        "ino": info.st_ino,
        "uid": info.st_uid,
        "roots": list(roots),
        "relative": list(relative),
    }
    _update(state_dir, os.path.abspath(path), entry)


def forget(state_dir, path):
    """Drop the confirmation of the file at path, which a person took away: from then on
    the defaults apply in its place."""
    _update(state_dir, os.path.abspath(path), None)


def _update(state_dir, path, entry):
    """Set path's entry (None: remove it), the record rewritten whole by rename."""
    with open_dir(state_dir, []) as directory:
        try:
            fd = directory.open(RECORD, _O_READ | getattr(os, "O_NONBLOCK", 0))
        except FileNotFoundError:
            files = {}
        else:
            try:
                files = _valid(_read_regular(fd, os.fstat(fd)))
            finally:
                os.close(fd)
        if entry is None:
            files.pop(path, None)
        else:
            files[path] = entry
        data = jsonl.dumps({"v": VERSION, "files": files}).encode("ascii")
        temporary = f".{RECORD}.{os.getpid()}.tmp"
        directory.write(temporary, data)
        directory.replace(temporary, RECORD)
    _records.pop(state_dir, None)


class Standing:
    """Where one config file stands: its text now (None: no file, or none safedel
    reads), the text a person confirmed (None: never), and whether they are the same.
    A file that is gone keeps what was confirmed for it: taking it away is a change."""

    __slots__ = ("path", "text", "kept")

    def __init__(self, path, text, kept):
        self.path, self.text, self.kept = path, text, kept

    @property
    def confirmed(self):
        return self.text is not None and self.text == self.kept


_UNREAD = object()


def standing(path, state_dir, text=_UNREAD):
    """The Standing of the config file at path (text: read_text's answer, if read)."""
    if text is _UNREAD:
        text = read_text(path)
    return Standing(path, text, kept_text(path, state_dir))
