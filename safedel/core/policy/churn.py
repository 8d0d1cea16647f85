"""Short-lived churn: an entry born in this turn and removed within LIMIT seconds of
its birth (configure's conftest*, a compiler's temp file, an editor's swap file that
lived a moment) is deleted for real, never trashed and never counted. Nobody asks such
a file back, and configure alone would add hundreds of them to the trash per run.

One rule holds whatever else: an entry that existed when the turn began, or that has
lived longer than LIMIT, always reaches the trash. Birth is the kernel's (statx btime,
read at a descriptor of the very parent judged), never a name or a ctime, which a
rename sets: `mv precious conftest.c` keeps precious's birth. Where the file system
keeps no birth time nothing is churn. Only a file, a symlink or an empty directory
can be: a directory with entries may hold something older moved in, and goes to the
trash (uncounted when born in the turn: core/guard/regenerable.py). Never inside
safedel's own trash or state (core.kept), nor in a git dir. The turn's start is the
one `safedel run` or a shell hook recorded as `seconds:turn`; without one nothing is
churn. shims/node/churn.cjs and the net (net/churn.py) decide the same.
"""

import os
import stat
import time

from .. import statx

LIMIT = 60  # seconds from birth to removal
VARIABLE = "SAFEDEL_CHURN_SECONDS"


def limit(environ=None):
    """LIMIT, or less where SAFEDEL_CHURN_SECONDS asks (0: nothing is churn, every
    deletion is trashed). It only lowers: a value above LIMIT, or no number, is LIMIT,
    so nothing a command sets deletes more for real."""
    raw = (os.environ if environ is None else environ).get(VARIABLE)
    try:
        asked = float(raw) if raw is not None else LIMIT
    except ValueError:
        return LIMIT
    return min(max(asked, 0.0), LIMIT) if asked == asked else LIMIT


_DIR_FLAGS = (getattr(os, "O_PATH", 0) or os.O_RDONLY) | getattr(os, "O_DIRECTORY", 0)


def turn_start(settings):
    """The turn's start (seconds) as recorded for this very turn, or None."""
    seconds, colon, turn = (settings.turn_start or "").partition(":")
    if not colon or turn != settings.turn:
        return None
    try:
        start = float(seconds)
    except ValueError:
        return None
    return start if start > 0 else None


def short_lived(target, settings, now=None):
    """Whether target (a resolve.Target judged TRASH) is churn by the rule above."""
    st = target.st
    if st is None or target.via_link or target.parent_id is None:
        return False
    start = turn_start(settings)
    if start is None or st.st_ctime < start:  # birth <= ctime: born before the turn
        return False
    if b"/.git/" in target.path + b"/" or _kept(target, settings):
        return False
    btime = _birth_at_parent(target)
    if btime is None:
        return False
    now = time.time() if now is None else now
    return verdict(btime, start, now, st.st_mode, _entries(target), limit())


def verdict(btime, start, now, mode, entries=0, most=LIMIT):
    """The rule without the file system (tests/vectors/churn.json holds Node to it);
    most: the limit in force (limit())."""
    if btime is None or btime < start or now - btime > most or most <= 0:
        return False
    return not stat.S_ISDIR(mode) or entries == 0


def _birth_at_parent(target):
    """The entry's birth (seconds), read at a descriptor of the parent judged, and
    only while the entry is the one judged; None otherwise."""
    try:
        fd = os.open(target.parent, _DIR_FLAGS | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        here = os.fstat(fd)
        if (here.st_dev, here.st_ino) != target.parent_id:
            return None
        entry = statx.read(fd, target.name)
    except OSError:
        return None
    finally:
        os.close(fd)
    if (entry.dev, entry.ino) != (target.st.st_dev, target.st.st_ino):
        return None
    return None if entry.btime_ns is None else entry.btime_ns / 1e9


def _entries(target):
    if not stat.S_ISDIR(target.st.st_mode):
        return 0
    try:
        with os.scandir(target.path) as found:
            return 1 if next(found, None) is not None else 0
    except OSError:
        return 1


def _kept(target, settings):
    from . import kept, workspace

    shown = target.shown
    if settings.report and os.path.realpath(settings.report) == shown:
        return True
    roots = (*kept.roots(settings, (os.sep,)), *pointer_places())
    return any(workspace.inside(shown, root) for root in roots)


_pointers = []


def pointer_places():
    """The real paths of the run pointers' folders (core/contract/runpointer.py): state
    of safedel's, never churn. Found once per process."""
    if not _pointers:
        from ..contract import runpointer

        found = (os.path.realpath(os.path.join(r, *p)) for r, p in runpointer.places())
        _pointers.append(tuple(found))
    return _pointers[0]
