"""An info file whose move is under way, told from one whose mover is gone.

A move creates the info file (O_EXCL), writes it, then renames the item into files/.
A process killed in between (kill -9 of `safedel run` while its net trashes, of
`safedel serve`, of a shim) leaves an info file without its item: trash-list shows an
entry that nothing can restore. A sweep may remove such a file, but never one whose
move is still going: that item would then arrive in files/ with no info file.

So safedel's movers create the info file with mode IN_FLIGHT (0400), take an
exclusive flock on it before they write a byte (and go on only if it is still there),
hold it until the item is in files/ (or the info file is discarded again), and only
then make it DONE (0600). A sweep acts on an info file only under that lock. One that
is IN_FLIGHT and whose lock a sweep can take has lost its mover, whatever its age: the
kernel drops a lock with the last descriptor of a process it killed; and one still
empty, whose mover has not locked it yet, costs that mover nothing but a name: it
finds the file gone once the lock is its own, and takes the next. Any other info file
without its item (the Node shim's, which has no file locks; another tool's; an older
safedel's) waits for the grace of orphans.py, and still goes only under its lock.
"""

import errno
import os
import stat
import time

try:
    import fcntl
except ImportError:  # Windows: native trash there, no info files
    fcntl = None

IN_FLIGHT = 0o400
DONE = 0o600
_TRIES = 5000  # a sweep holds a lock for a read and an unlink: a few seconds at most


def hold(fd, name, dir_fd):
    """Right after creating the info file `name` (mode IN_FLIGHT) as fd: lock it. True
    once fd holds the lock of the file still there (the move may go on); False when a
    sweep removed it before the lock was ours, or holds it too long: the next name,
    then. Where the file system has no locks, it is made DONE at once (a sweep then
    waits for the grace), and the move goes on."""
    for _ in range(_TRIES):
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except BlockingIOError:
            time.sleep(0.001)
        except (AttributeError, OSError):
            done(fd)
            return True
    else:
        return False
    try:
        there = os.stat(name, dir_fd=dir_fd, follow_symlinks=False)
    except OSError:
        return False
    mine = os.fstat(fd)
    return (there.st_dev, there.st_ino) == (mine.st_dev, mine.st_ino)


def done(fd):
    """The item is in files/: the info file is whole (its lock goes with fd)."""
    try:
        os.fchmod(fd, DONE)
    except OSError:
        pass  # still readable by its owner, and its item is there: nothing to sweep


def lock(fd):
    """Take the info file's lock unless somebody holds it (a mover at work does).
    True too where the file system has no locks: no mover could hold one there."""
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except AttributeError:
        return True
    except OSError as exc:
        return exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EINTR)
    return True


def abandoned(st):
    """Whether an info file (st: its fstat, taken under its lock, see lock) was left
    by a mover that is gone: one still at work holds that lock from before it writes
    a byte until the file is DONE. One not locked yet, still empty, may be a mover's
    between its two calls; taken away then, that mover takes the next name (hold)."""
    return stat.S_IMODE(st.st_mode) == IN_FLIGHT
