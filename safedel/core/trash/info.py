"""The .trashinfo format and trash-entry names (freedesktop trash spec 1.0).

Pure functions over bytes, shared with the Node engine through tests/vectors/.
"""

import os
import time

NAME_MAX = 255
INFO_SUFFIX = b".trashinfo"
# The longest name in files/ whose info file name still fits in NAME_MAX.
ENTRY_NAME_MAX = NAME_MAX - len(INFO_SUFFIX)
_UNRESERVED = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~/")
_HEX = b"0123456789ABCDEF"


def encode_path(raw):
    """Percent-encode every byte outside RFC 3986's unreserved set, keeping '/'."""
    out = bytearray()
    for byte in raw:
        if byte in _UNRESERVED:
            out.append(byte)
        else:
            out += b"%" + _HEX[byte >> 4 : (byte >> 4) + 1] + _HEX[byte & 15 : (byte & 15) + 1]
    return bytes(out)


def decode_path(encoded):
    out = bytearray()
    i = 0
    while i < len(encoded):
        byte = encoded[i]
        if byte == 0x25 and i + 2 < len(encoded) and _is_hex(encoded[i + 1 : i + 3]):
            out.append(int(encoded[i + 1 : i + 3], 16))
            i += 3
        else:
            out.append(byte)
            i += 1
    return bytes(out)


def _is_hex(pair):
    return len(pair) == 2 and all(c in b"0123456789abcdefABCDEF" for c in pair)


def deletion_date(now=None):
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(now)).encode("ascii")


def render(path_field, date):
    """path_field is already what goes after Path= (absolute, or relative to a topdir)."""
    return b"[Trash Info]\nPath=" + encode_path(path_field) + b"\nDeletionDate=" + date + b"\n"


def parse(content):
    """Return (path_bytes, date_str) or raise ValueError for a malformed info file."""
    lines = content.splitlines()
    if not lines or lines[0].strip() != b"[Trash Info]":
        raise ValueError("missing [Trash Info] header")
    path = date = None
    for line in lines[1:]:
        if line.startswith(b"Path=") and path is None:
            path = decode_path(line[5:].strip())
        elif line.startswith(b"DeletionDate=") and date is None:
            date = line[13:].strip().decode("ascii", "replace")
    if not path:
        raise ValueError("no Path= line")
    return path, date or ""


def well_formed(content):
    """Whether content is an info file as safedel and other trash tools write it: a
    `[Trash Info]` line, one Path= (percent-encoded) and at most one DeletionDate=, or
    nothing yet (a move creates the file before it writes it). A file of the user's
    that is named like one is not: what removes orphans for real checks this first."""
    if not content:
        return content == b""
    lines = [line.rstrip(b"\r") for line in content.split(b"\n")]
    if lines[0] != b"[Trash Info]":
        return False
    seen = set()
    for line in lines[1:]:
        if not line:
            continue
        key, equals, value = line.partition(b"=")
        if not equals or key not in (b"Path", b"DeletionDate") or key in seen:
            return False
        if not all(0x21 <= byte <= 0x7E for byte in value):  # percent-encoded, or a date
            return False
        seen.add(key)
    return b"Path" in seen


def why_not_plain(name):
    """Why name (bytes) cannot be a trash entry's name, or None: an entry is one plain
    component of files/, so `files/` + name never reaches files/ itself, the trash dir
    or anything below another entry. An info file `.trashinfo` names the entry ``,
    `..trashinfo` names `.`, `...trashinfo` names `..`."""
    if name in (b"", b".", b".."):
        return f"its name {name.decode('ascii')!r} is not a plain name"
    if b"/" in name or b"\0" in name:
        return "its name holds '/' or NUL"
    return None


def _truncate(name, limit):
    """Cut name to at most limit bytes without splitting a UTF-8 sequence."""
    if len(name) <= limit:
        return name
    cut = name[:limit]
    # Step back over continuation bytes, then over the lead byte they belonged to.
    end = len(cut)
    while end > 0 and (cut[end - 1] & 0xC0) == 0x80:
        end -= 1
    if end > 0 and cut[end - 1] >= 0xC0:
        lead = cut[end - 1]
        need = 2 if lead < 0xE0 else 3 if lead < 0xF0 else 4
        if len(cut) - (end - 1) < need:
            cut = cut[: end - 1]
    return cut or name[:limit]


def entry_name(basename, token=None):
    """The entry name in files/: the name itself (token None), else name + '.' + token,
    cut so that its info file name fits NAME_MAX."""
    if token is None:
        return _truncate(basename, ENTRY_NAME_MAX)
    suffix = b"." + token
    return _truncate(basename, ENTRY_NAME_MAX - len(suffix)) + suffix


def collision_token():
    """A fresh suffix for a name already taken: 8 random hex digits. Counting up
    (name.2, name.3, ...) probed every earlier number, so the 3,000th `conftest.c`
    cost 3,000 probes; a random token costs one more probe whatever came before, and
    O_EXCL still settles the rare clash (the caller draws again)."""
    return os.urandom(4).hex().encode("ascii")


def candidate_names(basename):
    """Entry names to try in files/: the name, then name.<token> with a fresh token each
    time, each fitting NAME_MAX."""
    yield entry_name(basename)
    while True:
        yield entry_name(basename, collision_token())
