"""The record `safedel run` leaves for the processes it starts.

<state>/runs/<run id>/run.json holds the run's session, turn, tool call, threshold,
state dir and report, and its deletion policy (workspace roots, exempt roots and the
directory each was, the outside-workspace choice, the trash, whether a terminal
question may be asked), fixed when the run started (its pointers,
core/contract/runpointer.py, hold the same). Shims under the
run take these from the record rather than from their environment, so a command that
sets SAFEDEL_THRESHOLD, SAFEDEL_TURN, SAFEDEL_STATE_DIR, SAFEDEL_EXEMPT(_IDS),
SAFEDEL_WORKSPACE_ROOTS or XDG_DATA_HOME for itself still deletes under the run's
values: its deletions count in the run's ledger, and what it deletes goes where the
run's trash is. The record is read without following symlinks, like all state. The
command can rewrite it too: under the run's keeper, the values come from what the
keeper holds, and a file that differs fails deletions closed (keptrecord.py).
"""

import os

from .. import jsonl
from ..private import digest, open_dir, open_under
from . import exemptids

RUNS = "runs"
RECORD = "run.json"
FIELDS = ("session", "turn", "toolCall", "threshold", "turnStart")
# Where the run keeps its guard ledger, signals and report: absolute paths.
STATE_DIR, REPORT = "stateDir", "report"
# The names of the run's guard ledger (core/guard/ledger.py): sha256 digests of its session and
# turn, computed once by the run, so that a launcher under it loads no sha256 (that
# costs it more than the whole take).
LEDGER = "ledger"
_HEX = frozenset("0123456789abcdef")


def ledger_names(session, turn):
    """The record's LEDGER value for a run of session and turn."""
    return [digest(session), digest(turn)]


def known_digests(record):
    """{value: digest} for the record's session and turn, from its LEDGER names; {}
    for a record without them. A name that is not a digest is never used: it becomes
    a path component."""
    names = record.get(LEDGER)
    values = (record.get("session"), record.get("turn"))
    if not (isinstance(names, list) and len(names) == 2):
        return {}
    if not all(isinstance(v, str) for v in values):
        return {}
    if not all(isinstance(n, str) and len(n) == 16 and _HEX.issuperset(n) for n in names):
        return {}
    return dict(zip(values, names))


def fixed_path(record, key):
    """The record's absolute path under key, or None (a record of an older run)."""
    value = record.get(key)
    return value if isinstance(value, str) and os.path.isabs(value) else None


def fixed_policy(record):
    """{Settings name: value} for each policy value the record fixes; a record of an
    older run fixes none (its processes read their environment, as before)."""
    found = {}
    roots = _strings(record.get("workspaceRoots"))
    if roots is not None and all(os.path.isabs(r) for r in roots):
        found["workspace_roots"] = roots
    exempt = _strings(record.get("exempt"))
    if exempt is not None:
        found["exempt"] = exempt
    if exempt is not None and exemptids.RECORD_KEY in record:
        # Each root's directory when the run started. The run named every root: one it
        # does not name, or an identity it cannot read, holds nothing exempt.
        ids = exemptids.parse(record[exemptids.RECORD_KEY]) or {}
        found["exempt_ids"] = {root: ids.get(root) for root in exempt}
    if record.get("outsideWorkspace") in ("confirm", "allow"):
        found["outside_workspace"] = record["outsideWorkspace"]
    if "trashDir" in record and (record["trashDir"] is None or fixed_path(record, "trashDir")):
        found["trash_dir"] = record["trashDir"]
    home = fixed_path(record, "homeTrash")
    if home is not None:
        found["home_trash"] = home
    if isinstance(record.get("prompt"), bool):
        found["prompt"] = record["prompt"]
    if "git" in record:
        found["git"] = _git(record["git"])
    return found


def _git(value):
    """The record's git, [path, "dev:ino:ctime_ns"], as a tuple; False for none (or a
    value that is not one): the guard then asks no git."""
    if isinstance(value, list) and len(value) == 2 and all(isinstance(v, str) for v in value):
        return tuple(value)
    return False


def _strings(value):
    """value as a tuple of str, or None when it is not a list of strings."""
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def write(state_dir, run_id, values):
    """Create the run's record once (O_EXCL); OSError if it cannot be written."""
    with open_dir(state_dir, [RUNS, run_id]) as directory:
        directory.write(RECORD, jsonl.dumps(values).encode("ascii"), exclusive=True)


# Records found, by (state dir, run id): a record is written once and never changes, and
# a shim reads its settings at every deletion.
_found = {}


def read(state_dir, run_id):
    """The run's record as a dict, or None when there is none (or it is damaged)."""
    if not run_id or os.sep in run_id or run_id in (".", ".."):
        return None
    key = (state_dir, run_id)
    if key in _found:
        return _found[key]
    try:
        fd = open_under(state_dir, [RUNS, run_id, RECORD], os.O_RDONLY, create_dirs=False)
        record = jsonl.loads(read_closing(fd))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict):
        return None
    _found[key] = record
    return record


def read_closing(fd, limit=65536):
    """Up to limit bytes of the small file open as fd, which it closes: plain reads, not
    a buffered file object (every launcher under a run reads its pointer)."""
    try:
        chunks, size = [], 0
        while size < limit:
            chunk = os.read(fd, limit - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def governing(state_dir, run_id):
    """(record, why): the record whose values bind this process, and why its deletions
    fail closed (None: they do not). Under a run's keeper, the record the keeper holds,
    which the run's files must agree with (core/contract/keptrecord.py); elsewhere its
    enclosing run's, found from the process tree (core/contract/runpointer.py) whatever
    the command did to its environment, else the one SAFEDEL_RUN_ID names, else None."""
    from .keptrecord import governing as kept
    from .runpointer import enclosing

    return kept(run_id) or (enclosing() or read(state_dir, run_id), None)
