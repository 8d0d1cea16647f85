"""An exempt path's real delete under the Python shim: the original function, run
relative to a descriptor of the very parent directory that was judged exempt.

Handing the original the caller's path would let the kernel walk it afresh, and a
rename between the judgement and the call (`mv "$TMPDIR" x; mv ~/project "$TMPDIR"`
racing the program) would aim it at someone's project. So the parent is opened and
checked to be the directory judged (device and inode, core/policy/exemptroot.py), and
os.remove, os.unlink and os.rmdir get (name, dir_fd=it). shutil.rmtree gets
/proc/self/fd/N/name, which the kernel resolves from that same descriptor, or the
caller's own lone name (Spelled). What the caller sees is the original's own outcome,
with its own path wherever the original would have named it. Without /proc (macOS)
rmtree gets the caller's path, once its parent was found to be the one judged.
"""

import errno
import sys

from ..report import markers
from . import OS_AT_START as _os  # as in paths: a patched os.open never sees our calls

_PARENT = (getattr(_os, "O_PATH", 0) or _os.O_RDONLY) | getattr(_os, "O_DIRECTORY", 0)
_PARENT |= _os.O_CLOEXEC
_BY_DESCRIPTOR = _os.name == "posix"


def _has_proc():
    try:
        return sys.platform.startswith("linux") and bool(_os.listdir("/proc/self/fd"))
    except OSError:
        return False


_PROC = _has_proc()


def parent(target, shown):
    """A descriptor of target's parent, checked to be the directory judged; a
    PermissionError (with a marker) when it is not: the entry stays."""
    try:
        fd = _os.open(target.parent, _PARENT)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, shown) from None
    st = _os.fstat(fd)
    if (st.st_dev, st.st_ino) == target.parent_id:
        return fd
    _os.close(fd)
    raise _changed(target, shown)


def _changed(target, shown):
    reason = "its directory changed while it was judged, so nothing was deleted"
    markers.emit(markers.FAIL_CLOSED, {"path": target.shown, "reason": reason})
    return PermissionError(errno.EPERM, reason, shown)


def call(original, target, shown):
    """original (os.remove, os.unlink or os.rmdir) on the exempt target, by descriptor."""
    if not _BY_DESCRIPTOR:
        return original(shown)
    fd = parent(target, shown)
    try:
        return original(target.name + b"/" if target.slash else target.name, dir_fd=fd)
    except OSError as exc:
        raise type(exc)(exc.errno, exc.strerror, shown) from None
    finally:
        _os.close(fd)


class Spelled:
    """What rmtree is handed for an exempt tree (.path, .dir_fd), and the caller's
    spelling put back wherever the original names it.

    A lone name (no slash) stays the caller's own, as rmtree's own tests expect of
    what it looks at: from 3.11 it is looked up in a descriptor of the directory
    judged (rmtree's dir_fd), or in the caller's own dir_fd; on 3.9 and 3.10 in the
    working directory, which no rename can swap, once that was found to be the
    directory judged (a thread of the program that changes directory in between is
    the program racing itself: see docs/coverage.md). A longer path goes through
    /proc/self/fd/N/name."""

    def __init__(self, target, path, dir_fd):
        self.top, self.path, self.dir_fd, self.fd = _os.fspath(path), path, dir_fd, None
        self._swaps = ()
        lone = (b"/" if isinstance(self.top, bytes) else "/") not in self.top
        if lone and dir_fd is None and _PROC and sys.version_info >= (3, 11):
            self.fd = self.dir_fd = parent(target, self.top)
            return
        if lone or not _PROC:
            _check(target, self.top, dir_fd if lone else None)
            return
        self.fd = parent(target, self.top)
        proc = b"/proc/self/fd/%d/%s" % (self.fd, target.name)
        # Absolute, so the kernel ignores the caller's dir_fd; the original still checks
        # its type, as it would have.
        self.path = proc if isinstance(self.top, bytes) else _os.fsdecode(proc)
        self._swaps = ((_os.fsdecode(proc), _os.fsdecode(self.top)), (proc, _os.fsencode(self.top)))

    def close(self):
        if self.fd is not None:
            _os.close(self.fd)

    def back(self, path):
        """path with the /proc spelling of the tree replaced by the caller's."""
        for proc, top in self._swaps:
            if type(path) is type(proc) and path.startswith(proc):
                return top + path[len(proc) :]
        return path

    def exception(self, exc):
        """exc, its file names spelled as the caller's."""
        if isinstance(exc, OSError):
            if exc.filename is not None:
                exc.filename = self.back(exc.filename)
            if exc.filename2 is not None:
                exc.filename2 = self.back(exc.filename2)
        return exc

    def onerror(self, handler):
        if handler is None or not self._swaps:
            return handler
        return lambda function, path, info: handler(
            function, self.back(path), (info[0], self.exception(info[1]), info[2])
        )

    def onexc(self, handler):
        if handler is None or not self._swaps:
            return handler
        return lambda function, path, exc: handler(function, self.back(path), self.exception(exc))


def _check(target, shown, dir_fd):
    """That the directory the caller's own path is looked up from is the one judged:
    dir_fd, or the working directory for a lone name; else the parent, by its path."""
    lone = (b"/" if isinstance(shown, bytes) else "/") not in shown
    where = "." if lone else target.parent
    try:
        st = _os.fstat(dir_fd) if dir_fd is not None else _os.stat(where)
    except OSError as exc:
        raise OSError(exc.errno, exc.strerror, shown) from None
    if (st.st_dev, st.st_ino) != target.parent_id:
        raise _changed(target, shown)
