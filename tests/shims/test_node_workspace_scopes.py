"""The Node shim draws the workspace boundary from the same scopes as the Python side
when no `safedel run` handed its roots down (a Node program in a bootstrapped shell with
outside_workspace = "confirm"): a folder added for the session lets a deletion outside
the project through for that session only, and a cloned project's config that names /
or ~ widens nothing and says so."""

import os
import subprocess
import sys

from conftest import last_markers, require

UNLINK = "require('fs').unlinkSync(process.argv[1])"


def node_env(sandbox, session):
    env = sandbox.shim_env(SAFEDEL_OUTSIDE_WORKSPACE="confirm")
    del env["SAFEDEL_WORKSPACE_ROOTS"]  # as in a bootstrapped shell: no run decided them
    env["SAFEDEL_SESSION"] = session
    return env


def unlink(sandbox, project, path, session):
    return subprocess.run(
        [require("node"), "-e", UNLINK, str(path)],
        cwd=project,
        env=node_env(sandbox, session),
        capture_output=True,
        text=True,
        timeout=120,
    )


def project_in(sandbox):
    project = sandbox.work / "proj"
    project.mkdir()
    subprocess.run([require("git"), "init", "-q", str(project)], check=True)
    return project


def test_a_session_root_lets_node_delete_outside_for_that_session_only(sandbox):
    project = project_in(sandbox)
    outside = sandbox.root / "outside"
    outside.mkdir()
    for name in ("a", "b", "c"):
        (outside / name).write_text(name)
    before = unlink(sandbox, project, outside / "a", sandbox.session)
    assert before.returncode != 0 and "EPERM" in before.stderr
    assert last_markers(before.stderr).get("SAFE_DELETE_OUTSIDE_WORKSPACE"), before.stderr
    added = subprocess.run(
        [sys.executable, "-m", "safedel", "workspace", "add", str(outside), "--scope", "session"],
        cwd=project,
        env=sandbox.base_env(SAFEDEL_SESSION=sandbox.session),
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert added.returncode == 0, added.stderr
    allowed = unlink(sandbox, project, outside / "a", sandbox.session)
    assert allowed.returncode == 0, allowed.stderr
    other = unlink(sandbox, project, outside / "b", "another-session")
    assert other.returncode != 0 and "EPERM" in other.stderr
    assert sorted(os.listdir(outside)) == ["b", "c"]
    assert sandbox.trashed_names() == ["a"]


def test_a_project_config_naming_root_or_home_is_ignored_with_a_warning(sandbox):
    project = project_in(sandbox)
    (project / ".safedel").mkdir()
    (project / ".safedel" / "config.toml").write_text('workspace = ["/", "~"]\n')
    victim = sandbox.home / "notes.txt"
    victim.write_text("mine")
    done = unlink(sandbox, project, victim, sandbox.session)
    assert done.returncode != 0 and "EPERM" in done.stderr
    assert victim.read_text() == "mine"
    for entry in ("'/'", "'~'"):
        assert f"ignoring workspace root {entry}" in done.stderr, done.stderr
    assert last_markers(done.stderr).get("SAFE_DELETE_OUTSIDE_WORKSPACE"), done.stderr
