"""The record `safedel run` leaves for the processes it starts.

<state>/runs/<run id>/run.json holds the run's session, turn, tool call and threshold,
fixed when the run started. Shims under the run (SAFEDEL_RUN_ID) take these from the
record rather than from their environment, so a command that sets SAFEDEL_THRESHOLD or
SAFEDEL_TURN for itself still deletes under the run's values, and its deletions still
count in the run's turn. The record is read without following symlinks, like all
state; a command that edits it on purpose is beyond what safedel defends against.
"""

import os
import sys

from . import jsonl
from .private import open_dir, open_under

RUNS = "runs"
RECORD = "run.json"
FIELDS = ("session", "turn", "toolCall", "threshold", "turnStart")
# The names of the run's guard ledger (core/guard.py): sha256 digests of its session and
# turn, computed once by the run, so that a launcher under it loads no sha256 (that
# costs it more than the whole take).
LEDGER = "ledger"
_HEX = frozenset("0123456789abcdef")


def ledger_names(session, turn):
    """The record's LEDGER value for a run of session and turn."""
    from .guard import digest

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
        record = jsonl.loads(_read_closing(fd))
    except (OSError, ValueError):
        return None
    if not isinstance(record, dict):
        return None
    _found[key] = record
    return record


# A command under `safedel run` can unset SAFEDEL_RUN_ID or name a run that does not
# exist, so the run is also found from the process tree: `safedel run` leaves a pointer
# named by its pid and that pid's start time (a recycled pid starts later, so it never
# matches) under <state>/runs/by-pid, and under a directory the command's environment
# does not choose (the user's runtime directory), else under the default state dir, in
# case the command changes SAFEDEL_STATE_DIR.
BY_PID = "by-pid"
MAX_DEPTH = 64


def _stat(pid):
    """(parent pid, start time) of pid from /proc/<pid>/stat, or None."""
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
        try:
            data = os.read(fd, 2048)
        finally:
            os.close(fd)
        # The command name (field 2) may hold spaces and ')': count after the last ')'.
        rest = data[data.rindex(b")") + 2 :].split()
        return int(rest[1]), rest[19].decode("ascii")
    except (OSError, ValueError, IndexError):
        return None


def pid_key(pid):
    found = _stat(pid)
    return None if found is None else f"{pid}-{found[1]}"


def second_dir(default_dir):
    """The other place for pointers: the user's runtime directory, which no environment
    variable chooses, else the default state dir (found from HOME or XDG_STATE_HOME)."""
    runtime = f"/run/user/{os.getuid()}"
    return os.path.join(runtime, "safedel") if os.path.isdir(runtime) else default_dir


def _pointer_places(state_dir, default_dir):
    places = [(state_dir, [RUNS, BY_PID])]
    if sys.platform.startswith("linux"):
        places.append((second_dir(default_dir), [BY_PID]))
    return places


def point(state_dir, default_dir, run_id, values):
    """Leave this process's pointers to its run; OSError if the state dir's fails."""
    key = pid_key(os.getpid())
    if key is None:
        return
    data = jsonl.dumps(dict(values, run=run_id)).encode("ascii")
    for number, (root, parts) in enumerate(_pointer_places(state_dir, default_dir)):
        try:
            with open_dir(root, parts) as directory:
                directory.write(key, data)
        except OSError:
            if number == 0:
                raise  # the fixed place is a second chance; the state dir is the contract


def unpoint(state_dir, default_dir):
    """Remove this process's pointers when its run ends (a leftover never matches)."""
    key = pid_key(os.getpid())
    for root, parts in _pointer_places(state_dir, default_dir) if key else ():
        try:
            with open_dir(root, parts, create_dirs=False) as directory:
                directory.unlink(key)
        except OSError:
            pass


# The enclosing run of this process, by (pid, state dir): ancestors never change but by
# dying (an orphan's new parent was already an ancestor), and a run's pointer exists
# before any of its descendants, so neither a run found nor none found goes stale.
_enclosing = {}


def enclosing(state_dir, default_dir):
    """The record of the nearest `safedel run` above this process, or None."""
    if not sys.platform.startswith("linux"):
        return None
    key = (os.getpid(), state_dir, default_dir)
    if key not in _enclosing:
        _enclosing[key] = _search(state_dir, default_dir)
    return _enclosing[key]


def _search(state_dir, default_dir):
    # The places are opened in order as they are needed: when the parent is the run
    # (`safedel run -- rm f`, the usual case) its pointer is in the first.
    pending, directories = list(_pointer_places(state_dir, default_dir)), []
    _open_next(pending, directories)
    try:
        pid = os.getppid()
        for _ in range(MAX_DEPTH if directories else 0):
            found = _stat(pid)
            if pid <= 1 or found is None:
                return None
            name = f"{pid}-{found[1]}"
            record = _read_pointer(directories, name)
            while record is None and _open_next(pending, directories):
                record = _read_pointer(directories[-1:], name)
            if record is not None:
                return record
            pid = found[0]
        return None
    finally:
        for directory in directories:
            directory.close()


def _open_next(pending, directories):
    """Open the next place of pending that opens, onto directories; False if none."""
    while pending:
        root, parts = pending.pop(0)
        try:
            directories.append(open_dir(root, parts, create_dirs=False))
            return True
        except OSError:
            pass
    return False


def _read_pointer(directories, name):
    for directory in directories:
        try:
            fd = directory.open(name, os.O_RDONLY)
        except OSError:
            continue
        try:
            record = jsonl.loads(_read_closing(fd))
        except ValueError:
            continue
        if isinstance(record, dict):
            return record
    return None


def _read_closing(fd, limit=65536):
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


def governing(state_dir, default_dir, run_id):
    """The record whose values bind this process: its enclosing run's, else the one
    SAFEDEL_RUN_ID names (a run started by `safedel serve`), else None."""
    return enclosing(state_dir, default_dir) or read(state_dir, run_id)
