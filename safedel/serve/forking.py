"""The server's side of the fork server (forkserver.py): net runs started by a small
process, their children still the server's own.

The fork server is started at the first run under the net, by a thread that lives as
long as the server (a parent-death signal fires when the thread that started the
process ends), and started again if it dies. Requests go one at a time over its socket;
each run's reply comes on a socket of its own, so no two runs share a listener. A run
that finds no fork server ready, or whose reply socket closes with nothing on it (the
fork server died with its request), is started by the direct fork (net.spawn) instead:
it never runs without the net.
"""

import _socket
import array
import marshal
import os
import select
import sys
import threading

from ..executor import tree
from ..net import bpf
from ..net import spawn as direct
from . import forkserver

CLONE = {"x86_64": 56, "aarch64": 220}  # clone's syscall number
RESTART_SECONDS = 1.0
POINTER_PLACES = 3  # at most one folder per place of core/contract/runpointer.py


class Lost(Exception):
    """The request was lost with the fork server: nothing of the command ran."""


class ForkServer:
    def __init__(self):
        self._lock = threading.Lock()  # one request at a time on the socket
        self._sock = None  # set once the fork server has its filter
        self._started = False
        self._closed = threading.Event()
        self._died = threading.Event()
        self._execs = {}  # pid -> its reply socket, until its run asks how exec went
        self.pid = None

    def spawn(self, installer, program, argv, env, setsigdef=(), file_actions=(), setsid=False):
        """net.spawn.spawn's contract: through the fork server when it is up. An
        installer of serve/pointers.py also has the child leave the run's pointer, and
        may ask for no filter (a run without the net)."""
        encoded = encode(file_actions) if setsid else None
        if encoded is not None and self._ready():
            pointer = getattr(installer, "pointer", None)
            how = (
                None if pointer is None else pointer.data,
                [] if pointer is None else pointer.fds,
                getattr(installer, "filtered", True),
            )
            try:
                return self._run(program, argv, env, setsigdef, encoded, how)
            except Lost:
                self._died.set()
        return direct.spawn(installer, program, argv, env, setsigdef, file_actions, setsid)

    def warm(self):
        self._ready()

    def _ready(self):
        if self._sock is not None:
            return True
        with self._lock:
            machine = os.uname().machine
            if not self._started and machine in CLONE:
                self._started = True
                threading.Thread(target=self._keep, args=(machine,), daemon=True).start()
        return False

    def _run(self, program, argv, env, setsigdef, encoded, how):
        actions, passed = encoded
        pointer, folders, filtered = how
        command = (program, argv, env, tuple(setsigdef), actions, pointer, len(folders), filtered)
        body = marshal.dumps(command)
        message = forkserver.HEAD.pack(len(body), 1 + len(passed) + len(folders)) + body
        ours, theirs = _socket.socketpair(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            fds = array.array("i", [theirs.fileno(), *passed, *folders]).tobytes()
            try:
                with self._lock:
                    sock = self._sock
                    if sock is None:
                        raise Lost()
                    sent = sock.sendmsg([message], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
                    sock.sendall(message[sent:])
            except OSError:
                raise Lost() from None
            theirs.close()
            spawned = _reply(ours, program)
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        self._execs[spawned.pid] = ours
        return spawned

    def exec_failure(self, pid):
        """After the run's root ended: the OSError of its failed exec, or None."""
        sock = self._execs.pop(pid, None)
        if sock is None:
            return None
        try:
            sock.setblocking(False)
            rest = sock.recv(64)
        except OSError:
            rest = b""
        finally:
            sock.close()
        if len(rest) < forkserver.REPLY.size or rest[:1] != b"X":
            return None
        err = forkserver.REPLY.unpack_from(rest)[1]
        return OSError(err, os.strerror(err))

    def _keep(self, machine):
        """Start the fork server, and again whenever it dies, until the server closes."""
        while not self._closed.is_set():
            self._died.clear()
            try:
                proc, sock = _start(machine)
            except OSError:
                self._closed.wait(RESTART_SECONDS)
                continue
            with self._lock:
                self._sock, self.pid = sock, proc
            pidfd = _pidfd(proc)
            exited = select.poll()  # not select(): the pidfd may be past fd 1023
            if pidfd is not None:
                exited.register(pidfd, select.POLLIN)
            while not (self._closed.is_set() or self._died.is_set()):
                if pidfd is not None and exited.poll(500):
                    break  # it exited
                if pidfd is None:
                    self._died.wait(0.5)
            with self._lock:
                self._sock = None
            sock.close()  # EOF: it exits
            _end(proc)
            if pidfd is not None:
                os.close(pidfd)
            if not self._closed.is_set():
                self._closed.wait(RESTART_SECONDS)

    def close(self):
        self._closed.set()


def _start(machine):
    """(pid, socket) of a fork server that has its filter."""
    ours, theirs = _socket.socketpair(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        argv = [sys.executable, "-I", "-S", forkserver.__file__, str(os.getpid())]
        null = (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDWR, 0)
        actions = [null, (os.POSIX_SPAWN_DUP2, 0, 1), (os.POSIX_SPAWN_DUP2, theirs.fileno(), 3)]
        # A session of its own: a terminal's Ctrl-C is for the server, which ends the runs.
        pid = os.posix_spawn(sys.executable, argv, {}, file_actions=actions, setsid=True)
    except OSError:
        ours.close()
        raise
    finally:
        theirs.close()
    code, length = bpf.program(machine)
    first = (code, length, bpf.ARCHES[machine][1], CLONE[machine], os.geteuid() != 0)
    body = marshal.dumps(first)
    try:
        ours.sendall(forkserver.HEAD.pack(len(body), 0) + body)
    except OSError:
        ours.close()
        _end(pid)
        raise
    return pid, ours


def _reply(ours, program):
    """Spawned from the child's first word, without waiting for its exec: the socket
    stays open, and a failed exec is read from it once the run ended (exec_failure)."""
    poller = select.poll()
    poller.register(ours.fileno(), select.POLLIN | select.POLLRDHUP)
    while not poller.poll():
        pass
    space = _socket.CMSG_SPACE(forkserver.INT.size)
    data, ancillary, _, _ = ours.recvmsg(forkserver.REPLY.size, space)
    listener = None
    for level, kind, payload in ancillary:
        if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
            listener = forkserver.INT.unpack_from(payload)[0]
    if len(data) < forkserver.REPLY.size:
        raise Lost()  # it died before its child was started, or the child before it spoke
    tag, value, pid = forkserver.REPLY.unpack(data)
    if tag == b"F":
        raise Lost()  # it could not clone: start the command the direct way
    if tag == b"X":  # before the filter: setsid or a file action failed
        if listener is not None:
            os.close(listener)
        _end(pid)
        raise OSError(value, os.strerror(value), program)
    return direct.Spawned(pid, listener, value if tag == b"E" else 0)


def _end(pid):
    """Kill and reap a child of ours (tree.reap may have reaped it first)."""
    try:
        os.kill(pid, 9)
    except OSError:
        pass
    try:
        os.waitpid(pid, 0)
    except ChildProcessError:
        tree.take_status(pid)  # reaped by a run's wait: forget its status
    except OSError:
        pass


def _pidfd(pid):
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def encode(file_actions):
    """(actions the fork server's child applies, the server's fds to pass), or None for
    an action it does not do. A DUP2 whose source an earlier action made in the child
    names the child's descriptor; any other source is the server's, passed."""
    made, passed, encoded = set(), [], []
    for action in file_actions:
        if action[0] == os.POSIX_SPAWN_DUP2:
            source, target = action[1], action[2]
            if source in made:
                encoded.append(("dup", None, source, target))
            else:
                if source not in passed:
                    passed.append(source)
                encoded.append(("dup", passed.index(source), None, target))
            made.add(target)
        elif action[0] == os.POSIX_SPAWN_OPEN:
            encoded.append(("open", *action[1:]))
            made.add(action[1])
        else:
            return None
    if len(passed) >= forkserver.MAX_FDS - POINTER_PLACES:
        return None
    return encoded, passed
