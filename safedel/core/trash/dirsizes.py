"""The freedesktop trash's `directorysizes` cache (trash spec 1.0).

One line per trashed directory: `size mtime name`, where size is the bytes of the
directory's files, mtime the seconds-since-epoch mtime of its info file, and name the
percent-encoded entry name in files/. A reader trusts a line only while that info
file's mtime still matches. The file is rewritten whole, to a temporary name that is
then renamed over it, so a reader never sees half of it.

safedel fills the cache when a size is first asked for (list, doctor, purge), not when
a directory is trashed: trashing stays one rename whatever the size, and the walk is
paid once, then read.
"""

import os
import stat

from . import info

FILE = b"directorysizes"


def read(root):
    """{entry name (bytes): (size, info mtime)} from root's cache; {} if none."""
    try:
        with open(os.path.join(root, FILE), "rb") as handle:
            data = handle.read()
    except OSError:
        return {}
    cache = {}
    for line in data.split(b"\n"):
        parts = line.split(b" ", 2)
        if len(parts) == 3 and parts[0].isdigit() and parts[1].isdigit():
            cache[info.decode_path(parts[2])] = (int(parts[0]), int(parts[1]))
    return cache


def write(root, cache):
    lines = [
        b"%d %d %s\n" % (size, mtime, info.encode_path(name))
        for name, (size, mtime) in sorted(cache.items())
    ]
    path = os.path.join(root, FILE)
    temporary = path + b".%d.tmp" % os.getpid()
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        os.write(fd, b"".join(lines))
    finally:
        os.close(fd)
    os.rename(temporary, path)


def walk_size(path):
    """Bytes of the files under path (apparent sizes, links not followed)."""
    total, stack = 0, [path]
    while stack:
        try:
            with os.scandir(stack.pop()) as listing:
                for entry in listing:
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except OSError:
                        continue
                    if stat.S_ISDIR(st.st_mode):
                        stack.append(entry.path)
                    else:
                        total += st.st_size
        except OSError:
            continue
    return total


def sizes(root, names):
    """{name: bytes} for entries of one trash root: files by lstat, directories from the
    cache while their info file is unchanged, else walked once and cached. Stale lines
    (entries no longer in the trash) are dropped when the cache is rewritten."""
    cache, changed, found = read(root), False, {}
    files_dir, info_dir = os.path.join(root, b"files"), os.path.join(root, b"info")
    for name in names:
        try:
            st = os.lstat(os.path.join(files_dir, name))
        except OSError:
            continue
        if not stat.S_ISDIR(st.st_mode):
            found[name] = st.st_size
            continue
        try:
            info_mtime = int(os.lstat(os.path.join(info_dir, name + info.INFO_SUFFIX)).st_mtime)
        except OSError:
            info_mtime = 0
        cached = cache.get(name)
        if cached is not None and cached[1] == info_mtime:
            found[name] = cached[0]
            continue
        found[name] = walk_size(os.path.join(files_dir, name))
        cache[name], changed = (found[name], info_mtime), True
    present = set(os.listdir(files_dir)) if os.path.isdir(files_dir) else set()
    if changed or any(name not in present for name in cache):
        try:
            write(root, {n: v for n, v in cache.items() if n in present})
        except OSError:
            pass  # a cache that cannot be written is only slower next time
    return found


def forget(root, name):
    """Drop name's line (after a purge or restore); best effort."""
    cache = read(root)
    if cache.pop(name, None) is not None:
        try:
            write(root, cache)
        except OSError:
            pass
