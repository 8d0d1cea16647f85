"""What answers a run's listener once `safedel run` has ended while processes of its
tree live on (`--keep-background`, `nohup ... &`).

Nobody judges their deletions any more: each fails with ENOSYS, as it would with the
listener closed, never succeeding unjudged. Their renames are judged as during the run
(net/moves.py): a daemon's atomic saves and a shim's moves into the trash go on, and a
rename that would carry workspace data to the temp dir still gets EXDEV. A process of
its own (the run's supervisor, in its after-run mode), not dumpable: whoever could
attach to it could answer CONTINUE to an unlink. It ends with the last process under
the filter.

    python -I -S afterlife.py PACKAGE_PARENT MACHINE   (listener on fd 3; stdin: JSON of
    the run's environment, the git it trusts and when the run started)
"""

import json
import os
import signal
import sys

LISTENER = 3
PR_SET_DUMPABLE = 4


def hand_over(listener, environ, machine, git, started=None):
    """Start the afterlife for listener (this process closes its own copy after)."""
    read_end, write_end = os.pipe()
    try:
        actions = [
            (os.POSIX_SPAWN_DUP2, read_end, 0),
            (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_RDWR, 0),
            (os.POSIX_SPAWN_DUP2, 1, 2),
            (os.POSIX_SPAWN_DUP2, listener, LISTENER),
        ]
        package_parent = os.path.dirname(os.path.dirname(os.path.dirname(__file__)))
        argv = [sys.executable, "-I", "-S", os.path.abspath(__file__), package_parent, machine]
        os.posix_spawn(sys.executable, argv, {}, file_actions=actions, setsid=True)
    finally:
        os.close(read_end)
    try:
        with open(write_end, "w", encoding="utf-8") as pipe:
            json.dump({"environ": dict(environ), "git": git, "started": started}, pipe)
    except OSError:
        pass  # it died at once: the listener closes with it, and calls fail ENOSYS


def main():  # pragma: no cover (a process of its own; tests/net drive it)
    import ctypes

    ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    for signum in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)  # it lives exactly as long as the tree
    package_parent, machine = sys.argv[1], sys.argv[2]
    given = json.load(sys.stdin)
    sys.path.insert(0, package_parent)
    from safedel.net import supervisor

    git = given["git"]
    git = (git[0], tuple(git[1])) if git else None
    started = given.get("started")  # the run's start: see ignored
    supervisor.Supervisor(
        LISTENER, given["environ"], machine, git=git, after_run=True, started=started
    ).serve()


if __name__ == "__main__":
    main()
