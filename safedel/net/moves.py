"""Renames that carry judged data to where the net leaves deletions to the kernel.

A rename deletes nothing, so the net lets nearly every one be. One kind it cannot: a
file or tree of the workspace moved into the temp dir or an ignored build tree, where a
later unlink is the kernel's (`mv src /tmp/x && rm -rf /tmp/x`). Such a rename is
answered EXDEV, as between two filesystems: mv, shutil.move and the like then copy the
source and delete it, and those deletions are judged (trashed, counted) where the data
lived. RENAME_EXCHANGE is judged both ways.
"""

import errno
import os

from . import target, walk
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
    """The supervisor's answer to a rename: the caller's paths read and resolved as for
    a deletion, then each side asked whether a deletion there is left to the kernel.
    fail_closed(path, reason): emit the marker for a refused rename."""

    def __init__(self, channel, memory, places, plain_heads, fail_closed):
        self._channel = channel
        self._memory = memory
        self._places = places
        self._plain_heads = plain_heads
        self._fail_closed = fail_closed

    def answer(self, notif, name):
        """CONTINUE, or EXDEV for a rename that carries judged data out."""
        channel, notif_id, tid = self._channel, notif[0], notif[1]
        source, destination, exchange = arguments(name, notif[6:])
        try:
            source_free = self._left_alone(tid, *source, moving=True)
            if source_free is None or (source_free and not exchange):
                channel.answer(notif_id, proceed=True)
                return
            destination_free = self._left_alone(tid, *destination, exchange, arriving=True)
        except OSError as exc:
            if channel.still_valid(notif_id):
                if isinstance(exc, walk.FailClosed):
                    self._fail_closed(exc.filename or "", exc.reason)
                channel.answer(notif_id, exc.errno or errno.EIO)
            return
        if destination_free is not None and carries_out(source_free, destination_free, exchange):
            channel.answer(notif_id, errno.EXDEV)
        else:
            channel.answer(notif_id, proceed=True)

    def _left_alone(self, tid, dirfd, address, moving=False, arriving=False):
        """Whether a deletion of what this path names would be left to the kernel; None
        for a spelling no rename accepts ('.', '..', '/', ''): the kernel refuses it.
        moving: the entry leaves this name (walk.FailClosed if it is state of safedel's
        that only safedel renames), and it is not left alone when a workspace root, or
        safedel's own trash or state, lies within it (`mv /tmp/a /tmp/b` of a project's
        parent). arriving: the entry takes this name, and is left alone too when it
        would make an ignored build tree there (`mv src build`). A rename into safedel's
        trash (a shim's move) arrives where nothing is left to the kernel: it goes on."""
        raw = self._memory.string(tid, address)
        try:
            located = target.locate(tid, dirfd, raw, False)
        except OSError:
            return None
        parent = None
        if not located[3] or located[3] in self._plain_heads:  # as in _decide
            parent = os.stat(located[0])
            if not moving and self._places.is_exempt_root(located[3], parent, located[1]):
                return True
        found = target.resolve(tid, dirfd, raw, False, located)
        try:
            if parent is None:
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
        finally:
            found.close()
