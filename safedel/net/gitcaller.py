"""The repository a git process works in, so that only its own bookkeeping is left
to it: `git clean -ffdx` also deletes nested repositories, whose `.git` is not its own.

A git process's git dir is GIT_DIR from its environment (relative to its cwd), else
the nearest `.git` from its cwd up (git changes to the top of the work tree at start),
else its cwd itself when that is a bare repository. A `.git` file (worktrees,
submodules) points at the real git dir; a worktree's git dir names a common dir too.

A git process is the real git, known by its executable's identity rather than its
name: a copy of rm called git-tidy, git-lfs or git-annex (whose store in
`.git/annex` holds the only copy of annexed files) is judged like any program. Real
git is the binary the run's PATH finds when the run starts (same device and inode)
or a program in that git's own exec path (`git --exec-path`: its helpers and
subcommands). Even real git's deletions in the add-ons' stores (`annex/`, `lfs/`)
are judged, and so are objects it deletes that no pack holds (see gitobjects).
"""

import os

from ..core.git import inert
from . import gitobjects

_ADD_ON_STORES = ("annex", "lfs")


class Trust:
    """Which processes are the real git, and what in their git dir is their own."""

    def __init__(self, located):
        self._located = located  # inert.locate() when the run started
        self._identity = located[1] if located else None
        self._exec_path = None  # asked of git once, the first time it is needed
        self._dirs = {}  # (cwd, GIT_DIR) of a git process -> its git dirs
        self._objects = gitobjects.Objects()

    def is_git(self, tid):
        try:
            st = os.stat(f"/proc/{tid}/exe")
        except OSError:
            return False
        if self._identity is None:
            return False
        if (st.st_dev, st.st_ino) == self._identity:
            return True
        prefix = self._exec_prefix()
        try:
            exe = os.readlink(f"/proc/{tid}/exe")
        except OSError:
            return False
        # The name is spelled in the caller's mount namespace: it counts only when it
        # names that very file here too.
        return exe.startswith(prefix) and _identity(exe) == (st.st_dev, st.st_ino)

    def program(self):
        """The path of the git to ask questions of, or None: it runs outside the
        filter, so only while the file there is still the git found at start."""
        return inert.unchanged(self._located)

    def git_dirs(self, tid):
        return git_dirs_of(tid, self._dirs)

    def own_bookkeeping(self, path, tid):
        """path lies in the git dir of git process tid, outside the add-ons' stores."""
        if not self.is_git(tid):
            return False
        inside = [d for d in self.git_dirs(tid) if path.startswith(d + os.sep)]
        if not inside:
            return False
        common = min(inside, key=len)
        head, _, rest = path[len(common) + 1 :].partition(os.sep)
        if head == "objects":
            return not self._objects.loses_content(os.path.join(common, head), rest)
        return head not in _ADD_ON_STORES

    def _exec_prefix(self):
        if self._exec_path is None:
            git = self.program()
            self._exec_path = _exec_path(git) if git else "\0"
        return self._exec_path


def _identity(path):
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _exec_path(git):
    """'dir/' for git's real exec path, or '\0' (matching nothing) when unknown."""
    import subprocess

    try:
        done = subprocess.run(
            inert.argv(git, "--exec-path"),
            capture_output=True,
            timeout=30,
            env=inert.environ(os.environ),
        )
    except (OSError, subprocess.SubprocessError):
        return "\0"
    found = os.fsdecode(done.stdout).strip()
    if done.returncode or not os.path.isabs(found):
        return "\0"
    return os.path.realpath(found).rstrip(os.sep) + os.sep


def git_dirs_of(tid, cache):
    """The real git dir (and common dir) of git process tid, as a tuple; () if unknown."""
    try:
        cwd = os.readlink(f"/proc/{tid}/cwd")
        with open(f"/proc/{tid}/environ", "rb") as handle:
            environ = handle.read().split(b"\0")
    except OSError:
        return ()
    given = next((e[8:] for e in environ if e.startswith(b"GIT_DIR=")), b"")
    key = (cwd, given)
    if key not in cache:
        if len(cache) > 256:
            cache.clear()
        relative = os.fsdecode(given)
        found = os.path.realpath(os.path.join(cwd, relative)) if given else _nearest(cwd)
        cache[key] = _with_common(found) if found else ()
    return cache[key]


def git_dir_of_top(top):
    """The real git dir of the work tree at top (its `.git` directory or file)."""
    return _resolve_dotgit(os.path.join(top, ".git"))


def _nearest(directory):
    probe = directory
    while True:
        if os.path.basename(probe) == ".git" and os.path.isdir(probe):
            return os.path.realpath(probe)
        dotgit = os.path.join(probe, ".git")
        if os.path.lexists(dotgit):
            return _resolve_dotgit(dotgit)
        if os.path.isfile(os.path.join(probe, "HEAD")) and os.path.isdir(
            os.path.join(probe, "objects")
        ):
            return os.path.realpath(probe)  # a bare repository
        up = os.path.dirname(probe)
        if up == probe:
            return None
        probe = up


def _resolve_dotgit(dotgit):
    if os.path.isdir(dotgit):
        return os.path.realpath(dotgit)
    try:
        with open(dotgit, encoding="utf-8", errors="surrogateescape") as handle:
            line = handle.readline().strip()
    except OSError:
        return None
    if not line.startswith("gitdir:"):
        return None
    return os.path.realpath(os.path.join(os.path.dirname(dotgit), line[7:].strip()))


def _with_common(git_dir):
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as handle:
            common = handle.readline().strip()
    except OSError:
        return (git_dir,)
    return (git_dir, os.path.realpath(os.path.join(git_dir, common)))
