"""Whether a directory is inside an ignored build tree, which the net leaves to the kernel.

Compilers, linkers and package managers replace their outputs in build/, dist/,
target/ or node_modules/ all the time; trashing each would flood the trash. Only such
trees are left: the outermost directory git ignores (git never looks inside it) is
one when its name says it holds build output (BUILD_NAMES) and the rule that ignores
it names it. Everything else git ignores (data/, models/, a home directory's dotfiles
repository ignoring `*`, and data/target/ under an ignored data/) is judged like any
other path: an ignore rule says "do not commit", not "nothing to lose".

Never left to the kernel:
- when a workspace root or the directory the command started in is itself ignored
  (a home directory kept in git with `*` in its .gitignore ignores every project);
- when the rule that matches is a catch-all (`*`, `/*`, `**`...), or takes everything
  in a parent (`data/*`, `data/**`);
- for a directory that is a workspace root or an ancestor of one;
- when any file that decides the verdict was written (or renamed, or its times
  reset) since the run started, not only the one holding the rule (see rulefiles):
  the command itself may have just ignored the directory it is about to delete
  (`echo out/ >> .git/info/exclude; rm -rf out`, or `git config core.excludesFile`
  naming an old file), or taken back a rule that kept it (`!build/`);
- once the command deleted or renamed away such a file (see places.note_change).
"""

import fnmatch
import os

from ..core.git import inert
from . import birth, gitcaller, rulefiles

BUILD_NAMES = (
    "build", "dist", "target", "node_modules", "out", "_build", "__pycache__",
    ".pytest_cache", ".mypy_cache", ".ruff_cache", ".tox", ".nox", ".gradle",
    ".next", ".nuxt", ".parcel-cache", ".turbo", "coverage", "htmlcov", ".eggs",
    "*.egg-info", "cmake-build-*", "CMakeFiles", "obj",
)  # fmt: skip
_CATCH_ALL = {"*", "/*", "**", "/**", "*/", "/*/", "**/", "**/*", "/**/*", "*/**"}


def in_build_tree(top, parent, anchors, git, started):
    """True when parent (strictly inside work tree top) lies in an ignored build tree.
    anchors: real paths of the workspace roots and the start directory; git: the path
    of the git to ask; started: when the run started (birth.mark())."""
    relative = os.path.relpath(parent, top).split(os.sep)
    candidates = ["/".join(relative[: i + 1]) for i in range(len(relative))]
    inside = [a for a in anchors if a != top and a.startswith(top + os.sep)]
    anchored = [os.path.relpath(a, top).replace(os.sep, "/") for a in inside]
    git_dir = gitcaller.git_dir_of_top(top)
    ignored = _check_ignore(git, top, git_dir, candidates + anchored)
    if ignored is None or any(a in ignored for a in anchored):
        return False
    # git leaves out the outermost ignored directory as a whole and never looks inside
    # it: that one decides. data/target under an ignored data/ is user data, named
    # like build output by chance; git reports data/'s rule for it.
    outermost = next((c for c in candidates if c in ignored), None)
    if outermost is None or _catch_all(ignored[outermost][1]):
        return False
    source = ignored[outermost][0]
    if not rulefiles.trusted(top, outermost, source, git, started, lambda p: _older(p, started)):
        return False
    full = os.path.join(top, outermost)
    if any(a == full or a.startswith(full + os.sep) for a in anchors):
        return False  # a workspace root, or above one: never a build tree
    name = os.path.basename(outermost)
    return _build_name(name) and _names(ignored[outermost][1], name)


def _names(pattern, name):
    """Whether the ignore rule names the directory itself by its last component
    (`target/`, `/build`, `**/node_modules`, `*.egg-info`), rather than taking
    everything in a parent (`data/**`, `data/*`)."""
    last = pattern.rstrip("/").rsplit("/", 1)[-1]
    return bool(last.strip("*?")) and fnmatch.fnmatchcase(name, last)


def _build_name(name):
    return any(fnmatch.fnmatchcase(name, pattern) for pattern in BUILD_NAMES)


def _catch_all(pattern):
    return pattern in _CATCH_ALL


def _older(source, started):
    """Whether the ignore file source was last written before the run started. Its
    ctime too: a command can set an mtime back (touch -d), never a ctime, and a rename
    into place sets it. Both the link and what it points to, when source is a link.
    Erring toward "written since" only leaves a build tree to be judged."""
    try:
        stats = (os.lstat(source), os.stat(source))
    except (OSError, ValueError):
        return False
    late = birth.latest
    return all(late(st.st_mtime_ns) < started and late(st.st_ctime_ns) < started for st in stats)


def _check_ignore(git, top, git_dir, relatives):
    """{relative path: (the file holding the rule that ignores it, relative to top or
    absolute, and the rule's pattern)}, or None when git gives no verdict. The git
    dir and work tree are given, and matching is case-sensitive: config that moves the
    work tree (core.worktree) or folds case (core.ignoreCase) changes no verdict."""
    import subprocess  # only once a git work tree is met

    if git is None or git_dir is None or any("\0" in r for r in relatives):
        return None
    query = "".join(f"{r}/\0" for r in relatives)
    places = ("--git-dir", git_dir, "--work-tree", top, "-C", top)
    question = ("-c", "core.ignoreCase=false", "check-ignore", "-v", "-z", "--stdin")
    try:
        done = subprocess.run(
            inert.argv(git, *places, *question),
            input=os.fsencode(query),
            capture_output=True,
            timeout=30,
            env=inert.environ(os.environ),
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode not in (0, 1):
        return None
    fields = os.fsdecode(done.stdout).split("\0")
    found = {}
    for index in range(0, len(fields) - 3, 4):
        source, _line, pattern, path = fields[index : index + 4]
        if pattern and not pattern.startswith("!"):
            found[path.rstrip("/")] = (source, pattern)
    return found
