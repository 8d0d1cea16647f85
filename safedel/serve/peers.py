"""Whether a client of `safedel serve` is a command inside a run, its own or another's.

A served run's command (runs are the server's children, and as a subreaper it is the
parent of their orphans too) must not answer its own guard question. And a server
started before a run (a resident executor of the same user) is not an
ancestor of the run's commands, so the check of our own tree lets them in: such a
command could open a session of its own, with the threshold and workspace it likes,
and delete past its run's guard without a question. So a peer is refused when any of
these says it is inside a run:

- it carries more seccomp filters than this server: a run's net adds one, and filters
  are inherited and never removed (in a container both share the container's own);
- a process at or above it has a run pointer (core.runpointer), which its
  environment cannot move.

A peer that is gone, or whose status cannot be read, is refused too: it cannot be told
apart from one. Its environment is never read: the command owns it (it empties it
before it connects, or hides it: a process that is not dumpable keeps
/proc/<pid>/environ from the server, as a harness that keeps its end private does).
So a run with no net and no pointer place (core/contract/runpointer.py) is not told
apart from a harness; docs/harness.md names that case.
"""

import os

from ..core.contract import runpointer
from ..core.contract.runrecord import read_closing

MAX_DEPTH = 4096  # the depth of a process tree is bounded; a loop is not


def refused(pid):
    """True when the peer (SO_PEERCRED's pid, in our pid namespace) is this server, one
    of its descendants, or inside any run, or cannot be told apart from one of those."""
    return descends_from_us(pid) or in_a_run(pid)


def descends_from_us(pid):
    """True when pid is this process or a descendant of it, or cannot be told apart
    from one. 0 means a peer outside our pid namespace (a harness on the host of our
    container), which no run of ours can be."""
    ours = os.getpid()
    for _ in range(MAX_DEPTH):
        if pid == ours:
            return True
        if pid <= 1:
            return False
        pid = runpointer.parent_of(pid)
        if pid is None:
            return True  # gone or unreadable: it may have been one of ours
    return True


def in_a_run(pid):
    """True when process pid (SO_PEERCRED's, in our pid namespace) is inside a run or
    cannot be told apart from one; 0 (a peer outside our pid namespace) cannot be
    looked at, and is not judged here."""
    if pid <= 0:
        return False
    ours = _seccomp_filters(os.getpid())
    try:
        theirs = _seccomp_filters(pid)
    except OSError:
        return True
    if ours is not None and theirs is not None and theirs > ours:
        return True
    return runpointer.enclosing_of(pid) is not None


def _seccomp_filters(pid):
    """The number of seccomp filters on pid, or None where the kernel does not say
    (before Linux 5.9)."""
    for line in _read(f"/proc/{pid}/status").splitlines():
        if line.startswith(b"Seccomp_filters:"):
            return int(line.split()[1])
    return None


def _read(path):
    return read_closing(os.open(path, os.O_RDONLY), limit=1 << 20)
