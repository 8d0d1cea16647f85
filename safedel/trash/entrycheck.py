"""What can be wrong with a trash entry, as its info file and its name show: a Path=
that escapes its trash, or would put the item back into a trash dir or /proc, and an
info path no trash ever wrote. What `list` shows as invalid; restore and purge judge
again on the descriptors they act through (opentrash.py, restorelanding.py)."""

import os

from ..core.trash import info, visible


def invalid_path(path, topdir):
    """Why a Path= value can't be where this entry came from, or None. `..` could point
    anywhere, and a topdir trash only holds items from its own device."""
    if b".." in path.split(b"/"):
        return "Path= holds '..'"
    if topdir is None and not os.path.isabs(path):
        return "Path= is relative in a trash with no top directory"
    if topdir is not None and os.path.isabs(path):
        prefix = topdir.rstrip(b"/") + b"/"
        if not path.startswith(prefix):
            return "Path= is outside the top directory of its trash"
    return None


_PSEUDO = (b"/proc", b"/sys")


def landing_text(path, root):
    """Why a restore to path (absolute, normalised) would land somewhere no item goes
    back to, as far as its text shows: into a trash dir (its own, or another `list`
    reads), or into /proc or /sys. A restore judges the same again by descriptor
    (restorelanding.py), where symlinks on the way are resolved by the kernel."""
    for pseudo in _PSEUDO:
        if path == pseudo or path.startswith(pseudo + b"/"):
            return f"Path= runs through {pseudo.decode()}"
    for trash in (root, *_listed_roots()):
        if path == trash or path.startswith(trash.rstrip(b"/") + b"/"):
            return "Path= points into a trash dir"
    return None


_roots_seen = {}


def _listed_roots():
    """The trash dirs this process lists (looked up once per environment: a listing
    reads 100,000 info files, each checked against them)."""
    key = tuple(os.environ.get(k) for k in ("XDG_DATA_HOME", "HOME", "SAFEDEL_TRASH_DIR"))
    if key not in _roots_seen:
        _roots_seen[key] = tuple(visible.visible_trash_dirs())
    return _roots_seen[key]


def plain_info_path(info_path):
    """Whether a report's infoPath is one a trash could have written: absolute,
    normalised, `<root>/info/<name>.trashinfo`."""
    parent = os.path.dirname(info_path)
    return (
        os.path.isabs(info_path)
        and os.path.normpath(info_path) == info_path
        and os.path.basename(parent) == b"info"
        and info_path.endswith(info.INFO_SUFFIX)
    )
