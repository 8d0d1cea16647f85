"""What the net lets happen, done by the supervisor itself: never handed back to the
kernel with CONTINUE.

On CONTINUE the kernel reads the call's path afresh from the caller's memory, and
another thread of the caller (or any process that may write that memory) can have
rewritten it since the supervisor read it: `unlink(buf)` judged as `/tmp/x.o` would
delete whatever `buf` names a moment later, a file of the workspace. So a deletion or
rename the net allows is carried out here, on the very directory descriptor and name
the supervisor judged (unlinkat, renameat2), and the caller gets the kernel's answer.

The kernel then checks the supervisor's credentials, not the caller's. Under the net
they are the same unless the supervisor holds capabilities (a root run whose child
dropped to another uid): every caller descends from the command, which has
no_new_privs, so it can gain nothing the supervisor lacks, and without capabilities it
can change neither its uid nor its groups. Only then is the caller's right redone
first (callerperm), as the kernel would judge it.
"""

import errno
import os
import stat

from . import callerperm

RENAME_NOREPLACE, RENAME_EXCHANGE, RENAME_WHITEOUT = 1, 2, 4
_renameat2 = []


def renameat2(old_dirfd, old, new_dirfd, new, flags=0):
    """renameat2(2): None, or OSError with the kernel's errno."""
    if not _renameat2:
        import ctypes

        function = ctypes.CDLL(None, use_errno=True).renameat2
        function.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p)
        function.argtypes += (ctypes.c_uint,)
        _renameat2.append((ctypes, function))
    ctypes, function = _renameat2[0]
    if function(old_dirfd, old, new_dirfd, new, flags) != 0:
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err), os.fsdecode(old))


def unlink(tid, parent_fd, name, removes_dir, trailing=False):
    """Delete name in parent_fd for thread tid as unlinkat would: 0, or its errno."""
    try:
        check = not callerperm.callers_match() and not callerperm.same_as_supervisor(tid)
        if trailing or check:
            st = os.stat(name, dir_fd=parent_fd, follow_symlinks=False)
            if check:
                denied = callerperm.denies(tid, os.fstat(parent_fd), st)
                if denied:
                    return denied
            if trailing and not stat.S_ISDIR(st.st_mode):
                return errno.ENOTDIR
        if removes_dir:
            os.rmdir(name, dir_fd=parent_fd)
        else:
            os.unlink(name, dir_fd=parent_fd)
    except OSError as exc:
        return exc.errno or errno.EIO
    return 0


def rename(tid, source, destination, flags):
    """Rename source to destination (net.target.Target each) for thread tid as
    renameat2 would: 0, or its errno."""
    try:
        st = os.stat(source.name, dir_fd=source.parent_fd, follow_symlinks=False)
        if (source.trailing or destination.trailing) and not stat.S_ISDIR(st.st_mode):
            return errno.ENOTDIR
        if not callerperm.callers_match() and not callerperm.same_as_supervisor(tid):
            denied = _caller_denied(tid, source, destination, st, flags)
            if denied:
                return denied
        renameat2(source.parent_fd, source.name, destination.parent_fd, destination.name, flags)
    except OSError as exc:
        return exc.errno or errno.EIO
    return 0


def _caller_denied(tid, source, destination, st, flags):
    """The errno the kernel gives tid for this rename, in the kernel's order: a name
    taken under RENAME_NOREPLACE is EEXIST before any right is checked."""
    here, there = os.fstat(source.parent_fd), os.fstat(destination.parent_fd)
    try:
        present = os.stat(destination.name, dir_fd=destination.parent_fd, follow_symlinks=False)
    except FileNotFoundError:
        present = None
    if present is not None and flags & RENAME_NOREPLACE:
        return 0  # the supervisor's own renameat2 answers EEXIST
    denied = callerperm.denies(tid, here, st)
    if not denied and present is None:
        denied = 0 if flags & RENAME_EXCHANGE else callerperm.denies_arrival(tid, there)
    elif not denied:
        denied = callerperm.denies(tid, there, present)
    moving_dir = stat.S_ISDIR(st.st_mode) and (here.st_dev, here.st_ino) != (
        there.st_dev,
        there.st_ino,
    )
    if not denied and moving_dir:
        denied = callerperm.denies_write(tid, st)  # its '..' changes: write on it too
    return denied


def refused_spelling(raw):
    """The errno the kernel gives a rename naming raw (bytes) when no rename accepts it
    ('' , '/', '.', '..' as its last part), else None."""
    if not raw:
        return errno.ENOENT
    last = raw.rstrip(b"/").rpartition(b"/")[2]
    return errno.EBUSY if last in (b"", b".", b"..") else None
