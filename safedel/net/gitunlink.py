"""Deleting for git the very entry the net judged git's to delete, by its identity.

What the net leaves to git (the bookkeeping git made during the run, a file whose
content HEAD holds) it cannot answer with CONTINUE: the kernel would then delete
whatever bears the name when the call goes on, and a rename answered just before,
still on its way, could have put someone's file there (`mv precious
.git/rebase-merge/x` racing `git rebase --abort`). So the supervisor deletes it
itself. It renames the name to a fresh random name in the same directory (atomic:
whatever is there now moves), checks that what moved is the entry it judged (device,
inode and birth), and only then unlinks it. Nothing of the tree can rename onto the
fresh name in between: every rename of the tree waits for this very thread to answer
it. Anything else that moved is put back under its name, to be judged like any path.
"""

import errno
import os

from . import birth, perform


def _rename(dirfd, old, new):
    """renameat2(dirfd, old, dirfd, new, RENAME_NOREPLACE), or OSError."""
    perform.renameat2(dirfd, old, dirfd, new, perform.RENAME_NOREPLACE)


def unlink_judged(parent_fd, name, identity):
    """Unlink name (bytes) in parent_fd when it is still the entry whose
    birth.Entry.identity is identity: True once done. False when something else bore
    the name; it bears it again (or, if the name was taken meanwhile, OSError EEXIST
    names where it waits). OSError with the kernel's errno when the rename fails."""
    aside = b".safedel-git-" + os.urandom(12).hex().encode("ascii")
    _rename(parent_fd, name, aside)
    try:
        moved = birth.of(parent_fd, aside).identity
    except OSError:
        moved = None
    if moved == identity:
        os.unlink(aside, dir_fd=parent_fd)
        return True
    try:
        _rename(parent_fd, aside, name)
    except OSError as exc:
        raise OSError(errno.EEXIST, "kept under another name", os.fsdecode(aside)) from exc
    return False


def answer(found, fail_closed, may_delete):
    """What the caller gets for deleting found (a target.Target, inspect() done), git's
    to delete as found.judged: 0 once deleted, the errno of a failure, or None once
    something else found bearing its name is back under it, inspected afresh
    (may_delete as for inspect()) and to be judged like any path."""
    try:
        if unlink_judged(found.parent_fd, found.name, found.judged):
            return 0
    except OSError as exc:
        if exc.errno == errno.EEXIST:
            fail_closed(found.path, f"swapped while git deleted it: kept as {exc.filename}")
            return errno.EPERM
        return exc.errno or errno.EIO
    found.judged = None
    try:
        found.inspect(may_delete)
    except OSError as exc:
        return exc.errno or errno.EIO
    return None
