"""A cache of each trash dir's parsed entries, so a 100,000-item trash lists quickly.

It lives in the trash dir as `safedel-catalog.v1` (0600, safedel's own; other tools
read only info/, files/ and directorysizes). It is a hint, never the truth:
- every info file is stat'ed on each use (one listing, one stat each), and only those
  whose inode or ctime differ from the cached stamp are read and parsed again; a stamp
  from within a clock tick of the cache being written is not trusted either;
- an item's kind is reused only while files/ is unchanged since well before the cache
  was written (a change within the same clock tick cannot hide); else it is read from
  a listing of files/;
- anything unreadable means a rebuild from the info files;
- a restore re-reads the chosen item's info file before acting on it.

The file is a header and sections (names, stamps, orders, original paths, the other
fields, and each entry's `list --json` row, all sorted by deletion order), each one
marshal blob decoded only when asked for: `list --json` decodes the rows and little
else, and `restore --last` looks at the newest end.
"""

import marshal
import os
import stat
import struct
import time
import zlib
from functools import partial
from operator import attrgetter

from ..core.trash import info

NAME = b"safedel-catalog.v1"
_OLD_STAMPS = b"safedel-catalog-stamps.v1"  # an earlier layout kept stamps apart
# 4: an entry's invalid field also names a damaged name and a Path= into a trash or /proc
MAGIC = b"safedel catalog 4\n"
SECTIONS = ("names", "stamps", "orders", "originals", "rest", "rows")
_LENGTH = struct.Struct("<Q")
# A directory or info file changed less than a timestamp tick before the cache was
# written may change again within that tick unseen; it is checked again, not trusted.
# A file system with whole-second (or FAT's two-second) times gives whole seconds;
# one with finer times ticks at least every jiffy (10 ms at HZ=100).
COARSE_TICK_NS = 2_000_000_000
FINE_TICK_NS = 50_000_000


def settled(stamp_ns, taken_ns):
    """True if a change at stamp_ns (an mtime or ctime) was at least a tick before
    taken_ns, so that any later change shows as a different time."""
    tick = FINE_TICK_NS if stamp_ns % 1_000_000_000 else COARSE_TICK_NS
    return stamp_ns < taken_ns - tick


def dir_key(path):
    """(device, inode, mtime ns) of a directory; None when it is missing."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_mtime_ns)


class Listing:
    """info/ as it is now: the info files' names and stamps, in directory order."""

    def __init__(self, root):
        self.root = root
        # Taken first: a stamp is trusted later only if it is well older than this.
        self.taken = time.time_ns()
        self.info_dir = os.path.join(root, b"info")
        self.files_key = dir_key(os.path.join(root, b"files"))
        suffix = info.INFO_SUFFIX
        self.files = [name for name in os.listdir(self.info_dir) if name.endswith(suffix)]
        self.stamps = _stamps(self.info_dir, self.files)
        self.signature = None  # a file that went away mid-listing: never a match
        if None not in self.stamps:
            self.signature = (
                len(self.files),
                zlib.crc32(b"/".join(self.files)),
                hash(tuple(self.stamps)),  # ints only: the same in every process
            )

    @property
    def names(self):
        """The entry names: the info files' names without `.trashinfo`."""
        cut = -len(info.INFO_SUFFIX)
        return [name[:cut] for name in self.files]


def _stamps(info_dir, files):
    """(inode, ctime ns) per info file; None for one that went away since the listing."""
    import gc

    fd = os.open(info_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    gc.disable()  # 100,000 short-lived objects and no cycles
    try:
        try:
            # map() all the way: no Python bytecode runs per file.
            stat_at = partial(os.stat, dir_fd=fd, follow_symlinks=False)
            return list(map(attrgetter("st_ino", "st_ctime_ns"), map(stat_at, files)))
        except OSError:  # one file went away mid-listing: the slow, careful way
            found = []
            for name in files:
                try:
                    s = os.stat(name, dir_fd=fd, follow_symlinks=False)
                    found.append((s.st_ino, s.st_ctime_ns))
                except OSError:
                    found.append(None)
            return found
    finally:
        gc.enable()
        os.close(fd)


class Damaged(Exception):
    """A section of the cache in root does not decode to what the header says."""

    def __init__(self, root):
        super().__init__(root)
        self.root = root


class Cache:
    """One trash dir's cache file; each section is decoded on first use."""

    def __init__(self, root, data, header, offsets):
        self.root, self.data, self.header = root, data, header
        self._offsets, self._decoded = offsets, {}

    def __getitem__(self, section):
        if section not in self._decoded:
            start, end = self._offsets[section]
            blob = memoryview(self.data)[start:end]
            if zlib.crc32(blob) != self.header["crcs"][SECTIONS.index(section)]:
                raise Damaged(self.root)  # a torn or changed file: its bytes say so
            try:
                found = marshal.loads(blob)
            except (EOFError, ValueError, TypeError):
                raise Damaged(self.root) from None
            if not isinstance(found, list) or len(found) != self.header["count"]:
                raise Damaged(self.root)
            self._decoded[section] = found
        return self._decoded[section]

    def where(self, section):
        """(start, end) of a section's bytes in the file."""
        return self._offsets[section]

    def valid_for(self, listing):
        """True when every info file and files/ are as the cache saw them, long enough
        before it was written that no change can hide in the same clock tick."""
        header = self.header
        return (
            header["signature"] == listing.signature
            and settled(header["newest_ctime"], header["written"])
            and self.same_files(listing)
        )

    def same_files(self, listing):
        """files/ unchanged since, and settled before, the cache was written."""
        key = listing.files_key
        return (
            key is not None
            and self.header["files_key"] == key
            and settled(key[2], self.header["files_written"])
        )

    def trusted(self, stamp):
        """True if a cached info file stamp can stand for the file while it matches."""
        return settled(stamp[1], self.header["written"])


def load(root):
    """The Cache in root, or None if there is none or it is not one we can read."""
    try:
        fd = os.open(os.path.join(root, NAME), os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        with os.fdopen(fd, "rb") as handle:
            data = handle.read()
        if not data.startswith(MAGIC):
            return None
        position = len(MAGIC)
        blobs = []
        for _ in range(1 + len(SECTIONS)):
            (length,) = _LENGTH.unpack_from(data, position)
            position += _LENGTH.size
            blobs.append((position, position + length))
            position += length
        if position != len(data):
            return None
        header = marshal.loads(memoryview(data)[blobs[0][0] : blobs[0][1]])
        if not isinstance(header, dict) or header.get("sections") != SECTIONS:
            return None
        if not _HEADER.issubset(header) or not isinstance(header["failed"], list):
            return None
        if not isinstance(header["crcs"], list) or len(header["crcs"]) != len(SECTIONS):
            return None
        return Cache(root, data, header, dict(paired(SECTIONS, blobs[1:])))
    except (OSError, EOFError, ValueError, TypeError, struct.error):
        return None


def paired(*columns):
    """zip that refuses columns of different lengths (zip's strict= needs 3.10)."""
    if len({len(column) for column in columns}) > 1:
        raise ValueError("columns of different lengths")
    return zip(*columns)


_HEADER = {
    "signature",
    "newest_ctime",
    "files_key",
    "written",
    "files_written",
    "failed",
    "count",
    "crcs",
}


def save(root, header, sections):
    """Write the cache whole to a temporary name, then rename it over the old one: a
    reader sees the old cache or the new, never half of one. sections maps each name
    to its list, or is a Cache whose sections stand as they are (a new header only)."""
    if isinstance(sections, Cache):
        view = memoryview(sections.data)
        blobs = [view[slice(*sections.where(name))] for name in SECTIONS]
        count, crcs = sections.header["count"], sections.header["crcs"]
    else:
        blobs = [marshal.dumps(sections[name]) for name in SECTIONS]
        count, crcs = len(sections["names"]), [zlib.crc32(blob) for blob in blobs]
    header = dict(header, sections=SECTIONS, count=count, crcs=crcs)
    blobs.insert(0, marshal.dumps(header))
    data = [MAGIC]
    for blob in blobs:
        data += [_LENGTH.pack(len(blob)), blob]
    path = os.path.join(root, NAME)
    temporary = path + b".%d.tmp" % os.getpid()
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as handle:
            handle.writelines(data)
        os.rename(temporary, path)
    except OSError:
        try:
            os.unlink(temporary)
        except OSError:
            pass  # a cache that cannot be written only makes the next list slower
    try:
        os.unlink(os.path.join(root, _OLD_STAMPS))
    except OSError:
        pass


def kind_of(file_path):
    """file, dir, symlink, or missing: what the trash holds under that name."""
    try:
        mode = os.lstat(file_path).st_mode
    except OSError:
        return "missing"
    if stat.S_ISLNK(mode):
        return "symlink"
    return "dir" if stat.S_ISDIR(mode) else "file"


def kinds(files_dir):
    """{name: kind} for everything in files/, from one listing (the directory entry's
    type, stat'ed only where the file system does not say)."""
    found = {}
    try:
        with os.scandir(files_dir) as listing:
            for entry in listing:
                try:
                    if entry.is_symlink():
                        found[entry.name] = "symlink"
                    else:
                        found[entry.name] = "dir" if entry.is_dir(follow_symlinks=False) else "file"
                except OSError:
                    continue
    except OSError:
        pass
    return found
