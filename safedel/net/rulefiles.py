"""Every file that decides what git ignores, and whether the command may have written it.

The net leaves an ignored build tree to the kernel only when the user, before the run,
told git to ignore it (see ignored). The rule that matches is not all there is to
that: a file git reads with a higher precedence may have lost a negation (`!build/`)
during the run, and the file holding the rule is read because of other files. So,
for the outermost ignored directory, these must all be older than the run (written,
renamed and created before it; see ignored._older):
- the `.git` entry of the work tree (a directory by its birth, which a rename keeps:
  by its ctime too where no birth is kept; a `gitdir:` file by its times too), the
  git dir it names and that dir's `commondir` file;
- every `.gitignore` from the work tree's top down to the directory's parent, and
  the common git dir's `info/exclude`;
- when the rule comes from neither (git's `core.excludesFile`, or its default
  `$XDG_CONFIG_HOME/git/ignore`): that file, and every config file git reads to find
  it: the system, global, XDG, repository and worktree files at their usual places,
  and every file `git config --list --show-origin` names (includes). So
  `git config core.excludesFile ~/old-list-with-build` written during the run leaves
  build/ judged. Config given with `-c` or `GIT_CONFIG_*` to the command's own git
  never reaches the supervisor's git, which runs without the command's `GIT_*`
  variables.

A file the command deletes or renames away during the run is not there to look at:
any such deletion or rename of a file shaped like one of these (shapes_rules) makes
the net leave no ignored build tree to the kernel for the rest of the run.
"""

import os
import stat

from . import birth, gitcaller

_ANYWHERE = {".gitignore", ".git", ".gitconfig", "gitconfig", "commondir", "config.worktree"}


def trusted(top, outermost, source, git, started, older):
    """Whether every file deciding that outermost (relative to top, '/'-separated) is
    ignored by source (as `check-ignore -v` names it) is older than the run.
    older(path): whether the file at path (if any) was last written before it."""
    dotgit = os.path.join(top, ".git")
    if not _entry_older(dotgit, started, older):
        return False
    dirs = gitcaller.git_dirs_of_top(top)
    if not dirs or not all(_entry_older(d, started, older) for d in dirs):
        return False
    common = dirs[-1]
    files = [os.path.join(dirs[0], "commondir"), os.path.join(common, "info", "exclude")]
    steps = outermost.split("/")[:-1]
    files += [os.path.join(top, *steps[:i], ".gitignore") for i in range(len(steps) + 1)]
    if not all(older(f) for f in files if os.path.lexists(f)):
        return False
    where = os.path.realpath(os.path.join(top, source))
    if where in {os.path.realpath(f) for f in files}:
        return True
    # From core.excludesFile or its default: the config that chose it counts too.
    configs = _config_files(git, dirs, top)
    return configs is not None and all(older(f) for f in [where, *configs] if os.path.lexists(f))


def shapes_rules(path):
    """Whether path (real) names a file or directory of the kind that decides what git
    ignores: a `.gitignore`, a `.git`, a git config or exclude file, a git dir."""
    name = os.path.basename(path)
    parent = os.path.dirname(path)
    if name in _ANYWHERE:
        return True
    if name == "exclude" and os.path.basename(parent) == "info":
        return True
    if name in ("config", "ignore") and os.path.basename(parent) == "git":
        return True  # $XDG_CONFIG_HOME/git/config and /ignore
    if name == "config" and os.path.isfile(os.path.join(parent, "HEAD")):
        return True
    return os.path.isfile(os.path.join(path, "HEAD")) and os.path.isdir(
        os.path.join(path, "objects")
    )


def _entry_older(path, started, older):
    """A `.git` entry or git dir: born before the run (a rename keeps its birth), and a
    file also last written before it; without a birth time, its times must do."""
    try:
        entry = birth.of(birth.AT_FDCWD, path)
    except OSError:
        return False
    if entry.btime_ns is None:
        return older(path)
    return birth.born_before(entry, started) and (stat.S_ISDIR(entry.mode) or older(path))


def _config_files(git, dirs, top):
    """The config files git reads for the repository of git dirs, or None if unknown."""
    home = os.environ.get("HOME") or os.path.expanduser("~")
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    found = [
        "/etc/gitconfig",
        os.path.join(xdg, "git", "config"),
        os.path.join(home, ".gitconfig"),
        os.path.join(dirs[-1], "config"),
        os.path.join(dirs[0], "config.worktree"),
    ]
    listed = _origins(git, dirs[0], top)
    return None if listed is None else found + listed


def _origins(git, git_dir, top):
    import subprocess

    from ..core.git import inert

    if git is None:
        return None
    argv = inert.argv(git, "--git-dir", git_dir, "config", "--list", "--show-origin", "-z")
    try:
        done = subprocess.run(
            argv, cwd=top, capture_output=True, timeout=30, env=inert.environ(os.environ)
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode not in (0, 1):
        return None
    fields = os.fsdecode(done.stdout).split("\0")
    origins = {f[5:] for f in fields[0::2] if f.startswith("file:")}
    return [os.path.join(top, o) for o in origins]
