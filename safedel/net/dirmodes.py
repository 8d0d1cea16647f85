"""A directory's own mode, where it stops the net but would not stop the kernel's rmdir.

rmdir needs write permission on the parent only: `mkdir -m0 d; rm -rf d` works, and so
does `chmod u-w d` followed by `rm -r d` once d is empty. Two things the net does for
such a call need more: looking into the directory to answer ENOTEMPTY as the kernel
would, and moving it into the trash, which rewrites its '..' entry and so needs write
permission on the directory itself. Its owner may grant both to itself for a moment,
as rm's own walk does; anyone else gets the directory left where it is.
"""

import os
import stat

from ..core import lendmode, removable

_LIST = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC


def is_empty(parent_fd, name, st):
    """Whether rmdir(name) would find it empty. One this user may not read is looked
    into by its owner (u+rx lent and put back); anyone else's counts as not empty."""
    try:
        return _empty(parent_fd, name)
    except PermissionError:
        if os.geteuid() == 0:
            return False
    return removable.empty_despite_mode(name, st, removable.User(), parent_fd)


def _empty(parent_fd, name):
    fd = os.open(name, _LIST, dir_fd=parent_fd)
    try:
        with os.scandir(fd) as listing:
            return next(listing, None) is None
    finally:
        os.close(fd)


def lend_write(parent_fd, name, st):
    """The Loan of u+wx the move needs, to give back once the directory is in the trash
    (or still here); None if none was needed."""
    if not stat.S_ISDIR(st.st_mode) or os.geteuid() == 0 or st.st_uid != os.geteuid():
        return None
    return lendmode.lend(name, st, 0o300, parent_fd)


def trash_lending(conf, runtime, found, item):
    """Trash found (a target.Target, as item); an empty directory its owner may not
    write gets u+wx for the move (rmdir does not need it), and its own mode back in
    the trash or, on failure, here."""
    from ..core import deletion

    loan = lend_write(found.parent_fd, found.name, found.st)
    record = None
    try:
        record = deletion.trash_one(conf, runtime, item)
    finally:
        if loan is not None:  # on the directory, in the trash or still here
            loan.give_back(record.trash_path if record is not None else None)
