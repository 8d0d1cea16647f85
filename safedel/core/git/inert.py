"""git as safedel runs it for its own questions (check-ignore, cat-file, ls-files,
--exec-path): configured so that git itself runs no other program.

A repository's config is written by whatever runs in it. Under the net, the command
being judged can set `core.fsmonitor` to a script of its own, and the supervisor's
`git check-ignore` would then start that script as a child of `safedel run`, outside
the filter, where its deletions are never seen. Config given with `-c` wins over every
config file (system, global, the repository's, their includes), so these pairs close
what a read-only question can start:
- `core.fsmonitor`: a hook run whenever git reads the index;
- `core.hooksPath`: no hook at all, should a later git run one for these commands;
- `protocol.allow`: a partial clone fetches a missing object on demand, which starts
  ssh (`core.sshCommand`), a remote helper or a credential helper. With every
  transport refused, the lookup fails instead (git 2.44 and later also honour
  GIT_NO_LAZY_FETCH).
Filters and textconv drivers run only for commands that convert content, which these
questions never ask for.
"""

import os

CONFIG = (
    "core.fsmonitor=false",
    "core.hooksPath=/dev/null",
    "protocol.allow=never",
)
OPTIONS = tuple(word for pair in CONFIG for word in ("-c", pair))


def argv(git, *args):
    """The command line for git (a path) with the inert config before args."""
    return [git, *OPTIONS, *args]


def environ(base):
    """base without git's own variables (GIT_DIR, GIT_CONFIG_PARAMETERS…, which the
    command may have set), plus those that keep git from starting anything or
    taking locks the command would then trip over."""
    env = {k: v for k, v in base.items() if not k.startswith("GIT_")}
    env.update(
        GIT_OPTIONAL_LOCKS="0",
        GIT_NO_LAZY_FETCH="1",
        GIT_TERMINAL_PROMPT="0",
        GIT_NO_REPLACE_OBJECTS="1",
    )
    return env


def find(environ):
    """The real path of the first git on environ's PATH, passing over safedel's own
    launcher (that one would find a git even where the user has none); None if none."""
    ours = os.path.join(environ.get("SAFEDEL_HOME") or "\0", "bin")
    for directory in (environ.get("PATH") or os.defpath).split(os.pathsep):
        if not directory or directory == ours:
            continue  # an empty entry is the cwd: never a git to trust from there
        candidate = os.path.join(directory, "git")
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.realpath(candidate)
    return None


def locate(environ):
    """(real path, (device, inode)) of the git environ's PATH finds, or None. Found
    when the run starts: a `git` the command puts on PATH later is not trusted."""
    path = find(environ)
    if path is None:
        return None
    try:
        st = os.stat(path)
    except OSError:
        return None
    return path, (st.st_dev, st.st_ino)


def unchanged(located):
    """located's path, if the file there is still the one located; else None."""
    if located is None:
        return None
    try:
        st = os.stat(located[0])
    except OSError:
        return None
    return located[0] if (st.st_dev, st.st_ino) == located[1] else None


def pinned(environ):
    """[real path, "dev:ino:ctime_ns"] of the git environ's PATH finds, for a run's
    record (a string: JSON numbers lose digits in Node), or None. The ctime tells a
    git written over in place (same inode)."""
    path = find(environ)
    try:
        st = os.stat(path) if path else None
    except OSError:
        st = None
    return [path, _identity(st)] if st else None


def _identity(st):
    return f"{st.st_dev}:{st.st_ino}:{st.st_ctime_ns}"


def trusted(fixed, environ):
    """The git to ask: fixed (Settings.git: (path, identity)) when a run pinned one, if
    the file there is still that very file; None when the run found none or it
    changed; with nothing pinned (no run), the first on environ's PATH."""
    if fixed is None:
        return find(environ)
    if not fixed:
        return None
    try:
        st = os.stat(fixed[0])
    except OSError:
        return None
    return fixed[0] if _identity(st) == fixed[1] else None
