"""What the kernel says about a trash item's life: when its inode was born, and when it
entered the trash. No process can set these back.

A rename keeps the inode, so the payload in files/ has the birth time (statx btime)
of the file that was deleted, and its ctime is no earlier than the rename into the
trash. The info file is created just before that rename, so its birth time is when the
item entered the trash (an info file rewritten through a new inode is only younger).
Everything else about an item (its DeletionDate=, a report line, the catalog cache)
is text that any process of the user may write.
"""

import ctypes
import os
import struct
import sys

_STATX_BTIME = 0x800
_AT_SYMLINK_NOFOLLOW = 0x100
_AT_FDCWD = -100
_statx = []


def _function():
    if not _statx:
        function = None
        if sys.platform.startswith("linux"):
            try:
                function = ctypes.CDLL(None, use_errno=True).statx
                function.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_uint)
                function.argtypes += (ctypes.c_void_p,)
            except (OSError, AttributeError):
                function = None
        _statx.append(function)
    return _statx[0]


def birth_time(path, dir_fd=None):
    """The birth time (seconds) of the entry at path, not following a symlink; None
    where the system or the file system keeps none."""
    function = _function()
    if function is None:
        birth = getattr(os.lstat(path, dir_fd=dir_fd), "st_birthtime", None)
        return birth or None
    buffer = ctypes.create_string_buffer(256)
    where = _AT_FDCWD if dir_fd is None else dir_fd
    if function(where, os.fsencode(path), _AT_SYMLINK_NOFOLLOW, _STATX_BTIME, buffer) != 0:
        return None
    mask = struct.unpack_from("I", buffer.raw, 0)[0]
    if not mask & _STATX_BTIME:
        return None
    seconds, nanoseconds = struct.unpack_from("qI", buffer.raw, 80)
    return seconds + nanoseconds / 1e9


def lived_before_trash(item):
    """How long (seconds), at most, the item's inode had lived when it entered the
    trash: its payload's ctime (no earlier than the rename into the trash) less its
    birth time. None when that cannot be told (no birth time, no payload)."""
    try:
        born = birth_time(item.file_path)
        changed = os.lstat(item.file_path).st_ctime
    except OSError:
        return None
    if born is None:
        return None
    return max(0.0, changed - born)


def entered_trash(item):
    """When the item entered the trash, as the kernel kept it: its info file's birth
    time, else that file's ctime (either only later for a rewritten info file)."""
    try:
        born = birth_time(item.info_path)
        return born if born is not None else os.lstat(item.info_path).st_ctime
    except OSError:
        return float("inf")  # cannot tell: no event can be shown to come after it
