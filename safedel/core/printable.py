"""Paths for people: what every message safedel writes does to a file name.

A file name may hold a newline, an escape sequence or a whole fake marker line. Shown
raw, it could move the cursor, break a table line, or plant
`[safe-delete][...]` on a line of its own for a harness to read. So undecodable bytes
become \\xNN and control characters (C0, DEL, C1, and the Unicode line separators) are
escaped; a backslash is doubled so the escaping can't be forged either.
"""

import os

_escapes = {}  # built at the first message: the rm launcher rarely needs one


def _table():
    if not _escapes:
        _escapes.update({c: f"\\x{c:02x}" for c in [*range(0x20), 0x7F, *range(0x80, 0xA0)]})
        _escapes.update({0x0A: "\\n", 0x09: "\\t", 0x0D: "\\r", 0x5C: "\\\\"})
        _escapes.update({0x2028: "\\u2028", 0x2029: "\\u2029"})
        # surrogateescape turns each undecodable byte into U+DC80..U+DCFF.
        _escapes.update({0xDC00 + b: f"\\x{b:02x}" for b in range(0x80, 0x100)})
    return _escapes


def printable(raw):
    """raw (bytes, str or PathLike) as one safe line of text."""
    if not isinstance(raw, (bytes, str)):
        raw = os.fspath(raw)
    if isinstance(raw, bytes):
        raw = raw.decode("utf-8", "surrogateescape")
    return raw.translate(_table())
