"""Kept roots: safedel's own trash directories and state directory, wherever they lie.

The temp dir is exempt: what lies there is deleted for real. But a container that runs
with HOME=/tmp (any uid without a home of its own gets one there) puts the home trash
and the state directory (the guard's ledgers, the report) inside the temp dir too. Left
exempt, `rm -rf /tmp/*` would empty the trash for real and reset the guard. So a kept
root inside an exempt root is a root of its own, and the nearest enclosing root decides
(core.workspace.location): what lies in it is judged like any path outside the
workspace. An exempt directory that is or holds a kept root is refused whole: it cannot
go into a trash that lies inside itself, and deleting it for real loses the trash.
"""

import os

from . import workspace

_found = {}


def roots(settings, exempt_roots):
    """The kept roots of settings (real str paths) that lie strictly inside one of
    exempt_roots (real str paths): the home trash (the one a run fixed, else the one
    the environment names now), the single trash directory, the state directory, and
    this user's trashes at the top of an exempt root's mount."""
    home = settings.home_trash
    # Asked at every exempt deletion: keyed on what the home trash is made of, not on
    # the home trash itself, which costs more to spell than the rest of the answer.
    environ = os.environ
    key = (home, settings.trash_dir, settings.state_dir, exempt_roots)
    if home is None:
        key += (environ.get("XDG_DATA_HOME"), environ.get("HOME"))
    found = _found.get(key)
    if found is None:
        if home is None and os.name == "posix":
            from ..trash.dirs import home_trash

            home = home_trash()
        real = [os.path.realpath(os.fsdecode(p)) for p in (home, *key[1:3]) if p]
        real += _mount_trashes(exempt_roots)
        found = tuple(r for r in real if workspace.nearest_exempt(r, exempt_roots))
        if len(_found) > 64:
            _found.clear()
        _found[key] = found
    return found


def _mount_trashes(exempt_roots):
    """The per-user trashes at the top of each exempt root's own mount: where a project
    inside a temp dir on a filesystem of its own (a tmpfs /tmp) has its items trashed."""
    if os.name != "posix":
        return []
    from ..trash.dirs import mount_topdir

    uid = str(os.getuid())
    found = []
    for root in exempt_roots:
        try:
            top = os.fsdecode(mount_topdir(os.fsencode(root), os.stat(root).st_dev))
        except OSError:
            continue
        found += [os.path.join(top, ".Trash-" + uid), os.path.join(top, ".Trash", uid)]
    return found


def held(real_path, kept):
    """The kept root that real_path is, or holds strictly inside it, or None."""
    for root in kept:
        if workspace.inside(root, real_path):
            return root
    return None


def refusal(real_path, root):
    """Why a directory that is or holds the kept root must stay."""
    from ..printable import printable

    if real_path == root:
        return f"refusing to remove safedel's own trash or state {printable(root)}"
    return (
        f"refusing to remove {printable(real_path)}, which holds safedel's own trash or"
        f" state {printable(root)}"
    )
