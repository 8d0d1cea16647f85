"""The helper the PowerShell prelude calls, run for real in Python, the way the prelude
runs it (PRELUDE_ARGV), and through its CLI face `safedel trash`."""

import json
import subprocess
import sys

from conftest import last_markers

# As in the prelude's __safedel_trash (test_powershell.py checks that they agree).
PRELUDE_ARGV = ["-E", "-m", "safedel.shells.trash_helper", "--runtime", "powershell", "--json"]


def helper(sandbox, *args, stdin=None, threshold=50):
    argv = [sys.executable, *PRELUDE_ARGV, *args]
    env = sandbox.base_env(
        SAFEDEL_THRESHOLD=str(threshold), SAFEDEL_SESSION="s", SAFEDEL_TURN="ps-1"
    )
    done = subprocess.run(argv, cwd=sandbox.work, env=env, input=stdin, capture_output=True)
    answers = [json.loads(line) for line in done.stdout.decode().splitlines()]
    return done, answers


def test_literal_paths_go_to_the_trash_as_powershell(sandbox):
    for name in ("a b.txt", "star*name", "starXname"):
        (sandbox.work / name).write_text("x")
    done, answers = helper(sandbox, "--", "a b.txt", "star*name")
    assert done.returncode == 0, done.stderr
    assert [a["ok"] for a in answers] == [True, True]
    # A literal path with `*` names that one file, never a pattern.
    assert sorted(p.name for p in sandbox.work.iterdir()) == ["starXname"]
    assert sandbox.trashed_names() == ["a b.txt", "star*name"]
    events = sandbox.report()
    assert {(e["operation"], e["runtime"], e["turn"]) for e in events} == {
        ("trash", "powershell", "ps-1")
    }


def test_paths_read_as_ascii_json_from_stdin(sandbox):
    name = "caf\u00e9 \u2603.txt"
    (sandbox.work / name).write_text("x")
    request = json.dumps([str(sandbox.work / name)], ensure_ascii=True).encode()
    done, answers = helper(sandbox, "--stdin", stdin=request)
    assert done.returncode == 0, done.stderr
    assert answers == [{"path": str(sandbox.work / name), "ok": True, "error": None}]
    assert sandbox.trashed_names() == [name]


def test_missing_paths_and_directories_with_children_fail_like_remove_item(sandbox):
    full = sandbox.work / "full"
    full.mkdir()
    (full / "child").write_text("x")
    (sandbox.work / "empty").mkdir()
    (sandbox.work / "file").write_text("x")
    done, answers = helper(sandbox, "--", "missing", "full", "empty", "file")
    assert done.returncode == 1
    assert answers[0]["error"] == "Cannot find path 'missing' because it does not exist."
    assert "has children and the Recurse parameter was not specified" in answers[1]["error"]
    assert [a["ok"] for a in answers] == [False, False, True, True]
    assert full.is_dir() and sandbox.trashed_names() == ["empty", "file"]
    done, answers = helper(sandbox, "--recurse", "--", "full")
    assert done.returncode == 0 and answers[0]["ok"]
    assert sandbox.trashed_names() == ["empty", "file", "full"]


def test_a_batch_over_the_threshold_is_refused_whole_with_the_marker(sandbox):
    names = [f"f{i}" for i in range(6)]
    for name in names:
        (sandbox.work / name).write_text("x")
    done, answers = helper(sandbox, "--", *names, threshold=5)
    assert done.returncode == 1
    marker = last_markers(done.stderr)["SAFE_DELETE_BULK_CONFIRM_REQUIRED"]
    assert marker["targetCount"] == 6 and marker["threshold"] == 5
    assert not any(a["ok"] for a in answers)
    assert sandbox.trashed_names() == []
    assert {e["operation"] for e in sandbox.report()} == {"refuse"}


def test_home_is_protected_and_temp_paths_are_deleted_for_real(sandbox):
    scratch = sandbox.tmpdir / "scratch"
    scratch.mkdir()
    (scratch / "x").write_text("x")
    done, answers = helper(sandbox, "--recurse", "--", str(sandbox.home), str(scratch))
    assert done.returncode == 1
    assert "home directory" in answers[0]["error"] and answers[1]["ok"]
    assert sandbox.home.is_dir() and not scratch.exists()
    assert sandbox.trashed_names() == []
    # A protected path is refused with a `refuse` event, as in every front end.
    assert [(e["operation"], e["path"]) for e in sandbox.report()] == [
        ("refuse", str(sandbox.home))
    ]


def test_without_json_errors_go_to_stderr(sandbox):
    argv = [sys.executable, "-m", "safedel", "trash", "--", "missing"]
    done = subprocess.run(argv, cwd=sandbox.work, env=sandbox.base_env(), capture_output=True)
    assert done.returncode == 1 and done.stdout == b""
    assert done.stderr == b"safedel trash: Cannot find path 'missing' because it does not exist.\n"


def test_stdin_that_is_not_a_list_of_paths_is_a_usage_error(sandbox):
    (sandbox.work / "keep").write_text("x")
    done, _ = helper(sandbox, "--stdin", stdin=b'{"path": "keep"}')
    assert done.returncode == 2 and b"JSON array" in done.stderr
    assert (sandbox.work / "keep").exists()
