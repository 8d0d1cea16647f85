"""Which entries GNU rm would remove, found the way its traversal finds them.

The walk visits operands and (with -r) their trees in GNU's order, prints GNU's
errors and prompts as it goes, and predicts which removals would succeed. Nothing is
removed here: the result is a list of Items to trash. A directory whose whole
content would go is one Item, so `rm -rf big/` stays a single rename. The directory
half of the walk is core/gnu/rmwalkdir.py, loaded only for a directory operand.
"""

import errno
import os
import stat

from .options import quote

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
        from . import rmwalkdir  # directories only: `rm FILE` never loads the tree walk

        return rmwalkdir.operand(self, path, st)

    @property
    def user(self):
        if self._user is None:
            from ..removable import User

            self._user = User()
        return self._user

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
        from .. import removable

        err = (
            0
            if self.privileged and not is_dir
            else removable.removal_errno(path, st, self.user, parent_st)
        )
        if (
            not err
            and (walking or is_dir)
            and (removable.pinned(path, st) or self.parent_pinned(path))
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
        from .. import removable

        key = directory.rstrip(b"/") + b"/"
        if self._pinned_parents.get(key) is None:
            try:
                self._pinned_parents[key] = removable.pinned(key, os.stat(key))
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
