"""rename(2) that never replaces what is already at the destination.

Restoring an item must not clobber a file that appeared at its old path between the
check and the move. Linux's renameat2(RENAME_NOREPLACE) makes the check and the move one
step; where it is missing (another libc or kernel, or a file system without the flag),
the check-then-rename fallback leaves only that narrow window.
"""

import ctypes
import errno
import os

_AT_FDCWD = -100
_RENAME_NOREPLACE = 1
_UNSUPPORTED = (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP)
_cache = []


def _renameat2():
    if not _cache:
        try:
            function = ctypes.CDLL(None, use_errno=True).renameat2
            function.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p]
            function.argtypes += [ctypes.c_uint]
            function.restype = ctypes.c_int
        except (OSError, AttributeError):
            function = None
        _cache.append(function)
    return _cache[0]


def rename_noreplace(source, destination, dst_dir_fd=None, src_dir_fd=None):
    """Move source (relative to src_dir_fd when given) to destination (relative to
    dst_dir_fd when given); FileExistsError if something is already there."""
    function = _renameat2()
    dst_fd = _AT_FDCWD if dst_dir_fd is None else dst_dir_fd
    src_fd = _AT_FDCWD if src_dir_fd is None else src_dir_fd
    if function is not None:
        src, dst = os.fsencode(source), os.fsencode(destination)
        if function(src_fd, src, dst_fd, dst, _RENAME_NOREPLACE) == 0:
            return
        err = ctypes.get_errno()
        if err not in _UNSUPPORTED:
            raise OSError(err, os.strerror(err), os.fsdecode(destination))
    try:
        os.lstat(destination, dir_fd=dst_dir_fd)
    except FileNotFoundError:
        os.rename(source, destination, src_dir_fd=src_dir_fd, dst_dir_fd=dst_dir_fd)
        return
    raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), os.fsdecode(destination))
