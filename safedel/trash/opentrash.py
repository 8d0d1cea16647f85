"""One trash dir held open by descriptor while a restore or a purge acts in it.

`list` reads trash dirs by path, and by the time a person acts, a path may lead
elsewhere: files/ swapped for a symlink to someone's data, the root of a topdir trash
on a shared mount renamed away by another user and a symlink put in its place. So a
restore or a purge opens the root without following a link, checks it is ours
(core/trash/trust.py) on the open descriptor, opens files/ and info/ the same way
relative to it, and then reads the info file and moves or deletes the entry only
relative to those descriptors. What a swap leads to is never read, moved or deleted.
"""

import errno
import os
import stat

from ..core.printable import printable
from ..core.trash import info, trust

_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


class OpenTrash:
    """root (bytes) and its files/ and info/, open and checked. Raises trust.Untrusted
    with what is wrong, or OSError when root is not there."""

    def __init__(self, root):
        self.root, self.fd = root, None
        self.files_fd = self.info_fd = None
        parent = os.path.dirname(root)
        if os.path.basename(parent) == b".Trash" and not trust.shared_trash_usable(
            os.path.dirname(parent)
        ):
            raise trust.Untrusted(
                errno.EPERM, f"{printable(parent)} is not a root-owned sticky directory"
            )
        try:
            self.fd = _open_checked(root, None, root)
            self.files_fd = _open_checked(b"files", self.fd, root + b"/files")
            self.info_fd = _open_checked(b"info", self.fd, root + b"/info")
            files = os.fstat(self.files_fd)
            self.files_id = (files.st_dev, files.st_ino)
        except BaseException:
            self.close()
            raise

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self):
        for fd in (self.fd, self.files_fd, self.info_fd):
            if fd is not None:
                os.close(fd)
        self.fd = self.files_fd = self.info_fd = None

    def read(self, name, warn=None):
        """The entry's Item as its info file says now (read through info/'s descriptor),
        or None when it has no info file or one that cannot be read."""
        from . import catalog

        return catalog.read_item(
            self.root + b"/info/" + name + info.INFO_SUFFIX, warn, dir_fd=self.info_fd
        )

    def has_info(self, name):
        try:
            os.lstat(name + info.INFO_SUFFIX, dir_fd=self.info_fd)
        except FileNotFoundError:
            return False
        return True

    def payload(self, name):
        """lstat of the entry in files/, or None when it is not there."""
        try:
            return os.lstat(name, dir_fd=self.files_fd)
        except FileNotFoundError:
            return None

    def drop_info(self, name):
        """Remove the entry's info file (the last step of a restore or a purge)."""
        try:
            os.unlink(name + info.INFO_SUFFIX, dir_fd=self.info_fd)
        except FileNotFoundError:
            pass


def _open_checked(name, dir_fd, shown):
    try:
        fd = os.open(name, _DIR, dir_fd=dir_fd)
    except OSError as exc:
        if exc.errno in (errno.ELOOP, errno.ENOTDIR):
            raise trust.Untrusted(exc.errno, _not_a_dir(name, dir_fd, shown)) from None
        raise
    reason = trust.why_untrusted(os.fstat(fd), shown)
    if reason:
        os.close(fd)
        raise trust.Untrusted(errno.EPERM, reason)
    return fd


def _not_a_dir(name, dir_fd, shown):
    try:
        link = stat.S_ISLNK(os.lstat(name, dir_fd=dir_fd).st_mode)
    except OSError:
        link = False
    return f"{printable(shown)} is {'a symlink' if link else 'not a directory'}"


def why_not_actionable(item):
    """Why restore and purge never act on this entry, whatever else is asked, or None:
    its name is not one plain component of files/."""
    why = info.why_not_plain(item.name)
    return f"{printable(item.info_path)} is damaged: {why}" if why else None


def same_entry(fresh, chosen):
    """True when the info file read now says what the item chosen from the listing
    said (a catalog cache line, or an earlier read): same original path and date."""
    return fresh.original == chosen.original and fresh.deleted == chosen.deleted
