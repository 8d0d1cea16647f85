"""The per-turn bulk guard: an append-only JSON-lines ledger per (session, turn).

The ledger is <state>/bulk-guard/<sha256(session)[:16]>/<sha256(turn)[:16]>.jsonl, one
JSON object per line: {"op":"take","id":R,"n":N,"t":threshold,"ts":ms} asks for N
deletions; {"op":"approve"} and {"op":"reject"} change every later take;
{"op":"withdraw","id":R} takes back the refused take R (its batch turned out to be
regenerable, core/guard/regenerable.py), so the turn reads as if R had never been asked. A process
appends its take with one O_APPEND write, then reads the ledger. The verdict for that
take is a pure function of the lines before it, so every process (in any runtime)
computes the same answer without a lock, and a process killed at any moment leaves at
worst one complete line behind: nothing can go stale.

A full disk can cut a write short and leave a fragment without its newline. That take
fails closed (its writer refuses the batch). Readers skip any line that is not a whole
record, so the fragment, never granted, is never counted either. The next record is
glued to it into one line that readers skip too; its writer sees that, and, its own
newline having ended the fragment, writes a new take on a fresh line.
"""

import errno
import os
import stat
import sys
import time

from .. import jsonl
from ..private import EXCLUSIVE, Held, open_dir

ALLOW = "allow"
CONFIRM = "confirmRequired"
REJECTED = "rejected"
APPROVE_OUTSIDE = "approveOutside"
WITHDRAW = "withdraw"
PRUNE_AGE = 24 * 3600
LEDGERS = "bulk-guard"
SIGNALS = "signals"
_LEDGER_FLAGS = os.O_RDWR | os.O_APPEND
# What each process has already read, per ledger, so a long-lived process does not
# re-read a turn from the start at every deletion: (file id, offset, the bytes of its
# own last line ending at offset, state there).
_cursors = {}
# The ledger descriptor this process keeps open: key -> Held. Both caches are used
# only with EXCLUSIVE held, by the outermost call on that thread.
_held = {}


# The turn's administration (core/guard/turn.py): approve, reject and withdraw lines,
# status, reset and pruning. An rm launcher only takes, so it never loads them; they
# are still guard.mark, guard.status, guard.reset and guard.prune to everyone else.
_TURN = frozenset(("mark", "status", "reset", "prune"))


def __getattr__(name):
    if name in _TURN:
        from . import turn as guardturn

        return getattr(guardturn, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class GuardError(Exception):
    """The ledger cannot be read or written; callers fail closed."""


class Decision:
    __slots__ = ("verdict", "count", "threshold", "state", "take_id")

    def __init__(self, verdict, count, threshold, state, take_id=None):
        self.verdict = verdict
        self.count = count
        self.threshold = threshold
        self.state = state
        self.take_id = take_id  # the ledger line this decision answered, if any


class TurnState:
    """Running state while reading a ledger in file order."""

    __slots__ = ("mode", "granted", "takes", "refused", "threshold", "outside")

    def __init__(self):
        self.mode = "open"
        self.granted = self.takes = self.refused = 0
        self.threshold = None
        self.outside = False  # deletions outside the workspace approved for the turn

    def copy(self):
        other = TurnState()
        for name in self.__slots__:
            setattr(other, name, getattr(self, name))
        return other

    def apply(self, record):
        """Apply one ledger record; return the verdict for a take, else None."""
        op = record["op"]
        if op == "take":
            return self.take(int(record["n"]), int(record["t"]))
        if op in ("approve", "reject"):
            self.mode = "approved" if op == "approve" else "rejected"
        elif op == APPROVE_OUTSIDE:
            self.outside = True
        elif op == WITHDRAW and self.refused:
            # Only a refused take is ever withdrawn, and it granted nothing: the
            # verdicts of later takes stay as they were.
            self.takes -= 1
            self.refused -= 1
        return None

    def take(self, n, threshold):
        """Apply a take of n under threshold; return its verdict."""
        self.threshold = threshold
        self.takes += 1
        if self.mode == "rejected":
            verdict = REJECTED
        elif self.mode == "approved" or self.granted + n <= threshold:
            self.granted += n
            return ALLOW
        else:
            verdict = CONFIRM
        self.refused += 1
        return verdict


def digest(value):
    if not _sha256:
        _sha256.append(_load_sha256())
    return _sha256[0](value.encode("utf-8", "surrogatepass")).hexdigest()[:16]


_sha256 = []


def _load_sha256():
    """The bare C hash, loaded at the first digest: hashlib would load OpenSSL, a large
    cost for one digest, and a launcher under `safedel run` needs none at all (the run
    record names its ledger: core/contract/runrecord.py)."""
    try:
        if sys.version_info >= (3, 12):  # its module's name, so no failed search first
            from _sha2 import sha256
        else:
            from _sha256 import sha256
    except ImportError:
        from hashlib import sha256
    return sha256


def ledger_parts(session, turn, known=None):
    """The ledger's path below the state dir, as components opened one by one. known:
    {value: digest} already computed (Settings.digests, from the run record)."""
    known = known or {}
    names = [known.get(value) or digest(value) for value in (session, turn)]
    return [LEDGERS, names[0], names[1] + ".jsonl"]


def _error(action, exc):
    return GuardError(f"cannot {action} the bulk-guard ledger: {exc.strerror or exc}")


def _take_line(line):
    """The record on a take line exactly as take() writes it, or None for any other
    shape (then the JSON parser decides)."""
    fields = _take_fields(line)
    if fields is None:
        return None
    ident, n, t, ts = fields
    return {"op": "take", "id": ident.decode("ascii"), "n": n, "t": t, "ts": ts}


def _take_fields(line):
    """(id, n, t, ts) of a take line exactly as take() writes it, or None: _take_line
    without the record. Every rm call reads its turn's ledger from the start, so these
    lines are read many times over, and most of a ledger is such lines."""
    if not (line.startswith(b'{"op":"take","id":"') and line.endswith(b"}\n")):
        return None
    fields = line[19:-2].split(b",")  # id", "n":N, "t":T, "ts":MS
    if len(fields) != 4:
        return None
    ident, n, t, ts = fields
    if not (ident.endswith(b'"') and ident[:-1].replace(b".", b"").isalnum()):
        return None  # isalnum is ASCII letters and digits only, for bytes
    if not (n.startswith(b'"n":') and t.startswith(b'"t":') and ts.startswith(b'"ts":')):
        return None
    numbers = (n[4:], t[4:], ts[5:])
    for value in numbers:
        if not value.isdigit() or (value[:1] == b"0" and value != b"0"):
            return None
    return ident[:-1], int(numbers[0]), int(numbers[1]), int(numbers[2])


def parse_line(line):
    """The record on one ledger line, or None for anything that is not a whole record
    (a torn fragment, a blank line): such a line was never granted, and is skipped."""
    if isinstance(line, bytes):
        record = _take_line(line)
        if record is not None:
            return record if record["t"] > 0 else None
    try:
        record = jsonl.loads(line)
        # Unknown ops are kept (and ignored) so an older reader survives a newer writer.
        if (
            isinstance(record, dict)
            and isinstance(record.get("op"), str)
            and (record["op"] != "take" or int(record["n"]) >= 0 < int(record["t"]))
        ):
            return record
    except (ValueError, KeyError, TypeError):
        pass
    return None


def _apply(state, line):
    fields = _take_fields(line) if isinstance(line, bytes) else None
    if fields is not None:  # parse_line then state.apply, without the record
        return state.take(fields[1], fields[2]) if fields[2] > 0 else None
    record = parse_line(line)
    return None if record is None else state.apply(record)


def verdicts(lines):
    """[(record or None, verdict or None)] for a sequence of ledger lines: the pure rule."""
    state = TurnState()
    return [(parse_line(line), _apply(state, line)) for line in lines]


def _open_ledger(settings):
    """The ledger's descriptor (read+append). A new turn prunes old state first."""
    session_parts = ledger_parts(settings.session, settings.turn, settings.digests)
    name = session_parts.pop()
    for _attempt in range(3):
        try:
            with open_dir(settings.state_dir, session_parts, create_dirs=False) as directory:
                return directory.open(name, _LEDGER_FLAGS)
        except FileNotFoundError:
            pass
        except OSError as exc:
            raise _error("open", exc) from None
        try:
            from .turn import prune  # a new turn only

            prune(settings.state_dir)
            with open_dir(settings.state_dir, session_parts) as directory:
                return directory.open(name, _LEDGER_FLAGS | os.O_CREAT)
        except FileNotFoundError:
            continue  # a concurrent prune removed the empty session directory: again
        except OSError as exc:
            raise _error("open", exc) from None
    raise GuardError("cannot create the bulk-guard ledger: its directory keeps vanishing")


def _append(fd, record):
    """Append record as one line with one O_APPEND write; return the line. A short write
    (a full disk) raises: the caller fails closed."""
    line = (jsonl.dumps(record) + "\n").encode("ascii")
    if os.write(fd, line) != len(line):
        raise OSError(errno.ENOSPC, "short write: the disk is full")
    return line


def _resume(fd, info, key, cursor):
    """(offset, state) to read on from: cursor, taken before this take's own line was
    appended (so that line lies after it), if it still holds for this file; else 0."""
    if cursor and cursor[0] == (info.st_dev, info.st_ino) and cursor[1] <= info.st_size:
        offset, line = cursor[1], cursor[2]
        # The file may have been reset and a new one given the same inode: the cursor
        # holds only if our own unique line still ends right at it.
        if os.pread(fd, len(line), offset - len(line)) == line:
            return offset, cursor[3].copy()
    return 0, TurnState()


def _held_ledger(settings, key):
    """The ledger's descriptor, kept open across takes: opening its three directories
    without following links costs more than the take itself. The descriptor is trusted
    only while it is still ours, still the same still-linked file (a reset unlinks it)."""
    held = _held.get(key)
    if held is not None:
        info = held.stat()
        if info is not None and info.st_nlink > 0 and _same_path(settings, held.identity):
            return held.fd
        del _held[key]
        held.close()  # only if still ours
    held = Held(_open_ledger(settings))
    for old in _held.values():  # one turn at a time: no descriptor leak
        old.close()
    _held.clear()
    _held[key] = held
    return held.fd


def _same_path(settings, identity):
    """The ledger's path still leads, through real directories only, to identity.
    A few lstat calls: far cheaper than opening each directory again."""
    path = settings.state_dir
    try:
        for part in ledger_parts(settings.session, settings.turn, settings.digests):
            if stat.S_ISLNK(os.lstat(path).st_mode):
                return False
            path = os.path.join(path, part)
        info = os.lstat(path)
    except OSError:
        return False
    return (info.st_dev, info.st_ino) == identity


def take(settings, n):
    """Ask for n deletions in the current turn. Raises only GuardError."""
    key = (settings.state_dir, settings.session, settings.turn)
    with EXCLUSIVE as nested:
        for _attempt in range(2):  # a second time only after a torn line swallowed ours
            record = {"op": "take", "id": f"{os.getpid()}.{os.urandom(6).hex()}", "n": n}
            record.update(t=settings.threshold, ts=int(time.time() * 1000))
            if nested:  # re-entered mid-take: its own descriptor, and no cursor
                fd = _open_ledger(settings)
                try:
                    decision = _decide(settings, fd, record, key, None, False)
                finally:
                    os.close(fd)
            else:
                try:
                    fd = _held_ledger(settings, key)
                except OSError as exc:
                    raise _error("use", exc) from None
                decision = _decide(settings, fd, record, key, _cursors.get(key), True)
            if decision is not None:
                return decision
    raise GuardError("the bulk-guard ledger keeps tearing lines; nothing was deleted")


def _decide(settings, fd, record, key, cursor, remember):
    """The verdict on record, appended to fd; None if it was glued to a torn line."""
    try:
        own = _append(fd, record)
        info = os.fstat(fd)
        offset, state = _resume(fd, info, key, cursor)
        data = os.pread(fd, info.st_size - offset, offset)
    except OSError as exc:
        held = _held.get(key) if remember else None
        if held is not None and held.stat() is None:
            del _held[key]  # no longer ours: forgotten, never closed
        raise _error("use", exc) from None
    for line in data.splitlines(keepends=True):
        offset += len(line)
        verdict = _apply(state, line)
        if line == own:
            if remember:
                _cursors[key] = ((info.st_dev, info.st_ino), offset, own, state.copy())
            return Decision(verdict, state.granted, settings.threshold, state.mode, record["id"])
        if line.endswith(own):
            return None  # glued to a torn fragment: no reader counts that line
    raise GuardError("the bulk-guard ledger lost this process's entry; run `safedel guard reset`")
