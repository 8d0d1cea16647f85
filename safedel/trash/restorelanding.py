"""Where a restore may put an item back, judged where the kernel resolves the path.

A Path= is text anyone who can write an info file chooses. Through a symlink on the
way (one of ours, which restorewalk.py follows) a harmless-looking Path= can lead into
a trash dir (the item would land in files/ as a payload no info file names, or on top
of another entry) or into /proc, whose magic links lead on to wherever some process
has its working directory. So every folder the walk to the destination opens, one at
a time from `/` and through each symlink it follows, is checked on its descriptor
before anything is made in it or moved into it:
- not on a proc or sysfs file system (its device, from this process's mount table);
- not a trash dir, by (device, inode): the home trash, SAFEDEL_TRASH_DIR, each
  mount's `.Trash`, `.Trash/$uid` and `.Trash-$uid` (and their files/ and info/), and
  the item's own. Any way into a trash dir opens one of these on the way.
"""

import errno
import os
import stat
import time

from ..core import mounts
from ..core.printable import printable
from ..core.trash import dirs

_PSEUDO_TYPES = {b"proc", b"sysfs"}


class Refused(OSError):
    """The destination is no place to restore to; strerror says why."""


class Landing:
    """The checks for one restore's walk: check(fd, walked) on each folder opened."""

    def __init__(self, own_root=None):
        self.pseudo = pseudo_devices()
        self.trashes = trash_identities(own_root)

    @classmethod
    def for_root(cls, own_root):
        """A Landing for items of own_root, shared by the restores of the next moments
        (`undo` of a turn may put back thousands: the mount table is read once)."""
        now = time.monotonic()
        key = (own_root, dirs.home_trash(), os.environ.get("SAFEDEL_TRASH_DIR"))
        found = _recent.get(key)
        if found is None or now - found[0] > _FRESH_SECONDS:
            if len(_recent) > 64:
                _recent.clear()
            found = _recent[key] = (now, cls(own_root))
        return found[1]

    def check(self, fd, walked):
        st = os.fstat(fd)
        kind = self.pseudo.get(st.st_dev)
        if kind is not None:
            why = f"{printable(walked)} leads through a {kind} file system: never restored there"
            raise Refused(errno.EPERM, why)
        if (st.st_dev, st.st_ino) in self.trashes:
            why = f"{printable(walked)} leads into a trash dir: never restored there"
            raise Refused(errno.EPERM, why)


_FRESH_SECONDS = 2.0
_recent = {}


def pseudo_devices():
    """{device: file system type} of the proc and sysfs mounts this process sees."""
    found = {}
    try:
        with open("/proc/self/mountinfo", "rb") as table:
            lines = table.read().splitlines()
    except OSError:
        return found
    for line in lines:
        head, _, tail = line.partition(b" - ")
        fields, kind = head.split(b" "), tail.split(b" ", 1)[0]
        if kind in _PSEUDO_TYPES and len(fields) > 4:
            major, _, minor = fields[2].partition(b":")
            try:
                found[os.makedev(int(major), int(minor))] = kind.decode("ascii")
            except ValueError:
                continue
    return found


def trash_identities(own_root):
    """(device, inode) of every trash dir there is, own_root's too, and of their
    files/ and info/."""
    uid = str(os.getuid()).encode("ascii")
    roots = [dirs.home_trash()] + ([own_root] if own_root else [])
    if os.environ.get("SAFEDEL_TRASH_DIR"):
        roots.append(os.fsencode(os.environ["SAFEDEL_TRASH_DIR"]))
    candidates = []
    for point in mounts.mount_points():
        shared = os.path.join(point, b".Trash")
        candidates.append(shared)
        roots += [os.path.join(shared, uid), os.path.join(point, b".Trash-" + uid)]
    for root in roots:
        candidates += [root, os.path.join(root, b"files"), os.path.join(root, b"info")]
    found = set()
    for path in candidates:
        try:
            st = os.lstat(path)
        except OSError:
            continue
        if stat.S_ISDIR(st.st_mode):
            found.add((st.st_dev, st.st_ino))
    return found
