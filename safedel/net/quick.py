"""The commonest call of all, told apart with the least work: a deletion straight
inside an exempt root (a compiler's /tmp/ccXXXX.o), done at once.

A build makes thousands of these, each a round trip through the supervisor, and the
round trip is most of what the net costs a build. So this path is kept to what the
decision needs: one read of the caller's memory for the path, the parent opened
through the caller's own root, cwd or dirfd (the kernel's walk, not ours), and its
identity looked up among the exempt roots (exempt.Exempt.is_root). Then the
supervisor deletes the name it read in the directory it opened (net/perform): the
kernel is never asked to read the path again, which another thread may have
rewritten meanwhile.

Only a head with no walk the supervisor could take differently from the caller takes
it: none, '.', or an exempt root's own real path (no symlink, no '..', no /proc/self
on the way, so the open through /proc/TID/... is the caller's own walk). An absolute
head is walked from the caller's root following no symlink at all: one the supervisor
followed would resolve an absolute target from its own root, not the caller's.

A file deeper in the temp dir (`/tmp/cc-XXXX/a.o`, a tool's private temp directory)
takes the next cheapest way: the exempt root opened as the caller reaches it (its
identity checked as above), then the rest of the head walked down from it with
openat2 refusing any symlink, any '..' and any mount on the way. What that walk
reaches is the caller's directory beneath the root, on the root's own mount: exempt.
A walk that meets anything else, or a run with a workspace root inside an exempt
root (the nearest root decides there), is judged fully.

Everything else, and every doubt (an unreadable path, an open or a walk that fails),
goes to the full judgement, which reads the call afresh. Nothing is deleted for a
notification that is no longer live: its thread id may name another process by now.
"""

import errno
import os

from . import perform, walk

_UNLINK, _UNLINKAT, _RMDIR = 0, 1, 2
_AT_REMOVEDIR = 0x200
_AT_FDCWD = 0xFFFFFF9C  # AT_FDCWD (-100) as the low 32 bits of the register
_START = os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC
# Down from the root by plain names only: no symlink (magic links included), no '..'
# out of it, no mount crossed.
_PLAIN_WALK = walk.RESOLVE_NO_XDEV | walk.RESOLVE_NO_SYMLINKS | walk.RESOLVE_BENEATH


class Quick:
    __slots__ = ("_kinds", "_string", "_heads", "_is_root", "_below", "_valid")

    def __init__(self, names, memory, exempt, valid):
        """names: syscall number -> name for the filtered calls; memory: notify.Memory;
        exempt: exempt.Exempt; valid(notif_id): whether that call is still live."""
        self._valid = valid
        kinds = {"unlink": _UNLINK, "unlinkat": _UNLINKAT, "rmdir": _RMDIR}
        self._kinds = {nr: kinds[name] for nr, name in names.items() if name in kinds}
        self._string = memory.string
        self._heads = frozenset((b".", *exempt.heads()))
        self._is_root = exempt.is_root
        # 'root/' (bytes) per exempt root, for heads below one; none when a workspace
        # root lies inside an exempt root.
        below = () if exempt.holds_workspaces else exempt.prefixes
        self._below = tuple(os.fsencode(p) for p in below)

    def heads(self):
        """The heads this path takes besides none: '.', and the exempt roots' real
        paths as a caller may spell them."""
        return self._heads

    def settles(self, notif_id, tid, nr, args):
        """The caller's answer (0 or an errno) once this call, its number and raw
        arguments, deleted straight inside an exempt root, done here (file or
        directory alike: an exempt root's entries that are workspace roots never
        pass). None means: judge it fully."""
        kind = self._kinds.get(nr)
        if kind is None:
            return None  # a rename: judged in moves
        flags = 0
        if kind == _UNLINKAT:
            dirfd, address, flags = args[0] & 0xFFFFFFFF, args[1], args[2] & 0xFFFFFFFF
            if dirfd != _AT_FDCWD and dirfd & 0x80000000:
                return None  # a negative dirfd that is not AT_FDCWD: the kernel's EBADF
            if flags & ~_AT_REMOVEDIR:
                return None  # the kernel's EINVAL
        else:
            dirfd, address = _AT_FDCWD, args[0]
        try:
            raw = self._string(tid, address)
        except OSError:
            return None
        head, _, name = raw.rpartition(b"/")
        # No name: empty, '/' or a trailing slash; '.' and '..' the kernel refuses.
        if not name or name == b"." or name == b"..":
            return None
        fd = self._parent(tid, dirfd, raw[:1] == b"/", head, name)
        if fd is None:
            return None
        try:
            if not self._valid(notif_id):
                return errno.ENOENT  # its caller is gone: nobody reads the answer
            return perform.unlink(tid, fd, name, kind == _RMDIR or bool(flags))
        finally:
            os.close(fd)

    def _parent(self, tid, dirfd, absolute, head, name):
        """An O_PATH descriptor of the caller's directory the call acts in, when that
        is an exempt root or a plain walk below one; else None."""
        try:
            if head and head not in self._heads:
                return self._walks_down(tid, dirfd, absolute, head)
            if absolute:
                fd = _open_in_root(tid, head.strip(b"/"))
            elif dirfd == _AT_FDCWD:
                fd = os.open(b"/proc/%d/cwd/%s" % (tid, head), _START)
            else:
                fd = os.open(b"/proc/%d/fd/%d/%s" % (tid, dirfd, head), _START)
        except OSError:
            return None
        try:
            if self._is_root(head, os.fstat(fd), name):
                return fd
        except OSError:
            pass
        os.close(fd)
        return None

    def _walks_down(self, tid, dirfd, absolute, head):
        """A descriptor of the directory head leads the caller to, by plain names on
        one mount, from an exempt root down to beneath it; None if it does not."""
        if absolute:
            for prefix in self._below:
                if head.startswith(prefix):
                    break
            else:
                return None
            root, rest = prefix[:-1] or b"/", head[len(prefix) :]
            start = None
        elif not self._below:
            return None
        else:  # the caller's cwd or dirfd, itself an exempt root (is_root below)
            root, rest = b"", head
            if dirfd == _AT_FDCWD:
                start = b"/proc/%d/cwd" % tid
            else:
                start = b"/proc/%d/fd/%d" % (tid, dirfd)
        first = rest.partition(b"/")[0]
        for part in rest.split(b"/"):
            if part in (b"", b".", b".."):
                return None  # the kernel's walk, not a plain one: judged fully
        fd = os.open(start, _START) if start else _open_in_root(tid, root.strip(b"/"))
        try:
            if not self._is_root(root, os.fstat(fd), first):
                return None
            return walk.openat2(fd, rest, _PLAIN_WALK)
        finally:
            os.close(fd)


# An exempt root as an absolute path is walked from the caller's root with no symlink
# followed. A symlink there (a chroot's /tmp, or one a mount namespace puts on the way)
# would be followed by the supervisor from ITS root, where an absolute target may name
# the exempt root, while the kernel follows it in the caller's root, to anything. Such
# a caller is judged fully. A root of one name is opened with O_NOFOLLOW: the magic
# /proc/TID/root is followed, its entry is not.
def _open_in_root(tid, relative):
    """An O_PATH descriptor of the caller's directory at /relative, with no symlink."""
    if not relative:
        return os.open(b"/proc/%d/root" % tid, _START)
    if b"/" not in relative:
        return os.open(b"/proc/%d/root/%s" % (tid, relative), _START | os.O_NOFOLLOW)
    fd = os.open(b"/proc/%d/root" % tid, _START)
    try:
        return walk.openat2(fd, relative, walk.RESOLVE_IN_ROOT | walk.RESOLVE_NO_SYMLINKS)
    finally:
        os.close(fd)
