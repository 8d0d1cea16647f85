"""The owner-only socket, the peer check, and one connection's lines in and out.

The socket is created 0600 inside a 0700 directory that this user owns; an existing
path is only taken over when it is a socket nobody answers on (a server that died).
Each accepted peer's uid is checked with SO_PEERCRED as well, since a directory's mode
can be changed after the fact.
"""

import errno
import os
import socket
import stat
import struct
import threading

from . import protocol


class StartError(Exception):
    """The server cannot start on this path; the message says why."""


def private_dir(path):
    """Create path's directory 0700, or check that it is ours and closed to others."""
    directory = os.path.dirname(os.path.abspath(path))
    try:
        os.mkdir(directory, 0o700)
    except FileExistsError:
        pass
    info = os.lstat(directory)
    if not stat.S_ISDIR(info.st_mode) or info.st_uid != os.getuid():
        raise StartError(f"{directory} is not a directory of this user")
    if info.st_mode & 0o077:
        raise StartError(f"{directory} is open to other users (mode {info.st_mode & 0o777:o})")
    return directory


def _take_over_stale(path):
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISSOCK(info.st_mode):
        raise StartError(f"{path} exists and is not a socket")
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(path)
    except OSError as exc:
        if exc.errno not in (errno.ECONNREFUSED, errno.ENOENT):
            raise StartError(f"{path}: {exc.strerror}") from None
        os.unlink(path)  # the socket of a server that is gone
        return
    finally:
        probe.close()
    raise StartError(f"a server is already listening on {path}")


def listen(path):
    private_dir(path)
    _take_over_stale(path)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    old = os.umask(0o177)
    try:
        server.bind(path)
    finally:
        os.umask(old)
    os.chmod(path, 0o600)
    server.listen(64)
    return server


def peer_uid(sock):
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[1]


def peer_pid(sock):
    creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    return struct.unpack("3i", creds)[0]


class Connection:
    """One client: lines read from rfd, messages written to wfd under a lock."""

    def __init__(self, rfd, wfd, name, closer=None):
        self.rfd, self.wfd, self.name = rfd, wfd, name
        self.closer = closer
        self.closed = False
        self._lock = threading.Lock()

    def send(self, message):
        data = protocol.encode(message)
        with self._lock:
            if self.closed:
                return False
            try:
                while data:
                    data = data[os.write(self.wfd, data) :]
            except OSError:
                self.closed = True
                return False
        return True

    def lines(self):
        """Yield each line (bytes, no newline); a line over MAX_LINE comes as None
        plus its first bytes, as (None, head), so it can still be answered."""
        buffer = bytearray()
        skipping = None  # the head of an oversized line being skipped
        while True:
            try:
                chunk = os.read(self.rfd, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                return
            start = len(buffer)
            buffer += chunk
            while True:
                end = buffer.find(b"\n", start)
                if end < 0:
                    break
                if skipping is not None:
                    yield None, skipping
                    skipping = None
                elif end > protocol.MAX_LINE:
                    yield None, bytes(buffer[:4096])
                else:
                    yield bytes(buffer[:end]), None
                del buffer[: end + 1]
                start = 0
            if len(buffer) > protocol.MAX_LINE:
                if skipping is None:
                    skipping = bytes(buffer[:4096])
                buffer.clear()

    def close(self):
        with self._lock:
            self.closed = True
        if self.closer:
            self.closer()
