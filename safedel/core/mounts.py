"""Whether a directory lies on the very mount of the exempt root above it.

Exempt means the temp dir's own files, but a path says nothing about mounts:
`mount --bind ~/proj /tmp/x` puts a project at a path that looks exempt. So a target
is exempt only when its parent directory sits on the same mount as its exempt root
(Linux: the kernel's mount id, `mnt_id:` in /proc/self/fdinfo, which O_PATH
descriptors have too; elsewhere the device number, which tells a volume apart but not
a bind mount). A directory that is a mount point, or holds one, is no temp directory
to delete for real either. The shims and the net (safedel/net) share these readers.

Verdicts are remembered by the parent's path and identity (device and inode), so a
build deleting thousands of temp files pays one dictionary lookup per file; a mount
made later over that path changes its identity and is asked about afresh. A root's
mount is the one it had when first needed.
"""

import os
import sys

LINUX = sys.platform.startswith("linux")
_O_PATH = getattr(os, "O_PATH", 0)
_DIR_FLAGS = (_O_PATH or os.O_RDONLY) | getattr(os, "O_DIRECTORY", 0) | os.O_CLOEXEC
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_LIMIT = 4096
_roots = {}  # exempt root (str) -> (st_dev, st_ino, mount id or None)
_verdicts = {}  # (parent bytes, (dev, ino)) -> (the exempt roots asked about, verdict)


def mount_id(fd):
    """The kernel's id of the mount the descriptor fd lies on (Linux)."""
    info = os.open(b"/proc/self/fdinfo/%d" % fd, os.O_RDONLY | os.O_CLOEXEC)
    try:
        data = os.read(info, 4096)
    finally:
        os.close(info)
    start = data.index(b"mnt_id:") + 7
    return int(data[start : data.index(b"\n", start)])


def mount_of(path, ident=None, flags=0):
    """The mount id of the directory at path, or None when it is not there, is not
    the directory ident (st_dev, st_ino) names, or cannot be told."""
    try:
        fd = os.open(path, _DIR_FLAGS | flags)
    except OSError:
        return None
    try:
        if ident is not None:
            mine = os.fstat(fd)
            if (mine.st_dev, mine.st_ino) != tuple(ident):
                return None
        return mount_id(fd)
    except (OSError, ValueError):
        return None
    finally:
        os.close(fd)


def _root(root):
    found = _roots.get(root)
    if found is None:
        try:
            st = os.stat(root)
        except OSError:
            return None
        found = (st.st_dev, st.st_ino, mount_of(root) if LINUX else None)
        if LINUX and found[2] is None:
            return None
        _roots[root] = found
    return found


def on_root_mount(parent, parent_id, exempt_roots):
    """Whether parent (real, bytes; parent_id its (st_dev, st_ino) as resolved) lies on
    the mount of the nearest of exempt_roots (real, str) that holds it."""
    key = (parent, parent_id)
    known = _verdicts.get(key)
    if known is None or known[0] is not exempt_roots:
        if len(_verdicts) > _LIMIT:
            _verdicts.clear()
        known = _verdicts[key] = (exempt_roots, _ask(parent, parent_id, exempt_roots))
    return known[1]


def nearest(parent, exempt_roots):
    """The deepest exempt root that is parent (real, bytes) or holds it, or None."""
    here = os.fsdecode(parent).rstrip("/") + "/"
    found = None
    for root in exempt_roots:
        top = root.rstrip("/") + "/"
        if here.startswith(top) and (found is None or len(top) > len(found) + 1):
            found = top[:-1] or "/"
    return found


def _ask(parent, parent_id, exempt_roots):
    root = nearest(parent, exempt_roots)
    mine = root is not None and _root(root)
    if mine is None or parent_id is None:
        return False  # nothing to compare: judged like any other path
    if parent_id == mine[:2]:
        return True  # the root itself: no mount lies between a root and itself
    if parent_id[0] != mine[0]:
        return False  # another file system is another mount
    if not LINUX:
        return True  # the device is all there is to go by
    return mount_of(parent, parent_id) == mine[2]


def dir_on_root_mount(path, st, root):
    """Whether the directory at path (real, bytes; st its lstat) is on its exempt
    root's mount: not a mount point of its own."""
    mine = _root(root)
    if mine is None or st.st_dev != mine[0]:
        return False
    if not LINUX or (st.st_dev, st.st_ino) == mine[:2]:
        return True
    return mount_of(path, (st.st_dev, st.st_ino), _NOFOLLOW) == mine[2]


def mount_beneath(path):
    """Whether some mount point lies at or below the directory path (real, str), as
    this process's mount table (/proc/self/mountinfo) says. False where there is none."""
    if not LINUX:
        return False
    try:
        with open("/proc/self/mountinfo", "rb") as table:
            lines = table.read().splitlines()
    except OSError:
        return False
    top = os.fsencode(path).rstrip(b"/") + b"/"
    for line in lines:
        fields = line.split(b" ", 5)
        if len(fields) < 5:
            continue
        point = _unescape(fields[4])
        if point == top[:-1] or point.startswith(top):
            return True
    return False


def _unescape(field):
    # The kernel writes space, tab, newline and backslash as \ooo.
    if b"\\" not in field:
        return field
    return field.decode("unicode_escape").encode("latin-1")


def mount_points():
    """Mount points from /proc/self/mounts (Linux); octal escapes decoded."""
    points = []
    try:
        with open("/proc/self/mounts", "rb") as handle:
            for line in handle:
                fields = line.split(b" ")
                if len(fields) > 1:
                    points.append(_unescape(fields[1]))
    except OSError:
        pass
    return points
