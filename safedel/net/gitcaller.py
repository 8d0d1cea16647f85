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

Its own is what it made: only an entry born since the run started (birth) is left
to it, and deleted by that identity (gitunlink). A file moved into its git dir
(`rebase-merge/`, `worktrees/`, any path) keeps its birth and is judged, and so is
bookkeeping left from before the run (a rebase stopped in an earlier turn): trashed,
and counted.
"""

import os
import stat

from ..core.git import inert
from . import birth, gitobjects

_ADD_ON_STORES = ("annex", "lfs")


class Trust:
    """Which processes are the real git, and what in their git dir is their own."""

    def __init__(self, located, started=0):
        """located: inert.locate() when the run started; started: birth.mark() then."""
        self._located = located
        self._identity = located[1] if located else None
        self._exec_path = None  # asked of git once, the first time it is needed
        self._dirs = {}  # (cwd, GIT_DIR) of a git process -> its git dirs
        self._started = started
        self.objects = gitobjects.Objects(started, self.program)

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

    def own_entry(self, path, tid, found):
        """Whether git process tid may delete (or rename) the entry found at path
        unjudged: None if not; True for an emptied directory of its git dir it
        removes (rmdir removes nothing else); else the identity (birth.Entry.identity)
        of the entry, to be deleted by it. That is an entry of its git dir, outside
        the add-ons' stores, that git made since the run started: a file moved into
        the git dir keeps its birth, and `mv precious .git/rebase-merge/x; git rebase
        --abort` trashes it. Whatever its age, a loose object that is what its name
        says, which a pack holds too (gitverify), and a loose ref whose very value
        packed-refs holds for it are git's."""
        if not self.is_git(tid):
            return None
        inside = [d for d in self.git_dirs(tid) if path.startswith(d + os.sep)]
        if not inside:
            return None
        common = min(inside, key=len)
        head, _, rest = path[len(common) + 1 :].partition(os.sep)
        if head in _ADD_ON_STORES:
            return None
        try:
            entry = birth.of(found.parent_fd, found.name)
        except OSError:
            return None
        if found.removes_dir and stat.S_ISDIR(entry.mode):
            return True
        if head == "objects":
            objects = os.path.join(common, head)
            if self.objects.loses_content(objects, rest):
                return None
            if birth.born_since(entry, self._started) or self.objects.verified_loose(
                rest, found.parent_fd, found.name, entry
            ):
                return entry.identity
            return None
        if birth.born_since(entry, self._started):
            return entry.identity
        if head == "refs" and _packed(common, path[len(common) + 1 :], found, entry):
            return entry.identity  # pack-refs --prune: its value is in packed-refs now
        return None

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


def git_dirs_of_top(top):
    """(git dir, and its common dir if another) of the work tree at top, or ()."""
    found = git_dir_of_top(top)
    return _with_common(found) if found else ()


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


def _packed(common, refname, found, entry):
    """Whether the loose ref refname (found, as entry) holds one value line that
    common's packed-refs holds for refname too."""
    try:
        fd = os.open(
            found.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=found.parent_fd
        )
        try:
            same = birth.of_fd(fd).identity == entry.identity
            value = os.read(fd, 4097) if same else b""
        finally:
            os.close(fd)
        with open(os.path.join(common, "packed-refs"), "rb") as handle:
            packed = handle.read()
    except OSError:
        return False
    line = value.rstrip(b"\n")
    if len(value) > 4096 or b"\n" in line or len(line) not in (40, 64):
        return False
    return b"\n" + line + b" " + os.fsencode(refname) + b"\n" in b"\n" + packed
