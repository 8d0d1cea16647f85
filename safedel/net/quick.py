"""The commonest call of all, told apart with the least work: a deletion straight
inside an exempt root (a compiler's /tmp/ccXXXX.o), left to the kernel.

A build makes thousands of these, each a round trip through the supervisor, and the
round trip is most of what the net costs a build. So this path is kept to what the
decision needs: one read of the caller's memory for the path, one stat of its parent
through the caller's own root, cwd or dirfd (the kernel's walk, not ours), and the
parent's identity looked up among the exempt roots (exempt.Exempt.is_root). No
descriptor is opened, no path is read back, nothing else is imported.

Only a head with no walk the supervisor could take differently from the caller takes
it: none, '.', or an exempt root's own real path (no symlink, no '..', no /proc/self
on the way, so the stat through /proc/TID/... is the caller's own walk). An absolute
head is walked from the caller's root following no symlink at all: one the supervisor
followed would resolve an absolute target from its own root, not the caller's.

A file deeper in the temp dir (`/tmp/cc-XXXX/a.o`, a tool's private temp directory)
takes the next cheapest way: the exempt root opened as the caller reaches it (its
identity checked as above), then the rest of the head walked down from it with
openat2 refusing any symlink, any '..' and any mount on the way. What that walk
reaches is the caller's directory beneath the root, on the root's own mount: exempt,
with no path read back. A walk that meets anything else, or a run with a workspace
root inside an exempt root (the nearest root decides there), is judged fully.

Everything else, and every doubt (an unreadable path, a stat or a walk that fails),
goes to the full judgement, which reads the call afresh. A stale notification id
makes the CONTINUE fail harmlessly: no ID_VALID check is needed first.
"""

import os

from . import walk

_UNLINK, _UNLINKAT, _RMDIR = 0, 1, 2
_AT_FDCWD = 0xFFFFFF9C  # AT_FDCWD (-100) as the low 32 bits of the register
_START = os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC
# Down from the root by plain names only: no symlink (magic links included), no '..'
# out of it, no mount crossed.
_PLAIN_WALK = walk.RESOLVE_NO_XDEV | walk.RESOLVE_NO_SYMLINKS | walk.RESOLVE_BENEATH


class Quick:
    __slots__ = ("_kinds", "_string", "_heads", "_is_root", "_below")

    def __init__(self, names, memory, exempt):
        """names: syscall number -> name for the filtered calls; memory: notify.Memory;
        exempt: exempt.Exempt."""
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

    def continues(self, tid, nr, arg0, arg1):
        """Whether this call (its number and first two arguments) deletes straight
        inside an exempt root, so the kernel may do it (file or directory alike: an
        exempt root's entries that are workspace roots never pass). False means:
        judge it fully."""
        kind = self._kinds.get(nr)
        if kind is None:
            return False  # a rename: judged in moves
        if kind == _UNLINKAT:
            dirfd, address = arg0 & 0xFFFFFFFF, arg1
            if dirfd != _AT_FDCWD and dirfd & 0x80000000:
                return False  # a negative dirfd that is not AT_FDCWD: the kernel's EBADF
        else:
            dirfd, address = _AT_FDCWD, arg0
        try:
            raw = self._string(tid, address)
        except OSError:
            return False
        head, _, name = raw.rpartition(b"/")
        # No name: empty, '/' or a trailing slash; '.' and '..' the kernel refuses.
        if not name or name == b"." or name == b"..":
            return False
        if head and head not in self._heads:
            return self._walks_down(tid, dirfd, raw[:1] == b"/", head)
        if raw[:1] == b"/":
            try:
                parent = _root_stat(tid, head.strip(b"/"))
            except OSError:
                return False
            return self._is_root(head, parent, name)
        if dirfd == _AT_FDCWD:
            base = b"/proc/%d/cwd/%s" % (tid, head)
        else:
            base = b"/proc/%d/fd/%d/%s" % (tid, dirfd, head)
        try:
            parent = os.stat(base)
        except OSError:
            return False
        return self._is_root(head, parent, name)

    def _walks_down(self, tid, dirfd, absolute, head):
        """Whether head leads the caller, by plain names on one mount, from an exempt
        root down to a directory beneath it."""
        if absolute:
            for prefix in self._below:
                if head.startswith(prefix):
                    break
            else:
                return False
            root, rest = prefix[:-1] or b"/", head[len(prefix) :]
            start = None
        elif not self._below:
            return False
        else:  # the caller's cwd or dirfd, itself an exempt root (is_root below)
            root, rest = b"", head
            if dirfd == _AT_FDCWD:
                start = b"/proc/%d/cwd" % tid
            else:
                start = b"/proc/%d/fd/%d" % (tid, dirfd)
        first = rest.partition(b"/")[0]
        for part in rest.split(b"/"):
            if part in (b"", b".", b".."):
                return False  # the kernel's walk, not a plain one: judged fully
        try:
            fd = os.open(start, _START) if start else _open_in_root(tid, root.strip(b"/"))
        except OSError:
            return False
        try:
            if not self._is_root(root, os.fstat(fd), first):
                return False
            os.close(walk.openat2(fd, rest, _PLAIN_WALK))
        except OSError:
            return False
        finally:
            os.close(fd)
        return True


# An exempt root as an absolute path is walked from the caller's root with no symlink
# followed. A symlink there (a chroot's /tmp, or one a mount namespace puts on the way)
# would be followed by the supervisor from ITS root, where an absolute target may name
# the exempt root, while the kernel follows it in the caller's root, to anything. Such
# a caller is judged fully. A root of one name needs no more than lstat: the magic
# /proc/TID/root is followed, its entry is not.
def _root_stat(tid, relative):
    """The stat of the caller's directory at /relative, reached with no symlink."""
    if b"/" not in relative:
        return os.lstat(b"/proc/%d/root/%s" % (tid, relative))
    fd = _open_in_root(tid, relative)
    try:
        return os.fstat(fd)
    finally:
        os.close(fd)


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
