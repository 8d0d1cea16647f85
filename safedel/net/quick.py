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
on the way, so the stat through /proc/TID/... is the caller's own walk). Everything
else, and every doubt (an unreadable path, a stat that fails), goes to the full
judgement, which reads the call afresh. A stale notification id makes the CONTINUE
fail harmlessly: no ID_VALID check is needed first.
"""

import os

_UNLINK, _UNLINKAT, _RMDIR = 0, 1, 2
_AT_FDCWD = 0xFFFFFF9C  # AT_FDCWD (-100) as the low 32 bits of the register


class Quick:
    __slots__ = ("_kinds", "_string", "_heads", "_is_root")

    def __init__(self, names, memory, exempt):
        """names: syscall number -> name for the filtered calls; memory: notify.Memory;
        exempt: exempt.Exempt."""
        kinds = {"unlink": _UNLINK, "unlinkat": _UNLINKAT, "rmdir": _RMDIR}
        self._kinds = {nr: kinds[name] for nr, name in names.items() if name in kinds}
        self._string = memory.string
        self._heads = frozenset((b".", *exempt.heads()))
        self._is_root = exempt.is_root

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
            return False
        if raw[:1] == b"/":
            base = b"/proc/%d/root/%s" % (tid, head.lstrip(b"/"))
        elif dirfd == _AT_FDCWD:
            base = b"/proc/%d/cwd/%s" % (tid, head)
        else:
            base = b"/proc/%d/fd/%d/%s" % (tid, dirfd, head)
        try:
            parent = os.stat(base)
        except OSError:
            return False
        return self._is_root(head, parent, name)
