"""The run pointer of a served run, left by the run's root process before its exec.

`safedel run` points to its run from its own pid (core/contract/runpointer.py), and the
processes under it find the pointer by walking up their ancestry: whatever a command
does to SAFEDEL_RUN_ID, SAFEDEL_STATE_DIR, HOME or XDG_STATE_HOME, it stays bound to
its run. A served run has no such process of its own between the server and the
command, so the command's root process carries the pointer: the child that the fork
server (or the direct fork) starts writes it, keyed by its own pid and start time,
after setsid and before the filter and the exec. Nothing of the command runs before it
exists, and a child that cannot write it into any folder it was given execs nothing
(the run fails to start). Where no place opens at all (core/contract/runpointer.py), the run
starts without a pointer, as `safedel run` does. The server opens the pointer folders
(their ownership checked, as runpointer.open_place does) and hands their descriptors to
the child; the child only opens, writes and closes a file in each. The server removes
the pointer when the run's root has ended.
"""

import errno
import os
import sys
import threading

from ..core import jsonl
from ..core.contract import runpointer
from ..core.private import PrivateDir
from . import forkserver


class Folders:
    """The pointer folders, opened and checked (runpointer.open_place) once for the
    server rather than at every run, which walked each place's directories again. A
    folder is handed out only while its path still leads to the directory opened (a
    command may remove /tmp/safedel-<uid>, or put another in its place): else the place
    is opened again, and checked again. Each run gets descriptors of its own (dup),
    which it closes."""

    def __init__(self):
        self._lock = threading.Lock()
        self._open = {}  # (root, parts) -> (PrivateDir, (st_dev, st_ino))

    def take(self, root, parts):
        """A PrivateDir of the place for one run; OSError as open_place raises it."""
        key = (root, tuple(parts))
        with self._lock:
            held = self._open.get(key)
            if held is not None and _still(held[0].path) != held[1]:
                self._open.pop(key)[0].close()
                held = None
            if held is None:
                folder = runpointer.open_place(root, parts, create=True)
                info = os.fstat(folder.fd)
                held = self._open[key] = (folder, (info.st_dev, info.st_ino))
            return PrivateDir(os.dup(held[0].fd), held[0].path)

    def close(self):
        with self._lock:
            for folder, _ in self._open.values():
                folder.close()
            self._open = {}


def _still(path):
    """(st_dev, st_ino) of the folder at path while it is ours and nobody else may
    write to it (as open_place found it), else None."""
    try:
        info = os.stat(path)
    except OSError:
        return None
    if info.st_uid != os.getuid() or info.st_mode & 0o022:
        return None
    return (info.st_dev, info.st_ino)


class Pointer:
    """One run's pointer: the folders (descriptors) and bytes its root writes."""

    def __init__(self, values, folders=None):
        self.data = jsonl.dumps(values).encode("ascii")
        self.run = values.get("run")
        self.folders = []  # PrivateDir of each place that opened
        missed = []
        for root, parts in runpointer.places():
            try:
                if folders is None:
                    self.folders.append(runpointer.open_place(root, parts, create=True))
                else:
                    self.folders.append(folders.take(root, parts))
            except OSError as exc:
                missed.append(runpointer.why_missed(exc))
        if not self.folders:
            # No place takes it: the run goes on bound by SAFEDEL_RUN_ID alone, as
            # `safedel run`'s does, and the server says why once.
            runpointer.warn_unplaced(missed, "safedel serve")
        self.fds = [folder.fd for folder in self.folders]
        self.key = None

    def started(self, pid):
        """Right after the spawn: the name the root gave its pointer."""
        self.key = runpointer.pid_key(pid)

    def remove(self):
        """Once the run's root has ended: its pointer goes, then the folders close. A
        root reaped before its start time was read is found by its run id."""
        try:
            for folder in self.folders:
                for name in [self.key] if self.key else self._named_for_run(folder):
                    try:
                        folder.unlink(name)
                    except OSError:
                        pass
        finally:
            self.close()

    def _named_for_run(self, folder):
        from ..core.contract.runrecord import read_closing

        for name in folder.listdir():
            try:
                found = jsonl.loads(read_closing(folder.open(name, os.O_RDONLY)))
            except (OSError, ValueError):
                continue
            if isinstance(found, dict) and found.get("run") == self.run:
                yield name

    def close(self):
        for folder in self.folders:
            folder.close()
        self.folders, self.fds = [], []


class Installer:
    """What net.spawn.spawn (the direct fork) calls in the child: the pointer first
    (when the run has one), CAP_SYS_PTRACE dropped (serve/seal.py), then the net's
    filter when the run has it. forking.ForkServer reads the same fields and has its
    own child do all three.

    The child also becomes a child subreaper, which its exec keeps: a process orphaned
    inside the run (a double fork, `setsid -f`) is adopted by the run's root, below
    the pointer, rather than by the server, where no run's pointer is. `safedel run`
    in capture mode is such a subreaper itself. The root then reaps those orphans, as
    a shell does any child; the executor still ends the whole tree with the root."""

    def __init__(self, pointer, net_installer=None):
        self.pointer = pointer
        self.filtered = net_installer is not None
        self._net = net_installer
        self._libc = _libc()  # loaded here: the child only calls it

    def install(self):
        """The listener fd, or -errno (ENOSYS: no filter wanted); OSError when the
        pointer could not be left or CAP_SYS_PTRACE stays (the child then reports a
        failed start)."""
        if self.pointer is not None:
            forkserver.leave(self.pointer.fds, self.pointer.data)
            self._libc.prctl(forkserver.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
        forkserver.drop_ptrace(self._libc)
        return self._net.install() if self._net is not None else -errno.ENOSYS


_loaded = []


def _libc():
    if not _loaded:
        import ctypes

        _loaded.append(ctypes.CDLL(None, use_errno=True))
    return _loaded[0]


def spawner(forks, net, pointer, actions):
    """The executor's spawn for a served run (os.posix_spawn's signature, the pid back).
    On Linux every run is started by the fork server's child (or the direct fork), so
    that it leaves the run's pointer when there is one, and gives up CAP_SYS_PTRACE,
    before its exec: under the net, its Net forks through it; posix_spawn elsewhere.
    actions: the run's channels, from the executor's file actions."""
    linux = sys.platform.startswith("linux")
    if net is not None:

        def fork(installer, *args):
            return forks.spawn(Installer(pointer, installer), *args)

        net.fork = fork

    def spawn(path, argv, env, file_actions=(), **kw):
        kw["file_actions"] = actions(file_actions)
        if net is not None:
            return net.spawn(path, argv, env, **kw)
        if linux:
            return forks.spawn(Installer(pointer), path, argv, env, **kw).pid
        return os.posix_spawn(path, argv, env, **kw)

    return spawn
