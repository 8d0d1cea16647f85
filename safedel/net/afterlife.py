"""What answers a run's listener once `safedel run` has ended while processes of its
tree live on (`--keep-background`, `nohup ... &`).

Nobody judges their deletions any more: each fails with ENOSYS, as it would with the
listener closed, never succeeding unjudged. Their renames carry on (CONTINUE): the net
watches renames only so that workspace data is not moved to where a deletion is left
to the kernel (net/moves.py), and no deletion is left to the kernel now. A daemon's
atomic saves and a shim's moves into the trash keep working. A small stdlib process on
its own, not dumpable (whoever could attach to it could answer CONTINUE to an unlink);
it exits when the last process under the filter is gone.

    python -I -S afterlife.py NR...    (the rename call numbers; the listener is fd 3)
"""

import errno
import importlib.util
import os
import select
import signal
import sys

LISTENER = 3
PR_SET_DUMPABLE = 4


def hand_over(listener, renames):
    """Start the afterlife for listener (this process closes its own copy after)."""
    null = (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDWR, 0)
    actions = [null, (os.POSIX_SPAWN_DUP2, 0, 1), (os.POSIX_SPAWN_DUP2, 0, 2)]
    actions.append((os.POSIX_SPAWN_DUP2, listener, LISTENER))
    argv = [sys.executable, "-I", "-S", os.path.abspath(__file__), *map(str, renames)]
    os.posix_spawn(sys.executable, argv, {}, file_actions=actions, setsid=True)


def _notify():
    """net/notify.py, loaded by its path: this script runs outside the package."""
    here = os.path.dirname(os.path.abspath(__file__))
    spec = importlib.util.spec_from_file_location("notify", os.path.join(here, "notify.py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():  # pragma: no cover (a process of its own; tests/net drive it)
    import ctypes

    ctypes.CDLL(None).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    for signum in (signal.SIGINT, signal.SIGHUP, signal.SIGTERM):
        signal.signal(signum, signal.SIG_IGN)  # it lives exactly as long as the tree
    renames = {int(nr) for nr in sys.argv[1:]}
    channel = _notify().Channel(LISTENER)
    poller = select.poll()
    poller.register(LISTENER, select.POLLIN)
    while True:
        for _fd, happened in poller.poll():
            if happened & select.POLLIN:
                notif = channel.receive()
                if notif is not None:
                    proceed = notif[3] in renames
                    channel.answer(notif[0], 0 if proceed else errno.ENOSYS, proceed)
            elif happened & (select.POLLHUP | select.POLLERR):
                return


if __name__ == "__main__":
    main()
