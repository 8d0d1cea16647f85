"""Gathering the workspace roots from the four scopes (core/policy/workspace.py says which).

Only where no `safedel run` handed its roots down (a bootstrap shell, `safedel env`,
`safedel run` itself when it decides them): a launcher under a run never loads this.
"""

import os

from ..contract import settings as core_settings
from .workspace import LOCAL_FILE, PROJECT_FILE, inside, work_tree


class Root:
    __slots__ = ("path", "scope", "source")

    def __init__(self, path, scope, source):
        self.path, self.scope, self.source = path, scope, source

    def as_dict(self):
        return {"path": self.path, "scope": self.scope, "source": self.source}

    def __repr__(self):
        return f"Root({self.path!r}, {self.scope!r}, {self.source!r})"


def project_dir(start):
    """The git work tree holding start (found by looking for `.git`), else start."""
    start = os.path.realpath(start)
    return work_tree(start) or start


def _resolve(entry, base):
    entry = os.path.expanduser(entry)
    return os.path.realpath(os.path.join(base, entry))


def collect(environ=None, start=None, cli_roots=(), state_dir=None, session=None):
    """Every configured Root, in scope order, then the warnings about entries ignored."""
    from . import workspacefiles  # not when safedel run handed its roots down

    environ = os.environ if environ is None else environ
    start = os.path.realpath(start or os.getcwd())
    project = project_dir(start)
    found, warnings = [], []
    for entry in cli_roots:
        found.append(Root(_resolve(entry, start), "session", "--workspace"))
    for entry in (environ.get("SAFEDEL_WORKSPACE") or "").split(os.pathsep):
        if entry:
            found.append(Root(_resolve(entry, start), "session", "SAFEDEL_WORKSPACE"))
    if state_dir is None:
        state_dir = environ.get("SAFEDEL_STATE_DIR") or core_settings.default_state_dir(environ)
    session = session or environ.get("SAFEDEL_SESSION") or "default"
    for entry in workspacefiles.read_session(state_dir, session):
        found.append(Root(_resolve(entry, start), "session", f"session {session!r}"))
    local = os.path.join(project, LOCAL_FILE)
    for entry in workspacefiles.read_list(local):
        found.append(Root(_resolve(entry, project), "local", local))
    shared = os.path.join(project, PROJECT_FILE)
    for entry in workspacefiles.read_list(shared):
        path = _resolve(entry, project)
        if inside(path, project):
            found.append(Root(path, "project", shared))
        else:
            warnings.append(
                f"{shared}: ignoring workspace root {entry!r}: a project's own config "
                f"may only name folders inside {project}"
            )
    user = core_settings.config_path(environ)
    for entry in workspacefiles.read_list(user):
        found.append(Root(_resolve(entry, start), "user", user))
    if not found:
        source = "git work tree" if project != start or _is_repo(start) else "starting directory"
        found.append(Root(project, "default", source))
    return _unique(found), warnings


def _is_repo(path):
    return os.path.lexists(os.path.join(path, ".git"))


def _unique(roots):
    seen, kept = set(), []
    for root in roots:
        if root.path not in seen:
            seen.add(root.path)
            kept.append(root)
    return kept
