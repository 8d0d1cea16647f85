"""safedel never shims itself: every command, run in an environment where the shims are
on (as in a shell with the bootstrap loaded), leaves nothing of its own state in the
trash or the report."""

import json
import os
import subprocess
import sys

import pytest

COMMANDS = [
    ["list"],
    ["list", "--json"],
    ["report", "--json"],
    ["guard", "status"],
    ["guard", "approve"],
    ["guard", "reject"],
    ["guard", "signal"],
    ["guard", "reset"],
    ["restore", "VICTIM"],
    ["env", "--json"],
    ["bootstrap", "bash"],
    ["shims"],
    ["doctor", "--json"],
    ["workspace", "list"],
]


def safedel(sandbox, env, *argv):
    return subprocess.run(
        [sys.executable, "-m", "safedel", *argv],
        cwd=sandbox.work,
        env=env,
        capture_output=True,
        timeout=120,
    )


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_no_command_puts_safedel_state_in_the_trash(sandbox, command):
    env = sandbox.shim_env()
    victim = sandbox.work / "victim.txt"
    victim.write_text("v")
    done = subprocess.run(["rm", str(victim)], env=env, capture_output=True, timeout=60)
    assert done.returncode == 0, done.stderr
    before_trash = sandbox.trashed_names()
    before_report = sandbox.report()
    assert before_trash == ["victim.txt"] and len(before_report) == 1
    safedel(sandbox, env, *[str(victim) if arg == "VICTIM" else arg for arg in command])
    after = sandbox.trashed_names()
    events = sandbox.report()
    if command[0] == "restore":
        assert after == [] and victim.read_text() == "v"
        assert [e["operation"] for e in events] == ["trash", "restore"]
    else:
        assert after == before_trash
        assert events == before_report
    # the state directory's own files stayed where they were, never in the trash
    info = sandbox.trash / "info"
    names = os.listdir(info) if info.is_dir() else []
    assert all(n == "victim.txt.trashinfo" for n in names), names


def test_this_shell_is_still_told_apart(sandbox):
    done = safedel(sandbox, sandbox.shim_env(), "doctor", "--json")
    rows = {row["check"]: row for row in json.loads(done.stdout)}
    assert rows["this shell"]["detail"] == "protected"
