"""Where workspace roots are written down: `workspace = [...]` in a config file, and a
per-session list under the state directory.

The config files are TOML, but core/ must run on Python 3.9, which has no tomllib; the
one array we need is read and rewritten here, and every other line is left as it was.
"""

import os

from .. import jsonl
from ..private import digest, open_dir

KEY = "workspace"
SESSIONS = "workspaces"


def _strings(text):
    """The quoted strings in text, in order ('...' literal, "..." with \\ escapes)."""
    found, index = [], 0
    while index < len(text):
        quote = text[index]
        if quote == "#":
            index = text.find("\n", index)
            if index < 0:
                break
        elif quote in "'\"":
            end, value = index + 1, []
            while end < len(text) and text[end] != quote:
                if quote == '"' and text[end] == "\\" and end + 1 < len(text):
                    end += 1
                value.append(text[end])
                end += 1
            found.append("".join(value))
            index = end
        index += 1
    return found


def _span(lines):
    """(first, last) line numbers of the top-level `workspace = [...]`, or None."""
    for number, line in enumerate(lines):
        stripped = line.strip()
        if stripped.startswith("["):
            return None  # a table starts: the key belongs to the top level only
        name, equals, value = stripped.partition("=")
        if not equals or name.strip() != KEY:
            continue
        value = value.split("#", 1)[0]
        last, depth = number, value.count("[") - value.count("]")
        while depth > 0 and last + 1 < len(lines):
            last += 1
            code = lines[last].split("#", 1)[0]
            depth += code.count("[") - code.count("]")
        return number, last
    return None


def read_list(path):
    """The strings of `workspace = [...]` in the file at path ([] when absent)."""
    try:
        with open(path, encoding="utf-8") as handle:
            return parse_list(handle.read())
    except (OSError, UnicodeDecodeError):
        return []


def parse_list(text):
    """The strings of the top-level `workspace = [...]` in a config file's text."""
    lines = text.splitlines()
    span = _span(lines)
    if span is None:
        return []
    text = "\n".join(lines[span[0] : span[1] + 1])
    return _strings(text.partition("=")[2])


def _quote(value):
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def write_list(path, values):
    """Set `workspace = [...]` in the file at path, keeping every other line."""
    try:
        with open(path, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    except FileNotFoundError:
        lines = []
    line = f"{KEY} = [{', '.join(_quote(v) for v in values)}]"
    span = _span(lines)
    if span is not None:
        lines[span[0] : span[1] + 1] = [line]
    else:
        lines.insert(0, line)  # before any [table], so it stays a top-level key
    os.makedirs(os.path.dirname(path) or ".", exist_ok=True)
    temporary = f"{path}.{os.getpid()}.tmp"
    with open(temporary, "w", encoding="utf-8") as handle:
        handle.write("\n".join(lines) + "\n")
    os.replace(temporary, path)


def _session_parts(session):
    return [SESSIONS, digest(session) + ".json"]


def read_session(state_dir, session):
    """The roots `workspace add --scope session` stored for session."""
    parts = _session_parts(session)
    name = parts.pop()
    try:
        with open_dir(state_dir, parts, create_dirs=False) as directory:
            fd = directory.open(name, os.O_RDONLY)
        with os.fdopen(fd, "rb") as handle:
            record = jsonl.loads(handle.read())
    except (OSError, ValueError):
        return []
    roots = record.get("roots") if isinstance(record, dict) else None
    return [r for r in roots if isinstance(r, str)] if isinstance(roots, list) else []


def write_session(state_dir, session, roots):
    """Store session's roots (0600 in 0700 directories, replaced whole by rename)."""
    parts = _session_parts(session)
    name = parts.pop()
    data = jsonl.dumps({"session": session, "roots": list(roots)}).encode("ascii")
    temporary = f".{name}.{os.getpid()}.tmp"
    with open_dir(state_dir, parts) as directory:
        directory.write(temporary, data)
        directory.replace(temporary, name)
