"""Whether git deleting one of its objects loses content, read from the pack indexes.

git deletes a loose object (`objects/ab/cdef…`) for two reasons: `prune-packed` after
a repack, when a pack holds it now (nothing lost), and `prune`, when nothing refers to
it (the only copy goes). The second is how a file git deleted as HEAD's blob is lost
for good: `git add -A; commit; reset --hard HEAD~1; reflog expire; gc --prune=now`.
So a loose object is left to git only when one of the repository's packs holds it;
otherwise it is trashed. Packs are read directly (index v2: a 256-entry fanout table,
then the sorted object names), each mapped once per name and mtime.

A pack git deletes (`repack -d` replacing old packs) is left to git when each of its
objects is in another pack or loose; a pack whose objects would go with it (`repack
-a -d` dropping unreachable ones) is trashed. Its index, deleted after it, goes
(`git index-pack` makes it anew from the pack), as do reverse indexes and bitmaps.

A pack counts as holding what its index lists only when the command cannot have
written the two to say so: both born before the run started, or the pack shown by
`git verify-pack` (each object hashed, once per pack) to hold exactly what its index
lists. Otherwise a forged index would have git's prune-packed drop the only copy of an
object, and the net let it. A loose object counts only when its file inflates to the
object its name says (verified_loose).
"""

import mmap
import os
import re

from . import birth, gitverify

_LOOSE = re.compile(r"[0-9a-f]{2}/(?:[0-9a-f]{38}|[0-9a-f]{62})\Z")
_PACK = re.compile(r"pack/(pack-[0-9a-f]+)\.(pack|idx)\Z")
_MAGIC = b"\377tOc\0\0\0\2"


class Objects:
    def __init__(self, started=0, git=None):
        """started: when the run started (birth.mark()); git: () -> the path of
        the git to verify packs with, or None."""
        self._started = started
        self._git = git or (lambda: None)
        self._indexes = {}  # idx path -> (its stamp, mapped index or None)
        self._listings = {}  # pack dir -> (mtime_ns, its index names)
        self._trusted = {}  # (idx stamp, pack stamp) -> whether the pair holds its list

    def loses_content(self, objects_dir, relative):
        """True when git deleting objects_dir/relative drops content no pack (or, for
        a pack, no loose object) still holds."""
        if _LOOSE.match(relative):
            name = bytes.fromhex(relative.replace("/", ""))
            if any(_contains(i, name) for i in self._packs(objects_dir, None)):
                return False
            # A directory's mtime can stay the same across two quick changes: list
            # it afresh before trashing.
            self._listings.pop(os.path.join(objects_dir, "pack"), None)
            return not any(_contains(i, name) for i in self._packs(objects_dir, None))
        found = _PACK.match(relative)
        if found is None:
            return False  # temporary files, info/, empty fan-out directories
        base = os.path.join(objects_dir, "pack", found.group(1))
        if found.group(2) == "idx" and not os.path.lexists(base + ".pack"):
            return False  # its pack is gone already: an index alone holds no content
        mine = self._trusted_index(base + ".idx")
        self._listings.pop(os.path.dirname(base), None)
        if mine is None:
            return True
        others = [i for i in self._packs(objects_dir, base + ".idx") if i[1] == mine[1]]
        return not _all_held(mine, others, objects_dir)

    def verified_loose(self, relative, parent_fd, name, entry):
        """Whether the loose object relative (`ab/cdef…`), open as name in parent_fd,
        is what its name says: a zlib stream, nothing after it, of the object whose
        hash is its name. entry: the birth.Entry it was judged as; the file read must
        be that one. A file moved in under an object's name is not."""
        if not _LOOSE.match(relative):
            return False
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=parent_fd)
        except OSError:
            return False
        with open(fd, "rb") as handle:
            if birth.of_fd(handle.fileno()).identity != entry.identity:
                return False
            return gitverify.inflates_to(handle, relative.replace("/", ""))

    def holding(self, objects_dir, name):
        """The paths of the packs in objects_dir that hold object name (bytes)."""
        found = self._packs(objects_dir, None, paths=True)
        return [path[:-4] + ".pack" for path, index in found if _contains(index, name)]

    def _packs(self, objects_dir, leaving_out, paths=False):
        """The trusted indexes of objects_dir's packs (with their paths, if asked)."""
        pack_dir = os.path.join(objects_dir, "pack")
        found = []
        for name in self._listing(pack_dir):
            path = os.path.join(pack_dir, name)
            if path == leaving_out:
                continue
            index = self._trusted_index(path)
            if index is not None:
                found.append((path, index) if paths else index)
        return found

    def _trusted_index(self, idx):
        """idx's mapping when it and its pack are regular files that hold what idx
        lists (see the module's docstring), else None."""
        pack = idx[:-4] + ".pack"
        stamps = (gitverify.stamp(idx), gitverify.stamp(pack))
        if None in stamps:
            return None
        index = self._index(idx, stamps[0])
        if index is None:
            return None
        trusted = self._trusted.get(stamps)
        if trusted is None:
            if len(self._trusted) > 256:
                self._trusted.clear()
            trusted = gitverify.made_before(self._started, idx, stamps[0][0]) and (
                gitverify.made_before(self._started, pack, stamps[1][0])
            )
            trusted = trusted or gitverify.pack_holds(self._git(), idx)
            # Only for the very files stamped: one moved in meanwhile has a new ctime.
            if (gitverify.stamp(idx), gitverify.stamp(pack)) != stamps:
                return None
            self._trusted[stamps] = trusted
        return index if trusted else None

    def _listing(self, pack_dir):
        """The index names in pack_dir, listed again only when the directory changed;
        then the mappings of indexes gone from it are let go (a mapping keeps a
        deleted file's space)."""
        try:
            stamp = os.stat(pack_dir).st_mtime_ns
        except OSError:
            return []
        known = self._listings.get(pack_dir)
        if known is not None and known[0] == stamp:
            return known[1]
        try:
            names = [n for n in os.listdir(pack_dir) if n.endswith(".idx")]
        except OSError:
            return []
        for path in [p for p in self._indexes if os.path.dirname(p) == pack_dir]:
            if os.path.basename(path) not in names:
                del self._indexes[path]
        if len(self._listings) > 256:
            self._listings.clear()
        self._listings[pack_dir] = (stamp, names)
        return names

    def _index(self, path, stamp=None):
        stamp = stamp or gitverify.stamp(path)
        if stamp is None:
            return None
        known = self._indexes.get(path)
        if known is not None and known[0] == stamp:
            return known[1]
        if len(self._indexes) > 256:
            self._indexes.clear()
        index = _map(path, stamp)
        self._indexes[path] = (stamp, index)
        return index


def _map(path, stamp):
    """The index's (mapping, object name length), or None when it is not a v2 index
    or not the file stamped. Its file name carries its pack's checksum, as long as one
    object name."""
    width = (len(os.path.basename(path)) - len("pack-.idx")) // 2
    try:
        with open(path, "rb") as handle:
            if gitverify.stamp(handle.fileno()) != stamp:
                return None
            mapped = mmap.mmap(handle.fileno(), 0, access=mmap.ACCESS_READ)
    except (OSError, ValueError):
        return None
    if width not in (20, 32) or len(mapped) < 8 + 1024 or mapped[:8] != _MAGIC:
        return None
    count = int.from_bytes(mapped[8 + 1020 : 8 + 1024], "big")
    if len(mapped) < 8 + 1024 + count * (width + 8) + 2 * width:
        return None  # cut short
    return mapped, width


def _bucket(index, first):
    """The sorted names starting with byte first, as one bytes string."""
    mapped, size = index
    low = int.from_bytes(mapped[8 + 4 * (first - 1) : 8 + 4 * first], "big") if first else 0
    high = int.from_bytes(mapped[8 + 4 * first : 8 + 4 * first + 4], "big")
    return mapped[8 + 1024 + low * size : 8 + 1024 + high * size]


def _all_held(mine, others, objects_dir):
    """Each object of index mine is in one of others or loose. Compared a fanout
    bucket at a time: a repack that keeps the objects keeps most buckets byte for byte,
    so a pack of millions of objects is compared in C, not object by object."""
    size = mine[1]
    for first in range(256):
        names = _bucket(mine, first)
        if not names or any(_bucket(other, first) == names for other in others):
            continue
        held = set()
        for other in others:
            bucket = _bucket(other, first)
            held.update(bucket[i : i + size] for i in range(0, len(bucket), size))
        for i in range(0, len(names), size):
            name = names[i : i + size]
            if name not in held and not gitverify.loose(objects_dir, name):
                return False
    return True


def _contains(index, name):
    mapped, size = index
    if len(name) != size:
        return False
    first = name[0]
    low = int.from_bytes(mapped[8 + 4 * (first - 1) : 8 + 4 * first], "big") if first else 0
    high = int.from_bytes(mapped[8 + 4 * first : 8 + 4 * first + 4], "big")
    table = 8 + 1024
    while low < high:
        middle = (low + high) // 2
        here = mapped[table + middle * size : table + (middle + 1) * size]
        if here < name:
            low = middle + 1
        elif here > name:
            high = middle
        else:
            return True
    return False
