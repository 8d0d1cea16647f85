"""find -delete answered while find runs: the real find makes each unlinkat itself.

The real find runs with its expression untouched, under a seccomp filter whose
listener this process holds (the net's filter, installed in the forked child before
exec). Each deleting call stops find until it is answered here: what GNU's unlinkat
would refuse (the parent's permission bits, the sticky rule, chattr +i/+a, a mount
point, a directory not empty) gets that errno, anything else is trashed and answered
with success. So -delete's return value, find's own messages, its exit status, and
every action after -delete (-print, -exec, -empty's re-test, -o) are GNU's, because
they are find's. Each entry is its own trash item here (find empties a directory
before it removes it), and its own guard batch: once the guard refuses one, the rest
of the run is refused without asking again (one marker, not one per entry).

Calls from processes find starts (-exec) are left to the kernel, unless this process
itself runs under a filter: ours, the newest, would take their calls from it, so
they are trashed here. Under safedel run's net no second listener is allowed
(EBUSY): find then runs as it is, and the net answers its calls.
"""

import errno
import os
import select
import stat
import struct

_ME = "find"


def _net():
    """The net's low-level modules: safedel.net in the package, safedel_net in a shim home."""
    try:
        from ... import net
    except ImportError:
        try:
            import safedel_net as net
        except ImportError:
            return None
    ok, _ = net.kernel_supports()
    return net if ok else None


def run(tool, real, command, env):
    """find's exit status, or None when no filter could be installed (find never ran).
    Under safedel run's net, this process becomes find instead."""
    net = _net()
    if net is None:
        return None
    import importlib

    parts = {n: importlib.import_module(f"{net.__name__}.{n}") for n in ("bpf", "install")}
    machine = os.uname().machine
    started = _start(parts["install"].Installer(machine), real, command, env)
    if started == errno.EBUSY and env.get("SAFEDEL_NET") == "1":
        # A listener holds our filter chain already (the kernel allows one): safedel
        # run's net, which answers find's own calls just as well. Hand find over to it.
        os.execve(real, command, env)
    if isinstance(started, int):
        return None
    pid, listener = started
    try:
        _Answerer(net, tool, listener, pid, parts["bpf"].ARCHES[machine][2]).serve()
    finally:
        os.close(listener)
    status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    if status < 0:
        os.kill(os.getpid(), -status)
    return status


def _start(installer, real, command, env):
    """(pid, listener) of find started under the filter, or the errno of the install
    that failed, find not started: -delete must never run unanswered."""
    import socket

    ours, theirs = socket.socketpair()
    pid = os.fork()
    if pid == 0:  # pragma: no cover (the child leaves by exec or _exit)
        try:
            ours.close()
            fd = installer.install()
            if fd < 0:
                theirs.sendall(struct.pack("i", -fd))
            else:
                rights = [(socket.SOL_SOCKET, socket.SCM_RIGHTS, struct.pack("i", fd))]
                theirs.sendmsg([struct.pack("i", 0)], rights)
                os.close(fd)
                theirs.close()
                os.execve(real, command, env)
        finally:
            os._exit(127)
    theirs.close()
    with ours:
        data, ancillary, _, _ = ours.recvmsg(4, socket.CMSG_SPACE(4))
    for level, kind, payload in ancillary:
        if (level, kind) == (socket.SOL_SOCKET, socket.SCM_RIGHTS):
            return pid, struct.unpack("i", payload[:4])[0]
    os.waitpid(pid, 0)
    return struct.unpack("i", data)[0] if len(data) == 4 else errno.EIO


def _under_filter():
    try:
        with open("/proc/self/status", "rb") as handle:
            for line in handle:
                if line.startswith(b"Seccomp:"):
                    return line.split()[1] != b"0"
    except OSError:
        pass
    return False


class _Captured:
    """A Tool whose `cannot delete` lines become the errno find is answered with:
    find prints its own message. safedel's own lines (protection, guard) still print."""

    def __init__(self, tool):
        self.tool, self.errno = tool, 0

    def cannot(self, what, path, errnum):
        self.errno = errnum or errno.EIO

    def __getattr__(self, name):
        return getattr(self.tool, name)


class _Answerer:
    def __init__(self, net, tool, listener, pid, deleting):
        import importlib

        from .. import removable

        self.notify = importlib.import_module(f"{net.__name__}.notify")
        self.target = importlib.import_module(f"{net.__name__}.target")
        self.tool, self.listener, self.pid = tool, listener, pid
        self.names = {nr: name for name, nr in deleting.items()}
        self.memory = self.notify.Memory()
        self.nested = _under_filter()
        self.user = removable.User()
        self.refused = False  # the guard said no once: the rest of this run is refused

    def serve(self):
        self.notify.prefer_sync_wakeup(self.listener)
        poller = select.poll()
        poller.register(self.listener, select.POLLIN)
        while True:
            flags = dict(poller.poll()).get(self.listener, 0)
            if flags & select.POLLIN:
                self.one()
            elif flags & (select.POLLHUP | select.POLLERR):
                return  # find and everything it started are gone

    def one(self):
        notify, listener = self.notify, self.listener
        notif = notify.receive(listener)
        if notif is None:
            return
        if notif.pid != self.pid and not self.nested:
            notify.answer(listener, notif.id, proceed=True)  # -exec's own business
            return
        try:
            dirfd, address, removes_dir = self.target.call_of(self.names, notif)
            raw = self.memory.string(notif.pid, address)
            found = self.target.resolve(notif.pid, dirfd, raw, removes_dir)
        except OSError as exc:
            if notify.still_valid(listener, notif.id):
                notify.answer(listener, notif.id, exc.errno or errno.EIO)
            return
        try:
            if not notify.still_valid(listener, notif.id):
                return  # the caller is gone; what we read may belong to another process
            error = self.decide(found)
        except Exception:  # fail closed: the entry stays, find says it could not
            error = errno.EPERM
        finally:
            found.close()
        notify.answer(listener, notif.id, error)

    def decide(self, found):
        """0 once trashed, or the errno GNU's unlinkat would have met.

        Everything is judged and moved relative to found.parent_fd, which is find's own
        dirfd reopened through /proc/<pid>/fd: the very directory find's call names. A
        path string would be walked again, and another user who renames their directory
        and leaves a symlink in its place would turn it into someone else's file."""
        from .. import removable
        from . import findat, rmtrash
        from .rmwalk import Item

        try:
            found.inspect()
        except OSError as exc:
            return exc.errno or errno.EIO
        parent_fd, name, st = found.parent_fd, found.name, found.st
        parent_st = os.fstat(parent_fd)
        real_parent = findat.real_path(parent_fd, parent_st)
        if real_parent is None:
            return errno.EACCES  # no path names that directory now: it stays in place
        path = real_parent.rstrip(b"/") + b"/" + name
        is_dir = stat.S_ISDIR(st.st_mode)
        # In the kernel's order: may the entry go from here at all, is it a mount point,
        # and only then is the directory empty (rmdir of a chattr +a one is EPERM).
        denied = findat.removal_errno(parent_fd, parent_st, st, self.user)
        if not denied and (
            findat.pinned_entry(parent_fd, name, st) or findat.pinned_dir(parent_fd)
        ):
            denied = errno.EPERM
        if not denied and is_dir and path in removable.mount_points():
            denied = errno.EBUSY
        if denied:
            return denied
        if is_dir and not findat.empty(parent_fd, name, st, self.user):
            return errno.ENOTEMPTY
        if self.refused:
            return errno.EPERM  # one guard refusal (and marker) per run, not one per entry
        captured = _Captured(self.tool)
        item = Item(path, is_dir, [], at=(parent_fd, name, real_parent))
        if rmtrash.apply(captured, _ME, [item], None, b"cannot delete") is False:
            self.refused = True
            return errno.EPERM
        if not captured.errno and findat.still_there(parent_fd, name, st):
            return errno.EPERM  # refused (protected, guard): it stays, find says so
        return captured.errno
