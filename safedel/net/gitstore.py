"""Whether git's copy of a file's content lives where the command cannot drop it.

The net lets git delete a file whose content is the blob HEAD has at that path
(gitblobs): `git checkout HEAD -- path` brings it back. That holds only while the blob
stays, and a store can go for real within the turn: `git init
--separate-git-dir=$TMPDIR/g` puts it in the temp dir, where `rm -rf $TMPDIR/g` is
the kernel's. So the blob must be found, as the object it says it is, in a store that:
- lies where the net judges deletions: not in an exempt root nor an ignored build
  tree, by its real path (a symlinked `objects` leads there too), and on the mount of
  the directory above its git dir (a bind mount of the temp dir is the temp dir);
- was born before the run started (its birth time, which a rename keeps): a store the
  command made during the turn is its own.
There it is a loose object (a regular file that inflates to it) or in a pack whose
index lists it (both regular files the command did not write, or verified: see
gitverify). Its alternates (`objects/info/alternates`) are searched the same way. If
none holds it, the file is trashed like any other.
"""

import os
import stat

from ..core.mounts import mount_of
from . import birth, gitverify

_DEPTH = 5  # git follows alternates of alternates this deep


class Stores:
    def __init__(self, objects, drops_for_real, started):
        """objects: a gitobjects.Objects; drops_for_real(real directory): whether the
        net leaves deletions there to the kernel; started: birth.mark() at start."""
        self._objects = objects
        self._drops_for_real = drops_for_real
        self._started = started

    def keep(self, common_dir, hexname):
        """Whether a store of the repository whose common git dir is common_dir keeps
        object hexname where the command cannot drop it."""
        name = bytes.fromhex(hexname)
        return self._held(os.path.join(common_dir, "objects"), name, 0)

    def _held(self, objects, name, depth):
        real = os.path.realpath(objects)
        if self._trusted(real) and (self._loose(real, name) or self._packed(real, name)):
            return True
        if depth >= _DEPTH:
            return False
        return any(self._held(other, name, depth + 1) for other in _alternates(real))

    def _trusted(self, real):
        try:
            entry = birth.of(birth.AT_FDCWD, real)
        except OSError:
            return False
        if not stat.S_ISDIR(entry.mode) or not birth.born_before(entry, self._started):
            return False
        if self._drops_for_real(real):
            return False
        above = os.path.dirname(os.path.dirname(real))
        mount = mount_of(real)
        return mount is not None and mount == mount_of(os.path.dirname(real)) == mount_of(above)

    def _loose(self, real, name):
        hexname = name.hex()
        fanout = os.path.join(real, hexname[:2])
        return _plain_dir_of(fanout, real) and gitverify.loose(real, name)

    def _packed(self, real, name):
        pack_dir = os.path.join(real, "pack")
        return _plain_dir_of(pack_dir, real) and bool(self._objects.holding(real, name))


def _plain_dir_of(directory, store):
    """Whether directory is a real directory (no symlink) on store's own mount."""
    try:
        st = os.lstat(directory)
    except OSError:
        return False
    if not stat.S_ISDIR(st.st_mode):
        return False
    here = mount_of(directory, (st.st_dev, st.st_ino))
    return here is not None and here == mount_of(store)


def _alternates(real):
    """The object directories real's `info/alternates` names (relative to real)."""
    try:
        with open(os.path.join(real, "info", "alternates"), "rb") as handle:
            lines = handle.read(1 << 16).splitlines()
    except OSError:
        return []
    found = []
    for line in lines:
        line = line.strip()
        if line and not line.startswith(b"#") and not line.startswith(b'"'):
            found.append(os.path.join(real, os.fsdecode(line)))
    return found
