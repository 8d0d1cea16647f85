"""shutil.rmtree for the Python shim: a directory tree goes to the trash in one rename.

Loaded when shutil is imported (pyshim's ShutilWatcher) or at start-up if it already was;
the engine itself waits for the first rmtree.
"""

import errno
import os
import stat
import sys
from _thread import _local

from . import InternalCalls, deletions, internal_call, paths

_made = []
# Per thread: the trees whose refusal is being handed to the caller's error handler.
_handling = _local()


class RefusedAgain(OSError):
    """A tree refused a moment ago, asked for again from inside the caller's handler of
    that very refusal. It carries EPERM but is deliberately not a PermissionError:
    handlers that retry on any PermissionError, as TemporaryDirectory.cleanup does
    without bound, then stop instead of recursing until RecursionError."""

    def __init__(self, refusal):
        super().__init__(errno.EPERM, refusal.strerror, refusal.filename)


def _call_original(original, path, ignore_errors, onerror, onexc, dir_fd):
    # onexc (3.12+) and dir_fd (3.11+) only go in when given: older rmtrees lack them.
    extra = {}
    if onexc is not None:
        extra["onexc"] = onexc
    if dir_fd is not None:
        extra["dir_fd"] = dir_fd
    return original(path, ignore_errors, onerror, **extra)


def _rmtree(original, path, ignore_errors, onerror, onexc, dir_fd):
    call = (original, path, ignore_errors, onerror, onexc, dir_fd)
    if internal_call(sys._getframe(2)):  # rmtree's caller, past the signature wrapper
        return _call_original(*call)
    engine = deletions()
    try:
        plan = engine.judge(None, path, dir_fd)
    except engine.Unreachable:
        plan = None  # the original fails on it, and would judge each deletion inside
    if plan is None:
        return _call_original(*call)
    conf, target, exempt, shown = plan
    if exempt and not _holds_a_mount(target):
        with InternalCalls("shutil"):  # an exempt tree is not judged file by file
            return _exempt_tree(original, target, call)
    try:
        st, _ = paths.lstat_stripped(target.given, shown)
    except OSError:
        st = None
    # `link/` means the directory the link leads to: never hand that to the original.
    if not target.via_link and (st is None or not stat.S_ISDIR(st.st_mode)):
        # Missing, a symlink, a file: the original reports it exactly as it would have
        # (onerror with os.lstat, os.path.islink, os.scandir ...) and deletes nothing.
        return _call_original(*call)
    if not target.via_link and not _may_open(target.path):
        # rmtree opens the directory to list it: one this user may not read fails right
        # there, before anything is deleted, and the original says so in its own words.
        # (Trashing it would lend its owner u+wx and succeed where rmtree cannot.)
        return _call_original(*call)
    sys.audit("shutil.rmtree", *((path, dir_fd) if sys.version_info >= (3, 11) else (path,)))
    handling = _handling.__dict__.setdefault("refused", {})
    key = target.given
    try:
        if key in handling:
            raise RefusedAgain(handling[key])
        deletions().trash(conf, shown, target, st)
    except OSError as exc:
        if ignore_errors:
            return
        first = isinstance(exc, PermissionError) and key not in handling
        if first:
            handling[key] = exc
        try:
            _report(original, path, onerror, onexc, exc)
        finally:
            if first:
                del handling[key]


def _exempt_tree(original, target, call):
    """The original rmtree on an exempt tree, reached from the directory judged exempt
    (exemptcall.Spelled), with the caller's spelling in every error."""
    from .exemptcall import Spelled

    _, path, ignore_errors, onerror, onexc, dir_fd = call
    try:
        tree = Spelled(target, path, dir_fd)
    except OSError as exc:  # not the directory judged any more: nothing was deleted
        return None if ignore_errors else _report(original, path, onerror, onexc, exc)
    try:
        handlers = (tree.onerror(onerror), tree.onexc(onexc))
        return _call_original(original, tree.path, ignore_errors, *handlers, tree.dir_fd)
    except OSError as exc:
        tree.exception(exc)
        raise
    finally:
        tree.close()


def _holds_a_mount(target):
    """Whether a mount lies inside the exempt tree (a project bind-mounted below it):
    the original rmtree would walk into it, so the tree is judged like any other."""
    from .. import deletion, mounts

    if target.st is None or not stat.S_ISDIR(target.st.st_mode) and not target.via_link:
        return False
    if not mounts.mount_beneath(target.shown):
        return False
    target.klass = deletion.TRASH
    return True


def _may_open(directory):
    try:
        fd = os.open(directory, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    except PermissionError:
        return False
    except OSError:
        return True  # not a permission matter: the trash meets it and says why
    os.close(fd)
    return True


def _report(original, path, onerror, onexc, exc):
    """Hand exc to the caller's handler as the original rmtree would, or raise it."""
    shown = path
    if isinstance(path, bytes) and getattr(original, "avoids_symlink_attacks", False):
        shown = os.fsdecode(path)  # as the fd-based rmtree reports a bytes path
    if onexc is not None:
        onexc(os.rmdir, shown, exc)
    elif onerror is not None:
        onerror(os.rmdir, shown, (type(exc), exc, exc.__traceback__))
    else:
        raise exc


def make_rmtree(original):
    """A wrapper with the signature of this Python's rmtree, and its attributes."""
    if sys.version_info >= (3, 12):

        def rmtree(path, ignore_errors=False, onerror=None, *, onexc=None, dir_fd=None):
            return _rmtree(original, path, ignore_errors, onerror, onexc, dir_fd)

    elif sys.version_info >= (3, 11):

        def rmtree(path, ignore_errors=False, onerror=None, *, dir_fd=None):
            return _rmtree(original, path, ignore_errors, onerror, None, dir_fd)

    else:

        def rmtree(path, ignore_errors=False, onerror=None):
            return _rmtree(original, path, ignore_errors, onerror, None, None)

    for name in ("__module__", "__name__", "__qualname__", "__doc__"):
        setattr(rmtree, name, getattr(original, name))
    rmtree.__dict__.update(original.__dict__)  # avoids_symlink_attacks
    rmtree.__wrapped__ = original
    return rmtree


def patch(module):
    original = getattr(module, "rmtree", None)
    if original is None or original in _made:
        return
    wrapper = make_rmtree(original)
    _made.append(wrapper)
    module.rmtree = wrapper
