"""Which trash directories the net knows as safedel's, and what in them is bookkeeping.

A trash directory is safedel's when safedel itself puts items or keeps its caches
there: the home trash the run fixed, the run's single trash directory, or this user's
trash at the top of a mount (`<mount>/.Trash-<uid>`, or `<mount>/.Trash/<uid>` under
a root-owned sticky `.Trash`: what core/trash/visible.py lists), and it passes
core/trash/trust.py (a real directory of this uid that nobody else may write). Mounts
are safedel's own view of them (the supervisor's /proc/self/mounts), not the
command's. A `.Trash-<uid>` anywhere else is a folder of the user's like any other:
what it holds is judged, whatever it is called.

In such a trash the kernel deletes what the trash tools and safedel's shims delete:
- `info/<name>.trashinfo` that is empty (a move creates it before writing it) or a
  trash info file whose item is no longer in files/: a failed move's discard, an
  orphan sweep. One whose item is still there is judged with it: emptying the trash
  removes the item first, and while that is refused the item keeps its info file;
- `directorysizes*` that reads as the spec's cache and `safedel-catalog*` that reads
  as safedel's catalog: the caches and their temporary files.
Both are checked where the call acts: the directory the caller deletes in is that
trash's info/ (or the trash itself) by device and inode, on the trash's own mount, and
the file is read through the caller's own descriptor (see fileshape).
"""

import os

from ..core import mounts
from ..core.trash import trust
from . import fileshape

_INFO = "info"
_NOFOLLOW = os.O_NOFOLLOW
_INFO_SUFFIX = ".trashinfo"
_CACHES = (("directorysizes", fileshape.directory_sizes), ("safedel-catalog", fileshape.catalog))


class Trashes:
    def __init__(self, fixed):
        """fixed: the real paths (str) of the run's home trash and single trash dir."""
        self._fixed = frozenset(p.rstrip(os.sep) for p in fixed if p)
        self._uid = str(os.getuid())

    def bookkeeping(self, path, parent, st, entry=None):
        """Whether deleting path (real; parent: its directory; st: that directory as
        the caller reaches it) is a trash's own bookkeeping. entry: (the caller's
        parent descriptor, name) to read the file through; None judges by place alone
        (a rename's destination, where nothing is there to read yet)."""
        name = path[len(parent) + 1 :]
        if os.path.basename(parent) == _INFO:
            root, shape = os.path.dirname(parent), None
            if not name.endswith(_INFO_SUFFIX) or name == _INFO_SUFFIX:
                return False
        else:
            root = parent
            shape = next((check for start, check in _CACHES if name.startswith(start)), None)
            if shape is None:
                return False
        if not self._ours(root) or not _reached(parent, st, root):
            return False
        if shape is not None:
            return entry is None or shape(fileshape.read(entry))
        item_gone = not os.path.lexists(os.path.join(root, "files", name[: -len(_INFO_SUFFIX)]))
        if entry is None:
            return item_gone
        content = fileshape.read(entry)
        return fileshape.trash_info(content) and (item_gone or not content)

    def _ours(self, root):
        """Whether root is a trash directory safedel uses, and trusts."""
        if root not in self._fixed and not self._at_a_mount_top(root):
            return False
        try:
            return trust.why_untrusted(os.lstat(root), root) is None
        except OSError:
            return False

    def _at_a_mount_top(self, root):
        base, up = os.path.basename(root), os.path.dirname(root)
        if base == ".Trash-" + self._uid:
            top = up
        elif base == self._uid and os.path.basename(up) == ".Trash":
            top = os.path.dirname(up)
            if not trust.shared_trash_usable(os.fsencode(top)):
                return False
        else:
            return False
        if os.fsencode(top) not in mounts.mount_points():
            return False
        return _same_mount(root, top)  # not a trash of another file system mounted there


def _reached(parent, st, root):
    """Whether the directory the caller acts in (st) is the one at parent, that one is
    a trash folder of ours that nobody else may write, and it is on the trash's own
    mount: a folder mounted over info/ (`mount --bind ~/proj/notes .../info`) is not
    the trash's."""
    try:
        here = os.lstat(parent)
    except OSError:
        return False
    if (here.st_dev, here.st_ino) != (st.st_dev, st.st_ino):
        return False
    if trust.why_untrusted(here, parent) is not None:
        return False
    return parent == root or _same_mount(parent, root)


def _same_mount(a, b):
    first = mounts.mount_of(a, None, _NOFOLLOW)
    return first is not None and first == mounts.mount_of(b, None, _NOFOLLOW)
