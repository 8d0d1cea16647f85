"""The fork server of `safedel serve`: a small process that starts runs under the net.

Run as `python -I -S forkserver.py PARENT_PID` with its socket to the server on fd 3;
standard library only, so it stays a few MB and its fork costs a fraction of the
server's (a threaded process of some 20 MB whose every child runs Python until exec).

The server first sends the filter (program bytes, length, syscall numbers, whether to
set no_new_privs), then one message per run: argv, environment, signals to reset, file
actions, the run's pointer and whether the run is under the net, with a reply socket,
the descriptors the actions name and the pointer's folders passed by SCM_RIGHTS. For
each run it clones a child with CLONE_PARENT, so the child is the server's own (its
wait, pidfd, subreaper and tree kill are those of any run), and goes back to waiting.
The child leaves for a session of its own, applies the actions (a pty opened then
becomes its controlling terminal), writes the run's pointer (serve/pointers.py: the
processes of the run find their run from it) and becomes a subreaper (the run's
orphans stay below the pointer), gives up CAP_SYS_PTRACE for good (drop_ptrace: see
serve/seal.py), installs no_new_privs and the filter,
sends b"L" with the listener and its pid on the reply socket (b"E" and the errno when
the kernel refused the filter, b"N" for a run without the net), and execs; an exec
that fails, or a pointer that no folder took, sends b"X" and the errno. A reply socket
that closes with nothing on it means nothing ran.

It dies with the server: SIGKILL as parent-death signal, EOF on its socket.
"""

import _socket
import ctypes
import marshal
import os
import struct
import sys

try:
    import _signal as signal
except ImportError:  # pragma: no cover
    import signal

HEAD = struct.Struct("II")  # message length, descriptors passed
REPLY = struct.Struct("cii")  # tag, value (errno), pid
INT = struct.Struct("i")
MAX_FDS = 16
CLONE_PARENT = 0x00008000
SIGCHLD = 17
PR_SET_PDEATHSIG = 1
PR_SET_NO_NEW_PRIVS = 38
PR_SET_CHILD_SUBREAPER = 36
PR_SET_DUMPABLE = 4
PR_CAPBSET_READ = 23
PR_CAPBSET_DROP = 24
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_LOWER = 3
CAP_SYS_PTRACE = 19
CAP_HEADER = struct.Struct("Ii")  # version 3, pid 0 (this thread)
CAP_V3 = 0x20080522
SECCOMP_SET_MODE_FILTER = 1
FLAG_NEW_LISTENER = 1 << 3
FLAG_WAIT_KILLABLE_RECV = 1 << 5
EINVAL = 22
POINTER_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC


def receive(sock):
    """((message), [fds]) or None at EOF; the fds are close-on-exec."""
    space = _socket.CMSG_SPACE(MAX_FDS * INT.size)
    head, ancillary, _, _ = sock.recvmsg(HEAD.size, space, _socket.MSG_CMSG_CLOEXEC)
    fds = []
    for level, kind, payload in ancillary:
        if level == _socket.SOL_SOCKET and kind == _socket.SCM_RIGHTS:
            usable = len(payload) - len(payload) % INT.size
            fds += [INT.unpack_from(payload, i)[0] for i in range(0, usable, INT.size)]
    head = _exactly(sock, head, HEAD.size)
    body = None if head is None else _exactly(sock, b"", HEAD.unpack(head)[0])
    if body is None:
        for fd in fds:
            os.close(fd)
        return None
    return marshal.loads(body), fds


def _exactly(sock, got, size):
    while len(got) < size:
        more = sock.recv(size - len(got))
        if not more:
            return None
        got += more
    return got


class Kernel:
    """The calls the child makes, prepared once: clone, prctl, seccomp, capset."""

    def __init__(self, code, length, seccomp_nr, clone_nr, no_new_privs):
        libc = ctypes.CDLL(None, use_errno=True)
        self.prctl, self.syscall = libc.prctl, libc.syscall
        self.syscall.restype = ctypes.c_long
        self.code = ctypes.create_string_buffer(code, len(code))
        packed = struct.pack("HxxxxxxQ", length, ctypes.addressof(self.code))
        self.fprog = ctypes.create_string_buffer(packed, 16)
        self.seccomp_nr, self.clone_nr, self.no_new_privs = seccomp_nr, clone_nr, no_new_privs
        self.libc = libc  # capget, capset: drop_ptrace

    def clone(self):
        """fork(), but the child's parent is ours: the server."""
        zero = ctypes.c_long(0)  # no new stack, no tids, no tls: a fork
        flags = ctypes.c_long(CLONE_PARENT | SIGCHLD)
        pid = self.syscall(ctypes.c_long(self.clone_nr), flags, zero, zero, zero, zero)
        if pid < 0:
            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err))
        return pid

    def install(self):
        """The listener fd, or -errno."""
        if self.no_new_privs and self.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return -ctypes.get_errno()
        fd = self._seccomp(FLAG_NEW_LISTENER | FLAG_WAIT_KILLABLE_RECV)
        if fd == -EINVAL:  # a kernel older than the killable wait
            fd = self._seccomp(FLAG_NEW_LISTENER)
        return fd

    def _seccomp(self, flags):
        nr, mode = ctypes.c_long(self.seccomp_nr), ctypes.c_long(SECCOMP_SET_MODE_FILTER)
        fd = self.syscall(nr, mode, ctypes.c_long(flags), self.fprog)
        return fd if fd >= 0 else -ctypes.get_errno()


def child(kernel, reply, command, passed):  # pragma: no cover (leaves by exec or _exit)
    program, argv, env, setsigdef, actions, pointer, folders, filtered = command
    if folders:
        passed, folders = passed[:-folders], passed[-folders:]
    pid = os.getpid()
    try:
        os.setsid()
        for action in actions:  # in order, as posix_spawn does them after setsid
            if action[0] == "dup":
                _, index, local, target = action
                os.dup2(passed[index] if index is not None else local, target)
            else:
                _, target, path, flags, mode = action
                opened = os.open(path, flags, mode)
                if opened == target:
                    os.set_inheritable(target, True)
                else:
                    os.dup2(opened, target)
                    os.close(opened)
        if pointer is not None:
            leave(folders, pointer)
            kernel.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)  # see serve/pointers.py
        drop_ptrace(kernel.libc)
        fd = kernel.install() if filtered else None
        if fd is None:
            reply.sendall(REPLY.pack(b"N", 0, pid))
        elif fd >= 0:
            rights = [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, INT.pack(fd))]
            reply.sendmsg([REPLY.pack(b"L", 0, pid)], rights)
            os.close(fd)  # the command must never hold its own listener
        else:
            reply.sendall(REPLY.pack(b"E", -fd, pid))
        for signum in setsigdef:
            signal.signal(signum, signal.SIG_DFL)
        os.execve(program, argv, env)
    except OSError as exc:
        try:
            reply.sendall(REPLY.pack(b"X", exc.errno or 0, pid))
        except OSError:
            pass
    finally:
        os._exit(127)


def leave(folders, data):  # pragma: no cover (runs in the child)
    """Write the run's pointer (serve/pointers.py) into each folder (descriptors);
    OSError when folders were given and none took it. Plain os calls only: this runs
    in the fork server's child and in a child forked from the threaded server (the
    direct fork)."""
    fd = os.open("/proc/self/stat", os.O_RDONLY | os.O_CLOEXEC)
    try:
        stat = os.read(fd, 2048)
    finally:
        os.close(fd)
    # The command name (field 2) may hold spaces and ')': count after the last ')'.
    start = stat[stat.rindex(b")") + 2 :].split()[19].decode("ascii")
    key = f"{os.getpid()}-{start}"
    written, failure = False, None
    for folder in folders:
        try:
            # No symlink followed; the command never inherits the file.
            out = os.open(key, POINTER_FLAGS, 0o600, dir_fd=folder)
            try:
                os.write(out, data)
            finally:
                os.close(out)
            written = True
        except OSError as exc:
            failure = failure or exc
    if folders and not written:
        raise failure


def drop_ptrace(libc):  # pragma: no cover (runs in the child)
    """Take CAP_SYS_PTRACE from this process and from whatever it execs: out of the
    bounding set (so no exec, setuid or file capability gives it back), the ambient
    and inheritable sets, and the permitted and effective ones. OSError when a root
    process keeps it in its bounding set: the run then does not start."""
    bounded = libc.prctl(PR_CAPBSET_READ, CAP_SYS_PTRACE, 0, 0, 0) == 1
    # A user other than root cannot drop it (no CAP_SETPCAP), nor regain it under the
    # net (no_new_privs); without the net, see docs/harness.md.
    kept = bounded and libc.prctl(PR_CAPBSET_DROP, CAP_SYS_PTRACE, 0, 0, 0) != 0
    if kept and os.geteuid() == 0:
        raise OSError(ctypes.get_errno(), "cannot drop CAP_SYS_PTRACE")
    libc.prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_LOWER, CAP_SYS_PTRACE, 0, 0)
    header = ctypes.create_string_buffer(CAP_HEADER.pack(CAP_V3, 0), CAP_HEADER.size)
    data = ctypes.create_string_buffer(24)  # two (effective, permitted, inheritable)
    if libc.capget(header, data) != 0:
        raise OSError(ctypes.get_errno(), "cannot read the capabilities")
    sets = list(struct.unpack("6I", data.raw))
    if any(value & (1 << CAP_SYS_PTRACE) for value in sets[:3]):
        sets[:3] = [value & ~(1 << CAP_SYS_PTRACE) for value in sets[:3]]
        data = ctypes.create_string_buffer(struct.pack("6I", *sets), 24)
        if libc.capset(header, data) != 0:
            raise OSError(ctypes.get_errno(), "cannot drop CAP_SYS_PTRACE")


def main():
    parent = int(sys.argv[1])
    os.set_inheritable(3, False)
    sock = _socket.socket(fileno=3)
    libc = ctypes.CDLL(None, use_errno=True)
    libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)  # unfiltered: nothing of the user may attach
    if os.getppid() != parent:
        return
    # Its children inherit this until their exec: a Ctrl-C (or ProcessKill) that comes
    # before it ends them, as it would end the command.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    first = receive(sock)
    if first is None:
        return
    kernel = Kernel(*first[0])
    while True:
        got = receive(sock)
        if got is None:
            return
        command, fds = got
        reply = _socket.socket(fileno=fds[0])
        try:
            if kernel.clone() == 0:
                child(kernel, reply, command, fds[1:])
        except OSError as exc:
            reply.sendall(REPLY.pack(b"F", exc.errno or 0, 0))
        finally:
            reply.close()
            for fd in fds[1:]:
                os.close(fd)


if __name__ == "__main__":
    main()
