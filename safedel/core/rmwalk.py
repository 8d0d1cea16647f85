"""Which entries GNU rm would remove, found the way its traversal finds them.

The walk visits operands and (with -r) their trees in GNU's order, prints GNU's
errors and prompts as it goes, and predicts which removals would succeed. Nothing is
removed here: the result is a list of Items to trash. A directory whose whole
content would go is one Item, so `rm -rf big/` stays a single rename.
"""

import errno
import os
import stat

from .gnuopt import quote

NEVER, SOMETIMES, ALWAYS = "never", "sometimes", "always"
OK, DECLINED, ERROR = 0, 1, 2


class Options:
    def __init__(self):
        self.interactive = SOMETIMES
        self.ignore_missing = False
        self.recursive = False
        self.remove_empty_dirs = False
        self.one_file_system = False
        self.preserve_all_root = False
        self.stdin_tty = os.isatty(0)
        self.verbose = False
        self.root = None  # lstat("/") while --preserve-root guards a recursive rm


class Item:
    """One thing to trash; lines are the `removed ...` lines -v prints once it is gone.

    A directory that is not whole (rmdir's, or find's when it keeps entries) may be
    trashed only once it is empty, as the rmdir it stands for would require.
    """

    __slots__ = ("path", "is_dir", "lines", "whole", "at")

    def __init__(self, path, is_dir, lines, whole=True, at=None):
        self.path, self.is_dir, self.lines, self.whole = path, is_dir, lines, whole
        self.at = at  # (parent fd, name, real parent path) past PATH_MAX (rmdeep)


def trim_slashes(path):
    """GNU's traversal keeps one trailing slash of several: 'd///' is shown as 'd/'."""
    end = len(path)
    if end > 2 and path.endswith(b"/"):
        while end > 1 and path[end - 2 : end - 1] == b"/":
            end -= 1
    return path[:end]


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


def child_of(path, name):
    return (path[:-1] if path.endswith(b"/") else path) + b"/" + name


class Walker:
    def __init__(self, tool, opts):
        self.tool, self.opts = tool, opts
        self.privileged = os.geteuid() == 0
        self._user = None
        self._pinned_parents = {}

    def plan(self, operands):
        items = []
        for operand in operands:
            items += self.operand(trim_slashes(operand))
        return items

    def operand(self, path):
        try:
            st = os.lstat(path)
        except OSError as exc:
            return self.missing(path, exc.errno)
        if not stat.S_ISDIR(st.st_mode):
            item = self.leaf(path)
            return [item] if item else []
        opts = self.opts
        if not opts.recursive and not (opts.remove_empty_dirs and is_empty_dir(path)):
            self.tool.cannot(
                b"cannot remove", path, errno.ENOTEMPTY if opts.remove_empty_dirs else errno.EISDIR
            )
            return []
        if dot_or_dotdot(path):
            self.tool.error(b"refusing to remove '.' or '..' directory: skipping " + quote(path))
            return []
        if opts.root and (st.st_dev, st.st_ino) == (opts.root.st_dev, opts.root.st_ino):
            same = b"" if path == b"/" else b" (same as '/')"
            self.tool.error(b"it is dangerous to operate recursively on " + quote(path) + same)
            self.tool.err(b"use --no-preserve-root to override this failsafe")
            return []
        if opts.preserve_all_root and not self.same_device_as_parent(path, st):
            return []
        if self.protected(path):
            return [Item(path, True, [])]  # refused whole, untouched, by rmtrash
        if self.walk_always(path) or not self.whole(path, st) or self.parent_pinned(path):
            return self.directory(path, st.st_dev, st)[0]
        return [Item(path, True, [])]

    @staticmethod
    def protected(path):
        from . import deletion

        return deletion.protected(path)

    @property
    def user(self):
        if self._user is None:
            from .rmcheck import User

            self._user = User()
        return self._user

    def whole(self, path, st, parent_st=None):
        """True when GNU would remove the directory path and all of it, asking nothing
        on the way: one rename."""
        from . import rmcheck

        opts = self.opts
        asks = opts.interactive == SOMETIMES and opts.stdin_tty and not opts.ignore_missing
        user = self.user
        return not rmcheck.removal_errno(path, st, user, parent_st) and rmcheck.whole_tree(
            path, st, user, asks
        )

    def walk_always(self, path):
        """-i, -v, --one-file-system and `link/` need every entry visited; a possible
        write-protected prompt only if the tree holds something write-protected."""
        opts = self.opts
        return (
            opts.interactive == ALWAYS
            or opts.verbose
            or opts.one_file_system
            or self.is_link_slash(path)
        )

    def cannot_remove(self, path, st=None, parent_st=None):
        """Print GNU's message and return True where its unlink or rmdir would fail.

        chattr +i/+a stops even the root. It is looked for inside a walk, where a
        wrong guess would let a whole-directory rename take the entry along; an
        operand of its own meets the same EPERM in its rename (a cost `rm FILE`
        skips)."""
        walking = parent_st is not None
        if self.privileged and not walking and st is not None and not stat.S_ISDIR(st.st_mode):
            return False
        try:
            st = st or os.lstat(path)
        except OSError:
            return False  # gone meanwhile: the trash says so
        is_dir = stat.S_ISDIR(st.st_mode)
        if self.privileged and not (walking or is_dir):
            return False
        from . import rmcheck

        err = (
            0
            if self.privileged and not is_dir
            else rmcheck.removal_errno(path, st, self.user, parent_st)
        )
        if (
            not err
            and (walking or is_dir)
            and (rmcheck.pinned(path, st) or self.parent_pinned(path))
        ):
            err = errno.EPERM
        if err:
            self.tool.cannot(b"cannot remove", path, err)
        return bool(err)

    def parent_pinned(self, path):
        """Whether path's directory has chattr +i/+a."""
        head = path.rstrip(b"/")
        return self.dir_pinned(head[: head.rindex(b"/") + 1] if b"/" in head else b".")

    def dir_pinned(self, directory):
        """Whether the directory has chattr +i/+a (one ioctl per directory)."""
        from . import rmcheck

        key = directory.rstrip(b"/") + b"/"
        if self._pinned_parents.get(key) is None:
            try:
                self._pinned_parents[key] = rmcheck.pinned(key, os.stat(key))
            except OSError:
                self._pinned_parents[key] = False
        return self._pinned_parents[key]

    def prompt(self, path, is_dir, descend, empty):
        """rmprompt.prompt, imported only when GNU could ask a question at all."""
        opts = self.opts
        if opts.interactive != ALWAYS and (
            opts.interactive == NEVER or opts.ignore_missing or not opts.stdin_tty
        ):
            return OK
        from . import rmprompt

        return rmprompt.prompt(self, path, is_dir, descend, empty)

    @staticmethod
    def is_link_slash(path):
        return path.endswith(b"/") and os.path.islink(path.rstrip(b"/") or b"/")

    def same_device_as_parent(self, path, st):
        parent = path + (b".." if path.endswith(b"/") else b"/..")
        try:
            parent_dev = os.lstat(parent).st_dev
        except OSError:
            self.tool.error(b"failed to stat " + quote(parent) + b": skipping " + quote(path))
            return False
        if parent_dev != st.st_dev:
            self.tool.error(b"skipping " + quote(path) + b", since it's on a different device")
            self.tool.err(b"and --preserve-root=all is in effect")
            return False
        return True

    def missing(self, path, stat_errno):
        """An operand lstat can't see: GNU still tries to unlink it, and says why not."""
        opts = self.opts
        asks = opts.interactive == ALWAYS or (opts.stdin_tty and not self.privileged)
        if opts.interactive != NEVER and not opts.ignore_missing and asks:
            self.tool.cannot(b"cannot remove", path, stat_errno)
            return []
        unlink_errno = stat_errno
        if path.endswith(b"/") and os.path.lexists(path.rstrip(b"/")):
            unlink_errno = errno.ENOTDIR
        if not (opts.ignore_missing and unlink_errno in (errno.ENOENT, errno.ENOTDIR)):
            self.tool.cannot(b"cannot remove", path, unlink_errno)
        return []

    def leaf(self, path, st=None, parent_st=None):
        """An Item; None when not asked for; False when GNU's unlink would fail (said so)."""
        if self.prompt(path, False, False, False) != OK:
            return None
        if self.cannot_remove(path, st, parent_st):
            return False
        return Item(path, False, [b"removed " + quote(path)] if self.opts.verbose else [])

    def directory(self, path, top_dev, st):
        """(items, marked, removed) for a directory and its tree, in GNU's order.

        A subdirectory GNU would remove whole, with nothing to ask or print on the
        way, becomes one item (one rename); the walk goes into the others.
        """
        empty = is_empty_dir(path) or self.empty_despite_mode(path, st)
        status = self.prompt(path, True, True, empty)
        if status == OK and empty:
            item = self.excise_dir(path, [])
            return ([item], False, True) if item else ([], True, False)
        if status != OK:
            return [], True, False
        items, marked, complete = [], False, True
        try:
            with os.scandir(path) as listing:
                entries = list(listing)
        except OSError as exc:
            self.tool.cannot(b"cannot remove", path, exc.errno)
            return [], True, False
        quiet = not self.walk_always(path)
        pinned = self.dir_pinned(path)
        for entry in entries:
            child = child_of(path, entry.name)
            try:
                child_st = entry.stat(follow_symlinks=False)
            except OSError:
                child_st = None
            if not entry.is_dir(follow_symlinks=False):
                item = self.leaf(child, child_st, st)
                items += [item] if item else []
                # A failure marks the ancestors (GNU then skips them silently); a
                # declined file only leaves its directory not empty.
                marked = marked or item is False
                complete = complete and item is not None
                continue
            if self.opts.one_file_system and child_st and child_st.st_dev != top_dev:
                self.tool.error(b"skipping " + quote(child) + b", since it's on a different device")
                marked, complete = True, False
                continue
            if child_st and rmdeep_too_long(child):
                from . import rmdeep

                found = rmdeep.descend(
                    self, path, os.fsencode(entry.name), child, top_dev, child_st, st
                )
                items += found[0]
                marked, complete = marked or found[1], complete and found[2]
                continue
            # In a chattr +i/+a directory GNU empties a subdirectory, then fails to
            # remove it: no whole rename there.
            if quiet and child_st and self.whole(child, child_st, st) and not pinned:
                items.append(Item(child, True, []))
                continue
            sub_items, sub_marked, removed = self.directory(child, top_dev, child_st)
            items += sub_items
            marked, complete = marked or sub_marked, complete and removed
        if marked or self.prompt(path, True, False, False) != OK:
            return items, marked, False
        if not complete:
            self.tool.cannot(b"cannot remove", path, errno.ENOTEMPTY)
            return items, True, False
        item = self.excise_dir(path, items)
        return ([item], False, True) if item else (items, True, False)

    def empty_despite_mode(self, path, st):
        """An unreadable directory is removed by GNU if it is empty; its owner can tell."""
        if st is None or os.access(path, os.R_OK):
            return False
        from . import rmcheck

        return rmcheck.empty_despite_mode(path, st, self.user, None)

    def excise_dir(self, path, items):
        if self.is_link_slash(path):
            if not self.opts.ignore_missing:
                self.tool.cannot(b"cannot remove", path, errno.ENOTDIR)
            return None
        if self.cannot_remove(path):
            return None
        lines = [line for item in items for line in item.lines]
        if self.opts.verbose:
            lines.append(b"removed directory " + quote(path))
        return Item(path, True, lines)
