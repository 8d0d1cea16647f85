"""Per-project sessions (issue 31, case 7): a `safedel run` given no session runs in
its project's session, so `safedel undo` in project A undoes A's last command and
never project B's, even when B's ran last."""

import json
import subprocess
import sys


def safedel(sandbox, *args, cwd, env=None):
    return subprocess.run(
        [sys.executable, "-m", "safedel", *args],
        cwd=cwd,
        env=env or sandbox.base_env(),
        capture_output=True,
        text=True,
        timeout=120,
    )


def projects(sandbox):
    a, b = sandbox.work / "project-a", sandbox.work / "project-b"
    (a / ".git").mkdir(parents=True)  # a git work tree: runs in its subfolders are one project
    (a / "src").mkdir()
    b.mkdir()
    return a, b


def run_rm(sandbox, cwd, name):
    (cwd / name).write_text(name)
    done = safedel(sandbox, "run", "--", "rm", name, cwd=cwd)
    assert done.returncode == 0, done.stderr
    assert not (cwd / name).exists()


def sessions(sandbox):
    return [e["session"] for e in sandbox.report() if e["operation"] == "trash"]


def test_undo_in_one_project_leaves_the_other_projects_runs(sandbox):
    a, b = projects(sandbox)
    run_rm(sandbox, a, "a-first")
    run_rm(sandbox, a / "src", "a-second")
    run_rm(sandbox, b, "b-only")  # the newest run of all is project B's
    assert sessions(sandbox) == [f"project:{a.resolve()}"] * 2 + [f"project:{b.resolve()}"]
    done = safedel(sandbox, "undo", cwd=a)
    assert done.returncode == 0, done.stderr
    assert (a / "src" / "a-second").read_text() == "a-second"
    assert not (a / "a-first").exists() and not (b / "b-only").exists()
    done = safedel(sandbox, "undo", cwd=a / "src")  # the same project from a subfolder
    assert done.returncode == 0, done.stderr
    assert (a / "a-first").read_text() == "a-first"
    assert not (b / "b-only").exists()
    assert safedel(sandbox, "undo", cwd=a).returncode == 1  # nothing of A's is left
    assert not (b / "b-only").exists()
    done = safedel(sandbox, "undo", cwd=b)
    assert done.returncode == 0, done.stderr
    assert (b / "b-only").read_text() == "b-only"


def test_a_session_given_is_the_one_undone_wherever_undo_runs(sandbox):
    a, b = projects(sandbox)
    (a / "f").write_text("f")
    done = safedel(sandbox, "run", "--session", "agent-7", "--", "rm", "f", cwd=a)
    assert done.returncode == 0, done.stderr
    run_rm(sandbox, b, "g")
    preview = safedel(sandbox, "undo", "--session", "agent-7", "--dry-run", "--json", cwd=b)
    assert [row["items"] for row in json.loads(preview.stdout)] == [[str((a / "f").resolve())]]
    env = sandbox.base_env(SAFEDEL_SESSION="agent-7")
    assert safedel(sandbox, "undo", cwd=b, env=env).returncode == 0
    assert (a / "f").read_text() == "f" and not (b / "g").exists()
