"""Path handling for the Python shim: what a deletion call names, judged as the syscall would.

Errors raised here carry as `filename` what os's own would: the str or bytes a path-like
object stands for (a pathlib.Path gives its string), a bytes-like object as it came.
"""

import os
import stat
import sys

from . import OS_AT_START

# The real unlink and rmdir never call a Python-level lstat, so the wrappers must not
# either: a test that patches os.lstat would otherwise see calls it never expected.
_lstat = OS_AT_START.lstat


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
    """True when directory holds anything. One this user may not read counts as empty
    (trashing it loses nothing, while rmdir would have needed it empty), unless its
    owner, who is lent u+wx to move it, can look: then it is judged as rmdir would."""
    try:
        with os.scandir(directory) as entries:
            return next(entries, None) is not None
    except OSError:
        pass
    from .. import removable

    try:
        st = os.lstat(directory)
    except OSError:
        return False  # gone: the trash says why it cannot be moved
    user = removable.User()
    if user.privileged or st.st_uid != user.uid:
        return False  # no one to lend a look: rmdir's answer cannot be told
    # A look the owner cannot lend (see empty_despite_mode) counts as not empty.
    return not removable.empty_despite_mode(directory, st, user, None)
