"""The turn's administration in the bulk guard's ledger (core/guard/ledger.py): approve,
reject and withdraw lines, a turn's status, reset, and the pruning of old state.

Apart from the take, which every deletion makes: a launcher that only takes does not
load this, so its callers import it themselves, where they need it.
"""

import errno
import os
import time

from ..private import EXCLUSIVE, digest, open_dir
from .ledger import (
    LEDGERS,
    PRUNE_AGE,
    SIGNALS,
    _append,
    _cursors,
    _error,
    _open_ledger,
    ledger_parts,
)
from .rule import APPROVALS, TurnState, apply_line, voided_ids


def _append_whole(fd, record):
    """Append a line no take reads back (approve, reject) on a line of its own: if a
    torn fragment came just before it, the two made one line that readers skip, so it
    is written again, now after a newline."""
    for _attempt in range(2):
        line = _append(fd, record)
        start = os.lseek(fd, 0, os.SEEK_CUR) - len(line)  # O_APPEND: just past ours
        if start == 0 or os.pread(fd, 1, start - 1) == b"\n":
            return line
    raise OSError(errno.EIO, "the ledger keeps tearing lines")


def mark(settings, op, by, **fields):
    """Append an approve, reject, withdraw (or, for a run's keeper, ask, void, damaged)
    line for the current turn; return the line. An approval carries an id of its own,
    by which a run's keeper can void it (core/guard/rule.py)."""
    record = {"op": op, **fields, "by": by, "ts": int(time.time() * 1000)}
    if op in APPROVALS and "id" not in record:
        record["id"] = f"{os.getpid()}.{os.urandom(6).hex()}"
    fd = _open_ledger(settings)
    try:
        return _append_whole(fd, record)
    except OSError as exc:
        raise _error("write", exc) from None
    finally:
        os.close(fd)


def status(state_dir, session, turn):
    """The TurnState of a turn after its whole ledger; an unfinished last line is ignored.
    A damaged ledger is a state too (.damaged): `safedel guard status` shows it."""
    parts = ledger_parts(session, turn)
    name = parts.pop()
    try:
        with open_dir(state_dir, parts, create_dirs=False) as directory:
            fd = directory.open(name, os.O_RDONLY)
    except FileNotFoundError:
        return TurnState()
    except OSError as exc:
        raise _error("open", exc) from None
    with os.fdopen(fd, "rb") as handle:
        data = handle.read()
    lines = [line for line in data.splitlines(True) if line.endswith(b"\n")]
    state, voided = TurnState(), voided_ids(data)
    for line in lines:
        apply_line(state, line, voided)
    return state


def reset(state_dir, session, turn=None):
    """Forget one turn, or every turn of the session when turn is None. Returns how
    many ledgers were removed. A damaged ledger is removed like any other."""
    removed = 0
    try:
        directory = open_dir(state_dir, [LEDGERS, digest(session)], create_dirs=False)
    except FileNotFoundError:
        return removed
    except OSError as exc:
        raise _error("open", exc) from None
    with directory:
        names = [digest(turn) + ".jsonl"] if turn is not None else directory.listdir()
        for name in names:
            try:
                directory.unlink(name)
                removed += 1
            except FileNotFoundError:
                pass
            except OSError as exc:
                raise _error("remove", exc) from None
    with EXCLUSIVE:
        _cursors.clear()
    return removed


def prune(state_dir, now=None):
    """Remove ledgers and signal files untouched for 24 hours, then their emptied
    session directories once those too are a day old. Symlinks are never followed."""
    cutoff = (time.time() if now is None else now) - PRUNE_AGE
    for top in (LEDGERS, SIGNALS):
        try:
            directory = open_dir(state_dir, [top], create_dirs=False)
        except OSError:
            continue  # missing, or a symlink we refuse to walk
        with directory:
            for name in directory.listdir():
                try:
                    with directory.subdir(name) as sessions:
                        left = _prune_files(sessions, cutoff)
                    if not left and directory.lstat(name).st_mtime < cutoff:
                        directory.rmdir(name)
                except OSError:
                    continue


def _prune_files(directory, cutoff):
    """Remove the old files in directory; return how many entries are left."""
    left = 0
    for name in directory.listdir():
        try:
            if directory.lstat(name).st_mtime < cutoff:
                directory.unlink(name)
                continue
        except OSError:
            pass
        left += 1
    return left
