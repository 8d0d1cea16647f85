"""An entry's identity and birth, read at a descriptor: what the net's exemptions for
git are decided on, never a name.

A rename keeps an inode's birth time (statx's btime) and nothing the command can call
sets it back, so "born since the run started" tells what was made during the run from
what was moved into place: `mv precious .git/rebase-merge/x` keeps precious's birth.
Its ctime would not do: a rename sets it. Where the file system keeps no birth time
(NFS, FAT, older kernels' tmpfs) nothing counts as born since: what the exemptions
would have spared is judged instead.

The kernel stamps files with a clock a tick behind `time.time_ns()`: a file made just
after the run started may look older than it. Where that would spare it (born since)
it is judged instead; where it would trust a file (born before) the stamp counts as
late as it may really be (latest).
"""

import collections
import ctypes
import os
import struct

AT_FDCWD = -100
_AT_SYMLINK_NOFOLLOW = 0x100
_AT_EMPTY_PATH = 0x1000
_STATX_TYPE, _STATX_MODE, _STATX_INO, _STATX_BTIME = 0x1, 0x2, 0x100, 0x800
_WANTED = _STATX_TYPE | _STATX_MODE | _STATX_INO | _STATX_BTIME
_SIZE = 256

_TICK_NS = 20 * 10**6  # how far the kernel's file clock may lag time.time_ns()
_COARSE_NS = 2 * 10**9  # a file system with 2 s stamps (FAT)

Entry = collections.namedtuple("Entry", "dev ino mode btime_ns")
Entry.identity = property(lambda self: (self.dev, self.ino, self.btime_ns))

_statx = []


def _function():
    if not _statx:
        function = ctypes.CDLL(None, use_errno=True).statx
        function.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_uint)
        function.argtypes += (ctypes.c_void_p,)
        _statx.append(function)
    return _statx[0]


def of(dirfd, name):
    """The Entry of name in directory dirfd, its last component never followed;
    OSError when there is none."""
    return _read(dirfd, os.fsencode(name), _AT_SYMLINK_NOFOLLOW)


def of_fd(fd):
    """The Entry of what descriptor fd (O_PATH too) is open on."""
    return _read(fd, b"", _AT_EMPTY_PATH | _AT_SYMLINK_NOFOLLOW)


def _read(dirfd, name, flags):
    buffer = ctypes.create_string_buffer(_SIZE)
    if _function()(dirfd, name, flags, _WANTED, buffer) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), os.fsdecode(name))
    raw = buffer.raw
    mask = struct.unpack_from("I", raw, 0)[0]
    mode = struct.unpack_from("H", raw, 28)[0]
    ino = struct.unpack_from("Q", raw, 32)[0]
    seconds, nanoseconds = struct.unpack_from("qI", raw, 80)
    major, minor = struct.unpack_from("II", raw, 136)
    btime = seconds * 10**9 + nanoseconds if mask & _STATX_BTIME else None
    return Entry(os.makedev(major, minor), ino, mode, btime)


def born_since(entry, started):
    """Whether entry was born at or after started (time.time_ns()); False when its
    birth is unknown, or when nobody recorded when the run started."""
    return bool(started) and entry.btime_ns is not None and entry.btime_ns >= started


def born_before(entry, started):
    """Whether entry was surely born before started: its birth known and, as late as
    its stamp may really be, still earlier."""
    return bool(started) and entry.btime_ns is not None and latest(entry.btime_ns) < started


def latest(ns):
    """The latest time a file stamped ns may have been written: the kernel stamps
    with a clock a tick behind; a file system that keeps whole seconds (or two) cuts
    the rest off."""
    return ns + (_COARSE_NS if ns % 10**9 == 0 else _TICK_NS)
