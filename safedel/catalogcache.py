"""A cache of each trash dir's parsed entries, so a 100,000-item trash lists quickly.

It lives in the trash dir as `safedel-catalog.v1` (0600, safedel's own; other tools
read only info/, files/ and directorysizes). It is a hint, never the truth:
- every info file is stat'ed on each listing (one scandir), and only those whose inode,
  size or mtime differ from the cached line are read and parsed again;
- an item's kind is reused only while files/ is unchanged since well before the cache
  was written (a change within the same clock tick cannot hide); else it is lstat'ed;
- anything unreadable means a rebuild from the info files;
- a restore re-reads the chosen item's info file before acting on it.
"""

import marshal
import os
import stat
import time
import zlib

from .core import dirsizes, trashinfo

NAME = b"safedel-catalog.v1"
STAMPS = b"safedel-catalog-stamps.v1"
VERSION = 2
# A directory changed less than this before the cache was written may change again
# within the same timestamp tick; such a cache is checked entry by entry.
SETTLE_NS = 2_000_000_000


def _dir_key(path):
    """(device, inode, mtime ns) of a directory; None when it is missing."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino, st.st_mtime_ns)


def _load(root, name=NAME):
    import gc

    gc.disable()  # 700,000 new objects and no cycles: collecting as they come costs seconds
    try:
        with open(os.path.join(root, name), "rb") as handle:
            data = marshal.load(handle)
        if isinstance(data, dict) and data.get("version") == VERSION:
            return data
    except (OSError, EOFError, ValueError, TypeError):
        pass
    finally:
        gc.enable()
    return None


def _save(root, data, name=NAME):
    path = os.path.join(root, name)
    temporary = path + b".%d.tmp" % os.getpid()
    try:
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
        with os.fdopen(fd, "wb") as handle:
            marshal.dump(data, handle)
        os.rename(temporary, path)
    except OSError:
        try:
            os.unlink(temporary)
        except OSError:
            pass  # a cache that cannot be written only makes the next list slower


def _stamps(info_dir):
    """{entry name: (inode, size, mtime ns)} of every info file: one scandir."""
    found = {}
    with os.scandir(info_dir) as listing:
        for entry in listing:
            if entry.name.endswith(trashinfo.INFO_SUFFIX):
                try:
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                found[entry.name[: -len(trashinfo.INFO_SUFFIX)]] = (
                    st.st_ino,
                    st.st_size,
                    st.st_mtime_ns,
                )
    return found


def _digest(stamps):
    """An order-free fingerprint of every info file's stamp, the same in every process
    (hash() is salted per process)."""
    crc = zlib.crc32
    return sum(crc(b"%s %d %d %d" % (name, *stamp)) for name, stamp in stamps.items()) % (1 << 61)


def entries(root, read_item, warn=None):
    """[(name, original, deleted, order, invalid, kind, size)] for root's info files.

    read_item(info_path, warn) parses one info file (catalog.read_item)."""
    info_dir, files_dir = os.path.join(root, b"info"), os.path.join(root, b"files")
    keys = (_dir_key(info_dir), _dir_key(files_dir))
    try:
        stamps = _stamps(info_dir)
    except OSError:
        return []
    cache = _load(root)
    now = time.time_ns()
    # Kinds come from files/: reusable only while files/ itself is unchanged, and was
    # already settled when the cache was written (a change in the same tick is unseen).
    same_files = (
        cache is not None
        and keys[1] is not None
        and cache["keys"][1] == keys[1]
        and cache["written"] - keys[1][2] > SETTLE_NS
    )
    digest = _digest(stamps)
    if same_files and cache["digest"] == digest and len(cache["entries"]) == len(stamps):
        return cache["entries"]  # every info file as it was: nothing to read again
    known = {} if cache is None else {e[0]: e for e in cache["entries"]}
    # The per-file stamps are read only now, when something changed.
    detail = _load(root, STAMPS) if cache is not None else None
    old_stamps = detail["stamps"] if detail and detail.get("digest") == cache["digest"] else {}
    found, sizes_wanted = [], []
    for name, stamp in stamps.items():
        cached = known.get(name)
        if cached is not None and old_stamps.get(name) == stamp:
            row = list(cached)
            if not same_files:
                row[5] = kind_of(os.path.join(files_dir, name))
            found.append(row)
            continue
        item = read_item(os.path.join(info_dir, name + trashinfo.INFO_SUFFIX), warn)
        if item is None:
            continue
        found.append([name, item.original, item.deleted, item.order, item.invalid, item.kind, None])
        if item.kind == "dir":
            sizes_wanted.append(name)
        elif item.kind != "missing":
            try:
                found[-1][6] = os.lstat(item.file_path).st_size
            except OSError:
                pass
    if sizes_wanted:
        measured = dirsizes.sizes(root, sizes_wanted)
        for row in found:
            if row[0] in measured:
                row[6] = measured[row[0]]
    found = [tuple(row) for row in found]
    _save(root, {"version": VERSION, "digest": digest, "stamps": stamps}, STAMPS)
    record = {"version": VERSION, "keys": keys, "written": now, "digest": digest}
    _save(root, dict(record, entries=found))
    return found


def kind_of(file_path):
    """file, dir, symlink, or missing: what the trash holds under that name."""
    try:
        mode = os.lstat(file_path).st_mode
    except OSError:
        return "missing"
    if stat.S_ISLNK(mode):
        return "symlink"
    return "dir" if stat.S_ISDIR(mode) else "file"
