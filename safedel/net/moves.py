"""Renames that carry judged data to where the net leaves deletions to the kernel.

A rename deletes nothing, so the net lets nearly every one be. One kind it cannot: a
file or tree of the workspace moved into the temp dir or an ignored build tree, where a
later unlink is the kernel's (`mv src /tmp/x && rm -rf /tmp/x`). Such a rename is
answered EXDEV, as between two filesystems: mv, shutil.move and the like then copy the
source and delete it, and those deletions are judged (trashed, counted) where the data
lived. RENAME_EXCHANGE is judged both ways.
"""

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
