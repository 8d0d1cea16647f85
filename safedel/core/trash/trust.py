"""Which trash directories are ours to use and to read: trust nobody else's.

Anyone can make a directory on a shared mount. A trash dir another user made (or can
write to) would let them read what we trash, plant entries we would "restore", or
swap a folder for a symlink between two items. So:

- `$topdir/.Trash` is used only if it is a real directory owned by root, with the
  sticky bit;
- every trash root we use or list (home, `.Trash/$uid`, `.Trash-$uid`,
  `--trash-dir`) and its files/ and info/ must be a real directory owned by us and
  writable by nobody else;
- the checks are lstat()s, repeated before every item, so a root swapped for a symlink
  after the first item is caught before the next one goes in.
"""

import errno
import os
import stat

from ..printable import printable


class Untrusted(OSError):
    """This directory is not a trash we may use; str(reason) says why."""


def why_untrusted(st, path):
    """Why a directory with lstat st cannot be one of our trash dirs, or None."""
    if stat.S_ISLNK(st.st_mode):
        return f"{printable(path)} is a symlink"
    if not stat.S_ISDIR(st.st_mode):
        return f"{printable(path)} is not a directory"
    if st.st_uid != os.getuid():
        return f"{printable(path)} belongs to another user (uid {st.st_uid})"
    if st.st_mode & 0o022:
        return f"{printable(path)} is writable by other users"
    return None


def check(path, st=None):
    """Raise Untrusted unless path is a real directory of ours that only we can write."""
    if st is None:
        st = os.lstat(path)
    reason = why_untrusted(st, path)
    if reason:
        raise Untrusted(errno.EPERM, reason)
    return st


def shared_trash_usable(topdir):
    """$topdir/.Trash may hold per-user trashes only if root made it, sticky and real:
    otherwise whoever owns it could read (and replace) what goes in there."""
    try:
        st = os.lstat(os.path.join(topdir, b".Trash"))
    except OSError:
        return False
    return stat.S_ISDIR(st.st_mode) and bool(st.st_mode & stat.S_ISVTX) and st.st_uid == 0


def why_not_listed(root):
    """Why an existing trash root is not ours to read, or None when it is."""
    try:
        st = os.lstat(root)
    except OSError:
        return None
    reason = why_untrusted(st, root)
    if reason is None:
        parent = os.path.dirname(root)
        if os.path.basename(parent) == b".Trash" and not shared_trash_usable(
            os.path.dirname(parent)
        ):
            reason = f"{printable(parent)} is not a root-owned sticky directory"
    if reason is None:
        for sub in (b"files", b"info"):
            try:
                reason = why_untrusted(os.lstat(os.path.join(root, sub)), os.path.join(root, sub))
            except FileNotFoundError:
                continue
            except OSError as exc:
                reason = f"{printable(root)}: {exc.strerror}"
            if reason:
                break
    return reason
