"""Which trash dirs exist on this machine for `list` and `restore` to read: the home
trash, SAFEDEL_TRASH_DIR and each mount's topdir trash, only those that are ours
(trashtrust), and, for `doctor`, the ones skipped and why.
"""

import os

from .. import mounts
from . import trust
from .dirs import home_trash


def visible_trash_dirs(environ=None):
    """Every trash root that exists: home, SAFEDEL_TRASH_DIR, and each mount's topdir trash."""
    environ = os.environ if environ is None else environ
    uid = str(os.getuid()).encode("ascii")
    found = []
    candidates = [home_trash(environ)]
    if environ.get("SAFEDEL_TRASH_DIR"):
        candidates.append(os.fsencode(environ["SAFEDEL_TRASH_DIR"]))
    for point in mounts.mount_points():
        if trust.shared_trash_usable(point):
            candidates.append(os.path.join(point, b".Trash", uid))
        candidates.append(os.path.join(point, b".Trash-" + uid))
    for root in candidates:
        info = os.path.join(root, b"info")
        if root in found or not os.path.isdir(info):
            continue
        if trust.why_not_listed(root) is None:
            found.append(root)
    return found


def foreign_trash_dirs(environ=None):
    """(root, why) for each trash dir on a mount that `list` and `restore` skip because
    it is not ours (another owner, a symlink, writable by others)."""
    uid = str(os.getuid()).encode("ascii")
    skipped = []
    for point in mounts.mount_points():
        for root in (os.path.join(point, b".Trash", uid), os.path.join(point, b".Trash-" + uid)):
            why = trust.why_not_listed(root) if os.path.lexists(root) else None
            if why:
                skipped.append((root, why))
    environ = os.environ if environ is None else environ
    for root in (home_trash(environ), os.fsencode(environ.get("SAFEDEL_TRASH_DIR") or b"")):
        why = trust.why_not_listed(root) if root and os.path.lexists(root) else None
        if why:
            skipped.append((root, why))
    return skipped
