"""Which targets are protected (always refused) and which are exempt (deleted for real).

Both are judged on a resolve.Target, that is where the kernel puts the item, never on
the operand's spelling: `/tmp/link/src`, where link points into a project, is not in
the temp dir, and `/tmp/link/../x` is not `/tmp/x`.
"""

import os
import stat

from .. import resolve
from ..contract import host
from ..printable import printable

# GNU's preserve-root covers '/'; these top-level directories get the same treatment,
# because trashing /usr or /home is never what anybody meant.
SYSTEM_DIRS = frozenset(
    b"/" + name
    for name in (b"bin", b"boot", b"dev", b"etc", b"home", b"lib", b"lib32", b"lib64")
    + (b"libx32", b"media", b"mnt", b"opt", b"proc", b"root", b"run", b"sbin", b"snap")
    + (b"srv", b"sys", b"tmp", b"usr", b"var")
)

_real_roots = {}
_homes = {}


def real_roots(roots):
    """The exempt roots (str) as real bytes paths, without trailing slashes."""
    found = _real_roots.get(roots)
    if found is None:
        found = tuple(resolve.real_path(os.fsencode(r)).rstrip(b"/") or b"/" for r in roots)
        _real_roots[roots] = found
    return found


def strictly_under(path, roots):
    for root in roots:
        prefix = b"/" if root == b"/" else root + b"/"
        if path != root and path.startswith(prefix):
            return True
    return False


def reaches_exempt(directory, exempt_roots):
    """True when directory (real bytes) is an exempt root or inside one, so that an
    entry in it may be exempt."""
    roots = real_roots(exempt_roots) if exempt_roots else ()
    return directory in roots or strictly_under(directory, roots)


def target_exempt(target, exempt_roots):
    """True when target really lies strictly inside an exempt root."""
    return bool(exempt_roots) and strictly_under(target.path, real_roots(exempt_roots))


def homes(environ):
    home = environ.get("HOME") or os.path.expanduser("~")
    found = _homes.get(home)
    if found is None:
        found = _homes[home] = _spellings(home)
    return found


def account_homes():
    """The password database's home for this uid, so that a command pointing HOME
    elsewhere has not unprotected the real one. Looked up once per process, and only
    for a directory: the lookup costs a launcher about a millisecond."""
    found = _homes.get(None)
    if found is None:
        try:
            import pwd

            home = pwd.getpwuid(os.getuid()).pw_dir
        except (ImportError, KeyError, OSError):
            home = None  # no password database here, or no entry for this uid
        found = _homes[None] = _spellings(home) if home else frozenset()
    return found


def _spellings(home):
    raw = os.fsencode(home)
    return frozenset({os.path.abspath(raw), resolve.real_path(raw)})


def target_protected(target, environ=None):
    """Why target must never be deleted or trashed, or None. A symlink is judged as the
    link; `link/` as the directory it leads to, which is what would go."""
    if environ is None:
        environ = host.judged_environ() or os.environ
    if target.dots:
        return "refusing to remove '.' or '..'"
    path = target.path
    if path == b"/":
        return "refusing to remove '/'"
    if path in homes(environ) or (_a_directory(target) and path in account_homes()):
        return f"refusing to remove your home directory {printable(path)}"
    if path in SYSTEM_DIRS:
        return f"refusing to remove the system directory {printable(path)}"
    return None


def _a_directory(target):
    """What would go is a directory: the entry is one, or it is `link/`."""
    st = target.st
    return st is not None and (target.via_link or stat.S_ISDIR(st.st_mode))


def is_exempt(path, exempt_roots):
    """is path (str or bytes) really inside an exempt root? False if it can't be told."""
    target = resolve.resolve_or_none(path)
    return target is not None and target_exempt(target, exempt_roots)


def protected_reason(path, environ=None):
    """Why path (str or bytes) must never be trashed, or None."""
    target = resolve.resolve_or_none(path)
    if target is None:
        return None
    return target_protected(target, environ)
