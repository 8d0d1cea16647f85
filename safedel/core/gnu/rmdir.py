"""GNU rmdir and unlink (coreutils 9.x); what they remove goes to the trash.

Each operand's system call is predicted from lstat (and, for rmdir -p, from what
the earlier operands will have removed), GNU's message is printed for the ones
that would fail, and the rest are trashed as one guarded batch.
"""

import errno
import os
import stat

from . import options, rmtrash
from .options import locale_quote, quote
from .rmwalk import Item

# rmdir --ignore-fail-on-non-empty also forgives these when the directory has entries.
_MAYBE_NON_EMPTY = (errno.EACCES, errno.EPERM, errno.EROFS, errno.EBUSY)
_HELP = {
    "rmdir": "Usage: rmdir [OPTION]... DIRECTORY...\n"
    "Remove the DIRECTORY(ies), if they are empty; with safedel, they go to the trash.\n\n"
    "      --ignore-fail-on-non-empty\n"
    "                    ignore each failure that is solely because a directory\n"
    "                    is non-empty\n\n"
    "  -p, --parents     remove DIRECTORY and its ancestors; e.g., 'rmdir -p a/b/c'\n"
    "                    is similar to 'rmdir a/b/c a/b a'\n\n"
    "  -v, --verbose     output a diagnostic for every directory processed\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n",
    "unlink": "Usage: unlink FILE\n  or:  unlink OPTION\n"
    "Call the unlink function to remove the specified FILE; with safedel, it goes to the trash.\n\n"
    "      --help        display this help and exit\n"
    "      --version     output version information and exit\n",
}


def _standard(tool, option):
    if option == "help":
        tool.write_out(_HELP[tool.name].encode())
    else:
        tool.write_out(
            f"{tool.name} (safedel) GNU-compatible front end; removals go to the trash\n".encode()
        )
    raise options.Exit(0)


class RmdirPlanner:
    def __init__(self, tool, ignore_non_empty, verbose):
        self.tool, self.ignore_non_empty, self.verbose = tool, ignore_non_empty, verbose
        self.gone = set()  # (dev, ino) of directories planned away, for rmdir -p

    def is_empty(self, path):
        try:
            dev = os.lstat(path).st_dev
            with os.scandir(path) as listing:
                return all((dev, entry.inode()) in self.gone for entry in listing)
        except OSError:
            return False

    def predict(self, path):
        """The errno rmdir(path) would fail with once earlier plans are done, or 0."""
        parts = [p for p in path.split(b"/") if p]
        if parts and parts[-1] == b".":
            return errno.EINVAL
        if parts and parts[-1] == b"..":
            return errno.ENOTEMPTY
        if path.endswith(b"/") and os.path.islink(path.rstrip(b"/") or b"/"):
            return errno.ENOTDIR  # Linux's rmdir does not follow `link/`
        try:
            st = os.lstat(path)
        except OSError as exc:
            return exc.errno
        if not stat.S_ISDIR(st.st_mode) or os.path.islink(path.rstrip(b"/") or b"/"):
            return errno.ENOTDIR
        try:
            # The parent by name: going through '..' would need search permission on
            # the directory itself, which rmdir does not.
            head = path.rstrip(b"/")
            parent = os.stat((os.path.dirname(head) or b".") if head else b"/")
        except OSError as exc:
            return exc.errno
        if (parent.st_dev, parent.st_ino) == (st.st_dev, st.st_ino) or parent.st_dev != st.st_dev:
            return errno.EBUSY
        from .. import removable

        # The kernel judges the parent (write, search, sticky) before the contents.
        denied = removable.removal_errno(path, st, removable.User(), parent)
        if denied:
            return denied
        if self.is_empty(path) or removable.empty_despite_mode(path, st, removable.User(), None):
            return 0
        return errno.ENOTEMPTY

    @staticmethod
    def symlink_not_followed(path):
        """GNU's wording for `rmdir link/` when link leads to a directory, or nowhere."""
        if not path.endswith(b"/") or not os.path.islink(path.rstrip(b"/") or b"/"):
            return False
        try:
            return stat.S_ISDIR(os.stat(path).st_mode)
        except OSError as exc:
            return exc.errno != errno.ENOTDIR

    def ignorable(self, err, path):
        if not self.ignore_non_empty:
            return False
        if err in (errno.ENOTEMPTY, errno.EEXIST):
            return True
        return err in _MAYBE_NON_EMPTY and os.path.isdir(path) and self.seen_entries(path)

    def seen_entries(self, path):
        """True when path lists an entry not planned away. GNU takes a directory it
        cannot read for an empty one, so that failure is reported, not forgiven."""
        try:
            with os.scandir(path) as listing:
                return not self.all_gone(path, listing)
        except OSError:
            return False

    def all_gone(self, path, listing):
        dev = os.lstat(path).st_dev
        return all((dev, entry.inode()) in self.gone for entry in listing)

    def attempt(self, path, items):
        if self.verbose:
            self.tool.out(self.tool.prog + b": removing directory, " + quote(path))
        err = self.predict(path)
        if not err:
            st = os.lstat(path)
            self.gone.add((st.st_dev, st.st_ino))
            items.append(Item(path, True, [], whole=False))
        return err

    def operand(self, path, items, parents):
        err = self.attempt(path, items)
        if err:
            if self.ignorable(err, path):
                return
            if err == errno.ENOTDIR and self.symlink_not_followed(path):
                self.tool.error(
                    b"failed to remove " + quote(path) + b": Symbolic link not followed"
                )
            else:
                self.tool.cannot(b"failed to remove", path, err)
            return
        path = path.rstrip(b"/") or b"/"
        while parents and b"/" in path:
            path = path[: path.rindex(b"/")].rstrip(b"/") or b"/"
            err = self.attempt(path, items)
            if err:
                if not self.ignorable(err, path):
                    what = (
                        b"failed to remove"
                        if err == errno.ENOTDIR
                        else b"failed to remove directory"
                    )
                    self.tool.cannot(what, path, err)
                return
            if path == b"/":
                return


def rmdir(argv, runtime="rmdir"):
    tool = options.Tool("rmdir")
    flags = {"parents": False, "ignore-fail-on-non-empty": False, "verbose": False}

    def handle(option, value):
        if option in ("help", "version"):
            _standard(tool, option)
        flags[option] = True

    long = {name: options.NO_ARG for name in ("ignore-fail-on-non-empty", "parents", "verbose")}
    long.update(help=options.NO_ARG, version=options.NO_ARG)
    return _main(
        tool,
        argv,
        {"p": "parents", "v": "verbose"},
        long,
        handle,
        lambda dirs: _plan_rmdir(tool, dirs, flags),
        runtime,
    )


def _plan_rmdir(tool, dirs, flags):
    planner = RmdirPlanner(tool, flags["ignore-fail-on-non-empty"], flags["verbose"])
    items = []
    for path in dirs:
        planner.operand(path, items, flags["parents"])
    return items, b"failed to remove"


def unlink(argv, runtime="unlink"):
    tool = options.Tool("unlink")
    long = {"help": options.NO_ARG, "version": options.NO_ARG}
    return _main(
        tool,
        argv,
        {},
        long,
        lambda o, v: _standard(tool, o),
        lambda f: _plan_unlink(tool, f),
        runtime,
    )


def _plan_unlink(tool, files):
    if len(files) > 1:
        tool.usage_error(b"extra operand " + locale_quote(files[1]))
    path = files[0]
    try:
        st = os.lstat(path)
        err = errno.EISDIR if stat.S_ISDIR(st.st_mode) else 0
    except OSError as exc:
        err = exc.errno
    # unlink("x/"): ENOTDIR for a link (dangling or not) or a file; EISDIR for a dir.
    stripped = path.rstrip(b"/")
    if path != stripped and os.path.lexists(stripped):
        err = errno.ENOTDIR if err == errno.ENOENT or os.path.islink(stripped) else err
    if err:
        tool.cannot(b"cannot unlink", path, err)
        return [], b"cannot unlink"
    return [Item(path, False, [])], b"cannot unlink"


def _main(tool, argv, short, long, handle, plan, runtime):
    def body():
        try:
            operands = options.parse(tool, argv, short, long, handle)
        except options.UsageError as exc:
            tool.usage_error(exc.message)
        if not operands:
            tool.usage_error(b"missing operand")
        items, what = plan([os.fsencode(o) for o in operands])
        rmtrash.apply(tool, runtime, items, None, what)

    return tool.run(body)
