"""Gathering the workspace roots from the four scopes (core/policy/workspace.py says which).

Only where no `safedel run` handed its roots down (a bootstrap shell, `safedel env`,
`safedel run` itself when it decides them): a launcher under a run never loads this.

The session's roots (the command line, SAFEDEL_WORKSPACE, the stored session list, a
serve client's OpenSession) are the harness's or the person's own word. A config file's
root counts where a person confirmed it (core/contract/confirmed.py keeps each root's
real path as it was then); any other root only where it narrows: inside the roots that
count, or that a person confirmed (with none, inside the project, which is then the
default). The rest is held back with a warning, so a `workspace = ["/"]` that a command
wrote widens nothing, for its own run or any later one; and a confirmed root a file no
longer names comes back where the workspace would otherwise fall to the project.
"""

import os

from ..contract import confirmed
from ..contract import settings as core_settings
from ..contract.userconfig import held_message
from .workspace import LOCAL_FILE, PROJECT_FILE, inside, session_for, work_tree


class Root:
    __slots__ = ("path", "scope", "source", "entry", "counted")

    def __init__(self, path, scope, source, entry=None, counted=True):
        self.path, self.scope, self.source = path, scope, source
        # entry: the text the file gave; counted: whether the root counts without
        # narrowing anything (a session root, or one a person confirmed).
        self.entry, self.counted = entry, counted

    def as_dict(self):
        return {"path": self.path, "scope": self.scope, "source": self.source}

    def __repr__(self):
        return f"Root({self.path!r}, {self.scope!r}, {self.source!r})"


def project_dir(start):
    """The git work tree holding start (found by looking for `.git`), else start."""
    start = os.path.realpath(start)
    return work_tree(start) or start


def _resolve(entry, base, home=None):
    """entry's real path, from base; `~` is home (default: this process's HOME)."""
    if home and (entry == "~" or entry.startswith("~/")):
        entry = home + entry[1:]
    entry = os.path.expanduser(entry)
    return os.path.realpath(os.path.join(base, entry))


def collect(environ=None, start=None, cli_roots=(), state_dir=None, session=None):
    """Every configured Root, in scope order, then the warnings about entries ignored."""
    environ = os.environ if environ is None else environ
    start = os.path.realpath(start or os.getcwd())
    project = project_dir(start)
    if state_dir is None:
        state_dir = environ.get("SAFEDEL_STATE_DIR") or core_settings.default_state_dir(environ)
    found = _session_roots(environ, start, cli_roots, state_dir, session)
    local = os.path.join(project, LOCAL_FILE)
    shared = os.path.join(project, PROJECT_FILE)
    home = environ.get("HOME")
    roots, confirmed_before = _file_roots("local", local, project, state_dir, home)
    found += roots
    warnings = []
    roots, kept = _file_roots("project", shared, project, state_dir, home)
    for root in roots:
        if inside(root.path, project):
            found.append(root)
        else:
            warnings.append(
                f"{shared}: ignoring workspace root {root.entry!r}: a project's own config "
                f"may only name folders inside {project}"
            )
    confirmed_before += [r for r in kept if inside(r.path, project)]
    user = core_settings.config_path(environ)
    roots, kept = _file_roots("user", user, start, state_dir, home)
    found += roots
    confirmed_before += kept
    warnings += _narrow(found, confirmed_before, project)
    if not found:
        source = "git work tree" if project != start or _is_repo(start) else "starting directory"
        found.append(Root(project, "default", source))
    return _unique(found), warnings


def _narrow(found, confirmed_before, project):
    """Hold back from found each root that counts only where it narrows, and bring back
    a confirmed root whose removal would leave the workspace to the default (wider
    than it); the warnings for both."""
    counted = [r.path for r in found if r.counted]
    dropped = [r for r in confirmed_before if r.path not in counted]
    counting = counted + [r.path for r in dropped] or [project]
    warnings = []
    for root in [r for r in found if not r.counted]:
        if not any(inside(root.path, c) for c in counting):
            found.remove(root)
            warnings.append(held_message(root.source, f"workspace root {root.entry!r}"))
    if not found:
        for root in dropped:
            found.append(root)
            what = f"the change that drops workspace root {root.entry!r}"
            warnings.append(held_message(root.source, what))
    return warnings


def _session_roots(environ, start, cli_roots, state_dir, session):
    from . import workspacefiles  # not when safedel run handed its roots down

    found = [Root(_resolve(entry, start), "session", "--workspace") for entry in cli_roots]
    for entry in (environ.get("SAFEDEL_WORKSPACE") or "").split(os.pathsep):
        if entry:
            found.append(Root(_resolve(entry, start), "session", "SAFEDEL_WORKSPACE"))
    session = session or session_for(environ, start)
    for entry in workspacefiles.read_session(state_dir, session):
        found.append(Root(_resolve(entry, start), "session", f"session {session!r}"))
    return found


def _file_roots(scope, path, base, state_dir, home):
    """(the roots of `workspace = [...]` in the file at path, the roots a person
    confirmed for it). A root counts when a person confirmed it where it is now: a
    confirmed folder since replaced by a symlink to `/` is a new root, not theirs."""
    from .workspacefiles import parse_list

    text = confirmed.read_text(path)
    entries = [] if text is None else parse_list(text)
    entry = confirmed.kept(path, state_dir)
    seen, relative = confirmed.kept_roots(entry) if entry is not None else ([], [])
    kept = [Root(real, scope, path, real) for real in seen]
    kept += [Root(_resolve(given, base, home), scope, path, given) for given in relative]
    roots = []
    for given in entries:
        real = _resolve(given, base, home)
        counted = real in seen or (scope == "user" and given in relative)
        roots.append(Root(real, scope, path, given, counted))
    return roots, kept


def confirmed_roots(path, text, environ=None):
    """(real paths, relative entries) of the workspace roots in text, the content of the
    config file at path, as `safedel config trust` records them when a person confirms
    it: a local or project file's entries resolved from its project, the user config's
    absolute and `~` entries as they are, and its relative ones (which follow where a
    command starts) kept as text."""
    from .workspacefiles import parse_list

    environ = os.environ if environ is None else environ
    user = os.path.abspath(core_settings.config_path(environ))
    folder = os.path.dirname(os.path.abspath(path))
    base = os.path.dirname(folder) if os.path.basename(folder) == ".safedel" else folder
    roots, relative = [], []
    for entry in parse_list(text):
        fixed = os.path.isabs(os.path.expanduser(entry))
        if os.path.abspath(path) == user and not fixed:
            relative.append(entry)
        else:
            roots.append(_resolve(entry, os.path.realpath(base), environ.get("HOME")))
    return roots, relative


def _is_repo(path):
    return os.path.lexists(os.path.join(path, ".git"))


def _unique(roots):
    seen, kept = set(), []
    for root in roots:
        if root.path not in seen:
            seen.add(root.path)
            kept.append(root)
    return kept
