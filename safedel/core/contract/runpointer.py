"""The pointers by which a process under `safedel run` finds its run (Linux).

A command owns its environment: it can unset or forge SAFEDEL_RUN_ID, and it can point
SAFEDEL_STATE_DIR, HOME and XDG_STATE_HOME wherever it likes. So `safedel run` leaves a
pointer named by its pid and that pid's start time (a recycled pid starts later, so it
never matches a leftover) in places that nothing in the environment chooses:

1. /run/user/<uid>/safedel/by-pid, when /run/user/<uid> is a directory of ours, 0700;
2. /tmp/safedel-<uid>/by-pid (the literal /tmp, not TMPDIR);
3. <home>/.local/state/safedel/by-pid, with home from the password database.

The run writes every place it can; the processes under it read them in that order, the
next only when those before miss (the runtime directory goes at logout, a command may
empty /tmp, a user without a passwd entry has no home). Every directory below a place's
root must be ours and writable by nobody else: another user cannot plant pointers. The
command can rewrite its run's pointer: it is checked against the keeper (keptrecord.py).

When no place takes the pointer (no runtime directory, no usable home, and a
/tmp/safedel-<uid> another uid made first), the run still starts, bound by its keeper,
and says once on stderr which places refused and why, so that the person can remove a
planted folder; refusing to run would let whoever plants it stop every run of the user.
"""

import errno
import os
import stat
import sys

from .. import jsonl
from ..private import _DIR_FLAGS, PrivateDir, _open_dir
from . import keeperfind

BY_PID = "by-pid"
MAX_DEPTH = 64


def _stat(pid):
    """(parent pid, start time) of pid from /proc/<pid>/stat, or None."""
    found = keeperfind.proc_stat(pid)
    return found and (found[0], found[2])


def parent_of(pid):
    """The parent pid of pid from /proc/<pid>/stat, or None when it cannot be read."""
    return (_stat(pid) or (None,))[0]


def pid_key(pid):
    found = _stat(pid)
    return found and f"{pid}-{found[1]}"


def places():
    """(root, parts) of each pointer place, best first; lazily, since the last needs the
    password database. None of them depends on the environment."""
    if not sys.platform.startswith("linux"):
        return
    uid = os.getuid()
    runtime = f"/run/user/{uid}"
    try:
        found = os.lstat(runtime)
    except OSError:
        found = None
    if found and found.st_uid == uid and found.st_mode & 0o170777 == 0o040700:
        yield runtime, ["safedel", BY_PID]
    yield "/tmp", [f"safedel-{uid}", BY_PID]
    try:
        import pwd

        home = pwd.getpwuid(uid).pw_dir
    except (ImportError, KeyError, OSError):
        return  # no entry for this uid: the places before are all there is
    if os.path.isabs(home):
        yield home, [".local", "state", "safedel", BY_PID]


def open_place(root, parts, create):
    """The place's pointer folder as a PrivateDir; OSError if it is missing, or if a
    directory below root is not ours or another user could write to it."""
    uid = os.getuid()
    fd = os.open(root, _DIR_FLAGS & ~os.O_NOFOLLOW)  # a fixed root: its links are the system's
    try:
        for number, name in enumerate(parts):
            shown = os.path.join(root, *parts[: number + 1])
            try:
                inner = _open_dir(name, fd, create, shown)
            except OSError as exc:  # named by its whole path, for warn_unplaced
                raise OSError(exc.errno, exc.strerror, shown) from None
            os.close(fd)
            fd = inner
            found = os.fstat(fd)
            # The pointer folder itself (0700 when made here) lets nobody else write;
            # above it, a group-writable ~/.local of a user-private group is common.
            unsafe = 0o022 if number == len(parts) - 1 else 0o002
            if found.st_uid != uid or found.st_mode & unsafe:
                raise _not_private(shown, found, uid)
    except BaseException:
        os.close(fd)
        raise
    return PrivateDir(fd, os.path.join(root, *parts))


def _not_private(path, found, uid):
    if found.st_uid != uid:
        why = f"owned by uid {found.st_uid}, not by uid {uid}: not ours, remove it"
    else:
        why = f"writable by another user (mode {stat.S_IMODE(found.st_mode):04o})"
    return PermissionError(errno.EPERM, f"not private, {why}", path)


def why_missed(exc):
    """One place's refusal (an OSError of open_place or of the write), as one line."""
    from ..printable import printable

    where = printable(exc.filename) + ": " if exc.filename else ""
    return where + (exc.strerror or str(exc))


def warn_unplaced(missed, who="safedel run"):
    """Say on stderr, once per process, that no place took the run's pointer and why
    each refused (missed: why_missed lines); nothing when missed is empty."""
    if not missed or _warned:
        return
    _warned.append(True)
    sys.stderr.write(
        f"{who}: warning: no place takes the run's pointer, so only SAFEDEL_RUN_ID binds "
        f"its commands to the run: {'; '.join(missed)}\n"
    )


_warned = []


def point(values):
    """Leave this process's pointers to its run in every place that takes one. Returns
    why_missed of each place when none took it (empty when one did): the run goes on,
    bound by SAFEDEL_RUN_ID and its record alone (warn_unplaced says so)."""
    # The walk starts at the process itself (a served run's pointer is its root's own):
    # what this process's own settings are bound by is settled before its pointer is.
    enclosing()
    key = pid_key(os.getpid())
    if key is None:
        return []
    data = jsonl.dumps(values).encode("ascii")
    missed, written = [], False
    for root, parts in places():
        try:
            with open_place(root, parts, create=True) as directory:
                directory.write(key, data)
            written = True
        except OSError as exc:
            missed.append(why_missed(exc))
    return [] if written else missed


def unpoint():
    """Remove this process's pointers when its run ends (a leftover never matches)."""
    key = pid_key(os.getpid())
    for root, parts in places() if key else ():
        try:
            with open_place(root, parts, create=False) as directory:
                directory.unlink(key)
        except OSError:
            pass


# The enclosing run of this process, by pid: ancestors never change but by dying, and a
# run's pointer exists before any of its descendants, so what is found never goes stale.
_enclosing = {}


def enclosing():
    """The pointer of the nearest run at or above this process (a dict), or None."""
    if not sys.platform.startswith("linux"):
        return None
    pid = os.getpid()
    if pid not in _enclosing:
        _enclosing[pid] = _search()
    return _enclosing[pid]


def enclosing_of(pid):
    """The pointer of the nearest run at or above process pid (of this uid), or None:
    how `safedel serve` tells a client inside a run whose environment was scrubbed."""
    if not sys.platform.startswith("linux"):
        return None
    return _search(pid)


def _search(start=0):
    walk = pointers(start)
    hit = next(walk, None)
    walk.close()
    return None if hit is None else hit.record


class Found:
    """A pointer met on the walk up: its name (`<pid>-<start>`), path, bytes, values."""

    __slots__ = ("name", "path", "data", "record")

    def __init__(self, name, path, data, record):
        self.name, self.path, self.data, self.record = name, path, data, record


def pointers(start=0):
    """Each run pointer at or above process start (0: this process), nearest first, as
    Found: a run inside a run has one of its own below its enclosing run's."""
    # The places are opened in order as they are needed: the run's pointer is normally
    # in the first that opens, and the last costs a password-database lookup.
    pending, directories = places(), []
    _open_next(pending, directories)
    try:
        if not directories:
            return
        pid, seen = start or os.getpid(), set()
        if not start and os.getsid(0) != pid:
            # This process has no pointer of its own: `safedel run` reads its enclosing
            # run before it points, and the root of a served run, the one process that
            # carries its run's pointer, leads the session it made before writing it
            # (serve/pointers.py) and cannot stop leading it. So a launcher, nearly
            # always below a shell or a run, starts at its parent: no lookup in every
            # place (the last costs a password-database lookup) for its own pid.
            seen.add(pid)
            pid = os.getppid()
        for _ in range(MAX_DEPTH):
            found = _stat(pid)
            if pid <= 1 or found is None:
                break
            hit = _lookup(pending, directories, f"{pid}-{found[1]}")
            if hit is not None:
                yield hit
            seen.add(pid)
            pid = found[0]
        # An orphan's new parent need not be its run: a served run's root adopts the
        # run's orphans (a subreaper), but where it cannot be one they go to the
        # server, which adopts those of all its runs. A served run's root leads the
        # session it made, and every process in that session descends from it; while
        # a session exists its id names no other process.
        try:
            sid = os.getsid(start)
        except OSError:
            return  # gone since
        found = None if sid <= 1 or sid in seen else _stat(sid)
        hit = None if found is None else _lookup(pending, directories, f"{sid}-{found[1]}")
        if hit is not None:
            yield hit
    finally:
        for directory in directories:
            directory.close()


def _lookup(pending, directories, name):
    """The pointer called name (a Found) in the places open so far, then in each next."""
    hit = _read_found(directories, name)
    while hit is None and _open_next(pending, directories):
        hit = _read_found(directories[-1:], name)
    return hit


def _open_next(pending, directories):
    """Open the next place of pending that opens, onto directories; False if none."""
    for root, parts in pending:
        try:
            directories.append(open_place(root, parts, create=False))
            return True
        except OSError:
            pass
    return False


def read_pointer(directories, name):
    hit = _read_found(directories, name)
    return None if hit is None else hit.record


def _read_found(directories, name):
    from .runrecord import read_closing

    for directory in directories:
        try:
            fd = directory.open(name, os.O_RDONLY)
        except OSError:
            continue
        data = read_closing(fd)
        try:
            record = jsonl.loads(data)
        except ValueError:
            continue
        if isinstance(record, dict):
            return Found(name, os.path.join(directory.path, name), data, record)
    return None
