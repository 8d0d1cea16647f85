"""Which mount a directory lies on, and where mount points are.

Exempt means the temp dir's own files, but a path says nothing about mounts: `mount
--bind ~/proj /tmp/x` puts a project at a path that looks exempt. So a target is exempt
only when its directory sits on the same mount as its exempt root (Linux: the kernel's
mount id, `mnt_id:` in /proc/self/fdinfo, which O_PATH descriptors have too; elsewhere
the device number, which tells a volume apart but not a bind mount), and a directory
that is a mount point, or holds one, is no temp directory to delete for real either.
core/policy/exemptroot.py applies this; the net (safedel/net) shares these readers.
"""

import os
import sys

LINUX = sys.platform.startswith("linux")
_O_PATH = getattr(os, "O_PATH", 0)
_DIR_FLAGS = (_O_PATH or os.O_RDONLY) | getattr(os, "O_DIRECTORY", 0) | os.O_CLOEXEC


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
