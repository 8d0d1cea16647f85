"""Lending a directory's owner access to it for a moment, on the very directory judged.

A directory its owner may not read or write is still removable (rmdir needs the
parent's permission only), so rm's walk and the net lend the owner u+rx to look into
it, or u+wx to move it into the trash, and put the mode back. The parent may be
writable by someone else, and a chmod by name would follow a symlink swapped in
meanwhile and change whatever it points at. So a loan opens the entry once, without
following a link, checks it is the inode judged, and changes the mode through that
descriptor, there and back, wherever the directory has moved in between.
"""

import errno
import os
import stat

_PATH = getattr(os, "O_PATH", 0) | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_DIRECTORY


def keeps_its_bits(st):
    """Whether this process can put st's mode back whole after a chmod: the kernel
    clears set-group-ID when someone outside the directory's group changes the mode."""
    if not st.st_mode & stat.S_ISGID or os.geteuid() == 0:
        return True
    return st.st_gid == os.getegid() or st.st_gid in os.getgroups()


class Loan:
    """bits added to the mode of the directory st describes, until give_back."""

    def __init__(self, name, st, bits, dir_fd=None):
        self.mode = stat.S_IMODE(st.st_mode)
        self.name, self.dir_fd, self.fd = name, dir_fd, None
        if hasattr(os, "O_PATH"):
            self.fd = os.open(name, _PATH, dir_fd=dir_fd)
            now = os.fstat(self.fd)
            if (now.st_dev, now.st_ino) != (st.st_dev, st.st_ino):
                os.close(self.fd)
                raise OSError(errno.ESTALE, os.strerror(errno.ESTALE), name)
        try:
            self._chmod(self.mode | bits)
        except BaseException:
            self._close()
            raise

    def is_empty(self):
        """Whether the directory lent to (u+rx) holds no entry, looked at through the
        loan's own descriptor, not its name."""
        where = self.name if self.fd is None else f"/proc/self/fd/{self.fd}"
        dir_fd = self.dir_fd if self.fd is None else None
        fd = os.open(where, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC, dir_fd=dir_fd)
        try:
            with os.scandir(fd) as entries:
                return next(entries, None) is None
        finally:
            os.close(fd)

    def give_back(self, moved_to=None):
        """Put the mode back (moved_to: where the directory went, where the platform
        has no O_PATH and the change goes by name)."""
        try:
            self._chmod(self.mode, moved_to)
        finally:
            self._close()

    def _chmod(self, mode, moved_to=None):
        if self.fd is not None:  # an O_PATH descriptor takes no fchmod; /proc reaches it
            os.chmod(f"/proc/self/fd/{self.fd}", mode)
        elif moved_to is not None:
            os.chmod(moved_to, mode, follow_symlinks=False)
        else:  # macOS: its fchmodat can leave a symlink alone
            os.chmod(self.name, mode, dir_fd=self.dir_fd, follow_symlinks=False)

    def _close(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def lend(name, st, bits, dir_fd=None):
    """A Loan of bits to the directory's owner, or None when it needs none."""
    if stat.S_IMODE(st.st_mode) & bits == bits:
        return None
    return Loan(name, st, bits, dir_fd)


def lend_for_move(name, dir_fd=None):
    """A Loan of u+wx to a directory this process owns but may not write, for a rename
    to another parent (which rewrites the directory's '..'); None when it needs none
    or is not this process's to lend. (A set-group-ID bit the kernel clears on the way
    there stays lost: the kernel's rmdir would have removed the directory outright.)"""
    if os.geteuid() == 0:
        return None
    st = os.lstat(name, dir_fd=dir_fd)
    if not stat.S_ISDIR(st.st_mode) or st.st_uid != os.geteuid():
        return None
    return lend(name, st, 0o300, dir_fd)


def carry_out_lending_write(deletion, conf, runtime, target, is_dir, name, dir_fd=None):
    """Carry out target; a directory its owner may not write gets u+wx for the rename.

    Moving a directory to another parent rewrites its '..', so the kernel wants write
    permission on it, where the kernel's rmdir needs none (`mkdir -m0 d; rm -rf d`
    works). The mode is put back on the directory inside the trash, or in place on
    failure. Shared by the rm family and the Python shim (name, dir_fd: where the entry is).
    """
    loan = None
    if target.klass == deletion.TRASH and is_dir:
        loan = lend_for_move(name, dir_fd)
    outcome = None
    try:
        outcome = deletion.carry_out(conf, runtime, target)
    finally:
        if loan is not None:  # on the directory, in the trash or still here
            record = outcome.record if outcome is not None else None
            loan.give_back(record.trash_path if record is not None else None)
    return outcome
