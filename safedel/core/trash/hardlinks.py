"""A file in the trash never shares its inode with a live path.

A regular file with other hard links (`ln f /tmp/h`, a `cp -al` snapshot, pnpm's and
uv's linked installs) renamed into the trash would still be the file those links name:
a write through one of them (`: > /tmp/h`) would change what the trash holds. So once
such a file is in files/, it is copied there (content, mode, times, and its owner when
run as root) and the copy takes its name by rename: the other links keep the old inode,
the trash holds a new one. The link count is read after the move, not before, so a
link made meanwhile is seen, and one attempted after finds no name to link to.

A file with other links that this user may not read could not be copied: it is
refused before it moves (unreadable). When a copy fails all the same (a full disk),
the file goes back to its name by a rename that never replaces what took the name
meanwhile, and the trashing fails: the file stays in place. Should even that fail, it
stays in the trash, sharing its inode, rather than be lost.
"""

import errno
import os
import stat

_OPEN = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
_CREATE |= getattr(os, "O_CLOEXEC", 0)
_CHUNK = 1 << 20
# copy_file_range's answers that mean "not between these two files": copy by hand.
_NO_RANGE_COPY = (errno.EXDEV, errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.EPERM)


def make_own(files_fd, name, origin):
    """After files/name was moved in from origin (a path, or (name, parent descriptor)):
    give it an inode of its own if it has other links. Raises OSError once it is back
    at origin, when no copy could be made."""
    try:
        st = os.lstat(name, dir_fd=files_fd)
    except OSError:
        return  # taken out of the trash already: nothing of ours shares it
    if not stat.S_ISREG(st.st_mode) or st.st_nlink < 2:
        return
    try:
        _replace_with_copy(files_fd, name)
    except OSError:
        if _put_back(files_fd, name, origin):
            raise


def _replace_with_copy(files_fd, name):
    source = os.open(name, _OPEN, dir_fd=files_fd)
    try:
        st = os.fstat(source)
        if not stat.S_ISREG(st.st_mode) or st.st_nlink < 2:
            return
        part, copy = _create_part(files_fd)
        try:
            try:
                _copy_bytes(source, copy)
                if os.geteuid() == 0:
                    os.fchown(copy, st.st_uid, st.st_gid)
                os.fchmod(copy, stat.S_IMODE(st.st_mode))
                os.utime(copy, ns=(st.st_atime_ns, st.st_mtime_ns))
            except BaseException:
                # Emptied first: under the net, a shim's unlink in the trash is judged
                # like any other and may be refused, leaving an empty file, not a copy.
                _quietly(os.ftruncate, copy, 0)
                raise
            finally:
                os.close(copy)
            os.rename(part, name, src_dir_fd=files_fd, dst_dir_fd=files_fd)
        except BaseException:
            _quietly(os.unlink, part, dir_fd=files_fd)
            raise
    finally:
        os.close(source)


def _create_part(files_fd):
    """(name, descriptor) of a new private file in files/, for the copy."""
    while True:
        part = ".safedel-copy-" + os.urandom(6).hex()
        try:
            return part, os.open(part, _CREATE, 0o600, dir_fd=files_fd)
        except FileExistsError:
            continue


def _copy_bytes(source, copy):
    copy_range = getattr(os, "copy_file_range", None)
    done = 0
    while copy_range is not None:
        try:
            count = copy_range(source, copy, _CHUNK * 64)
        except OSError as exc:
            if done or exc.errno not in _NO_RANGE_COPY:
                raise
            break
        if not count:
            return
        done += count
    while True:
        chunk = os.read(source, _CHUNK)
        if not chunk:
            return
        view = memoryview(chunk)
        while view:
            view = view[os.write(copy, view) :]


def unreadable(st):
    """Whether st is a file with other links that this user may not read, so that no
    copy of it could be made: it is refused before anything moves. (By the mode bits;
    a read that only an ACL grants is refused too.)"""
    if not stat.S_ISREG(st.st_mode) or st.st_nlink < 2 or os.geteuid() == 0:
        return False
    if st.st_uid == os.geteuid():
        bits = st.st_mode >> 6
    elif st.st_gid == os.getegid() or st.st_gid in os.getgroups():
        bits = st.st_mode >> 3
    else:
        bits = st.st_mode
    return not bits & 0o4  # read


def _put_back(files_fd, name, origin):
    """Whether files/name is back at origin, under its old name and inode. A rename
    that never replaces, else a link and an unlink: both refuse to replace what took
    the name meanwhile. (Under the net a rename always goes on, where an unlink in the
    trash is judged.)"""
    if isinstance(origin, tuple):
        there, parent_fd = origin
    else:
        there, parent_fd = origin, None
    moved = _rename_noreplace(files_fd, name, parent_fd, there)
    if moved is not None:
        return moved
    try:
        os.link(name, there, src_dir_fd=files_fd, dst_dir_fd=parent_fd, follow_symlinks=False)
    except OSError:
        return False
    _quietly(os.unlink, name, dir_fd=files_fd)
    return True


_renameat2 = []


def _rename_noreplace(src_fd, name, dst_fd, there):
    """True once moved, False if refused, None where renameat2 cannot say."""
    if not _renameat2:
        try:
            import ctypes

            function = ctypes.CDLL(None, use_errno=True).renameat2
            function.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p)
            function.argtypes += (ctypes.c_uint,)
            _renameat2.append((ctypes, function))
        except (ImportError, OSError, AttributeError):
            _renameat2.append(None)
    if _renameat2[0] is None:
        return None
    ctypes, function = _renameat2[0]
    at = -100 if dst_fd is None else dst_fd  # AT_FDCWD
    if function(src_fd, os.fsencode(name), at, os.fsencode(there), 1) == 0:  # NOREPLACE
        return True
    return None if ctypes.get_errno() in (errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP) else False


def _quietly(call, *args, **kwargs):
    try:
        call(*args, **kwargs)
    except OSError:
        pass
