"""Which resolved paths the net leaves to the kernel (CONTINUE) without judging them.

- safedel's own bookkeeping: in a trash directory its `info/*.trashinfo` files and
  the `directorysizes` / `safedel-catalog` caches (and their temporary files); in the
  state directory everything but the report and its rotated segments. The shims only
  ever delete for real there or in exempt roots, so a shim's own call is recognised
  by where it points, not by who makes it: no per-process mark to forge or to lose
  across exec. What a trash holds (`files/`) and the report are judged like any path;
- exempt roots (the temp directory by default), judged on the real path;
- the git dir of the repository a git process works in (locks, gc, prune), never a
  nested repository's `.git` (see gitcaller);
- anything inside an ignored build tree (see ignored);
- a file git itself deletes whose content is the blob HEAD has at that path (see
  gitblobs), and the empty directories git prunes after it.
"""

import os

from ..core import trashdirs
from . import gitblobs, gitcaller, ignored, target

_TRASH_CACHES = (b"directorysizes", b"safedel-catalog")


class Places:
    def __init__(self, settings, environ):
        trashes = [os.fsdecode(trashdirs.home_trash(environ))]
        if settings.trash_dir:
            trashes.append(settings.trash_dir)
        # Prefixes ready for one str.startswith call per class: this runs on every call.
        self._trashes = _prefixes(trashes)
        self._state = _prefixes([settings.state_dir])
        self._report = os.path.realpath(settings.report) if settings.report else None
        self._exempt = _prefixes(settings.exempt)
        self._exempt_ids = _identities(self._exempt)
        self._uid = str(os.getuid())
        roots = environ.get("SAFEDEL_WORKSPACE_ROOTS") or ""
        anchors = [r for r in roots.split(os.pathsep) if r] + [os.getcwd()]
        self._anchors = [os.path.realpath(a) for a in anchors]
        self._ignored = {}  # real parent directory -> inside an ignored build tree?
        self._repos = {}  # directory -> its work tree top, or None
        self._git_dirs = {}  # (cwd, GIT_DIR) of a git process -> its git dirs
        self._blobs = gitblobs.Blobs()

    def left_to_kernel(self, path, tid, parent=None):
        """A short reason when the kernel should do this deletion itself, else None.
        parent: os.path.dirname(path), when the caller has it already."""
        # First the commonest answer (temp files); the order changes no outcome.
        if path.startswith(self._exempt):
            return "exempt"  # path is real already: its parent came from the kernel
        if parent is None:
            parent = os.path.dirname(path)
        if self._own_bookkeeping(path, parent):
            return "safedel's own files"
        parts = parent.split(os.sep)
        if ".git" in parts:
            return "git's own bookkeeping" if self._in_callers_git_dir(path, tid) else None
        if self._ignored_tree(parent):
            return "inside an ignored build tree"
        return None

    def is_exempt_root(self, head, st):
        """Whether the parent of a call is an exempt root itself: the commonest call (a
        compiler's /tmp/ccXXXX.o) is decided without opening the parent and reading its
        path back. head: the parent as the caller spelled it; st: its stat, reached by
        the caller's own walk. A root is known by its identity, and it must still be the
        directory at its path: when head spells that path, the caller's walk just
        showed it is; else one stat of the root shows it. Otherwise left_to_kernel
        decides, by path."""
        root = self._exempt_ids.get((st.st_dev, st.st_ino))
        if root is None:
            return False
        if head == root:
            return True
        try:
            now = os.stat(root)
        except OSError:
            return False
        return now.st_ino == st.st_ino and now.st_dev == st.st_dev

    def git_can_restore(self, found, tid):
        """When git itself deletes content it stores (found.inspect() done)."""
        if not _is_git(tid):
            return False
        top = self._top(os.path.dirname(found.path))
        if top is None:
            return False
        if found.removes_dir:
            return target.is_empty_dir(found)  # git prunes the directories it emptied
        own = gitcaller.git_dirs_of(tid, self._git_dirs)
        if not own or gitcaller.git_dir_of_top(top) != own[0]:
            return False  # a nested repository's files: not the caller's to give back
        relative = os.path.relpath(found.path, top).replace(os.sep, "/")
        return self._blobs.in_head(top, relative, found.parent_fd, found.name, found.st)

    def close(self):
        self._blobs.close()

    def _own_bookkeeping(self, path, parent):
        if path.startswith(self._state):
            return not _is_report(path, self._report)
        trash = next((t for t in self._trashes if path.startswith(t)), None)
        if trash is None:
            trash = self._topdir_trash(parent)
        return trash is not None and _trash_bookkeeping(trash, path[len(trash) :])

    def _topdir_trash(self, parent):
        """The per-user trash of a mount ('.Trash-UID', '.Trash/UID') holding parent."""
        if ".Trash" not in parent:
            return None
        parts = parent.split(os.sep)
        for i, part in enumerate(parts):
            if part == f".Trash-{self._uid}":
                return os.sep.join(parts[: i + 1]) + os.sep
            if part == ".Trash" and i + 1 < len(parts) and parts[i + 1] == self._uid:
                return os.sep.join(parts[: i + 2]) + os.sep
        return None

    def _in_callers_git_dir(self, path, tid):
        if not _is_git(tid):
            return False
        dirs = gitcaller.git_dirs_of(tid, self._git_dirs)
        return any(path.startswith(d + os.sep) for d in dirs)

    def _ignored_tree(self, parent):
        known = self._ignored.get(parent)
        if known is None:
            if len(self._ignored) > 4096:
                self._ignored.clear()
            known = self._ignored[parent] = self._ask_git(parent)
        return known

    def _ask_git(self, parent):
        top = self._top(parent)
        if top is None or parent == top:
            return False
        return ignored.in_build_tree(top, parent, self._anchors)

    def _top(self, directory):
        """The work tree containing directory (a `.git` entry above it), or None."""
        if directory in self._repos:
            return self._repos[directory]
        top, probe = None, directory
        while True:
            if os.path.lexists(os.path.join(probe, ".git")):
                top = probe
                break
            up = os.path.dirname(probe)
            if up == probe:
                break
            probe = up
        self._repos[directory] = top
        return top


def _prefixes(roots):
    """'root/' for each real root: a path strictly inside starts with one of them."""
    return tuple(os.path.realpath(r).rstrip(os.sep) + os.sep for r in roots if r)


def _identities(prefixes):
    """(st_dev, st_ino) -> path (bytes) of each root that exists, from 'root/'."""
    found = {}
    for prefix in prefixes:
        root = prefix[:-1] or os.sep
        try:
            st = os.stat(root)
        except OSError:
            continue
        found[(st.st_dev, st.st_ino)] = os.fsencode(root)
    return found


def _is_git(tid):
    try:
        exe = os.readlink(f"/proc/{tid}/exe")
    except OSError:
        return False
    name = os.path.basename(exe)
    return name == "git" or name.startswith("git-")


def _trash_bookkeeping(trash, relative):
    """Inside a trash dir: what safedel (or a trash tool) keeps about the trash, not
    what the trash holds. An info file whose item is still in files/ is judged with
    it: emptying the trash removes the item first, and when that is refused the item
    must keep its info file (its name and where it came from)."""
    head, _, rest = relative.lstrip(os.sep).partition(os.sep)
    if head == "info":
        if os.sep in rest or not rest.endswith(".trashinfo"):
            return False
        item = os.path.join(trash, "files", rest[: -len(".trashinfo")])
        return not os.path.lexists(item)
    return not rest and os.fsencode(head).startswith(_TRASH_CACHES)


def _is_report(path, report):
    """The report file or one of its rotated segments (`<report>.<digits>-<digits>`)."""
    if report is None:
        return False
    if path == report:
        return True
    if os.path.dirname(path) != os.path.dirname(report):
        return False
    tail = os.path.basename(path)[len(os.path.basename(report)) :]
    if not path.startswith(report) or not tail.startswith("."):
        return False
    first, dash, second = tail[1:].partition("-")
    return bool(dash) and first.isdigit() and second.isdigit()
