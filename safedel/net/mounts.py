"""Whether a directory lies on the very mount of a root above it, with no mount between.

The net leaves a call to the kernel for being in an ignored build tree by where its
parent directory lies under the work tree's top. A path says nothing about mounts: a
project bind-mounted over an ignored `build/` puts someone's files at a path that looks
ignored. So the parent must sit on the same mount as the top (the kernel's mount id,
`mnt_id:` in /proc/self/fdinfo, which O_PATH descriptors have too). A mount between
them, whatever it holds (a docker volume on node_modules, a tmpfs, a bind mount of a
project), makes the call judged like any other: safedel cannot tell a cache volume
from someone's project. (Exempt roots are judged the same way, and by their identity
too, from the caller's own parent descriptor: core/policy/exemptroot.py.)

Both are looked at in safedel's own mount namespace, by path, and the parent only when
it is the directory the caller acts in (its device and inode): a caller in another
namespace may spell a different directory with the same path.
"""

from ..core.mounts import mount_id, mount_of

__all__ = ["Boundaries", "mount_id"]
_LIMIT = 4096


def _mount_of(path, st=None):
    """The mount id of the directory at path, or None when it is not there, or is not
    the directory st describes."""
    return mount_of(path, None if st is None else (st.st_dev, st.st_ino))


class Boundaries:
    """Verdicts remembered by the parent's path and identity: a mount made mid-run at
    (or above) the parent changes what the path leads to, so it asks afresh. A path
    that still leads to the same directory leads to the same data, even through a new
    mount of it.

    A root's mount is the one it had when first seen: a project mounted over a work
    tree whose build/ git ignores, in the middle of a run, is a mount between the root
    as it was and the directory."""

    def __init__(self, roots_of):
        self._roots_of = roots_of  # parent -> the real roots above it, nearest first
        self._known = {}
        self._root_mounts = {}

    def _root_mount(self, root):
        found = self._root_mounts.get(root)
        if found is None:
            found = _mount_of(root)
            if found is not None:
                self._root_mounts[root] = found
        return found

    def same_mount(self, parent, st):
        """Whether parent (a real path; st: the stat of the directory the caller acts
        in) lies on the mount of one of its roots."""
        key = (parent, st.st_dev, st.st_ino)
        known = self._known.get(key)
        if known is None:
            if len(self._known) > _LIMIT:
                self._known.clear()
            known = self._known[key] = self._ask(parent, st)
        return known

    def _ask(self, parent, st):
        here = _mount_of(parent, st)
        if here is None:
            return False  # not the caller's directory here: judge the call
        return any(self._root_mount(root) == here for root in self._roots_of(parent))
