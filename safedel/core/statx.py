"""statx(2), read through ctypes: an entry's device, inode, mode and birth time, which
os.stat does not give on Linux. Linux only; elsewhere read() raises OSError ENOSYS
and birth_time() falls back to st_birthtime where the system keeps one."""

import errno
import os
import sys

AT_FDCWD = -100
AT_SYMLINK_NOFOLLOW = 0x100
AT_EMPTY_PATH = 0x1000
_TYPE, _MODE, _INO, _BTIME = 0x1, 0x2, 0x100, 0x800
_WANTED = _TYPE | _MODE | _INO | _BTIME
_SIZE = 256


class Entry:
    """What statx told of an entry. A plain class: `collections` costs a launcher's
    start-up more than this module does."""

    __slots__ = ("dev", "ino", "mode", "btime_ns")

    def __init__(self, dev, ino, mode, btime_ns):
        self.dev, self.ino, self.mode, self.btime_ns = dev, ino, mode, btime_ns

    @property
    def identity(self):
        return (self.dev, self.ino, self.btime_ns)

    def __repr__(self):
        return f"Entry(dev={self.dev}, ino={self.ino}, mode={self.mode}, btime_ns={self.btime_ns})"


_function = []


def _statx():
    if not _function:
        function = None
        if sys.platform.startswith("linux"):
            try:
                import ctypes  # here: importing it costs a launcher that never asks

                function = ctypes.CDLL(None, use_errno=True).statx
                function.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_uint)
                function.argtypes += (ctypes.c_void_p,)
            except (ImportError, OSError, AttributeError):
                function = None
        _function.append(function)
    return _function[0]


def read(dirfd, name, flags=AT_SYMLINK_NOFOLLOW):
    """The Entry of name (bytes) in dirfd (AT_FDCWD: the cwd); btime_ns None where the
    file system keeps no birth time. OSError when there is no such entry."""
    function = _statx()
    if function is None:
        raise OSError(errno.ENOSYS, "statx is not available here")
    import ctypes
    import struct  # here too: a launcher that never asks pays for neither

    buffer = ctypes.create_string_buffer(_SIZE)
    if function(dirfd, name, flags, _WANTED, buffer) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), os.fsdecode(name))
    raw = buffer.raw
    mask = struct.unpack_from("I", raw, 0)[0]
    mode = struct.unpack_from("H", raw, 28)[0]
    ino = struct.unpack_from("Q", raw, 32)[0]
    seconds, nanoseconds = struct.unpack_from("qI", raw, 80)
    major, minor = struct.unpack_from("II", raw, 136)
    btime = seconds * 10**9 + nanoseconds if mask & _BTIME else None
    return Entry(os.makedev(major, minor), ino, mode, btime)


def birth_time(path, dir_fd=None):
    """The birth time (seconds) of the entry at path, not following a symlink; None
    where the system or the file system keeps none, or there is no such entry."""
    if _statx() is None:
        try:
            return getattr(os.lstat(path, dir_fd=dir_fd), "st_birthtime", None) or None
        except OSError:
            return None
    try:
        entry = read(AT_FDCWD if dir_fd is None else dir_fd, os.fsencode(path))
    except OSError:
        return None
    return None if entry.btime_ns is None else entry.btime_ns / 1e9
