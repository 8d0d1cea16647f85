"""Start a command under the net: fork, install the filter in the child, exec.

A drop-in for the os.posix_spawn call `safedel run` makes otherwise. The listener
comes back over a socketpair (SCM_RIGHTS); an exec failure comes back the same way,
as subprocess reports it, so the caller still sees FileNotFoundError or
PermissionError.
"""

import _socket
import os
import select
import struct

try:
    import _signal as signal
except ImportError:  # pragma: no cover
    import signal

_HEADER = struct.Struct("ci")  # kind, value: b"L" listener, b"E" install errno, b"X" exec
_FD = struct.Struct("i")


class Spawned:
    __slots__ = ("pid", "listener", "install_errno")

    def __init__(self, pid, listener, install_errno):
        self.pid = pid
        self.listener = listener
        self.install_errno = install_errno


def spawn(installer, program, argv, env, setsigdef=(), file_actions=(), setsid=False):
    """Spawned(pid, listener fd or None, errno of a failed install or 0).

    file_actions takes posix_spawn's POSIX_SPAWN_DUP2 and POSIX_SPAWN_OPEN entries, all
    the executor and serve's pty runs use, done in order after setsid as glibc does (so
    a terminal opened here becomes the command's controlling terminal)."""
    ours, theirs = _socket.socketpair(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        pid = os.fork()
        if pid == 0:  # pragma: no cover (the child leaves by exec or _exit)
            _child(installer, ours, theirs, (program, argv, env, setsigdef, file_actions, setsid))
        theirs.close()
        return _collect(ours, pid, program)
    finally:
        ours.close()
        theirs.close()


def _child(installer, ours, theirs, how):
    program, argv, env, setsigdef, file_actions, setsid = how
    try:
        ours.close()
        if setsid:
            os.setsid()
        for action in file_actions:
            if action[0] == os.POSIX_SPAWN_DUP2:
                os.dup2(action[1], action[2])
            elif action[0] == os.POSIX_SPAWN_OPEN:
                _open_as(*action[1:])
            else:
                raise OSError(95, "unsupported spawn file action")
        fd = installer.install()
        if fd >= 0:
            theirs.sendmsg(
                [_HEADER.pack(b"L", 0)],
                [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, _FD.pack(fd))],
            )
            os.close(fd)
        else:
            theirs.sendall(_HEADER.pack(b"E", -fd))
        for signum in setsigdef:
            signal.signal(signum, signal.SIG_DFL)
        os.execve(program, argv, env)
    except OSError as exc:
        try:
            theirs.sendall(_HEADER.pack(b"X", exc.errno or 0))
        except OSError:
            pass
    finally:
        os._exit(127)


def _open_as(fd, path, flags, mode):  # pragma: no cover (runs in the child)
    opened = os.open(path, flags, mode)
    if opened == fd:
        os.set_inheritable(fd, True)  # os.open's files are close-on-exec
    else:
        os.dup2(opened, fd)
        os.close(opened)


def _collect(ours, pid, program):
    # One wake-up, not two: sleep until exec (or exit) closed the child's end, then
    # read what it sent. On a busy machine each wake-up is a wait for a CPU.
    poller = select.poll()
    poller.register(ours.fileno(), select.POLLRDHUP)
    while not poller.poll():
        pass
    data, ancillary, _, _ = ours.recvmsg(_HEADER.size, _socket.CMSG_SPACE(_FD.size))
    listener = None
    for level, kind, payload in ancillary:
        if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
            listener = _FD.unpack(payload[: _FD.size])[0]
    install_errno = 0
    if len(data) == _HEADER.size:
        tag, value = _HEADER.unpack(data)
        if tag == b"E":
            install_errno = value
    rest = b""
    while True:  # EOF once exec closed the child's end (it is close-on-exec)
        chunk = ours.recv(64)
        if not chunk:
            break
        rest += chunk
    if len(rest) >= _HEADER.size and rest[:1] == b"X":
        os.waitpid(pid, 0)
        if listener is not None:
            os.close(listener)
        err = _HEADER.unpack(rest[: _HEADER.size])[1]
        raise OSError(err, os.strerror(err), program)
    return Spawned(pid, listener, install_errno)
