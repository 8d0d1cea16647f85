"""Approvals the model cannot give itself: inside a run, the guard's decisions belong to
the user, and the run's threshold, session and turn are fixed when it starts."""

import json
import subprocess
import sys

from conftest import as_a_person
from resultschema import valid_result

from safedel.core.guard import turn as guardturn


def make_files(sandbox, folder, count):
    where = sandbox.work / folder
    where.mkdir()
    for n in range(count):
        (where / f"f{n:02d}").write_text("x")
    return where


def run(sandbox, script, *options, env=None):
    argv = [sys.executable, "-m", "safedel", "run", "--session", sandbox.session]
    argv += ["--turn", sandbox.turn, *options, "--json", "--", "bash", "-c", script]
    done = subprocess.run(
        argv, env=env or sandbox.base_env(), cwd=sandbox.work, capture_output=True, timeout=300
    )
    return done, valid_result(done.stdout.decode())


def granted(sandbox, turn=None):
    return guardturn.status(str(sandbox.state), sandbox.session, turn or sandbox.turn).granted


def test_guard_decisions_inside_a_run_are_refused(sandbox):
    for action in ("approve", "reject", "reset"):
        done, result = run(sandbox, f"safedel guard {action}")
        assert result["exitCode"] == 1, action
        assert "approval must come from the user" in result["stderr"]
    status = guardturn.status(str(sandbox.state), sandbox.session, sandbox.turn)
    assert status.mode == "open"


def test_approve_and_retry_inside_the_command_changes_nothing(sandbox):
    folder = make_files(sandbox, "self", 60)
    script = "rm self/* || { safedel guard approve; rm self/*; }"
    done, result = run(sandbox, script)
    assert result["exitCode"] == 1
    assert result["guard"]["type"] == "confirmRequired"
    assert result["trashed"] == [] and len(list(folder.iterdir())) == 60
    assert "safedel guard approve" not in result["stderr"]  # no command told to the model
    assert "the user must approve it" in result["stderr"]


def test_the_command_cannot_lift_the_threshold_or_leave_the_turn(sandbox):
    make_files(sandbox, "self", 60)
    for script in (
        "SAFEDEL_THRESHOLD=99999 rm self/*",
        "SAFEDEL_TURN=x$RANDOM rm self/*",
        "SAFEDEL_TURN=elsewhere SAFEDEL_TURN_FILE=/dev/null rm self/*",
    ):
        done, result = run(sandbox, script)
        assert result["guard"]["type"] == "confirmRequired", script
        assert all(e["turn"] == sandbox.turn for e in result["safeDeleteEvents"]), script
        assert len(result["refused"]) == 60 and result["trashed"] == []
    assert granted(sandbox) == 0
    one = sandbox.work / "one"
    one.write_text("1")
    done, result = run(sandbox, "SAFEDEL_TURN=moved SAFEDEL_SESSION=other rm one")
    assert [(e["session"], e["turn"]) for e in result["trashed"]] == [
        (sandbox.session, sandbox.turn)
    ]


EACH = (
    "import os\n"
    "for name in sorted(os.listdir('self')):\n"
    "    try:\n"
    "        os.remove(os.path.join('self', name))\n"
    "    except PermissionError:\n"
    "        pass\n"
)
NODE_EACH = (
    "const fs = require('fs');"
    "for (const f of fs.readdirSync('self')) { try { fs.unlinkSync('self/' + f) } catch {} }"
)


def test_python_and_node_keep_the_run_s_threshold(sandbox):
    make_files(sandbox, "self", 60)
    (sandbox.root / "each.py").write_text(EACH)
    (sandbox.root / "each.js").write_text(NODE_EACH)
    script = (
        f"SAFEDEL_THRESHOLD=99999 python3 {sandbox.root / 'each.py'}; "
        f"SAFEDEL_THRESHOLD=99999 SAFEDEL_TURN=x node {sandbox.root / 'each.js'}"
    )
    done, result = run(sandbox, script)
    assert len(result["trashed"]) == 50 and len(result["refused"]) == 20
    assert {e["runtime"] for e in result["refused"]} == {"python", "node"}
    assert all(e["turn"] == sandbox.turn for e in result["safeDeleteEvents"])
    assert granted(sandbox) == 50


def test_the_harness_token_approves_and_nothing_else_does(sandbox, tmp_path):
    token_file = tmp_path / "harness" / "approval.token"
    token_file.parent.mkdir()
    folder = make_files(sandbox, "bulk", 60)
    options = ("--approval-token-file", str(token_file))
    done, result = run(sandbox, "env; rm bulk/*", *options)
    assert result["guard"]["type"] == "confirmRequired"
    token = token_file.read_text().strip()
    assert len(token) == 64 and oct(token_file.stat().st_mode & 0o777) == "0o600"
    assert token not in result["stdout"] and str(token_file) not in result["stdout"]
    approve = [sys.executable, "-m", "safedel", "guard", "approve", "--session", sandbox.session]
    approve += ["--turn", sandbox.turn]
    # From outside any run, but without the token: refused, since the session has one.
    plain = subprocess.run(approve, env=sandbox.base_env(), capture_output=True, text=True)
    assert plain.returncode == 1 and "approval token" in plain.stderr
    forged = tmp_path / "forged"
    forged.write_text("0" * 64 + "\n")
    wrong = subprocess.run([*approve, "--token-file", str(forged)], env=sandbox.base_env())
    assert wrong.returncode == 1
    right = subprocess.run(
        [*approve, "--token-file", str(token_file)], env=sandbox.base_env(), capture_output=True
    )
    assert right.returncode == 0, right.stderr
    done, result = run(sandbox, "rm bulk/*", *options)  # the same token file is reused
    assert token_file.read_text().strip() == token
    assert result["exitCode"] == 0 and result["guard"] is None
    assert len(result["trashed"]) == 60 and not any(folder.iterdir())


def test_outside_a_harness_the_refusal_names_a_command_that_works_as_written(sandbox):
    folder = make_files(sandbox, "many", 60)
    argv = [sys.executable, "-m", "safedel", "run", "--session", sandbox.session]
    argv += ["--turn", sandbox.turn, "--", "bash", "-c", "rm many/*"]
    done = subprocess.run(argv, env=sandbox.base_env(), cwd=sandbox.work, capture_output=True)
    assert done.returncode == 1
    where = f"--session {sandbox.session} --turn {sandbox.turn}"
    hint = (
        f"to allow it, run `safedel guard approve {where}`, then run the command again "
        f"with `safedel run {where}`"
    )
    assert hint.encode() in done.stderr
    approve = as_a_person(
        [sys.executable, "-m", "safedel", "guard", "approve", *where.split()],
        env=sandbox.base_env(),
        capture_output=True,
    )
    assert approve.returncode == 0, approve.stderr
    done = subprocess.run(argv, env=sandbox.base_env(), cwd=sandbox.work, capture_output=True)
    assert done.returncode == 0 and list(folder.iterdir()) == [], done.stderr


def test_the_run_record_holds_what_was_fixed(sandbox):
    done, result = run(sandbox, "true", "--tool-call", "c9", "--threshold", "7")
    record = sandbox.state / "runs" / result["runId"] / "run.json"
    fixed = json.loads(record.read_text())
    assert (fixed["session"], fixed["turn"], fixed["toolCall"], fixed["threshold"]) == (
        sandbox.session,
        sandbox.turn,
        "c9",
        7,
    )
    assert oct(record.stat().st_mode & 0o777) == "0o600"


class Harness:
    """A harness written from docs/harness.md's "The harness loop" section."""

    def __init__(self, sandbox, token_file, answer):
        self.sandbox = sandbox
        self.token_file = str(token_file)
        self.answer = answer  # the user's answer to "allow this bulk deletion?"
        self.asked = []

    def safedel(self, *argv):
        return subprocess.run(
            [sys.executable, "-m", "safedel", *argv],
            env=self.sandbox.base_env(),
            cwd=self.sandbox.work,
            capture_output=True,
            timeout=300,
        )

    def tool_call(self, session, turn, call, command):
        where = ["--session", session, "--turn", turn]
        result_file = str(self.sandbox.root / f"{call}.json")
        while True:
            self.safedel(
                "run",
                *where,
                "--tool-call",
                call,
                "--approval-token-file",
                self.token_file,
                "--result",
                result_file,
                "--",
                "bash",
                "-c",
                command,
            )
            result = valid_result(self.sandbox.root / f"{call}.json")
            guard_signal = result["guard"]
            if guard_signal is None or guard_signal["type"] == "rejected":
                return result
            self.asked.append(guard_signal["payload"])
            verb = "approve" if self.answer else "reject"
            done = self.safedel("guard", verb, *where, "--token-file", self.token_file)
            assert done.returncode == 0, done.stderr


def test_the_readme_loop_with_a_yes(sandbox):
    folder = make_files(sandbox, "build", 60)
    harness = Harness(sandbox, sandbox.root / "token", answer=True)
    result = harness.tool_call("S", "T", "c1", "rm -rf build/*")
    assert result["exitCode"] == 0 and len(result["trashed"]) == 60
    assert [p["targetCount"] for p in harness.asked] == [60]
    assert not any(folder.iterdir())
    undo = harness.safedel("restore", "--turn", "T", "--session", "S")
    assert undo.returncode == 0, undo.stderr
    assert len(list(folder.iterdir())) == 60


def test_the_readme_loop_with_a_no(sandbox):
    folder = make_files(sandbox, "build", 60)
    harness = Harness(sandbox, sandbox.root / "token", answer=False)
    result = harness.tool_call("S", "T", "c1", "rm -rf build/*")
    assert result["guard"]["type"] == "rejected" and result["trashed"] == []
    assert len(list(folder.iterdir())) == 60
