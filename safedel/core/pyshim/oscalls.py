"""os.remove, os.unlink and os.rmdir under the Python shim: judged as the syscall would
judge them, then trashed (or, when exempt, handed to the original: a real delete, by
descriptor of the directory judged, core/pyshim/exemptcall.py).

Loaded at the first deletion, with the engine: the shim costs nothing until then.
"""

import errno
import os
import stat
import sys

# lendmode and rmcheck, used later, are loaded now so that they too work through os as
# it was at start-up (below).
from .. import deletion, lendmode, resolve
from ..contract import settings  # noqa: F401
from ..report import markers
from . import OS_AT_START, exemptcall, paths

RUNTIME = "python"
_IS_LINUX = sys.platform.startswith("linux")
_SYSCALL_WOULD_FAIL = (errno.ENOENT, errno.ENOTDIR, errno.EACCES, errno.ELOOP, errno.ENAMETOOLONG)


def _engine_on_os_at_start():
    """The engine works through os as it was at start-up; the shim itself hands
    callers today's os.rmdir and friends, so its own modules keep the live os."""
    for name, module in list(sys.modules.items()):
        engine = name.startswith(__name__.rsplit(".", 2)[0] + ".") and ".pyshim" not in name
        if engine and getattr(module, "os", None) is os:
            module.os = OS_AT_START


_engine_on_os_at_start()
# (environment snapshot, config file path, its identity, Settings), replaced whole so
# that threads never see the parts of two different ones.
_memo = [None]


def _identity(path):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_ino, st.st_mtime_ns, st.st_size


def current_settings():
    """settings.load(), redone only when the environment or the config file changed:
    an exempt build deleting thousands of temp files should not re-read both for each.
    The turn file, which a prompt hook rotates, is still read at every call."""
    environ = os.environ
    data = getattr(environ, "_data", None)
    memo = _memo[0]
    if memo is not None and memo[0] == data and _identity(memo[1]) == memo[2]:
        conf = memo[3]
        # Under a run its record fixed the turn: a turn file the command sets moves nothing.
        if "SAFEDEL_TURN_FILE" in environ and not conf.bound:
            turn = settings.current_turn(environ)
            if turn != conf.turn:
                conf = _with_turn(conf, turn)
                _memo[0] = memo[:3] + (conf,)
        return conf
    conf = settings.load()
    if data is not None:
        path = settings.config_path(environ)
        _memo[0] = (dict(data), path, _identity(path), conf)
    return conf


def _with_turn(conf, turn):
    # A new object: another thread may be in the middle of a deletion with the old one.
    other = object.__new__(type(conf))
    for name in type(conf).__slots__:
        setattr(other, name, getattr(conf, name))
    other.turn = turn
    return other


def judge(name, path, dir_fd):
    """(settings, target, exempt, shown), or None when the original must run as it is:
    inactive, or arguments the original rejects itself. target is the deletion
    pipeline's resolve.Target (target.given: the path as the syscall sees it); a
    protected target is never exempt. shown is what the original's errors carry as
    filename: a path-like's own str or bytes, a bytes-like object as it came. name is
    the function's, for the warning a bytes-like path earns before 3.12; with name None
    such a path is left to the original."""
    judged = paths.raw_path(path)
    if judged is None or (judged[1] and name is None):
        return None
    shown = path if judged[1] else judged[0]
    conf = current_settings()
    if not conf.active:
        return None
    raw = paths.target(judged[0], shown, dir_fd, fail_closed)
    if raw is None:
        return None
    try:
        target = deletion.judge(conf, raw)
    except OSError as exc:
        if exc.errno in _SYSCALL_WOULD_FAIL:
            raise Unreachable(exc.errno, shown) from None
        raise fail_closed(shown, raw, f"cannot resolve it: {exc.strerror or exc}") from None
    exempt = target.klass == deletion.EXEMPT
    if judged[1]:
        paths.warn_legacy(name, path)
    return conf, target, exempt, shown


class Unreachable(Exception):
    """judge(): the parent cannot be reached, so the original would fail with .error.
    os.remove, os.unlink and os.rmdir raise it themselves: handing the original the
    path would let a rename racing them (the temp dir swapped for a project) make it
    reach something after all. rmtree hands it on: every deletion inside is judged."""

    def __init__(self, code, shown):
        super().__init__(code)
        self.error = OSError(code, os.strerror(code), shown)


def fail_closed(path, target, reason):
    markers.emit(markers.FAIL_CLOSED, {"path": resolve.absolute(target), "reason": reason})
    return PermissionError(errno.EPERM, reason, path)


def trash(conf, path, target, st=None):
    """Refuse a protected target, else guard and trash it (the deletion pipeline); what
    the caller sees carries path, as the original's errors do."""
    if target.klass == deletion.PROTECTED:
        deletion.refuse(conf, RUNTIME, target)
        raise PermissionError(errno.EPERM, target.reason, path)
    # A directory its owner may not write is lent u+wx for the move, as rm does; one
    # with entries is not: rmtree could not have emptied it, and fails the same way.
    is_dir = st is not None and stat.S_ISDIR(st.st_mode) and not target.via_link
    if is_dir and st.st_mode & 0o300 != 0o300:
        is_dir = not paths.has_entries(target.path)
    try:
        deletion.authorize(conf, RUNTIME, [target])
        lendmode.carry_out_lending_write(deletion, conf, RUNTIME, target, is_dir, target.path)
    except deletion.Refused as exc:
        raise PermissionError(errno.EPERM, exc.message, path) from None
    except OSError as exc:
        if exc.errno is None:
            raise
        raise OSError(exc.errno, exc.strerror, path) from None


def _error(code, path):
    return OSError(code, os.strerror(code), path)


def _prepare(original, path, dir_fd, event):
    """None when the original should run as it is (the shim is off); EXEMPT for an
    exempt path, which the original deletes by descriptor; otherwise (settings,
    target, lstat result, had a trailing slash, shown). The audit event comes first."""
    try:
        plan = judge(original.__name__, path, dir_fd)
    except Unreachable as exc:
        sys.audit(event, path, dir_fd)
        raise exc.error from None
    if plan is None:
        return None
    conf, target, exempt, shown = plan
    sys.audit(event, path, dir_fd)
    if exempt:
        return EXEMPT, target, shown
    st, had_slash = paths.lstat_stripped(target.given, shown)
    return conf, target, st, had_slash, shown


EXEMPT = object()


def remove_file(original, path, dir_fd):
    """os.remove and os.unlink: a directory is EISDIR, `x/` on a non-directory ENOTDIR."""
    prepared = _prepare(original, path, dir_fd, "os.remove")
    if prepared is None:
        return original(path, dir_fd=dir_fd)
    if prepared[0] is EXEMPT:
        return exemptcall.call(original, *prepared[1:])
    conf, target, st, had_slash, shown = prepared
    if stat.S_ISDIR(st.st_mode):
        raise _error(errno.EISDIR if _IS_LINUX else errno.EPERM, shown)
    if had_slash:
        raise _error(errno.ENOTDIR, shown)
    trash(conf, shown, target, st)


def remove_dir(original, path, dir_fd):
    """os.rmdir: only an empty directory, never through a symlink, never `.`."""
    prepared = _prepare(original, path, dir_fd, "os.rmdir")
    if prepared is None:
        return original(path, dir_fd=dir_fd)
    if prepared[0] is EXEMPT:
        return exemptcall.call(original, *prepared[1:])
    conf, target, st, _, shown = prepared
    if not stat.S_ISDIR(st.st_mode):
        raise _error(errno.ENOTDIR, shown)
    last = paths.last_component(target.given)
    if last in ("/", b"/"):
        raise _error(errno.EBUSY, shown)
    if last in (".", b"."):
        raise _error(errno.EINVAL, shown)
    if last in ("..", b"..") or paths.has_entries(target.given):
        raise _error(errno.ENOTEMPTY, shown)
    trash(conf, shown, target, st)
