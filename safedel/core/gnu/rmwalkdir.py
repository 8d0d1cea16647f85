"""The directory half of rm's walk (core/gnu/rmwalk.py): loaded only when an operand is a
directory, so that `rm FILE` does not pay for it.

Each function takes the rmwalk.Walker doing the walk. A directory whose whole content
would go is one Item, so `rm -rf big/` stays a single rename; otherwise the walk goes
in, in GNU's order, and predicts which removals would succeed.
"""

import errno
import os

from .options import quote
from .rmwalk import ALWAYS, OK, SOMETIMES, Item, child_of


def dot_or_dotdot(path):
    base = path.lstrip(b"/")
    parts = base.split(b"/")
    while len(parts) > 1 and not parts[-1]:
        parts.pop()
    last = parts[-1] if parts else b""
    return last in (b".", b"..")


def is_empty_dir(path):
    try:
        with os.scandir(path) as entries:
            return next(entries, None) is None
    except OSError:
        return False


def rmdeep_too_long(path):
    """Whether path needs the descriptor walk (rmdeep); the cheap test comes first."""
    if len(path) < 1024:
        return False
    from .rmdeep import too_long

    return too_long(path)


def operand(walker, path, st):
    opts = walker.opts
    if not opts.recursive and not (opts.remove_empty_dirs and is_empty_dir(path)):
        walker.tool.cannot(
            b"cannot remove", path, errno.ENOTEMPTY if opts.remove_empty_dirs else errno.EISDIR
        )
        return []
    if dot_or_dotdot(path):
        walker.tool.error(b"refusing to remove '.' or '..' directory: skipping " + quote(path))
        return []
    if opts.root and (st.st_dev, st.st_ino) == (opts.root.st_dev, opts.root.st_ino):
        same = b"" if path == b"/" else b" (same as '/')"
        walker.tool.error(b"it is dangerous to operate recursively on " + quote(path) + same)
        walker.tool.err(b"use --no-preserve-root to override this failsafe")
        return []
    if opts.preserve_all_root and not same_device_as_parent(walker, path, st):
        return []
    if protected(path):
        return [Item(path, True, [])]  # refused whole, untouched, by rmtrash
    if walk_always(walker, path) or not whole(walker, path, st) or walker.parent_pinned(path):
        return directory(walker, path, st.st_dev, st)[0]
    return [Item(path, True, [])]


def protected(path):
    from .. import deletion

    return deletion.protected(path)


def whole(walker, path, st, parent_st=None):
    """True when GNU would remove the directory path and all of it, asking nothing
    on the way: one rename."""
    from .. import removable

    opts = walker.opts
    asks = opts.interactive == SOMETIMES and opts.stdin_tty and not opts.ignore_missing
    user = walker.user
    return not removable.removal_errno(path, st, user, parent_st) and removable.whole_tree(
        path, st, user, asks
    )


def walk_always(walker, path):
    """-i, -v, --one-file-system and `link/` need every entry visited; a possible
    write-protected prompt only if the tree holds something write-protected."""
    opts = walker.opts
    return opts.interactive == ALWAYS or opts.verbose or opts.one_file_system or is_link_slash(path)


def is_link_slash(path):
    return path.endswith(b"/") and os.path.islink(path.rstrip(b"/") or b"/")


def same_device_as_parent(walker, path, st):
    parent = path + (b".." if path.endswith(b"/") else b"/..")
    try:
        parent_dev = os.lstat(parent).st_dev
    except OSError:
        walker.tool.error(b"failed to stat " + quote(parent) + b": skipping " + quote(path))
        return False
    if parent_dev != st.st_dev:
        walker.tool.error(b"skipping " + quote(path) + b", since it's on a different device")
        walker.tool.err(b"and --preserve-root=all is in effect")
        return False
    return True


def directory(walker, path, top_dev, st):
    """(items, marked, removed) for a directory and its tree, in GNU's order.

    A subdirectory GNU would remove whole, with nothing to ask or print on the
    way, becomes one item (one rename); the walk goes into the others.
    """
    empty = is_empty_dir(path) or empty_despite_mode(walker, path, st)
    status = walker.prompt(path, True, True, empty)
    if status == OK and empty:
        item = excise_dir(walker, path, [])
        return ([item], False, True) if item else ([], True, False)
    if status != OK:
        return [], True, False
    items, marked, complete = [], False, True
    try:
        with os.scandir(path) as listing:
            entries = list(listing)
    except OSError as exc:
        walker.tool.cannot(b"cannot remove", path, exc.errno)
        return [], True, False
    quiet = not walk_always(walker, path)
    pinned = walker.dir_pinned(path)
    for entry in entries:
        child = child_of(path, entry.name)
        try:
            child_st = entry.stat(follow_symlinks=False)
        except OSError:
            child_st = None
        if not entry.is_dir(follow_symlinks=False):
            item = walker.leaf(child, child_st, st)
            items += [item] if item else []
            # A failure marks the ancestors (GNU then skips them silently); a
            # declined file only leaves its directory not empty.
            marked = marked or item is False
            complete = complete and item is not None
            continue
        if walker.opts.one_file_system and child_st and child_st.st_dev != top_dev:
            walker.tool.error(b"skipping " + quote(child) + b", since it's on a different device")
            marked, complete = True, False
            continue
        if child_st and rmdeep_too_long(child):
            from . import rmdeep

            found = rmdeep.descend(
                walker, path, os.fsencode(entry.name), child, top_dev, child_st, st
            )
            items += found[0]
            marked, complete = marked or found[1], complete and found[2]
            continue
        # In a chattr +i/+a directory GNU empties a subdirectory, then fails to
        # remove it: no whole rename there.
        if quiet and child_st and whole(walker, child, child_st, st) and not pinned:
            items.append(Item(child, True, []))
            continue
        sub_items, sub_marked, removed = directory(walker, child, top_dev, child_st)
        items += sub_items
        marked, complete = marked or sub_marked, complete and removed
    if marked or walker.prompt(path, True, False, False) != OK:
        return items, marked, False
    if not complete:
        walker.tool.cannot(b"cannot remove", path, errno.ENOTEMPTY)
        return items, True, False
    item = excise_dir(walker, path, items)
    return ([item], False, True) if item else (items, True, False)


def empty_despite_mode(walker, path, st):
    """An unreadable directory is removed by GNU if it is empty; its owner can tell."""
    if st is None or os.access(path, os.R_OK):
        return False
    from .. import removable

    return removable.empty_despite_mode(path, st, walker.user, None)


def excise_dir(walker, path, items):
    if is_link_slash(path):
        if not walker.opts.ignore_missing:
            walker.tool.cannot(b"cannot remove", path, errno.ENOTDIR)
        return None
    if walker.cannot_remove(path):
        return None
    lines = [line for item in items for line in item.lines]
    if walker.opts.verbose:
        lines.append(b"removed directory " + quote(path))
    return Item(path, True, lines)
