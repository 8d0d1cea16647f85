"""Run one command to its end: spawn it in its own session with its output in files,
wait for it, enforce the timeout, and leave no process of it behind.

The wait sleeps in poll() on a pidfd (the root's exit), a wake-up pipe (a signal to
safedel, or kill() from another thread) and the next timer (timeout or descendant
poll), so a finished command is noticed at once and an idle one costs nothing. poll,
not select: a server with hundreds of runs has descriptors past select's 1024.
"""

import os
import select
import time

from . import tree
from .plainspawn import which

try:  # the C module: `signal` itself imports enum
    import _signal as signal
except ImportError:
    import signal

INTERRUPTING = ("SIGTERM", "SIGINT", "SIGHUP")
TIMED_OUT_EXIT = 124  # as timeout(1)
UNKNOWN_EXIT = 125  # as timeout(1) when it cannot tell


class Outcome:
    __slots__ = (
        "exit_code",
        "signal",
        "timed_out",
        "interrupted",
        "duration_ms",
        "unknown",
        "shell_code",
    )

    def __init__(self):
        self.exit_code = None  # the command's own code; None when a signal ended it
        self.signal = None  # "SIGTERM" style
        self.timed_out = False
        self.interrupted = None  # the signal number that interrupted safedel, if any
        self.duration_ms = 0
        self.unknown = False  # the exit status could not be read
        self.shell_code = 0  # what safedel run exits with


class Execution:
    def __init__(self, command, env, fds, timeout_ms=None, grace_ms=2000, keep_background=False):
        self.command = command
        self.env = env
        self.fds = fds  # {"stdout": fd, "stderr": fd}
        self.timeout = None if timeout_ms is None else timeout_ms / 1000
        self.grace = grace_ms / 1000
        self.keep_background = keep_background
        self.pid = None
        self.spawn = os.posix_spawn
        self.tree = None
        self.subreaper = False
        self._wake_r, self._wake_w = os.pipe()
        self._stop_signal = None

    def start(self):
        """Spawn the command; FileNotFoundError or another OSError if it cannot run."""
        self.subreaper = tree.become_subreaper()
        program = which(self.command[0], self.env.get("PATH", os.defpath))
        actions = [(os.POSIX_SPAWN_DUP2, self.fds[s], n) for s, n in (("stdout", 1), ("stderr", 2))]
        reset = {getattr(signal, n) for n in (*INTERRUPTING, "SIGPIPE", "SIGXFSZ", "SIGQUIT")}
        self.started = time.monotonic()
        # A session of its own: no controlling terminal (so no prompt on /dev/tty, and a
        # terminal's Ctrl-C reaches safedel, which ends the whole tree).
        self.pid = self.spawn(
            program, self.command, self.env, file_actions=actions, setsid=True, setsigdef=reset
        )
        self.tree = tree.Tree(self.pid)

    def stop(self, signum):
        """Ask the wait to end the tree (a signal handler, or another thread)."""
        self._stop_signal = signum
        try:
            os.write(self._wake_w, b"!")
        except OSError:
            pass

    def wait(self):
        outcome = Outcome()
        status = self._wait_root(outcome)
        if status is None:
            self.tree.end(self.grace)
            status = tree.take_status(self.pid)
        elif not self.keep_background and (not self.subreaper or tree.reap()):
            self.tree.root_reaped = True
            self.tree.end(self.grace)  # background processes it left behind
        outcome.duration_ms = int((time.monotonic() - self.started) * 1000)
        if status is None:
            outcome.unknown, outcome.shell_code = True, UNKNOWN_EXIT
        elif status < 0:
            outcome.signal, outcome.shell_code = _signal_name(-status), 128 - status
        else:
            outcome.exit_code = outcome.shell_code = status
        if outcome.interrupted is not None:
            outcome.shell_code = 128 + outcome.interrupted
        elif outcome.timed_out:
            outcome.shell_code = TIMED_OUT_EXIT
        for fd in (self._wake_r, self._wake_w):
            os.close(fd)
        return outcome

    def _wait_root(self, outcome):
        """The root's exit status, or None after a timeout or an interruption."""
        deadline = None if self.timeout is None else self.started + self.timeout
        pidfd = _pidfd(self.pid)
        poller = select.poll()
        for fd in [self._wake_r] + ([pidfd] if pidfd is not None else []):
            poller.register(fd, select.POLLIN)
        next_poll = self.started + tree.POLL_SECONDS
        try:
            while True:
                status = tree.take_status(self.pid)
                if status is not None:
                    return status
                if self._stop_signal is not None:
                    outcome.interrupted = self._stop_signal
                    return None
                now = time.monotonic()
                if deadline is not None and now >= deadline:
                    outcome.timed_out = True
                    return None
                if now >= next_poll:
                    self.tree.record()
                    next_poll = now + tree.POLL_SECONDS
                pause = next_poll - now
                if deadline is not None:
                    pause = min(pause, deadline - now)
                if pidfd is None:
                    pause = min(pause, 0.01)  # no pidfd: look again soon
                poller.poll(max(pause, 0) * 1000)
        finally:
            if pidfd is not None:
                os.close(pidfd)


def _pidfd(pid):
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _signal_name(number):
    names = [n for n in dir(signal) if n.startswith("SIG") and not n.startswith("SIG_")]
    return next((n for n in sorted(names) if getattr(signal, n) == number), str(number))


class stopping_on_signals:
    """While active, SIGTERM/SIGINT/SIGHUP to safedel end the execution's whole tree."""

    def __init__(self, execution):
        self.execution = execution
        self.previous = {}

    def __enter__(self):
        for name in INTERRUPTING:
            signum = getattr(signal, name, None)
            if signum is not None:
                self.previous[signum] = signal.signal(signum, self._handle)
        return self

    def _handle(self, signum, _frame):
        self.execution.stop(signum)

    def __exit__(self, *_exc):
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)
