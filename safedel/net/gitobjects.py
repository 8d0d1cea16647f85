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
"""

import mmap
import os
import re

_LOOSE = re.compile(r"[0-9a-f]{2}/(?:[0-9a-f]{38}|[0-9a-f]{62})\Z")
_PACK = re.compile(r"pack/(pack-[0-9a-f]+)\.(pack|idx)\Z")
_MAGIC = b"\377tOc\0\0\0\2"


class Objects:
    def __init__(self):
        self._indexes = {}  # idx path -> (mtime_ns, size, mapped index or None)
        self._listings = {}  # pack dir -> (mtime_ns, its index names)

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
        mine = self._index(base + ".idx")
        self._listings.pop(os.path.dirname(base), None)
        if mine is None:
            return True
        others = [i for i in self._packs(objects_dir, base + ".idx") if i[1] == mine[1]]
        return not _all_held(mine, others, objects_dir)

    def _packs(self, objects_dir, leaving_out):
        pack_dir = os.path.join(objects_dir, "pack")
        names = self._listing(pack_dir)
        found = []
        for name in names:
            path = os.path.join(pack_dir, name)
            if path == leaving_out or not os.path.exists(path[:-4] + ".pack"):
                continue
            index = self._index(path)
            if index is not None:
                found.append(index)
        return found

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

    def _index(self, path):
        try:
            st = os.stat(path)
        except OSError:
            return None
        known = self._indexes.get(path)
        if known is not None and known[:2] == (st.st_mtime_ns, st.st_size):
            return known[2]
        if len(self._indexes) > 256:
            self._indexes.clear()
        index = _map(path)
        self._indexes[path] = (st.st_mtime_ns, st.st_size, index)
        return index


def _map(path):
    """The index's (mapping, object name length), or None when it is not a v2 index.
    Its file name carries its pack's checksum, as long as one object name."""
    width = (len(os.path.basename(path)) - len("pack-.idx")) // 2
    try:
        with open(path, "rb") as handle:
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
            if name not in held and not _loose(objects_dir, name):
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


def _loose(objects_dir, name):
    hexname = name.hex()
    return os.path.exists(os.path.join(objects_dir, hexname[:2], hexname[2:]))
