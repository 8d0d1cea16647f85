"""The wire to the fork server (forkserver.py): starting it, reading a child's first
word, ending a child that will not run, and the file actions a child applies."""

import _socket
import array
import marshal
import os
import select
import sys

from ..executor import tree
from ..net import bpf
from ..net import spawn as direct
from . import forkserver

CLONE = {"x86_64": 56, "aarch64": 220}  # clone's syscall number
FIRST_WORD_SECONDS = 5.0  # a child that says nothing for so long is stuck: not used


class Lost(Exception):
    """The request was lost with the fork server or the spare: nothing of it ran."""


def start(machine):
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
    try:
        ours.sendall(message(first))
    except OSError:
        ours.close()
        end(pid)
        raise
    return pid, ours


def send(sock, message, fds=()):
    """message, with fds passed along; OSError if the other end is gone."""
    rights = [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, array.array("i", fds).tobytes())]
    sent = sock.sendmsg([message], rights if fds else [])
    sock.sendall(message[sent:])


def message(value, fds=0):
    body = marshal.dumps(value)
    return forkserver.HEAD.pack(len(body), fds) + body


def reply(ours, program, timeout=None):
    """Spawned from the child's first word, without waiting for its exec: the socket
    stays open, and a failed exec is read from it once the run ended (exec_failure)."""
    poller = select.poll()
    poller.register(ours.fileno(), select.POLLIN | select.POLLRDHUP)
    if timeout is None:
        while not poller.poll():
            pass
    elif not poller.poll(timeout * 1000):
        raise Lost()  # a child stuck before its filter: not used
    data, ancillary, _, _ = ours.recvmsg(forkserver.REPLY.size, forkserver.socket_space(1))
    fds = forkserver.passed_fds(ancillary)
    listener = fds[0] if fds else None
    if len(data) < forkserver.REPLY.size:
        raise Lost()  # it died before its child was started, or the child before it spoke
    tag, value, pid = forkserver.REPLY.unpack(data)
    if tag == b"F":
        raise Lost()  # it could not clone: start the command the direct way
    if tag == b"X":  # before the filter: setsid or a file action failed
        if listener is not None:
            os.close(listener)
        end(pid)
        raise OSError(value, os.strerror(value), program)
    return direct.Spawned(pid, listener, value if tag == b"E" else 0)


def end(pid):
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


def pidfd(pid):
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
    if len(passed) >= forkserver.MAX_FDS:
        return None
    return encoded, passed
