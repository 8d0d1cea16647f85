"""Workspace roots: four scopes merged, the default, and a project that may not widen."""

import os
import subprocess
import sys

import pytest
from conftest import require

from safedel.commands import configview
from safedel.core.policy import workspace, workspacefiles


@pytest.fixture
def place(tmp_path):
    home = tmp_path / "home"
    project = home / "proj"
    (project / "sub").mkdir(parents=True)
    state = tmp_path / "state"
    env = {
        "HOME": str(home),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "SAFEDEL_STATE_DIR": str(state),
        "SAFEDEL_SESSION": "S",
    }
    return project, env


def git_init(path):
    subprocess.run([require("git"), "init", "-q", str(path)], check=True)


def paths(found):
    return [(r.path, r.scope) for r in found[0]]


def test_default_is_the_git_top_level_else_the_start_dir(place):
    project, env = place
    real = os.path.realpath(project)
    assert paths(workspace.collect(env, project / "sub")) == [(real + "/sub", "default")]
    git_init(project)
    found, warnings = workspace.collect(env, project / "sub")
    assert paths((found,)) == [(real, "default")] and warnings == []
    assert found[0].source == "git work tree"


def test_every_scope_merges_in_order_and_paths_are_real(place, tmp_path):
    project, env = place
    git_init(project)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / "link").symlink_to(elsewhere)
    env["SAFEDEL_WORKSPACE"] = os.pathsep.join([str(tmp_path / "link"), "sub"])
    workspacefiles.write_session(env["SAFEDEL_STATE_DIR"], "S", [str(tmp_path)])
    (project / ".safedel").mkdir()
    workspacefiles.write_list(str(project / workspace.LOCAL_FILE), ["../../other"])
    workspacefiles.write_list(str(project / workspace.PROJECT_FILE), ["sub"])
    config = project.parent / ".config" / "safedel" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('threshold = 7\nworkspace = [\n  "/srv/data",  # shared\n]\n')
    found, warnings = workspace.collect(env, project, cli_roots=["sub"])
    # Nobody confirmed the local and user files: what lies inside a session root (the
    # local "../../other", in tmp_path) narrows and counts; /srv/data waits.
    assert [r.scope for r in found] == ["session", "session", "session", "local"]
    assert len(warnings) == 1 and "'/srv/data'" in warnings[0] and "config trust" in warnings[0]
    for path in (project / workspace.LOCAL_FILE, config):
        configview.record(env["SAFEDEL_STATE_DIR"], str(path), path.read_text(), path.stat(), env)
    found, warnings = workspace.collect(env, project, cli_roots=["sub"])
    real = os.path.realpath(project)
    assert [(r.path, r.scope, r.source) for r in found] == [
        (real + "/sub", "session", "--workspace"),
        (os.path.realpath(elsewhere), "session", "SAFEDEL_WORKSPACE"),
        (os.path.realpath(tmp_path), "session", "session 'S'"),
        (os.path.realpath(tmp_path / "other"), "local", str(project / workspace.LOCAL_FILE)),
        ("/srv/data", "user", str(config)),
    ]  # the project's "sub" is already a session root: listed once
    assert warnings == []
    # Another session does not see S's roots.
    other = workspace.collect({**env, "SAFEDEL_SESSION": "T"}, project)[0]
    assert os.path.realpath(tmp_path) not in [r.path for r in other]


@pytest.mark.parametrize("entry", ["/", "~", "..", "../proj-sibling", "sub/../.."])
def test_a_project_config_cannot_name_folders_outside_itself(place, entry):
    project, env = place
    git_init(project)
    (project / ".safedel").mkdir()
    (project / workspace.PROJECT_FILE).write_text(f'workspace = ["{entry}", "sub"]\n')
    found, warnings = workspace.collect(env, project)
    real = os.path.realpath(project)
    assert paths((found,)) == [(real + "/sub", "project")]
    assert len(warnings) == 1 and repr(entry) in warnings[0] and "inside" in warnings[0]


def test_a_project_config_applies_only_to_its_own_project(place, tmp_path):
    project, env = place
    git_init(project)
    (project / ".safedel").mkdir()
    (project / workspace.PROJECT_FILE).write_text('workspace = ["sub"]\n')
    other = tmp_path / "other"
    other.mkdir()
    assert paths(workspace.collect(env, other)) == [(os.path.realpath(other), "default")]


def test_root_paths_prefers_what_safedel_run_handed_down(place, monkeypatch):
    project, env = place
    env[workspace.ROOTS_VARIABLE] = os.pathsep.join(["/a", "/b"])
    assert workspace.root_paths(env) == ("/a", "/b")
    del env[workspace.ROOTS_VARIABLE]
    # A Python shim loaded by an earlier test keeps its own start directory.
    shim = sys.modules.get("safedel.core.pyshim")
    if shim is not None:
        monkeypatch.setattr(shim, "START_DIR", None, raising=False)
    monkeypatch.chdir(project / "sub")
    assert workspace.root_paths(env) == (os.path.realpath(project / "sub"),)
    assert workspace.containing(
        os.path.realpath(project / "sub" / "x"), ("/a", os.path.realpath(project))
    )
    assert workspace.containing("/ab/x", ("/a",)) is None
    assert workspace.inside("/a", "/a") and workspace.inside("/x", "/")


def test_write_list_keeps_every_other_line(tmp_path):
    path = tmp_path / "config.toml"
    path.write_text(
        '# mine\nthreshold = 9\nworkspace = [\n "a", # one\n \'b\'\n]\n[table]\nworkspace = "x"\n'
    )
    assert workspacefiles.read_list(str(path)) == ["a", "b"]
    workspacefiles.write_list(str(path), ["c", 'q"uote'])
    text = path.read_text()
    assert text.startswith('# mine\nthreshold = 9\nworkspace = ["c", "q\\"uote"]\n[table]\n')
    assert workspacefiles.read_list(str(path)) == ["c", 'q"uote']
    fresh = tmp_path / "new" / "config.toml"
    workspacefiles.write_list(str(fresh), ["/d"])
    assert workspacefiles.read_list(str(fresh)) == ["/d"]
    assert workspacefiles.read_list(str(tmp_path / "missing.toml")) == []


def test_session_store_is_private(tmp_path):
    state = tmp_path / "state"
    workspacefiles.write_session(str(state), "S", ["/x"])
    assert workspacefiles.read_session(str(state), "S") == ["/x"]
    assert workspacefiles.read_session(str(state), "other") == []
    stored = next((state / workspacefiles.SESSIONS).iterdir())
    assert stored.stat().st_mode & 0o777 == 0o600
    assert (state / workspacefiles.SESSIONS).stat().st_mode & 0o777 == 0o700
