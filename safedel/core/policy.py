"""Which paths are exempt (deleted for real) and which are protected (always refused)."""

import os

# GNU's preserve-root covers '/'; these top-level directories get the same treatment,
# because trashing /usr or /home is never what anybody meant.
SYSTEM_DIRS = frozenset(
    "/" + name
    for name in ("bin", "boot", "dev", "etc", "home", "lib", "lib32", "lib64", "libx32")
    + ("media", "mnt", "opt", "proc", "root", "run", "sbin", "snap", "srv", "sys", "tmp")
    + ("usr", "var")
)


def _under(path, roots):
    for root in roots:
        root = root.rstrip(os.sep) or os.sep
        if path.startswith(root + os.sep) and path != root:
            return True
    return False


_real_roots = {}
# Parents already known to resolve outside every root. Only "not exempt" is remembered:
# if it goes stale, an item is trashed instead of deleted, never the other way round.
_not_exempt = set()


def is_exempt(absolute, exempt_roots):
    """True when the item at absolute (a str) really lies strictly inside an exempt root.

    Judged on real paths only: `/tmp/link/src`, where link points into a project, looks
    exempt but is not, and deleting it for real would destroy project files.
    """
    if not exempt_roots:
        return False
    real_roots = _real_roots.get(exempt_roots)
    if real_roots is None:
        real_roots = _real_roots[exempt_roots] = [os.path.realpath(r) for r in exempt_roots]
    parent = os.path.dirname(absolute)
    if (exempt_roots, parent) in _not_exempt:
        return False
    real_parent = os.path.realpath(parent)
    if _under(os.path.join(real_parent, os.path.basename(absolute)), real_roots):
        return True
    if len(_not_exempt) > 4096:
        _not_exempt.clear()
    _not_exempt.add((exempt_roots, parent))
    return False


def protected_reason(absolute, environ=None):
    """Why absolute must never be trashed, or None. A symlink is judged as the link."""
    environ = os.environ if environ is None else environ
    candidates = {absolute}
    if not os.path.islink(absolute):
        candidates.add(os.path.realpath(absolute))
    home = environ.get("HOME") or os.path.expanduser("~")
    homes = {os.path.abspath(home), os.path.realpath(home)} if home else set()
    for candidate in candidates:
        if candidate == os.sep:
            return "refusing to remove '/'"
        if candidate in homes:
            return f"refusing to remove your home directory {candidate}"
        if candidate in SYSTEM_DIRS:
            return f"refusing to remove the system directory {candidate}"
    return None
