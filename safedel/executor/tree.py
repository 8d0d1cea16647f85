"""Every process a command started, and ending them all.

On Linux the executor makes itself a child subreaper (prctl PR_SET_CHILD_SUBREAPER), so
a grandchild orphaned by a double fork, or by a parent that exited after a setsid(), is
re-parented to it instead of to init. Every process the command started therefore stays
a descendant until it is reaped, and the process table lists them all at any moment.
Besides, while the command runs, descendants are recorded every POLL_SECONDS (a /proc
scan of about 1 ms); the record is what finds them where there is no subreaper, and
for a `safedel serve` that runs several trees side by side.
"""

import errno
import os
import sys
import time

try:  # the C module: `signal` itself imports enum
    import _signal as signal
except ImportError:
    import signal

PR_SET_CHILD_SUBREAPER = 36
POLL_SECONDS = 0.25
MAX_KILL_ROUNDS = 20
# Exit statuses reaped by waitpid(-1): a subreaper reaps orphans it never spawned, and
# the status of a command's own root process may turn up among them.
_statuses = {}


def become_subreaper():
    """True if orphans of our descendants now come to us (Linux >= 3.4)."""
    pid = os.getpid()  # the attribute is per process, and not inherited by a fork
    if pid not in _subreaper:
        _subreaper.clear()
        _subreaper[pid] = _set_subreaper()
    return _subreaper[pid]


_subreaper = {}  # pid -> what become_subreaper found: a served run asks at every start


def _set_subreaper():
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def reap():
    """Collect every exited child; return True while any child is still alive."""
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return False
        except InterruptedError:
            continue
        if pid == 0:
            return True
        _statuses[pid] = status


def take_status(pid):
    """The root process's exit status as waitstatus_to_exitcode gives it, or None."""
    reap()
    status = _statuses.pop(pid, None)
    return None if status is None else os.waitstatus_to_exitcode(status)


class Tree:
    """The processes under one root. exclusive: every descendant of this process belongs
    to the tree (one command per process, as in `safedel run`)."""

    def __init__(self, root_pid, exclusive=True):
        self.root_pid = root_pid
        self.exclusive = exclusive
        self.recorded = {}  # pid -> psutil.Process (its create time guards against reuse)
        # Set once the root's status is taken: its pid may then be anyone's, so a tree
        # that is not exclusive knows its processes from the record alone.
        self.root_reaped = False

    def record(self):
        for proc in self._current():
            self.recorded.setdefault(proc.pid, proc)

    def _current(self):
        if self.root_reaped and not self.exclusive:
            return []
        import psutil

        try:
            top = psutil.Process() if self.exclusive else psutil.Process(self.root_pid)
            found = top.children(recursive=True)
            return found if self.exclusive else [top, *found]
        except psutil.Error:
            return []

    def live(self):
        """The tree's processes that have not exited (zombies are dead)."""
        import psutil

        reap()
        procs = {p.pid: p for p in self._current()}
        for pid, proc in self.recorded.items():
            procs.setdefault(pid, proc)
        alive = []
        for proc in procs.values():
            try:
                if proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE:
                    alive.append(proc)
            except psutil.Error:
                continue
        return alive

    def end(self, grace_seconds):
        """SIGTERM to every process of the tree, SIGKILL to what is left after the grace
        period; return only when none is alive (or after MAX_KILL_ROUNDS rounds)."""
        self.record()
        if self._wait_gone(grace_seconds, signal.SIGTERM):
            return True
        for _ in range(MAX_KILL_ROUNDS):
            if self._wait_gone(1.0, signal.SIGKILL):
                return True
        return not self.live()

    def _wait_gone(self, seconds, signum):
        """Send signum once to each process of the tree, newcomers too (a process may fork
        while being asked to stop), and wait up to seconds for the tree to empty."""
        deadline = time.monotonic() + seconds
        signalled = set()
        pause = 0.002
        while True:
            left = self.live()
            if not left:
                return True
            if time.monotonic() >= deadline:
                return False
            _signal_all([p for p in left if p not in signalled], signum)
            signalled.update(left)
            time.sleep(pause)
            pause = min(pause * 2, 0.05)


def _signal_all(procs, signum):
    import psutil

    for proc in procs:
        try:
            proc.send_signal(signum)  # psutil refuses a pid reused by someone else
        except psutil.NoSuchProcess:
            continue
        except psutil.AccessDenied:
            continue
        except OSError as exc:
            if exc.errno != errno.ESRCH:
                raise
