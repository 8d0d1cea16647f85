"""find ... -delete, with what -delete would remove going to the trash instead.

Without -delete the real find runs untouched (but for an -exec of the real rm, rmdir,
unlink or find by a path, which runs their launcher: findexec). With it, the real
find runs with each -delete action replaced by `-fprint0` into a pipe (and -depth,
which -delete implies), so find itself decides what matches, in its depth-first
order. The list is then trashed in that order as one guard batch. A directory listed
after all of its entries becomes a single item, so `find build -delete` is one rename.

That is exact only for a plain expression (_listing_is_exact). Any other runs the
real find unchanged, its unlinkat calls answered one by one (findsync).
"""

import errno
import os
import stat

from . import findexec, options, rmtrash
from .launch import exec_real, real_tool
from .options import locale_quote
from .quoting import original_environ
from .rmwalk import Item, child_of

_LEADING = (b"-H", b"-L", b"-P")
_TWO_ARGS = (b"-fprintf",)
_ONE_ARG = frozenset(
    b"-" + name
    for name in (
        b"name iname path ipath wholename iwholename regex iregex lname ilname type xtype"
        b" user group uid gid perm size mtime atime ctime mmin amin cmin newer anewer cnewer"
        b" samefile inum links maxdepth mindepth fstype used context fprint fprint0 fls"
        b" regextype printf files0-from"
    ).split()
)
_EXEC = findexec.EXEC
_OUTPUT = (*_EXEC, b"-print", b"-print0", b"-printf", b"-ls", b"-fprint", b"-fprint0")
_OUTPUT += (b"-fprintf", b"-fls")
PRUNE_WITH_DELETE = (
    b"The -delete action automatically turns on -depth, but -prune does nothing when "
    b"-depth is in effect.  If you want to carry on anyway, just explicitly use the "
    b"-depth option."
)
# What the listing pass may meet and still match GNU: tests that look at nothing a
# deletion earlier in the same walk changes (names, types, owners, modes), options,
# operators, and the plain printing actions (before -delete: see _listing_is_exact).
_STILL = frozenset(
    b"-" + name
    for name in (
        b"name iname path ipath wholename iwholename regex iregex lname ilname type user"
        b" group uid gid nouser nogroup perm inum samefile fstype context readable writable"
        b" executable true false maxdepth mindepth depth d xdev mount noleaf regextype"
        b" ignore_readdir_race noignore_readdir_race warn nowarn not and or a o"
        b" print print0 fprint fprint0 delete"
    ).split()
) | {b"(", b")", b"!", b","}


def expression_start(args):
    """Index of the first expression token, after leading options and starting points."""
    i = 0
    while i < len(args) and (args[i] in _LEADING or args[i][:2] in (b"-D", b"-O")):
        i += 2 if args[i] == b"-D" else 1
    if i < len(args) and args[i] == b"--":
        i += 1  # the end of find's options: what follows may be `-delete` itself
    while i < len(args):
        arg = args[i]
        if (arg[:1] == b"-" and len(arg) > 1) or arg in (b"(", b"!", b")", b","):
            break
        i += 1
    return i


def action_tokens(args, start):
    """Indexes of the expression's operators (not the arguments of its tests)."""
    i = start
    while i < len(args):
        arg = args[i]
        yield i
        if arg in _EXEC:
            i += 1
            while i < len(args) and not (
                args[i] == b";" or (args[i] == b"+" and args[i - 1] == b"{}")
            ):
                i += 1
        elif arg in _TWO_ARGS:
            i += 2
        elif arg in _ONE_ARG or (arg.startswith(b"-newer") and len(arg) == 8):
            i += 1
        i += 1


def run(argv, launcher):
    args = [os.fsencode(a) for a in argv]
    start = expression_start(args)
    operators = {i: args[i] for i in action_tokens(args, start)}
    args = findexec.reroute(args, operators, launcher)  # -exec /bin/rm: the launcher
    deletes = [i for i, arg in operators.items() if arg == b"-delete"]
    if not deletes:
        exec_real("find", launcher, args)
    tool = options.Tool("find", quoter=locale_quote)
    values = operators.values()
    if b"-prune" in values and b"-depth" not in values and b"-d" not in values:
        tool.err(PRUNE_WITH_DELETE)
        return 1
    real = real_tool("find", launcher)
    if real is None:
        tool.err(b"safedel found no real find on PATH")
        return 127
    if not _listing_is_exact(args, start, operators, deletes):
        from . import findsync

        status = findsync.run(tool, real, [b"find", *args], original_environ())
        if status is not None:
            return status
    status, listed = _run_listing(real, args, start, set(deletes))
    links = _Links(args, start)
    rmtrash.apply(tool, "find", _items(tool, listed, links), None, b"cannot delete")
    if b"-empty" in values and not any(arg in _OUTPUT for arg in values):
        status = _again_while_emptied(tool, real, args, start, deletes, listed, links) or status
    return 1 if tool.failed else status


def _listing_is_exact(args, start, operators, deletes):
    """Whether listing first and trashing after gives GNU's result: -delete's value
    decides nothing (only `)` follows each -delete), nothing in the expression sees
    what earlier deletions changed (a directory's -empty, times, size, link count;
    -exec, -ls, -printf), and links are not followed below the starting points."""
    if b"-L" in args[:start] or b"-follow" in operators.values():
        return False
    if any(arg not in _STILL for arg in operators.values()):
        return False
    return all(arg == b")" for i in deletes for arg in args[i + 1 :])


def _again_while_emptied(tool, real, args, start, deletes, listed, links):
    """GNU find re-tests -empty after a directory's contents are deleted, in the same
    walk: `-type d -empty -delete` on p/q/r removes r, then q, then p. The listing pass
    cannot see its own deletions, so it runs again while the last pass removed
    something, trashing only entries it had not listed before. (Only for expressions
    that print nothing, so no output is repeated; find's own messages from the later
    passes, repeats of the first one's, are dropped.)"""
    seen, status = set(listed), 0
    while any(not os.path.lexists(path) for path in listed):
        code, listed = _run_listing(real, args, start, set(deletes), quiet=True)
        listed = [path for path in listed if path not in seen]
        if not listed:
            break
        seen.update(listed)
        status = status or code
        rmtrash.apply(tool, "find", _items(tool, listed, links), None, b"cannot delete")
    return status


class _Links:
    """How find treats symbolic links (-P, -H, -L: the last one given wins).

    Where find follows a link to a directory (-L everywhere, -H for a starting
    point), that link is a directory to it, and -delete's rmdir of a link fails with
    ENOTDIR, so the link stays. Under -L one entry can be reached by several paths;
    GNU deletes it at the first and no longer meets it at the others.
    """

    def __init__(self, args, start):
        mode = b"-P"
        for arg in args[:start]:
            if arg in _LEADING:
                mode = arg
        self.mode = mode
        self.starts = {arg for arg in args[:start] if arg[:1] != b"-"}
        self.seen = set()

    def followed(self, path):
        return self.mode == b"-L" or (self.mode == b"-H" and path in self.starts)

    def dir_link(self, path, st):
        if not stat.S_ISLNK(st.st_mode) or not self.followed(path):
            return False
        try:
            return stat.S_ISDIR(os.stat(path).st_mode)
        except OSError:
            return False

    def met_before(self, st):
        if self.mode != b"-L":
            return False
        key = (st.st_dev, st.st_ino)
        found = key in self.seen
        self.seen.add(key)
        return found


def _run_listing(real, args, start, deletes, quiet=False):
    """Run the real find, reading the NUL-separated list its -fprint0 writes to a pipe."""
    read_end, write_end = os.pipe()
    target = b"/dev/fd/%d" % write_end
    expression = []
    for i, arg in enumerate(args[start:], start):
        expression += [b"-fprint0", target] if i in deletes else [arg]
    command = [b"find", *args[:start], b"-depth", *expression]
    os.set_inheritable(write_end, True)
    try:
        actions = [(os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)] if quiet else []
        pid = os.posix_spawn(real, command, original_environ(), file_actions=actions)
    finally:
        os.close(write_end)
    chunks = []
    with os.fdopen(read_end, "rb") as pipe:
        for chunk in iter(lambda: pipe.read(65536), b""):
            chunks.append(chunk)
    status = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    if status < 0:
        os.kill(os.getpid(), -status)
    return status, b"".join(chunks).split(b"\0")[:-1]


def _items(tool, listed, links):
    """Items in find's order; a directory listed after all its entries absorbs them.

    An entry whose unlink or rmdir GNU find would see fail (the parent's permission
    bits, the sticky rule, a mount point) gets find's message and stays, and so does
    every directory above it: never a whole rename over something GNU keeps.
    """
    from .. import removable

    user = removable.User()
    parents = {}

    def pinned_parent(path):
        head = path.rstrip(b"/")
        parent = head[: head.rindex(b"/")] or b"/" if b"/" in head else b"."
        if parent not in parents:
            try:
                parents[parent] = removable.pinned(parent, os.stat(parent))
            except OSError:
                parents[parent] = False
        return parents[parent]

    items, whole, absorbed = [], {}, set()  # whole: listed paths gone with all they hold
    for path in listed:
        if path == b".":
            continue  # find -delete never removes the starting point '.'
        last = path.rstrip(b"/").rsplit(b"/", 1)[-1]
        if last in (b".", b".."):
            tool.cannot(b"cannot delete", path, errno.EINVAL if last == b"." else errno.ENOTEMPTY)
            continue
        try:
            st = os.lstat(path)
        except OSError as exc:
            tool.cannot(b"cannot delete", path, exc.errno)
            continue
        if links.met_before(st):
            continue
        denied = errno.ENOTDIR if links.dir_link(path, st) else 0
        denied = denied or removable.removal_errno(path, st, user)
        if not denied and (removable.pinned(path, st) or pinned_parent(path)):
            denied = errno.EPERM
        if not denied and stat.S_ISDIR(st.st_mode) and removable.is_mount_point(path):
            denied = errno.EBUSY
        if denied:
            tool.cannot(b"cannot delete", path, denied)
            continue
        is_dir = stat.S_ISDIR(st.st_mode)
        item, complete = Item(path, is_dir, [], whole=False), True
        if is_dir:
            try:
                children = [child_of(path, name) for name in os.listdir(path)]
            except OSError:
                children = [None]
            complete = all(child in whole for child in children)
            if complete:
                item.whole = True
                for child in children:
                    absorbed.add(id(whole.pop(child)))
        items.append(item)
        if complete:
            whole[path] = item
    return [item for item in items if id(item) not in absorbed]
