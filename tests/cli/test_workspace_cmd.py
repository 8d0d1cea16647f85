"""`safedel workspace list|add|remove` in every scope."""

import json
import os
import subprocess
import sys

from conftest import confirm_config, require


def safedel(sandbox, *args, cwd=None, env=None):
    return subprocess.run(
        [sys.executable, "-m", "safedel", "workspace", *args],
        env=env or sandbox.base_env(SAFEDEL_SESSION=sandbox.session),
        cwd=cwd or sandbox.work,
        capture_output=True,
        text=True,
        timeout=120,
    )


def roots(sandbox, *args, cwd=None, env=None):
    done = safedel(sandbox, "list", "--json", *args, cwd=cwd, env=env)
    assert done.returncode == 0, done.stderr
    return [(r["path"], r["scope"]) for r in json.loads(done.stdout)["roots"]]


def test_add_list_remove_in_each_scope(sandbox):
    project = sandbox.work / "proj"
    (project / "lib").mkdir(parents=True)
    subprocess.run([require("git"), "init", "-q", str(project)], check=True)
    real = os.path.realpath(project)
    other = sandbox.root / "other"
    other.mkdir()
    real_other = os.path.realpath(other)
    assert roots(sandbox, cwd=project / "lib") == [(real, "default")]
    for scope, directory in (("session", other), ("local", other), ("user", other)):
        done = safedel(sandbox, "add", str(directory), "--scope", scope, cwd=project)
        assert done.returncode == 0 and f"added {real_other} ({scope})" in done.stdout
    done = safedel(sandbox, "add", "lib", "--scope", "project", cwd=project)
    assert done.returncode == 0, done.stderr
    assert (project / ".safedel" / "config.toml").read_text() == 'workspace = ["lib"]\n'
    # No person at a terminal typed these: the files' roots wait for a confirmation,
    # and what lies in a root that counts anyway (the session's) narrows and counts.
    assert "not yet applying the root added" in done.stderr
    assert roots(sandbox, cwd=project) == [(real_other, "session")]
    config = sandbox.home / ".config" / "safedel" / "config.toml"
    for path in (project / ".safedel" / "config.local.toml", project / ".safedel" / "config.toml"):
        confirm_config(sandbox.state, path, sandbox.base_env())
    confirm_config(sandbox.state, config, sandbox.base_env())
    assert roots(sandbox, cwd=project) == [
        (real_other, "session"),
        (real + "/lib", "project"),
    ]  # the same folder in three scopes is one root, first scope first
    text = safedel(sandbox, "list", cwd=project).stdout
    assert f"{real_other}\tsession\tsession {sandbox.session!r}" in text
    # Another session has only the stored scopes.
    env = sandbox.base_env(SAFEDEL_SESSION="another")
    assert roots(sandbox, cwd=project, env=env)[0] == (real_other, "local")
    for scope in ("session", "local", "user"):
        done = safedel(sandbox, "remove", str(other), "--scope", scope, cwd=project)
        assert done.returncode == 0, done.stderr
    assert roots(sandbox, cwd=project) == [(real + "/lib", "project")]
    again = safedel(sandbox, "remove", str(other), "--scope", "user", cwd=project)
    assert again.returncode == 1 and "is not a user workspace root" in again.stderr


def test_project_scope_refuses_outside_and_list_warns(sandbox):
    project = sandbox.work / "proj"
    project.mkdir()
    subprocess.run([require("git"), "init", "-q", str(project)], check=True)
    done = safedel(sandbox, "add", str(sandbox.home), "--scope", "project", cwd=project)
    assert done.returncode == 1 and "may only name folders inside" in done.stderr
    (project / ".safedel").mkdir()
    (project / ".safedel" / "config.toml").write_text('workspace = ["/", "~"]\n')
    done = safedel(sandbox, "list", "--json", cwd=project)
    listed = json.loads(done.stdout)
    assert [r["scope"] for r in listed["roots"]] == ["default"]
    assert len(listed["warnings"]) == 2
    plain = safedel(sandbox, "list", cwd=project)
    assert plain.stderr.count("warning:") == 2 and "'~'" in plain.stderr
    bad = safedel(sandbox, "add", str(project), "--scope", "nope", cwd=project)
    assert bad.returncode == 2 and "--scope" in bad.stderr
    missing = safedel(sandbox, "add", "nowhere", cwd=project)
    assert missing.returncode == 1 and "not a directory" in missing.stderr
