"""rm's per-entry walk below the depth where a path is still short enough to use.

Walker.directory goes by path. A directory whose path would pass PATH_MAX (less a
margin for the real absolute path the trash records) is walked here instead, every
call relative to its parent's descriptor, as GNU's fts walks: so depth has no limit.
The Items found here carry (parent descriptor, name, real parent path), and the trash
moves them relative to that descriptor. Descriptors stay open while an Item needs
them; the process ends soon after the trash is done.

The prompts (-i, or a write-protected entry with stdin a terminal) are not asked
this deep: such a walk stops with GNU's `File name too long` and keeps everything.

chattr +i/+a stops even the root, as in the walk by path: nothing in a pinned
directory is removed (GNU empties a subdirectory there, then fails to remove it), nor
a pinned entry itself. One ioctl per directory listed and per file found.
"""

import errno
import os
import stat

from .options import quote
from .rmwalk import Item, child_of

_BUDGET = 3072  # bytes of real absolute path the trash and its info file still take
_DIR = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK


def too_long(path):
    """Whether path, made absolute, is past what path-based calls may use."""
    if path.startswith(b"/"):
        return len(path) > _BUDGET
    return len(path) + len(os.getcwd()) + 1 > _BUDGET


def descend(walker, parent, name, path, top_dev, st, parent_st):
    """Walker.directory()'s (items, marked, removed) for parent/name (= path), by
    descriptor from parent, whose path is still short."""
    from ..resolve import real_directory

    if _could_prompt(walker.opts):
        walker.tool.cannot(b"cannot remove", path, errno.ENAMETOOLONG)
        return [], True, False
    try:
        parent_fd = os.open(parent, _DIR)
        real_parent, _ = real_directory(parent)
    except OSError as exc:
        walker.tool.cannot(b"cannot remove", path, exc.errno)
        return [], True, False
    from ..removable import pinned_fd

    at = (parent_fd, name, real_parent)
    found = directory(walker, at, path, top_dev, st, parent_st, pinned_fd(parent_fd))
    if not _uses(found[0], parent_fd):
        os.close(parent_fd)
    return found


def _could_prompt(opts):
    from .rmwalk import ALWAYS, SOMETIMES

    return opts.interactive == ALWAYS or (
        opts.interactive == SOMETIMES and opts.stdin_tty and not opts.ignore_missing
    )


def _uses(items, fd):
    return any(item.at is not None and item.at[0] == fd for item in items)


def directory(walker, at, path, top_dev, st, parent_st, in_pinned=False):
    """(items, marked, removed) for the directory at = (parent fd, name, real parent);
    in_pinned: its parent has chattr +i/+a, so it cannot go itself."""
    from .. import removable

    tool, opts, user = walker.tool, walker.opts, walker.user
    parent_fd, name, real_parent = at
    real = real_parent.rstrip(b"/") + b"/" + name
    try:
        fd = os.open(name, _DIR, dir_fd=parent_fd)
    except OSError as exc:
        fd, failure = None, exc.errno
    try:
        entries = list(os.scandir(fd)) if fd is not None else None
    except OSError as exc:
        entries, failure = None, exc.errno
    if entries is None and removable.empty_despite_mode(name, st, user, parent_fd):
        entries = []
    pinned = fd is not None and removable.pinned_fd(fd)
    items, marked, complete = [], False, True
    if entries is None:
        tool.cannot(b"cannot remove", path, failure)
        marked = True
    for entry in entries or ():
        child = child_of(path, os.fsencode(entry.name))
        child_at = (fd, os.fsencode(entry.name), real)
        try:
            child_st = entry.stat(follow_symlinks=False)
        except OSError as exc:
            tool.cannot(b"cannot remove", child, exc.errno)
            marked = True
            continue
        if not stat.S_ISDIR(child_st.st_mode):
            err = _unlink_errno(walker, child, child_st, st, child_at, pinned)
            if err:
                tool.cannot(b"cannot remove", child, err)
                marked = True
            else:
                items.append(Item(child, False, _verbose(opts, b"removed ", child), at=child_at))
            continue
        if opts.one_file_system and child_st.st_dev != top_dev:
            tool.error(b"skipping " + quote(child) + b", since it's on a different device")
            marked, complete = True, False
            continue
        if not (opts.verbose or pinned) and _whole(child, child_st, st, user, child_at):
            items.append(Item(child, True, [], at=child_at))
            continue
        sub_items, sub_marked, removed = directory(
            walker, child_at, child, top_dev, child_st, st, pinned
        )
        items += sub_items
        marked, complete = marked or sub_marked, complete and removed
    found = _finish(walker, at, path, (st, parent_st), items, marked, complete, in_pinned or pinned)
    if fd is not None and not _uses(found[0], fd):
        os.close(fd)
    return found


def _finish(walker, at, path, stats, items, marked, complete, pinned):
    """The directory itself once its entries are done: one Item when all went.

    stats: (its lstat, its parent's); pinned: chattr +i/+a on it or its parent."""
    from .. import removable

    st, parent_st = stats
    if marked:
        return items, marked, False
    if not complete:
        walker.tool.cannot(b"cannot remove", path, errno.ENOTEMPTY)
        return items, True, False
    err = 0 if walker.privileged else removable.removal_errno(path, st, walker.user, parent_st)
    if not err and stat.S_ISDIR(st.st_mode) and parent_st.st_dev != st.st_dev:
        err = errno.EBUSY
    err = err or (errno.EPERM if pinned else 0)
    if err:
        walker.tool.cannot(b"cannot remove", path, err)
        return items, True, False
    lines = [line for item in items for line in item.lines]
    lines += _verbose(walker.opts, b"removed directory ", path)
    return [Item(path, True, lines, at=at)], False, True


def _unlink_errno(walker, path, st, parent_st, at, in_pinned):
    """The errno GNU's unlink of the file at = (dir fd, name, real dir) meets, or 0."""
    from .. import removable

    err = 0 if walker.privileged else removable.removal_errno(path, st, walker.user, parent_st)
    if not err and (in_pinned or removable.pinned(at[1], st, dir_fd=at[0])):
        err = errno.EPERM
    return err


def _whole(path, st, parent_st, user, at):
    from .. import removable

    if removable.removal_errno(path, st, user, parent_st):
        return False
    return removable.whole_tree(path, st, user, at=(at[0], at[1], at[2] + b"/" + at[1]))


def _verbose(opts, what, path):
    return [what + quote(path)] if opts.verbose else []
