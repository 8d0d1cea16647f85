"""The per-turn bulk guard: an append-only JSON-lines ledger per (session, turn).

The ledger is <state>/bulk-guard/<sha256(session)[:16]>/<sha256(turn)[:16]>.jsonl, one
JSON object per line: {"op":"take","id":R,"n":N,"t":threshold,"ts":ms} asks for N
deletions; {"op":"approve"} and {"op":"reject"} change every later take;
{"op":"withdraw","id":R} takes back the refused take R (its batch turned out to be
regenerable, core/guard/regenerable.py), so the turn reads as if R had never been
asked. A process appends its take with one O_APPEND write, then reads the ledger. The
verdict for that take is a pure function of the lines before it (the rule:
core/guard/rule.py), so every process (in any runtime) computes the same answer without
a lock, and a process killed at any moment leaves at worst one complete line behind:
nothing can go stale.

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
from ..private import EXCLUSIVE, Held, digest, open_dir
from .rule import DAMAGED, Decision, TurnState, apply_line, voided_ids

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


class GuardError(Exception):
    """The ledger cannot be read or written; callers fail closed."""


def damaged(why):
    """The error for a ledger holding what safedel never writes (core/guard/rule.py): it
    stands until a person resets the turn, and the message names no command to run,
    since its reader may be a model."""
    return GuardError(
        f"the bulk-guard ledger of this turn is damaged ({why}), so nothing was deleted; "
        "a person must reset the turn"
    )


def ledger_parts(session, turn, known=None):
    """The ledger's path below the state dir, as components opened one by one. known:
    {value: digest} already computed (Settings.digests, from the run record)."""
    known = known or {}
    names = [known.get(value) or digest(value) for value in (session, turn)]
    return [LEDGERS, names[0], names[1] + ".jsonl"]


def _error(action, exc):
    return GuardError(f"cannot {action} the bulk-guard ledger: {exc.strerror or exc}")


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
    keeper = _keeper(settings)
    with EXCLUSIVE as nested:
        for _attempt in range(2):  # a second time only after a torn line swallowed ours
            record = {"op": "take", "id": f"{os.getpid()}.{os.urandom(6).hex()}", "n": n}
            record.update(t=settings.threshold, ts=int(time.time() * 1000))
            if nested:  # re-entered mid-take: its own descriptor, and no cursor
                fd = _open_ledger(settings)
                try:
                    decision = _decide(settings, fd, record, key, None, False, keeper)
                finally:
                    os.close(fd)
            else:
                try:
                    fd = _held_ledger(settings, key)
                except OSError as exc:
                    raise _error("use", exc) from None
                decision = _decide(settings, fd, record, key, _cursors.get(key), True, keeper)
            if decision is not None:
                return decision
    raise GuardError("the bulk-guard ledger keeps tearing lines; nothing was deleted")


def _keeper(settings):
    """The run's keeper to ask (core/guard/keeperview.py), None outside a run. Looked
    up from the process tree, not from the record, so a process that dropped its run
    id still asks it (and fails closed if it moved to a turn the keeper does not keep)."""
    if not sys.platform.startswith("linux"):
        return None
    from . import keeperview

    return keeperview.for_settings(settings)


def _decide(settings, fd, record, key, cursor, remember, keeper=None):
    """The verdict on record, appended to fd; None if it was glued to a torn line.
    Under a run the keeper gives it, having read the line itself."""
    try:
        own = _append(fd, record)
        if keeper is not None:
            from . import keeperview

            return keeperview.decide(keeper, settings, record, os.fstat(fd).st_ino)
        info = os.fstat(fd)
        offset, state = _resume(fd, info, key, cursor)
        data = os.pread(fd, info.st_size - offset, offset)
        voided = voided_ids(data)
        if voided and offset:  # a void reaches back past the cursor: read it all again
            offset, state = 0, TurnState()
            data = os.pread(fd, info.st_size, 0)
            voided = voided_ids(data)
    except OSError as exc:
        held = _held.get(key) if remember else None
        if held is not None and held.stat() is None:
            del _held[key]  # no longer ours: forgotten, never closed
        raise _error("use", exc) from None
    for line in data.splitlines(keepends=True):
        offset += len(line)
        verdict = apply_line(state, line, voided)
        if line == own:
            if verdict == DAMAGED:
                raise damaged(state.damaged)
            if remember:
                _cursors[key] = ((info.st_dev, info.st_ino), offset, own, state.copy())
            return Decision(verdict, state.granted, settings.threshold, state.mode, record["id"])
        if line.endswith(own):
            return None  # glued to a torn fragment: no reader counts that line
    raise damaged("this process's own entry is gone from it: it was rewritten")
