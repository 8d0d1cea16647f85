"""Changing a directory's mode for a moment, on the very directory that was judged.

A directory its owner may not read or write is still removable (rmdir needs the
parent's permission only), so rm's walk and the net lend the owner u+rx to look into
it, or u+wx to move it into the trash, and put the mode back. The name is looked up
again for each change, and the parent may be writable by someone else: a chmod by name
would follow a symlink swapped in meanwhile and change whatever it points at. So the
change goes through an O_PATH descriptor of the entry itself, made without following a
symlink and checked to be the inode judged before.
"""

import errno
import os

_PATH = getattr(os, "O_PATH", 0) | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_DIRECTORY


def set_mode(name, mode, st, dir_fd=None):
    """chmod name (relative to dir_fd) to mode if it is still the directory st describes.

    Raises OSError (ESTALE when another entry now has the name) and changes nothing
    otherwise.
    """
    if not hasattr(os, "O_PATH"):  # no O_PATH (macOS): its fchmodat can skip a symlink
        os.chmod(name, mode, dir_fd=dir_fd, follow_symlinks=False)
        return
    fd = os.open(name, _PATH, dir_fd=dir_fd)
    try:
        now = os.fstat(fd)
        if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
            raise OSError(errno.ESTALE, os.strerror(errno.ESTALE), name)
        # An O_PATH descriptor takes no fchmod; its /proc link reaches the same inode.
        os.chmod(f"/proc/self/fd/{fd}", mode)
    finally:
        os.close(fd)
