"""Path handling for the Python shim: what a deletion call names, judged as the syscall would.

Errors raised here carry the caller's own path object as `filename`, as os's do.
"""

import os
import stat
import sys
from _thread import _local

from .pyshim import OS_AT_START

_state = _local()
# The real unlink and rmdir never call a Python-level lstat, so the wrappers must not
# either: a test that patches os.lstat would otherwise see calls it never expected.
_lstat = OS_AT_START.lstat


class Busy:
    """While safedel itself works (or an exempt tree is deleted for real), deletions on
    this thread go straight to the originals: the engine's own unlinks must not come
    back into the shim, and an exempt tree is not judged file by file."""

    def __enter__(self):
        _state.depth = getattr(_state, "depth", 0) + 1

    def __exit__(self, *exc_info):
        _state.depth -= 1


def busy():
    return Busy()


def is_busy():
    return getattr(_state, "depth", 0) > 0


def raw_path(path):
    """(str or bytes, legacy) for path, or None when only the original can judge it
    (a wrong type, an embedded NUL: it raises its own TypeError or ValueError). Up to
    3.11 os still takes bytes-like paths, with a DeprecationWarning: legacy is True."""
    legacy = False
    try:
        raw = os.fspath(path)
    except TypeError:
        if sys.version_info >= (3, 12):
            return None
        try:
            raw = bytes(memoryview(path))
        except TypeError:
            return None
        legacy = True
    if ("\0" if isinstance(raw, str) else b"\0") in raw:
        return None
    return raw, legacy


def warn_legacy(name, path):
    import warnings

    kind = type(path).__name__
    message = f"{name}: path should be string, bytes or os.PathLike, not {kind}"
    warnings.warn(message, DeprecationWarning, stacklevel=5)


def target(raw, path, dir_fd, fail_closed):
    """What raw names: itself, or raw inside the directory dir_fd is open on. None when
    dir_fd is of a type the original rejects itself."""
    if dir_fd is None or not raw or os.path.isabs(raw):
        return raw
    try:
        fd = dir_fd.__index__()
    except AttributeError:
        return None
    try:
        st = os.fstat(fd)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, path) from None
    if not stat.S_ISDIR(st.st_mode):
        raise OSError(20, os.strerror(20), path)  # ENOTDIR, as unlinkat gives
    directory = directory_of(fd, st)
    if directory is None:
        reason = f"cannot tell which directory dir_fd {fd} is open on, so nothing was deleted"
        raise fail_closed(path, raw, reason)
    if isinstance(raw, bytes):
        directory = os.fsencode(directory)
    return os.path.join(directory, raw)


def directory_of(fd, st):
    """The absolute path of the directory open as fd, checked to still be that one."""
    try:
        link = os.readlink(f"/proc/self/fd/{fd}")
        same = os.path.samestat(os.stat(link), st)
    except OSError:
        return None
    return link if same and link.startswith("/") else None


def strip_slashes(target):
    slash = b"/" if isinstance(target, bytes) else "/"
    return target.rstrip(slash) or target[:1]


def lstat_stripped(target, path, lstat=None):
    """(lstat of target without trailing slashes, whether it had any). `link/` is judged
    as the link, as unlink and rmdir do."""
    stripped = strip_slashes(target)
    try:
        st = (lstat or _lstat)(stripped)
    except OSError as exc:
        if exc.errno is None:
            raise
        raise OSError(exc.errno, exc.strerror, path) from None
    return st, stripped != target


def last_component(target):
    stripped = strip_slashes(target)
    if stripped in ("/", b"/"):
        return stripped
    return os.path.basename(stripped)


def has_entries(directory):
    """True when directory holds anything. An unreadable one counts as empty: trashing
    it loses nothing, while rmdir would have needed it empty."""
    try:
        with os.scandir(directory) as entries:
            return next(entries, None) is not None
    except OSError:
        return False
