"""Renames that carry judged data to where the net leaves deletions to the kernel.

A rename deletes nothing, so the net lets nearly every one be, doing it itself on the
descriptors it judged (net/perform: the kernel never reads the paths again). One kind
it cannot: a
file or tree of the workspace moved into the temp dir or an ignored build tree, where a
later unlink is the kernel's (`mv src /tmp/x && rm -rf /tmp/x`). Such a rename is
answered EXDEV, as between two filesystems: mv, shutil.move and the like then copy the
source and delete it, and those deletions are judged (trashed, counted) where the data
lived. RENAME_EXCHANGE is judged both ways.
"""

import errno
import os

from . import perform, target, walk
from .target import AT_FDCWD, dirfd_of

NAMES = frozenset({"rename", "renameat", "renameat2"})
RENAME_EXCHANGE = 2


def arguments(name, args):
    """((dirfd, address) of the source, the same of the destination, exchange?)."""
    if name == "rename":
        return (AT_FDCWD, args[0]), (AT_FDCWD, args[1]), False
    flags = args[4] if name == "renameat2" else 0
    return (
        (dirfd_of(args[0]), args[1]),
        (dirfd_of(args[2]), args[3]),
        bool(flags & RENAME_EXCHANGE),
    )


def carries_out(source_free, destination_free, exchange):
    """Whether the rename moves what the net judges to where it judges nothing.
    *_free: each side's path is one whose deletion the kernel is left to do."""
    if destination_free and not source_free:
        return True
    return exchange and source_free and not destination_free


class Renames:
    """The supervisor's answer to a rename: the caller's paths read once and resolved as
    for a deletion, then each side asked whether a deletion there is left to the kernel.
    fail_closed(path, reason): emit the marker for a refused rename."""

    def __init__(self, channel, memory, places, fail_closed):
        self._channel = channel
        self._memory = memory
        self._places = places
        self._fail_closed = fail_closed

    def answer(self, notif, name):
        """Do the rename here (net/perform), or answer EXDEV for one that carries
        judged data out, or the kernel's errno."""
        channel, notif_id, tid = self._channel, notif[0], notif[1]
        source, destination, exchange = arguments(name, notif[6:])
        flags = notif[10] & 0xFFFFFFFF if name == "renameat2" else 0
        sides = []
        try:
            for dirfd, address in (source, destination):
                raw = self._memory.string(tid, address)
                refused = perform.refused_spelling(raw)
                if refused:
                    raise OSError(refused, "no rename takes this name")
                sides.append(target.resolve(tid, dirfd, raw, False))
            done = self._settle(notif_id, tid, sides, exchange, flags)
        except OSError as exc:
            if isinstance(exc, walk.FailClosed):
                self._fail_closed(exc.filename or "", exc.reason)
            done = exc.errno or errno.EIO
        finally:
            for side in sides:
                side.close()
        channel.answer(notif_id, done)  # a caller gone meanwhile reads no answer

    def _settle(self, notif_id, tid, sides, exchange, flags):
        source, destination = sides
        source_free = self._left_alone(tid, source, moving=True)
        if not source_free or exchange:
            destination_free = self._left_alone(tid, destination, exchange, arriving=True)
            if carries_out(source_free, destination_free, exchange):
                return errno.EXDEV
        if not self._channel.still_valid(notif_id):
            return errno.ENOENT  # its thread id may name another process by now
        return perform.rename(tid, source, destination, flags)

    def _left_alone(self, tid, found, moving=False, arriving=False):
        """Whether a deletion of found (a target.Target) would be left to the kernel.
        moving: the entry leaves this name (walk.FailClosed if it is state of safedel's
        that only safedel renames), and it is not left alone when a workspace root, or
        safedel's own trash or state, lies within it (`mv /tmp/a /tmp/b` of a project's
        parent). arriving: the entry takes this name, and is left alone too when it
        would make an ignored build tree there (`mv src build`). A rename into safedel's
        trash (a shim's move) arrives where nothing is left to the kernel: it goes on."""
        parent = os.fstat(found.parent_fd)
        refusal = moving and self._places.state_move_refusal(found.path, tid)
        if refusal:
            raise walk.FailClosed(refusal, found.path)
        # What leaves a name is read as a deletion would read it; where an entry
        # arrives, nothing is there yet: its place alone decides. What arrives keeps
        # its own birth: no place in a git dir frees it.
        left = self._places.left_to_kernel(found, tid, parent, moving, arriving)
        if moving and not left:
            self._places.note_change(found.path)
        if left and moving and self._places.holds_a_root(found.path):
            return False
        if not left and arriving:
            return self._places.would_be_build_tree(found.path)
        return bool(left) and found.acts_here(parent)
