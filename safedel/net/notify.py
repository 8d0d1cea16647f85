"""The supervisor's side of the listener: receive, answer, check, read target memory."""

import errno
import fcntl
import os
import struct

# _IOWR('!', 0, struct seccomp_notif), _IOWR('!', 1, struct seccomp_notif_resp),
# _IOW('!', 2, __u64): the same numbers on every Linux architecture we filter.
NOTIF_RECV = 0xC0502100
NOTIF_SEND = 0xC0182101
NOTIF_ID_VALID = 0x40082102
NOTIF_SET_FLAGS = 0x40082104  # _IOW('!', 4, __u64), kernel 6.6 and later
FD_SYNC_WAKE_UP = 1
FLAG_CONTINUE = 1

NOTIF = _NOTIF = struct.Struct("QIIiIQ6Q")  # id, pid, flags, nr, arch, ip, args[6]
_RESP = struct.Struct("QqiI")  # id, val, error, flags
ID = _ID = struct.Struct("Q")  # a response starts with its id
_IOVECS = struct.Struct("QQQQ")  # two struct iovec: base, length
PATH_MAX = 4096


def tree_lives_on(listener):
    """Whether some process still holds the filter (no hang-up on the listener yet)."""
    import select

    poller = select.poll()
    poller.register(listener, select.POLLIN)
    return not any(happened & select.POLLHUP for _fd, happened in poller.poll(0))


class Notification:
    __slots__ = ("id", "pid", "nr", "args")

    def __init__(self, raw):
        fields = _NOTIF.unpack(raw)
        self.id, self.pid, self.nr = fields[0], fields[1], fields[3]
        self.args = fields[6:]


class Channel:
    """The supervisor's side of one listener, with its buffers made once: every
    deleting call of the tree comes through here, so the round trip allocates as
    little as it can (each allocation and attribute lookup is paid per call)."""

    __slots__ = ("listener", "zeros", "recv_buffer", "_resp", "_id")

    def __init__(self, listener):
        self.listener = listener
        self.zeros = bytes(_NOTIF.size)  # the kernel insists on a zeroed buffer
        self.recv_buffer = bytearray(_NOTIF.size)
        self._resp = bytearray(_RESP.size)
        self._id = bytearray(_ID.size)

    def receive(self):
        """(id, pid, flags, nr, arch, ip, args...) of the next call, or None when its
        caller went away before we read it."""
        buffer = self.recv_buffer
        buffer[:] = self.zeros
        try:
            fcntl.ioctl(self.listener, NOTIF_RECV, buffer, True)
        except OSError as exc:
            if exc.errno in (errno.ENOENT, errno.EINTR):
                return None
            raise
        return _NOTIF.unpack(buffer)

    def answer(self, notif_id, error=0):
        """0 or -error to the caller (never CONTINUE: see net/perform)."""
        _RESP.pack_into(self._resp, 0, notif_id, 0, -error if error else 0, 0)
        try:
            fcntl.ioctl(self.listener, NOTIF_SEND, self._resp, True)
        except OSError as exc:
            if exc.errno != errno.ENOENT:
                raise

    def still_valid(self, notif_id):
        """As still_valid() below."""
        _ID.pack_into(self._id, 0, notif_id)
        try:
            fcntl.ioctl(self.listener, NOTIF_ID_VALID, self._id, True)
        except OSError:
            return False
        return True


def prefer_sync_wakeup(listener):
    """Ask the kernel to switch straight to the caller and back (kernel 6.6+): the
    supervisor answers synchronously, so this halves the cost of each round trip."""
    try:
        fcntl.ioctl(listener, NOTIF_SET_FLAGS, FD_SYNC_WAKE_UP)  # the flags, not a pointer
    except OSError:
        return False
    return True


def receive(listener):
    """The next Notification, or None when its caller went away before we read it."""
    buffer = bytearray(_NOTIF.size)  # the kernel insists on a zeroed buffer
    try:
        fcntl.ioctl(listener, NOTIF_RECV, buffer, True)
    except OSError as exc:
        if exc.errno in (errno.ENOENT, errno.EINTR):
            return None
        raise
    return Notification(buffer)


def answer(listener, notif_id, error=0, proceed=False):
    """Reply: proceed lets the kernel do the call; else return 0 or -error to the caller."""
    flags = FLAG_CONTINUE if proceed else 0
    buffer = bytearray(_RESP.pack(notif_id, 0, -error if error else 0, flags))
    try:
        fcntl.ioctl(listener, NOTIF_SEND, buffer, True)
    except OSError as exc:
        if exc.errno != errno.ENOENT:  # ENOENT: the caller died or was killed meanwhile
            raise


def still_valid(listener, notif_id):
    """False once the calling thread is gone: its pid may already name another process."""
    try:
        fcntl.ioctl(listener, NOTIF_ID_VALID, bytearray(_ID.pack(notif_id)), True)
    except OSError:
        return False
    return True


class Memory:
    """Read strings from target threads with process_vm_readv: one call, no fd to go
    stale when a thread id is reused (the caller re-checks ID_VALID afterwards)."""

    def __init__(self):
        import ctypes

        self._ctypes = ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        self._readv = libc.process_vm_readv
        self._readv.restype = ctypes.c_ssize_t
        self._buffer = ctypes.create_string_buffer(PATH_MAX)
        self._local = (ctypes.c_void_p * 2)(ctypes.addressof(self._buffer), PATH_MAX)
        # Filled with one pack_into per call: item by item through ctypes costs more
        # than the system call it prepares.
        self._iovecs = bytearray(_IOVECS.size)
        self._remote = (ctypes.c_char * _IOVECS.size).from_buffer(self._iovecs)

    def string(self, tid, address):
        """The NUL-terminated bytes at address in tid's memory, or OSError (EFAULT...).

        Two remote pieces split at the page boundary, so a short string at the end of
        a mapping reads even when the next page is unmapped."""
        first = 4096 - address % 4096  # to the end of its page (PATH_MAX is one page)
        second = (address + first) & 0xFFFFFFFFFFFFFFFF
        _IOVECS.pack_into(self._iovecs, 0, address, first, second, PATH_MAX - first)
        got = self._readv(tid, self._local, 1, self._remote, 2 if first < PATH_MAX else 1, 0)
        if got < 0:
            err = self._ctypes.get_errno()
            raise OSError(err, os.strerror(err))
        data = self._buffer.value  # up to the first NUL; bytes past `got` are stale
        if len(data) < got:
            return data
        if got < PATH_MAX:
            raise OSError(errno.EFAULT, os.strerror(errno.EFAULT))
        raise OSError(errno.ENAMETOOLONG, os.strerror(errno.ENAMETOOLONG))
