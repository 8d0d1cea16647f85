"""dash and busybox sh with PS1 assigned after the bootstrap, which drops the prompt hook
that rotates their turns: rm (and rmdir, unlink, find, safedel) put it back, and doctor
and guard status say that it was gone."""

import collections
import json
import os
import sys

import pytest
from conftest import require
from rcshell import SAFEDEL, bootstrap, environment, open_shell, read

SHELLS = {"dash": ["dash", "-i"], "busybox": ["busybox", "sh", "-i"]}
# The venv's own bin, so that `safedel` typed at the prompt is this safedel.
VENV_BIN = os.path.dirname(sys.executable)


def start(sandbox, key, rc):
    require(os.path.join(VENV_BIN, "safedel"))
    path = VENV_BIN + os.pathsep + os.environ.get("PATH", "")
    env = environment(sandbox, ENV=str(sandbox.home / ".shrc"), PATH=path)
    return open_shell(sandbox, SHELLS[key], {".shrc": rc}, env=env)


def make_files(sandbox, prefix, count):
    for index in range(count):
        (sandbox.work / f"{prefix}{index:02d}").write_text(prefix)


@pytest.mark.parametrize("key", list(SHELLS))
def test_rm_puts_the_turn_hook_back_after_ps1_is_replaced(sandbox, key):
    """Two 30-file lines would share one turn (60 > 50, refused) if the hook stayed
    gone; the first rm puts it back, so the second line is a turn of its own."""
    require(os.path.join(sandbox.shim_home, "bin", "rm"))
    for prefix, count in (("a", 30), ("b", 30), ("c", 60)):
        make_files(sandbox, prefix, count)
    terminal = start(sandbox, key, bootstrap("sh") + "PS1='> '\n")
    try:
        first = terminal.run("rm a*")
        second = terminal.run("rm b*")
        refused = terminal.run("rm c*")
        terminal.run('cat "$SAFEDEL_TURN_FILE" > one.txt')
        terminal.run('cat "$SAFEDEL_TURN_FILE" > two.txt')
    finally:
        terminal.close()
    assert first[0] == 0, first[1]
    assert second[0] == 0, second[1]
    assert refused[0] == 1, refused[1]
    assert len(sandbox.trashed_names()) == 60
    turns = collections.Counter(e["turn"] for e in sandbox.report() if e["operation"] == "trash")
    assert sorted(turns.values()) == [30, 30], turns
    one, two = read(sandbox, "one.txt"), read(sandbox, "two.txt")
    assert int(two.rsplit("-", 1)[1]) == int(one.rsplit("-", 1)[1]) + 1, (one, two)


@pytest.mark.parametrize("key", list(SHELLS))
def test_doctor_and_guard_status_say_the_hook_was_gone(sandbox, key):
    terminal = start(sandbox, key, bootstrap("sh") + "PS1='> '\n")
    try:
        # By another name than the shell function: what the turn file shows is enough.
        terminal.run(f"{SAFEDEL} guard status > plain.txt 2> plain-warning.txt")
        terminal.run("safedel guard status --json > status.json")
        terminal.run("safedel doctor --json > doctor.json")
        terminal.run('cat "$SAFEDEL_TURN_FILE" > one.txt')
        terminal.run('cat "$SAFEDEL_TURN_FILE" > two.txt')
    finally:
        terminal.close()
    warning = read(sandbox, "plain-warning.txt")
    assert "turns are not rotating in this shell: PS1 was replaced" in warning
    assert "put the line last in your rc" in warning
    assert json.loads(read(sandbox, "status.json"))["warning"].startswith(
        "turns were not rotating in this shell: PS1 was replaced after the bootstrap"
    )
    rows = {row["check"]: row for row in json.loads(read(sandbox, "doctor.json"))}
    assert rows["turns at the prompt"]["ok"] is False
    assert "PS1 was replaced" in rows["turns at the prompt"]["detail"]
    # safedel put the hook back: the lines after it rotate.
    assert read(sandbox, "one.txt") != read(sandbox, "two.txt")


@pytest.mark.parametrize("key", list(SHELLS))
def test_with_the_line_last_doctor_and_guard_status_are_content(sandbox, key):
    terminal = start(sandbox, key, "PS1='> '\n" + bootstrap("sh"))
    try:
        terminal.run(f"{SAFEDEL} guard status > plain.txt 2> plain-warning.txt")
        terminal.run("safedel guard status --json > status.json")
        terminal.run("safedel doctor --json > doctor.json")
    finally:
        terminal.close()
    assert read(sandbox, "plain-warning.txt") == ""
    assert "warning" not in json.loads(read(sandbox, "status.json"))
    rows = {row["check"]: row for row in json.loads(read(sandbox, "doctor.json"))}
    assert rows["turns at the prompt"]["ok"] is True


@pytest.mark.parametrize("key", list(SHELLS))
def test_the_users_rm_alias_and_functions_are_kept(sandbox, key):
    """An alias defined before the bootstrap still applies (in front of safedel's
    function); a function of the user's own is left alone."""
    require(os.path.join(sandbox.shim_home, "bin", "rm"))
    (sandbox.work / "victim").write_text("x")
    user = "alias rm='rm -v'\nunlink() { echo mine; }\nalias rmdir=rmdir\nrmdir() { echo too; }\n"
    rc = user + bootstrap("sh") * 2 + "PS1='> '\n"
    terminal = start(sandbox, key, rc)
    try:
        status, shown = terminal.run("rm victim > removed.txt")
        terminal.run("unlink nothing > unlink.txt; rmdir nothing > rmdir.txt")
        terminal.run('echo "$PS1" | grep -o __safedel_rotate_turn | wc -l > hooks.txt')
    finally:
        terminal.close()
    assert status == 0, shown
    assert read(sandbox, "removed.txt") == "removed 'victim'"
    assert sandbox.trashed_names() == ["victim"]
    assert read(sandbox, "unlink.txt") == "mine"
    assert read(sandbox, "rmdir.txt") == "too"
    assert read(sandbox, "hooks.txt") == "1"
