"""Location classes under `safedel run`: the temp-dir trap, the outside-workspace
question (refused, approved, a session's own folder, a prompt on a real pty) and a
cloned project's config that tries to widen the workspace."""

import json
import os
import subprocess
import sys

import pytest
from conftest import as_a_person, confirm_config, last_markers, require
from personkit import on_a_pty, person_env

from safedel.core.contract import host
from safedel.core.guard import outside
from safedel.core.guard import turn as guardturn


def git_init(path):
    path.mkdir(parents=True, exist_ok=True)
    subprocess.run([require("git"), "init", "-q", str(path)], check=True)
    return path


def events(sandbox, operation):
    return [e for e in sandbox.report() if e["operation"] == operation]


def test_a_project_under_the_temp_dir_is_protected(sandbox):
    clone = git_init(sandbox.tmpdir / "clone")
    (clone / "build").mkdir()
    (clone / "build" / "out.o").write_text("x")
    scratch = sandbox.tmpdir / "scratch"
    scratch.write_text("x")
    done = sandbox.run("rm", "-rf", "build", str(scratch), cwd=clone)
    assert done.returncode == 0, done.stderr
    assert not (clone / "build").exists() and not scratch.exists()
    assert sandbox.trashed_names() == ["build"]  # the temp file went for real
    assert [e["path"] for e in events(sandbox, "trash")] == [os.path.realpath(clone / "build")]
    assert b"moved 1 item to the trash" in done.stderr


@pytest.fixture
def outside_file(sandbox):
    project = git_init(sandbox.work / "proj")
    docs = sandbox.work / "docs"
    docs.mkdir()
    (docs / "cv.txt").write_text("mine")
    return project, docs / "cv.txt"


def test_outside_the_workspace_is_refused_until_approved(sandbox, outside_file):
    project, target = outside_file
    result = sandbox.root / "result.json"
    done = sandbox.run("rm", str(target), cwd=project, run_options=["--result", str(result)])
    assert done.returncode == 1 and target.exists()
    payload = last_markers(done.stderr)["SAFE_DELETE_OUTSIDE_WORKSPACE"]
    assert payload == {
        "targets": [str(target)],
        "targetCount": 1,
        "workspace": [os.path.realpath(project)],
        "session": sandbox.session,
        "turn": sandbox.turn,
    }
    assert b"rm: outside the workspace" in done.stderr
    signal_file = json.loads(result.read_text())["guard"]
    assert signal_file == {"type": outside.KIND, "payload": payload}
    assert [e["path"] for e in events(sandbox, "refuse")] == [str(target)]
    assert sandbox.trashed_names() == []
    # Approved for the turn: it goes through, to the trash; another turn asks again.
    where = ["--session", sandbox.session, "--turn", sandbox.turn]
    approve = [sys.executable, "-m", "safedel", "guard", "approve", "--outside-workspace"]
    as_a_person([*approve, *where], env=sandbox.base_env(), check=True, capture_output=True)
    done = sandbox.run("rm", str(target), cwd=project)
    assert done.returncode == 0 and not target.exists() and sandbox.trashed_names() == ["cv.txt"]
    target.write_text("again")
    sandbox.turn = "turn-2"
    assert sandbox.run("rm", str(target), cwd=project).returncode == 1 and target.exists()


def test_a_folder_added_for_the_session_goes_through_for_that_session_only(sandbox, outside_file):
    project, target = outside_file
    add = [sys.executable, "-m", "safedel", "workspace", "add", str(target.parent)]
    env = sandbox.base_env(SAFEDEL_SESSION=sandbox.session)
    subprocess.run([*add, "--scope", "session"], env=env, check=True, capture_output=True)
    sandbox.session = "another"
    assert sandbox.run("rm", str(target), cwd=project).returncode == 1 and target.exists()
    sandbox.session = "test-session"
    done = sandbox.run("rm", str(target), cwd=project)
    assert done.returncode == 0, done.stderr
    assert sandbox.trashed_names() == ["cv.txt"]


def test_allow_trashes_outside_the_workspace(sandbox, outside_file):
    project, target = outside_file
    done = sandbox.run("rm", str(target), cwd=project, run_options=["--outside-workspace", "allow"])
    assert done.returncode == 0 and sandbox.trashed_names() == ["cv.txt"]
    target.write_text("again")
    config = sandbox.home / ".config" / "safedel" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text('outside_workspace = "allow"\n')
    # Nobody confirmed the file yet (a command could have written it): still a question.
    held = sandbox.run("rm", str(target), cwd=project)
    assert held.returncode == 1 and target.exists() and b"outside_workspace = allow" in held.stderr
    confirm_config(sandbox.state, config)
    assert sandbox.run("rm", str(target), cwd=project).returncode == 0 and not target.exists()


def test_a_cloned_projects_config_cannot_widen_the_workspace(sandbox):
    project = git_init(sandbox.work / "cloned")
    (project / ".safedel").mkdir()
    (project / ".safedel" / "config.toml").write_text('workspace = ["/", "~"]\n')
    precious = sandbox.home / "precious.txt"
    precious.write_text("x")
    done = sandbox.run("rm", str(precious), cwd=project)
    assert done.returncode == 1 and precious.exists()
    assert done.stderr.count(b"may only name folders inside") == 2
    assert "SAFE_DELETE_OUTSIDE_WORKSPACE" in last_markers(done.stderr)


@pytest.mark.parametrize(("answer", "code"), [(b"y\r", 0), (b"n\r", 1)], ids=["yes", "no"])
def test_on_a_terminal_it_is_a_question(sandbox, outside_file, answer, code):
    project, target = outside_file
    env = person_env(sandbox.base_env(), "SAFEDEL_PROMPT")
    argv = [sys.executable, "-m", "safedel", "run", "--session", sandbox.session]
    argv += ["--turn", sandbox.turn, "--", "rm", str(target)]
    got, screen = on_a_pty(argv, env, answer, outside.QUESTION.strip().encode(), cwd=project)
    assert got == code, screen
    assert "1 item(s) outside the workspace" in screen and repr(str(target)) in screen
    assert target.exists() == (code == 1)
    assert guardturn.status(str(sandbox.state), sandbox.session, sandbox.turn).outside == (
        code == 0
    )
    # A person who answered reads one line, not the marker (that is for harnesses).
    assert "[safe-delete]" not in screen


def test_node_outside_the_workspace_is_refused_until_approved(sandbox, outside_file):
    project, target = outside_file
    script = (
        f"try {{ require('fs').unlinkSync({str(target)!r}); }} catch (e) {{ console.log(e.code); }}"
    )
    done = sandbox.run(require("node"), "-e", script, cwd=project)
    assert done.stdout.split() == [b"EPERM"] and target.exists()
    payload = last_markers(done.stderr)["SAFE_DELETE_OUTSIDE_WORKSPACE"]
    assert payload["targets"] == [str(target)]
    assert payload["workspace"] == [os.path.realpath(project)]
    assert [e["runtime"] for e in events(sandbox, "refuse")] == ["node"]
    where = ["--session", sandbox.session, "--turn", sandbox.turn]
    approve = [sys.executable, "-m", "safedel", "guard", "approve", "--outside-workspace"]
    as_a_person([*approve, *where], env=sandbox.base_env(), check=True, capture_output=True)
    done = sandbox.run(require("node"), "-e", script, cwd=project)
    assert done.stdout == b"" and not target.exists(), done.stderr
    assert sandbox.trashed_names() == ["cv.txt"]
    expected = host.detect(sandbox.base_env(), interactive=False).name
    assert events(sandbox, "trash")[0]["host"] == expected
