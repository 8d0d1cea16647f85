"""Which of git's "ignored" answers the guard may believe: those the command did not write.

An ignored target is trashed but not counted (see regenerable), so an ignore rule the
command writes would lift the guard from a runaway deletion: `echo '*' >>
.git/info/exclude` before `find . -delete`. The guard therefore asks git with nothing
of the command's (no GIT_* variable: GIT_CONFIG_*, GIT_CONFIG_PARAMETERS, GIT_DIR) and
without any excludes file (`core.excludesFile`, `~/.config/git/ignore`: which one git
reads is up to config and HOME, both the command's to change), and believes an answer
only when every file behind it surely predates the turn (its mtime and ctime, as
late as the kernel's coarse clock and a whole-second file system allow; a ctime is
never set back): the work tree's `.git` (a directory by its birth where the system
keeps one), the git dir's `info/exclude` and `config` (where `core.worktree` says the
work tree is), and each `.gitignore` from the top down to the target's parent. Build
outputs ignored only by a global excludes file count.
"""

import os

# Config for the question, after the inert options: no excludes file, and matching
# as git does on Linux whatever the repository says.
OPTIONS = ("-c", "core.excludesFile=/dev/null", "-c", "core.ignoreCase=false")


def believed(tree, answers, start, born):
    """The paths of answers ({absolute path: the file holding its rule, as
    `check-ignore -v` names it}) whose rules predate start (seconds). born(path): the
    birth time of path (or its ctime where none is kept)."""
    if start is None or not _entry_before(os.path.join(tree, ".git"), start, born):
        return set()
    git_dir = _git_dir(tree)
    if git_dir is None or not _before(os.path.join(git_dir, "commondir"), start):
        return set()
    common = _common(git_dir)
    if not _before(os.path.join(common, "info", "exclude"), start):
        return set()
    # The config decides where the work tree is (core.worktree): set during the turn,
    # it would make an old ignore file elsewhere speak for these paths.
    if not _before(os.path.join(common, "config"), start):
        return set()
    found, parents = set(), {}  # a batch is mostly a few directories: each judged once
    for path, _source in answers.items():
        parent = os.path.dirname(path)
        if parent not in parents:
            relative = os.path.relpath(parent, tree)
            steps = [] if relative == os.curdir else relative.split(os.sep)
            files = [os.path.join(tree, *steps[:i], ".gitignore") for i in range(len(steps) + 1)]
            parents[parent] = all(_before(f, start) for f in files)
        if parents[parent]:
            found.add(path)
    return found


def parse_verbose(tree, output):
    """{absolute path: source} from `check-ignore -v -z` output; negations left out."""
    fields = output.split(b"\0")
    found = {}
    for index in range(0, len(fields) - 3, 4):
        source, _line, pattern, path = fields[index : index + 4]
        if pattern and not pattern.startswith(b"!"):
            found[os.path.join(tree, os.fsdecode(path))] = os.fsdecode(source)
    return found


def _before(path, start):
    """Whether the file at path, if there is one, was last written before start: the
    link and what it points to (mtime and ctime)."""
    try:
        stats = [os.lstat(path)]
    except FileNotFoundError:
        return True
    except OSError:
        return False
    try:
        stats.append(os.stat(path))
    except OSError:
        pass
    return all(_latest(st.st_mtime) < start and _latest(st.st_ctime) < start for st in stats)


def _entry_before(dotgit, start, born):
    try:
        if _latest(born(dotgit)) >= start:
            return False
    except OSError:
        return False
    return os.path.isdir(dotgit) or _before(dotgit, start)


def _git_dir(tree):
    """The git dir of the work tree at tree: its `.git`, or a `gitdir:` file's target."""
    dotgit = os.path.join(tree, ".git")
    if os.path.isdir(dotgit):
        return dotgit
    try:
        with open(dotgit, encoding="utf-8", errors="surrogateescape") as handle:
            line = handle.readline().strip()
    except OSError:
        return None
    return os.path.join(tree, line[7:].strip()) if line.startswith("gitdir:") else None


def _common(git_dir):
    try:
        with open(os.path.join(git_dir, "commondir"), encoding="utf-8") as handle:
            return os.path.join(git_dir, handle.readline().strip())
    except OSError:
        return git_dir


def _latest(seconds):
    """The latest time a file stamped seconds may have been written: the kernel's file
    clock lags a tick; a file system of whole (or two) seconds cuts the rest off."""
    return seconds + (2.0 if seconds == int(seconds) else 0.02)
