"""An entry's identity and birth, read at a descriptor: what the net's exemptions for
git are decided on, never a name.

A rename keeps an inode's birth time (statx's btime) and nothing the command can call
sets it back, so "born since the run started" tells what was made during the run from
what was moved into place: `mv precious .git/rebase-merge/x` keeps precious's birth.
Its ctime would not do: a rename sets it. Where the file system keeps no birth time
(NFS, FAT, older kernels' tmpfs) nothing counts as born since: what the exemptions
would have spared is judged instead.

The kernel stamps files with its coarse clock, up to a tick (4 ms here) behind
`time.time_ns()`, or, since Linux 6.13's multigrain stamps, sometimes with the fine
one. So the command starts only once the coarse clock has passed the run's start
(mark): every file it makes is stamped after it, and every file made before the run
began is stamped before it. Stamps compared with a start that was not so marked
(born_before on a rule file's mtime) count as late as they may really be (latest).
"""

import os
import time

from ..core import statx

AT_FDCWD = statx.AT_FDCWD

_TICK_NS = 20 * 10**6  # how far a coarse stamp may lag the fine clock
_COARSE_NS = 2 * 10**9  # a file system with 2 s stamps (FAT)

Entry = statx.Entry
_COARSE_CLOCK = 5  # CLOCK_REALTIME_COARSE: the clock most file stamps are taken from


def clock_ns():
    """Now, on the fine clock (time.time_ns())."""
    return time.time_ns()


def mark(begun):
    """The run's start for born_since, once the command is about to start: just after
    begun (clock_ns() when the run began), read once the coarse clock has passed it.
    A file is stamped by the coarse clock, or (multigrain stamps) by the fine one, so
    one made before begun is stamped at or before begun, and one made from now on at
    or after the coarse clock, which is past begun. Waits while it is not (at most a
    tick, 4 ms here; usually the run's set-up took longer)."""
    started = begun + 1
    while time.clock_gettime_ns(_COARSE_CLOCK) < started:
        time.sleep(0.0005)
    return started


def of(dirfd, name):
    """The Entry of name in directory dirfd, its last component never followed;
    OSError when there is none."""
    return statx.read(dirfd, os.fsencode(name))


def of_fd(fd):
    """The Entry of what descriptor fd (O_PATH too) is open on."""
    return statx.read(fd, b"", statx.AT_EMPTY_PATH | statx.AT_SYMLINK_NOFOLLOW)


def born_since(entry, started):
    """Whether entry was born at or after started (mark()); False when its
    birth is unknown, or when nobody recorded when the run started."""
    return bool(started) and entry.btime_ns is not None and entry.btime_ns >= started


def born_before(entry, started):
    """Whether entry was surely born before started: its birth known and, as late as
    its stamp may really be, still earlier."""
    return bool(started) and entry.btime_ns is not None and latest(entry.btime_ns) < started


def latest(ns):
    """The latest time a file stamped ns may have been written: the kernel stamps
    with a clock a tick behind; a file system that keeps whole seconds (or two) cuts
    the rest off."""
    return ns + (_COARSE_NS if ns % 10**9 == 0 else _TICK_NS)
