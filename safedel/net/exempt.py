"""Which calls the net leaves to the kernel for being in an exempt root (the temp dir).

The same rule as every shim's (core.workspace.location): the nearest enclosing root
decides. A project cloned under the temp dir and used as the run's workspace is a
workspace, its files are trashed; a workspace that is the temp dir, or holds it (a
run started in /tmp or in ~), leaves the temp dir exempt. Only the workspace roots
strictly inside an exempt root can take anything from it, so those are found once,
and a path under none of them (nearly every temp file) costs one more startswith.

An exempt root is the directory it was when the run started (its device and inode,
fixed in the run's record): after `mv "$TMPDIR" x; mv ~/project "$TMPDIR"`, or a bind
mount over it, nothing under the name is exempt. A path under it is exempt only when
the directory the caller acts in is that root's directory, or lies below it on its own
mount, as read from the caller's own parent descriptor (core.policy.exemptroot): a
bind mount of a project at /tmp/x is judged like any other path.

safedel's own trash and state directory inside an exempt root (HOME=/tmp: see
core.kept) are roots of their own, nearer than the temp dir: what lies in them is
judged, and the fast paths stop at the temp dir's entry that leads to them.
"""

import os

from ..core.policy import exemptroot, kept, workspace


class Exempt:
    def __init__(self, usable, workspace_roots, kept_roots=()):
        """usable: the exempt roots that hold anything (core.policy.exemptroot.Root: each
        the very directory it was when the run started); kept_roots: real paths of
        safedel's own trash and state (core.kept)."""
        real = [root.real for root in usable]
        self._usable = tuple(usable)
        self._real = tuple(real)
        # 'root/' per root: a path strictly inside starts with one of them.
        self.prefixes = tuple(r.rstrip(os.sep) + os.sep for r in real)
        # (st_dev, st_ino) -> path (bytes) of each root, as the run fixed it.
        self._ids = {root.ident: os.fsencode(root.real) for root in usable}
        inner = [w for w in workspace_roots if w.startswith(self.prefixes)]
        self._workspace = tuple(workspace_roots)
        self._inner = tuple(w.rstrip(os.sep) + os.sep for w in inner)
        self._inner_roots = frozenset(inner)
        self.holds_workspaces = bool(inner)  # a workspace root inside an exempt root
        # The names, straight inside an exempt root, that are workspace roots: the fast
        # path's only look at them (rmdir of a workspace made in /tmp).
        self._inner_names = frozenset(
            os.fsencode(os.path.basename(w)) for w in inner if os.path.dirname(w) in real
        ) | frozenset(_first_names(kept_roots, self.prefixes))
        self._kept = tuple(k for k in kept_roots if k.startswith(self.prefixes))
        self._kept_prefixes = tuple(k + os.sep for k in self._kept)

    def heads(self):
        """The roots' real paths (bytes), as a caller may spell a parent: with and
        without the slash a TMPDIR ending in '/' leaves (`/tmp//cc1.o`)."""
        heads = [os.fsencode(p.rstrip(os.sep) or os.sep) for p in self.prefixes]
        return heads + [h.rstrip(b"/") + b"/" for h in heads]

    def is_root(self, head, st, name):
        """Whether the parent of a call is an exempt root itself, and its entry name is
        not a workspace root: the commonest call (a compiler's /tmp/ccXXXX.o) is decided
        without opening the parent and reading its path back. head: the parent as the
        caller spelled it; st: its stat, reached by the caller's own walk. A root is
        known by its identity, and it must still be the directory at its path: when
        head spells that path, the caller's walk just showed it is; else one stat of
        the root shows it. No mount can lie between a root and itself."""
        root = self._ids.get((st.st_dev, st.st_ino))
        if root is None or name in self._inner_names:
            return False
        if head == root:
            return True
        try:
            now = os.stat(root)
        except OSError:
            return False
        return now.st_ino == st.st_ino and now.st_dev == st.st_dev

    def covers(self, path, parent, st, fd):
        """Whether path (real, strictly inside an exempt root: path.startswith(prefixes))
        is exempt: in no workspace root nearer than its exempt root, and its parent (fd
        open on the directory the caller acts in, st its stat) in the very directory
        of an exempt root, on that root's own mount (core.policy.exemptroot)."""
        if self._inner and (path.startswith(self._inner) or path in self._inner_roots):
            where = workspace.location(path, self._workspace, self._real)
            if where != workspace.EXEMPT:
                return False
        if self._kept and (path.startswith(self._kept_prefixes) or path in self._kept):
            where = workspace.location(path, self._workspace, self._real, self._kept)
            if where != workspace.EXEMPT:
                return False
        return exemptroot.holds_at(fd, parent, (st.st_dev, st.st_ino), self._usable)

    def holds_kept(self, path):
        """Whether a kept root is path or lies within it: renaming it within the temp
        dir would take the trash or the state along to where nothing is kept."""
        return kept.held(path, self._kept) is not None


def workspace_roots(settings):
    """The run's own workspace roots (its settings), never what the command's
    environment says."""
    return workspace.root_paths(handed=settings.workspace_roots or "")


def of_run(settings):
    """The Exempt rule of a run, from its settings: its exempt roots as the run fixed
    them (the directory each was when it started)."""
    usable = exemptroot.roots(settings)
    real = exemptroot.real_paths(settings)
    return Exempt(usable, workspace_roots(settings), kept.roots(settings, real))


def _first_names(roots, prefixes):
    """The names, straight inside an exempt root, that lead to one of roots."""
    for root in roots:
        for prefix in prefixes:
            if root.startswith(prefix):
                yield os.fsencode(root[len(prefix) :].partition(os.sep)[0])
