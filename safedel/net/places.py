"""Which resolved paths the net leaves to the kernel (CONTINUE) without judging them.

- safedel's own bookkeeping, known by identity and content, never by a name alone: in
  a trash directory safedel uses (the run's, or this user's at a mount's top) the
  info files and caches that read as such (see trashkeeping); a process's own run
  pointer in a pointer folder (see pointerfiles); in the state directory only what
  the shims themselves delete there (see statefiles; the rest of it is refused). The
  shims only ever delete for real there or in exempt roots, so a shim's own call is
  recognised by where it points and what it removes, not by who makes it: no
  per-process mark to forge or to lose across exec. What a trash holds (`files/`),
  the report, and whatever merely looks like bookkeeping are judged like any path;
- exempt roots (the temp directory by default), judged on the real path, outside
  every workspace root nearer than them, in the very directory each root was when the
  run started, and on its own mount (see exempt);
- what the real git made during the run in the git dir of the repository it works
  in (locks, gc, prune), never a nested repository's `.git` nor an add-on's store
  (see gitcaller), deleted by its identity rather than left to the kernel (see
  gitunlink);
- anything inside an ignored build tree (see ignored) on the work tree's own mount
  (see mounts);
- a file git itself deletes whose content is the blob HEAD has at that path (see
  gitblobs), in a store the command cannot drop (see gitstore), deleted by its
  identity too; and the empty directories git prunes after it.
"""

import os

from ..core.trash import dirs
from . import (
    churn,
    exempt,
    gitblobs,
    gitcaller,
    gitstore,
    ignored,
    mounts,
    pointerfiles,
    rulefiles,
    statefiles,
    target,
    trashkeeping,
    walk,
)

GIT_OWN = "git's own bookkeeping"


class Places:
    def __init__(self, settings, environ, git=None, started=None, exempt_rule=None):
        self._environ = environ
        """exempt_rule: the run's exempt.Exempt when the supervisor made it already."""
        # The home trash the run fixed, else the one its environment names.
        home = settings.home_trash or dirs.home_trash(environ)
        trashes = [os.fsdecode(home)]
        if settings.trash_dir:
            trashes.append(settings.trash_dir)
        self._trashes = trashkeeping.Trashes(os.path.realpath(t) for t in trashes)
        # Prefixes ready for one str.startswith call per class: this runs on every call.
        self._state = _prefixes([settings.state_dir])
        self._report = os.path.realpath(settings.report) if settings.report else None
        kept = [*(os.path.realpath(t) for t in trashes), os.path.realpath(settings.state_dir)]
        kept += churn.pointer_places()  # no churn there: a run's pointers are state
        self._kept = tuple(kept + ([self._report] if self._report else []))
        # The run's own roots (its settings), never what the command's environment says.
        roots = exempt.workspace_roots(settings)
        self._exempt = exempt_rule or exempt.of_run(settings)
        self._exempt_prefixes = self._exempt.prefixes
        self._anchors = [os.path.realpath(a) for a in (*roots, os.getcwd())]
        self._roots = tuple(os.path.realpath(r) for r in roots)
        self._ignored = {}  # real parent directory -> does git call it a build tree?
        # Once the command deletes or renames away a file that decides what git
        # ignores, no verdict of git's can be trusted any more (see rulefiles).
        self._rules_changed = False
        # When the run started (birth.mark()): an ignore rule written since then may
        # be the command's own, not the user's (see ignored). Unknown (0): none is trusted.
        self._started = started or 0
        self._build_mounts = mounts.Boundaries(lambda parent: [self._top(parent)])
        self._repos = {}  # directory -> its work tree top, or None
        self._git = gitcaller.Trust(git, self._started)  # inert.locate() at the start
        self._blobs = gitblobs.Blobs(self._git.program)
        self._stores = gitstore.Stores(self._git.objects, self._drops_for_real, self._started)

    def left_to_kernel(self, found, tid, st, moving=True, arriving=False, deleting=False):
        """A short reason when the kernel should do this deletion itself, else None.
        found: the call's target.Target; st: the stat of the directory the call acts
        in (found.parent_fd, reached by the caller's own walk). GIT_OWN with
        found.judged set: git's own, to be deleted by that identity (gitunlink).
        moving: the entry leaves its name (a deletion does); only then can it be git's
        own, since what arrives keeps its own birth. arriving: a rename's destination,
        where nothing is there yet to read: safedel's own files are judged by place."""
        path, parent = found.path, found.parent
        entry = None if arriving else (found.parent_fd, found.name)
        # First the commonest answer (temp files); the order changes no outcome.
        # path is real already: its parent came from the kernel.
        exempt = path.startswith(self._exempt_prefixes)
        if exempt and self._exempt.covers(path, parent, st, found.parent_fd):
            return "exempt"
        if self._own_bookkeeping(path, parent, tid, st, entry):
            return "safedel's own files"
        parts = parent.split(os.sep)
        if ".git" in parts:
            own = moving and self._git.own_entry(path, tid, found)
            if own and own is not True:
                found.judged = own
            return GIT_OWN if own else None
        if self._ignored_tree(parent, st):
            return "inside an ignored build tree"
        if deleting and self._short_lived(found, path):
            return "short-lived churn"
        return None

    def _short_lived(self, found, path):
        """Born in the run and deleted within the churn limit (see churn); deleting:
        only a deletion, not a rename's source, is judged so."""
        if churn.excluded(path, self._kept):
            return False
        return churn.short_lived(found.parent_fd, found.name, self._started, None, self._environ)

    def holds_a_root(self, path):
        """Whether a workspace root of the run, or its own trash or state in the temp
        dir (core.kept), is path or lies within it."""
        inside = path.rstrip(os.sep) + os.sep
        if any(root == path or root.startswith(inside) for root in self._roots):
            return True
        return self._exempt.holds_kept(path)

    def would_be_build_tree(self, path):
        """Whether a directory at path (it may not exist yet) is in an ignored build
        tree: asked afresh, for the rare rename that would make one."""
        return self._ask_git(path)

    def git_can_restore(self, found, tid):
        """When git itself deletes content it stores (found.inspect() done): True for
        an emptied directory, and for a file whose content HEAD holds in a store the
        command cannot drop, with found.judged set to the file's identity."""
        if not self._git.is_git(tid):
            return False
        top = self._top(os.path.dirname(found.path))
        if top is None:
            return False
        if found.removes_dir:
            return target.is_empty_dir(found)  # git prunes the directories it emptied
        own = self._git.git_dirs(tid)
        if not own or gitcaller.git_dir_of_top(top) != own[0]:
            return False  # a nested repository's files: not the caller's to give back
        relative = os.path.relpath(found.path, top).replace(os.sep, "/")
        held = self._blobs.in_head(top, relative, found.parent_fd, found.name, found.st)
        if held is None or not self._stores.keep(own[-1], held[0]):
            return False
        found.judged = held[1]
        return True

    def _drops_for_real(self, directory):
        """Whether the net leaves deletions in directory (a real path) to the kernel:
        an exempt root's, or an ignored build tree's."""
        try:
            st = os.stat(directory)
        except OSError:
            return True
        inside = os.path.join(directory, "x")
        if inside.startswith(self._exempt_prefixes) and self._exempt.covers(inside, directory, st):
            return True
        return ".git" not in directory.split(os.sep) and self._ignored_tree(directory, st)

    def close(self):
        self._blobs.close()

    def state_refusal(self, path, tid, entry=None):
        """Why the net refuses this deletion in the state directory, or None."""
        if not self.in_state(path) or _is_report(path, self._report):
            return None
        return None if self._state_allows(path, tid, entry) else "safedel's own state"

    def state_move_refusal(self, path, tid):
        """Why the net refuses to rename this entry of the state directory, or None.
        The state directory and every directory above it, home included, are refused:
        `mv ~/.local/state x` takes the ledgers along as surely as `mv ~/.local/state/
        safedel x`. Only '/' is not, which no rename moves."""
        if self._state[0].startswith(path + os.sep) and path != os.sep:
            return "safedel's own state"
        if not self.in_state(path) or _is_report(path, self._report):
            return None
        caller = walk.tgid_of(tid)
        allowed = statefiles.may_rename(path, self._state[0], caller)
        return None if allowed else "safedel's own state"

    def in_state(self, path):
        return path.startswith(self._state) or path + os.sep in self._state

    def _state_allows(self, path, tid, entry=None):
        caller = walk.tgid_of(tid)
        return statefiles.verdict(path, self._state[0], caller, entry) == statefiles.KERNEL

    def _own_bookkeeping(self, path, parent, tid, st, entry):
        if pointerfiles.own(path, parent, st, tid, entry):
            return True  # checked first: a pointer folder may lie in the state dir
        if path.startswith(self._state):
            if _is_report(path, self._report):
                return False
            return self._state_allows(path, tid, entry)
        return self._trashes.bookkeeping(path, parent, st, entry)

    def _ignored_tree(self, parent, st):
        # git's verdict is about the path (kept across a rebuild that makes build/
        # anew); the mount is about the directory now there (see mounts).
        known = self._ignored.get(parent)
        if known is None:
            if len(self._ignored) > 4096:
                self._ignored.clear()
            known = self._ignored[parent] = self._ask_git(parent)
        return known and self._build_mounts.same_mount(parent, st)

    def note_change(self, path):
        """The command deletes (or renames away) path, judged: if it is of a kind that
        decides what git ignores, no ignored build tree is left to the kernel from now
        on (what git would say without it is not what the user wrote)."""
        if not self._rules_changed and rulefiles.shapes_rules(path):
            self._rules_changed = True
            self._ignored.clear()

    def _ask_git(self, parent):
        if self._rules_changed:
            return False
        top = self._top(parent)
        if top is None or parent == top:
            return False
        program = self._git.program()
        return ignored.in_build_tree(top, parent, self._anchors, program, self._started)

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
