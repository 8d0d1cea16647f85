"""Workspace roots: the folders a session is working in, merged from four scopes.

- session: `safedel run --workspace DIR` (repeatable) and SAFEDEL_WORKSPACE (an
  os.pathsep list), plus what `safedel workspace add --scope session` stored;
- local: `<project>/.safedel/config.local.toml`, the user's own file, kept out of git;
- project: `<project>/.safedel/config.toml`, committed with the project. A cloned
  repository must not widen the boundary, so it may only name folders inside itself;
- user: `workspace = [...]` in the user config file (where `threshold` lives).

The project is the git work tree the command started in (the nearest directory up with
a `.git` entry), else the starting directory. With no root configured anywhere, the
project itself is the workspace. Roots are real paths, so a symlinked folder and its
target are the same root.
"""

import os
import sys

from ..contract import settings as core_settings

SCOPES = ("session", "local", "project", "user")
LOCAL_FILE = os.path.join(".safedel", "config.local.toml")
PROJECT_FILE = os.path.join(".safedel", "config.toml")
# Set by `safedel run` for its child: the roots it decided, os.pathsep-separated, so
# every shim in the command agrees even after a `cd`.
ROOTS_VARIABLE = "SAFEDEL_WORKSPACE_ROOTS"
_cache = {}
_handed = {}
# Gathering the roots from the four scopes (core/policy/scopes.py) is loaded only where
# no `safedel run` handed them down; workspace.collect, .project_dir and .Root lead there.
_SCOPES = frozenset(("collect", "project_dir", "Root"))


def __getattr__(name):
    if name in _SCOPES:
        from . import scopes

        return getattr(scopes, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def work_tree(directory):
    """The nearest directory up from directory (itself included) holding a `.git`
    entry: the git work tree it is in, or None."""
    here = directory
    while True:
        if os.path.lexists(os.path.join(here, ".git")):
            return here
        parent = os.path.dirname(here)
        if parent == here:
            return None
        here = parent


def project_session(start):
    """The session of a `safedel run` (or `safedel undo`, `safedel workspace`) that is
    given none: `project:<project>`, the git work tree start is in, else start. Runs
    in two projects are two sessions, so `safedel undo` in one never undoes the
    other's last command."""
    start = os.path.realpath(start)
    return "project:" + (work_tree(start) or start)


def session_for(environ, start):
    """SAFEDEL_SESSION (a harness's, or the bootstrapped shell's own), else start's
    project session."""
    return environ.get("SAFEDEL_SESSION") or project_session(start)


def inside(path, root):
    """True when the real path lies in root or is root itself."""
    root = root.rstrip(os.sep) or os.sep
    return path == root or path.startswith(root if root == os.sep else root + os.sep)


def root_paths(environ=None, handed=None):
    """The roots a deletion is judged against in this process, as a tuple of real paths.

    `safedel run` fixes its decision in its record and hands it down in
    SAFEDEL_WORKSPACE_ROOTS (handed: what settings.load found, a tuple from the record
    or the variable's value, so a deletion reads no environment); elsewhere (a
    bootstrap shell, `safedel env`) they are collected for the directory this process
    started in: a Python program that later changes directory keeps its workspace.
    """
    if handed is None:
        environ = os.environ if environ is None else environ
        handed = environ.get(ROOTS_VARIABLE)
    if isinstance(handed, tuple):
        return handed  # the run's record: real paths, one per root
    if handed is not None:
        roots = _handed.get(handed)
        if roots is None:  # asked at every deletion: split once per value
            roots = _handed[handed] = tuple(p for p in handed.split(os.pathsep) if p)
        return roots
    shim = sys.modules.get(__name__.rsplit(".", 2)[0] + ".pyshim")
    start = getattr(shim, "START_DIR", None)
    try:
        start = start or os.getcwd()
    except OSError:
        return ()
    environ = os.environ if environ is None else environ
    key = (start, environ.get("SAFEDEL_WORKSPACE"), environ.get("SAFEDEL_SESSION"))
    roots = _cache.get(key)
    if roots is None:
        from .scopes import collect

        found, warnings = collect(environ, start)
        for warning in warnings:
            core_settings.warn_once(warning)
        if len(_cache) > 64:
            _cache.clear()
        roots = _cache[key] = tuple(r.path for r in found)
    return roots


def containing(real_path, roots):
    """The deepest root holding real_path, or None."""
    found = None
    for root in roots:
        if inside(real_path, root) and (found is None or len(root) > len(found)):
            found = root
    return found


WORKSPACE, EXEMPT, OUTSIDE = "workspace", "exempt", "outside"


def nearest_exempt(real_path, exempt_roots):
    """The deepest exempt root holding real_path strictly inside it, or None."""
    exempt = None
    for candidate in exempt_roots:
        candidate = candidate.rstrip(os.sep) or os.sep
        deeper = exempt is None or len(candidate) > len(exempt)
        if deeper and real_path != candidate and inside(real_path, candidate):
            exempt = candidate
    return exempt


_inner = {}


def inner_roots(roots, exempt_roots):
    """The roots strictly inside an exempt root: the only ones a directory there can
    hold. Asked at every exempt deletion, and nearly always none."""
    key = (roots, exempt_roots)
    found = _inner.get(key)
    if found is None:
        if len(_inner) > 64:
            _inner.clear()
        found = _inner[key] = tuple(r for r in roots if nearest_exempt(r, exempt_roots))
    return found


def holds_root(real_path, roots):
    """Whether a root lies strictly inside real_path (a directory that holds one)."""
    return any(root != real_path and inside(root, real_path) for root in roots)


def location(real_path, roots, exempt_roots, kept_roots=()):
    """The location class of a target that is not protected, from its real path and
    real roots: WORKSPACE (trashed, counted unless regenerable), EXEMPT (deleted for
    real) or OUTSIDE (the outside-workspace question).

    The nearest enclosing root decides: a project cloned under the temp dir is a
    workspace inside an exempt root, so its files are trashed; a workspace that is the
    temp dir itself, or holds it (a session started in /tmp or in ~), leaves what is
    in the temp dir exempt, as it was. kept_roots (core.kept: safedel's own trash and
    state) are roots of their own: one nearer than the exempt root makes what lies in
    it judged, inside the workspace or outside it as any other path.
    """
    root = containing(real_path, roots)
    exempt = nearest_exempt(real_path, exempt_roots)
    if root is not None and (exempt is None or len(root.rstrip(os.sep)) > len(exempt)):
        return WORKSPACE
    if exempt is None:
        return OUTSIDE
    kept = containing(real_path, kept_roots) if kept_roots else None
    if kept is not None and len(kept.rstrip(os.sep)) > len(exempt):
        return WORKSPACE if root is not None else OUTSIDE
    return EXEMPT
