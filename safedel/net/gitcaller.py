"""The repository a git process works in, so that only its own bookkeeping is left
to it: `git clean -ffdx` also deletes nested repositories, whose `.git` is not its own.

A git process's git dir is GIT_DIR from its environment (relative to its cwd), else
the nearest `.git` from its cwd up (git changes to the top of the work tree at start),
else its cwd itself when that is a bare repository. A `.git` file (worktrees,
submodules) points at the real git dir; a worktree's git dir names a common dir too.
"""

import os


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
