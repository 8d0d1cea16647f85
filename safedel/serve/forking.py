"""The server's side of the fork server (forkserver.py): net runs started by a small
process, their children still the server's own.

The fork server is started at the first OpenSession (or run) under the net, by a thread
that lives as long as the server (a parent-death signal fires when the thread that
started the process ends), and started again if it dies. That thread also keeps one
spare ready: a child the fork server made ahead, netted and waiting for a command. A
run takes the spare under the lock, so no spare serves two runs and no two runs share a
listener; it reads the spare's listener (already sent), sends its command, and answers
at once, while the spare applies it and execs. Without a spare, the run asks the fork
server for a child with its command; when the fork server or the spare is lost, the
run is forked directly (net.spawn), so it never runs without the net.
"""

import _socket
import os
import select
import threading

from ..net import spawn as direct
from . import forkserver, forkwire
from .forkwire import Lost

RESTART_SECONDS = 1.0
MAX_RESTART_SECONDS = 60.0  # one that cannot even start (no interpreter file) is retried


class ForkServer:
    def __init__(self):
        self._lock = threading.Lock()  # one request at a time on the socket; the spare
        self._sock = None  # set once the fork server has its filter
        self._spare = None  # (pid, socket) of a child waiting for its command
        self._started = False
        self._made = False  # the running fork server made a spare
        self._closed = threading.Event()
        self._died = threading.Event()
        self._execs = {}  # pid -> its socket, until its run asks how exec went

    def spawn(self, installer, program, argv, env, setsigdef=(), file_actions=(), setsid=False):
        """net.spawn.spawn's contract: from a spare, else through the fork server."""
        encoded = forkwire.encode(file_actions) if setsid else None
        if encoded is not None and self._ready():
            command = (program, argv, env, tuple(setsigdef), encoded[0])
            for how in (self._from_spare, self._from_fork_server):
                try:
                    spawned, sock = how(command, encoded[1])
                except Lost:
                    continue
                self._execs[spawned.pid] = sock
                return spawned
        return direct.spawn(installer, program, argv, env, setsigdef, file_actions, setsid)

    def warm(self):
        self._ready()

    def _ready(self):
        if self._sock is not None:
            return True
        with self._lock:
            machine = os.uname().machine
            if not self._started and machine in forkwire.CLONE:
                self._started = True
                threading.Thread(target=self._keep, args=(machine,), daemon=True).start()
        return False

    def _from_spare(self, command, passed):
        with self._lock:
            spare, self._spare = self._spare, None
            if spare is None:
                raise Lost()
            self._ask_spare()
        pid, sock = spare
        try:
            spawned = forkwire.reply(sock, command[0], forkwire.FIRST_WORD_SECONDS)
            if spawned.pid != pid:
                raise Lost()
        except (Lost, OSError):
            sock.close()
            forkwire.end(pid)
            raise Lost() from None
        try:
            forkwire.send(sock, forkwire.message(command, len(passed)), passed)
        except OSError:
            # It died before it took the command: nothing ran.
            if spawned.listener is not None:
                os.close(spawned.listener)
            sock.close()
            forkwire.end(pid)
            raise Lost() from None
        return spawned, sock

    def _from_fork_server(self, command, passed):
        ours, theirs = _socket.socketpair(_socket.AF_UNIX, _socket.SOCK_STREAM)
        try:
            try:
                with self._lock:
                    if self._sock is None:
                        raise Lost()
                    text = forkwire.message(("run", command), 1 + len(passed))
                    forkwire.send(self._sock, text, [theirs.fileno(), *passed])
            except OSError:
                self._died.set()
                raise Lost() from None
            theirs.close()
            return forkwire.reply(ours, command[0]), ours
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()

    def _ask_spare(self):
        """Under the lock: ask the fork server for the next spare."""
        if self._sock is not None:
            try:
                forkwire.send(self._sock, forkwire.message(("spare", None)))
            except OSError:
                self._died.set()

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
        """Start the fork server, and again whenever it dies, until the server closes;
        meanwhile take in the spares it makes."""
        failures = 0  # starts in a row that made no spare: wait longer each time
        while not self._closed.is_set():
            self._died.clear()
            self._made = False
            try:
                proc, sock = forkwire.start(machine)
            except OSError:
                failures += 1
                self._closed.wait(min(RESTART_SECONDS * 2**failures, MAX_RESTART_SECONDS))
                continue
            with self._lock:
                self._sock = sock
                self._ask_spare()
            self._take_spares(proc, sock)
            with self._lock:
                self._sock, spare, self._spare = None, self._spare, None
            sock.close()  # EOF: it exits
            forkwire.end(proc)
            if spare is not None:
                spare[1].close()
                forkwire.end(spare[0])
            failures = 0 if self._made else failures + 1
            if not self._closed.is_set():
                self._closed.wait(min(RESTART_SECONDS * 2**failures, MAX_RESTART_SECONDS))

    def _take_spares(self, proc, sock):
        """Until the fork server dies or the server closes: each b"S" it sends."""
        pidfd = forkwire.pidfd(proc)
        watched = [sock] + ([pidfd] if pidfd is not None else [])
        try:
            while not (self._closed.is_set() or self._died.is_set()):
                ready = select.select(watched, [], [], 0.5)[0]
                if pidfd in ready or (sock in ready and not self._spare_from(sock)):
                    return  # it exited
        finally:
            if pidfd is not None:
                os.close(pidfd)

    def _spare_from(self, sock):
        """Take in one spare; False when the fork server's line closed."""
        space = forkserver.socket_space(1)
        try:
            data, ancillary, _, _ = sock.recvmsg(forkserver.REPLY.size, space)
        except OSError:
            return False
        fds = forkserver.passed_fds(ancillary)
        if len(data) < forkserver.REPLY.size:
            for fd in fds:
                os.close(fd)
            return False
        tag, _, pid = forkserver.REPLY.unpack(data)
        if tag != b"S" or not fds:
            return True  # it could not clone now; the next run asks again
        spare = (pid, _socket.socket(fileno=fds[0]))
        with self._lock:
            kept = not self._closed.is_set() and self._spare is None
            if kept:
                self._spare = spare
            self._made = True
        if not kept:
            spare[1].close()
            forkwire.end(pid)
        return True

    def close(self):
        self._closed.set()
