"""The per-turn bulk guard: an append-only JSON-lines ledger per (session, turn).

A process appends its `take` line with one O_APPEND write, then reads the ledger. The
verdict for that take is a pure function of the lines before it, so every process
computes the same answer without a lock, and a process killed at any moment leaves at
worst one complete line behind (a write() to a regular file is not torn by SIGKILL).
"""

import hashlib
import json
import os
import time

from .private import open_under

ALLOW = "allow"
CONFIRM = "confirmRequired"
REJECTED = "rejected"
PRUNE_AGE = 24 * 3600
# The furthest point each process has already read, per ledger: (inode, offset, state).
_cursors = {}


class GuardError(Exception):
    """The ledger cannot be read or written; callers fail closed."""


class Decision:
    __slots__ = ("verdict", "count", "threshold", "state")

    def __init__(self, verdict, count, threshold, state):
        self.verdict = verdict
        self.count = count
        self.threshold = threshold
        self.state = state


class TurnState:
    """Running state while reading a ledger in file order."""

    __slots__ = ("mode", "granted")

    def __init__(self, mode="open", granted=0):
        self.mode = mode
        self.granted = granted

    def copy(self):
        return TurnState(self.mode, self.granted)

    def apply(self, record):
        """Apply one ledger record; return the verdict for a take, else None."""
        op = record.get("op")
        if op == "take":
            n, threshold = int(record["n"]), int(record["t"])
            if self.mode == "rejected":
                return REJECTED
            if self.mode == "approved" or self.granted + n <= threshold:
                self.granted += n
                return ALLOW
            return CONFIRM
        if op == "approve":
            self.mode = "approved"
        elif op == "reject":
            self.mode = "rejected"
        return None


def digest(value):
    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def ledger_parts(session, turn):
    """The ledger's path below the state dir, as components opened one by one."""
    return ["bulk-guard", digest(session), digest(turn) + ".jsonl"]


def ledger_key(settings):
    return (settings.state_dir, settings.session, settings.turn)


def parse_line(line):
    try:
        record = json.loads(line)
        valid = isinstance(record, dict) and isinstance(record.get("op"), str)
        if valid and (record["op"] != "take" or (int(record["n"]) >= 0 < int(record["t"]))):
            return record
    except (ValueError, KeyError, TypeError):
        pass
    raise GuardError("the bulk-guard ledger has a garbled line; run `safedel guard reset`")


def verdicts(lines):
    """[(record, verdict or None)] for a sequence of ledger lines: the pure rule."""
    state = TurnState()
    return [(rec, state.apply(rec)) for rec in map(parse_line, lines)]


def _append(settings, record):
    """Append one line; return the ledger's descriptor, open for reading too."""
    data = (json.dumps(record, separators=(",", ":")) + "\n").encode("ascii")
    parts = ledger_parts(settings.session, settings.turn)
    flags = os.O_RDWR | os.O_APPEND | os.O_CREAT
    try:
        fd = open_under(settings.state_dir, parts, flags, create_dirs=False)
    except FileNotFoundError:
        fd = None
    except OSError as exc:
        raise GuardError(f"cannot open the bulk-guard ledger: {exc.strerror or exc}") from None
    if fd is None:
        try:
            prune(settings.state_dir)
            fd = open_under(settings.state_dir, parts, flags)
        except OSError as exc:
            reason = exc.strerror or exc
            raise GuardError(f"cannot open the bulk-guard ledger: {reason}") from None
    try:
        os.write(fd, data)
    except OSError as exc:
        os.close(fd)
        raise GuardError(f"cannot write the bulk-guard ledger: {exc.strerror or exc}") from None
    return fd


def take(settings, n):
    """Ask for n deletions in the current turn. Never raises except GuardError."""
    path = ledger_key(settings)
    take_id = f"{os.getpid()}.{os.urandom(6).hex()}"
    record = {"op": "take", "id": take_id, "n": n, "t": settings.threshold}
    record["ts"] = int(time.time() * 1000)
    fd = _append(settings, record)
    try:
        inode = os.fstat(fd).st_ino
        cursor = _cursors.get(path)
        offset, state = (
            (cursor[1], cursor[2].copy()) if cursor and cursor[0] == inode else (0, None)
        )
        state = state or TurnState()
        data = os.pread(fd, os.fstat(fd).st_size - offset, offset)
    except OSError as exc:
        raise GuardError(f"cannot read the bulk-guard ledger: {exc.strerror or exc}") from None
    finally:
        os.close(fd)
    for line in data.splitlines(keepends=True):
        offset += len(line)
        rec = parse_line(line)
        verdict = state.apply(rec)
        if rec.get("id") == take_id:
            _cursors[path] = (inode, offset, state.copy())
            return Decision(verdict, state.granted, settings.threshold, state.mode)
    raise GuardError("the bulk-guard ledger lost this process's entry; run `safedel guard reset`")


def mark(settings, op, by):
    """Append an approve or reject line for the current turn."""
    os.close(_append(settings, {"op": op, "by": by, "ts": int(time.time() * 1000)}))


def status(state_dir, session, turn):
    """(state, takes, refused) of a turn; an unfinished last line is ignored."""
    parts = ledger_parts(session, turn)
    try:
        fd = open_under(state_dir, parts, os.O_RDONLY, create_dirs=False)
    except FileNotFoundError:
        return TurnState(), 0, 0
    except OSError as exc:
        raise GuardError(f"cannot open the bulk-guard ledger: {exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as handle:
        lines = [line for line in handle.read().splitlines(keepends=True) if line.endswith(b"\n")]
    state = TurnState()
    takes = refused = 0
    for rec in map(parse_line, lines):
        verdict = state.apply(rec)
        if verdict is not None:
            takes += 1
            refused += verdict != ALLOW
    return state, takes, refused


def reset(state_dir, session, turn=None):
    """Forget one turn, or every turn of the session when turn is None."""
    directory = os.path.join(state_dir, "bulk-guard", digest(session))
    names = [digest(turn) + ".jsonl"] if turn is not None else _listdir(directory)
    for name in names:
        if name.endswith(".jsonl"):
            try:
                os.unlink(os.path.join(directory, name))
            except FileNotFoundError:
                pass
    _cursors.clear()


def _listdir(directory):
    try:
        return os.listdir(directory)
    except FileNotFoundError:
        return []


def prune(state_dir, now=None):
    """Remove ledgers and signal files untouched for 24 hours."""
    cutoff = (now or time.time()) - PRUNE_AGE
    for top in (os.path.join(state_dir, "bulk-guard"), os.path.join(state_dir, "signals")):
        for directory, _dirs, files in os.walk(top):
            for name in files:
                path = os.path.join(directory, name)
                try:
                    if os.lstat(path).st_mtime < cutoff:
                        os.unlink(path)
                except OSError:
                    pass
