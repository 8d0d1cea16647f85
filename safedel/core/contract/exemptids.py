"""Which directory each exempt root is: its device and inode, fixed once.

An exempt root is a directory, not a name. `mv "$TMPDIR" "$TMPDIR.old"; mv ~/project
"$TMPDIR"`, or a bind mount over "$TMPDIR", puts someone's project at the temp dir's
name, and the name alone would then have it deleted for real. So each root is fixed as
the (device, inode) of the directory its name led to: by `safedel run` when it starts
(its run record's `exemptIds`, core/contract/runrecord.py), by the bootstrap when a
shell starts (SAFEDEL_EXEMPT_IDS, which `safedel run` sets for its command too), and by
any other process when it first needs the root. A root that was no directory then (a
TMPDIR that did not exist yet) holds nothing exempt. core/policy/exemptroot.py judges
targets against them.

The value, in the record and in the variable alike, is a JSON object: each root as the
exempt list spells it -> "dev:ino" (decimal), or null for a root that was no directory.
A root it does not name is fixed at first need; an identity it cannot read makes that
root hold nothing. The Node shim reads the same (shims/node/exemptids.cjs), held to one
answer by tests/vectors/exemptids.json.
"""

import os
import stat

from .. import jsonl

VARIABLE = "SAFEDEL_EXEMPT_IDS"
RECORD_KEY = "exemptIds"
_DIGITS = frozenset("0123456789")
_learned = {}  # root -> identity, fixed at this process's first need of it


def parse(value):
    """{root: (dev, ino) or None} from the record's value (a dict) or the variable's
    text; None when it is no such object."""
    if isinstance(value, str):
        try:
            value = jsonl.loads(value)
        except (ValueError, RecursionError):
            return None
    if not isinstance(value, dict):
        return None
    return {root: _identity(text) for root, text in value.items()}


def _identity(text):
    if not isinstance(text, str):
        return None
    dev, colon, ino = text.partition(":")
    if not (colon and dev and ino and _DIGITS.issuperset(dev) and _DIGITS.issuperset(ino)):
        return None
    return int(dev), int(ino)


def encode(ids):
    """The record's value for {root: identity}: identities as "dev:ino" strings."""
    return {root: None if i is None else f"{i[0]}:{i[1]}" for root, i in ids.items()}


def variable(ids):
    """The variable's text for {root: identity}."""
    return jsonl.dumps(encode(ids))


def of_directory(root):
    """(dev, ino) of the directory root (str) leads to now, or None."""
    try:
        st = os.stat(root)
    except (OSError, ValueError):
        return None
    return (st.st_dev, st.st_ino) if stat.S_ISDIR(st.st_mode) else None


def snapshot(roots, known=None):
    """{root: identity} for each of roots: known's where it names the root, else the
    directory the root leads to now."""
    known = known or {}
    return {root: known[root] if root in known else of_directory(root) for root in roots}


def fixed(roots, known):
    """The identity (or None) of each of roots, in order: known's (a record's or the
    variable's, as pairs) where it names the root, else what this process found the
    first time it needed the root."""
    known = dict(known) if known else {}
    found = []
    for root in roots:
        if root in known:
            found.append(known[root])
            continue
        if root not in _learned:
            _learned[root] = of_directory(root)
        found.append(_learned[root])
    return tuple(found)
