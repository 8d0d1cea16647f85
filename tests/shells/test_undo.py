"""`safedel undo` and the interactive restore picker, driven as a person would."""

import json
import os
import re
import shlex
import subprocess
import sys

import pytest
from ptyshell import Terminal


def safedel(sandbox, *args, session=None):
    env = sandbox.base_env()
    if session:
        env["SAFEDEL_SESSION"] = session
    return subprocess.run(
        [sys.executable, "-m", "safedel", *args], cwd=sandbox.work, env=env, capture_output=True
    )


def trash_in_turns(sandbox, session, *batches):
    """Each batch of names is made, then removed in its own `safedel run` (one turn)."""
    for names in batches:
        for name in names:
            (sandbox.work / name).write_text(name)
        argv = [sys.executable, "-m", "safedel", "run", "--session", session, "--", "rm", *names]
        done = subprocess.run(argv, cwd=sandbox.work, env=sandbox.base_env(), capture_output=True)
        assert done.returncode == 0, done.stderr


def present(sandbox, names):
    return [name for name in names if (sandbox.work / name).exists()]


def test_undo_is_a_stack_of_turns(sandbox):
    first, second = ["a1", "a2"], ["b1", "b2", "b3"]
    trash_in_turns(sandbox, "s1", first, second)
    done = safedel(sandbox, "undo", session="s1")
    assert done.returncode == 0, done.stderr
    assert present(sandbox, first + second) == second
    assert b"restored 3 of 3" in done.stdout
    done = safedel(sandbox, "undo", session="s1")
    assert done.returncode == 0 and present(sandbox, first) == first
    done = safedel(sandbox, "undo", session="s1")
    assert done.returncode == 1 and b"nothing to undo" in done.stderr


def test_undo_n_and_dry_run(sandbox):
    trash_in_turns(sandbox, "s2", ["x"], ["y"], ["z"])
    preview = safedel(sandbox, "undo", "-n", "2", "--dry-run", "--json", session="s2")
    rows = json.loads(preview.stdout)
    assert [os.path.basename(r["items"][0]) for r in rows] == ["z", "y"]
    assert present(sandbox, ["x", "y", "z"]) == []
    done = safedel(sandbox, "undo", "-n", "2", session="s2")
    assert done.returncode == 0 and present(sandbox, ["x", "y", "z"]) == ["y", "z"]


def test_sessions_do_not_undo_each_other(sandbox):
    trash_in_turns(sandbox, "mine", ["m1"])
    trash_in_turns(sandbox, "theirs", ["t1"])
    assert safedel(sandbox, "undo", session="mine").returncode == 0
    assert present(sandbox, ["m1", "t1"]) == ["m1"]


def test_a_partly_blocked_undo_names_each_item_and_exits_1(sandbox):
    names = ["p1", "p2", "p3"]
    trash_in_turns(sandbox, "s3", names)
    (sandbox.work / "p2").write_text("new p2")
    done = safedel(sandbox, "undo", "--json", session="s3")
    assert done.returncode == 1
    outcome = json.loads(done.stdout)
    assert sorted(os.path.basename(r["path"]) for r in outcome["restored"]) == ["p1", "p3"]
    assert [os.path.basename(r["path"]) for r in outcome["notRestored"]] == ["p2"]
    assert (sandbox.work / "p2").read_text() == "new p2"
    plain = safedel(sandbox, "undo", session="s3")
    assert plain.returncode == 1 and b"p2" in plain.stderr and b"restored 0 of 1" in plain.stderr


def test_restore_without_a_terminal_says_how(sandbox):
    done = safedel(sandbox, "restore")
    assert done.returncode == 2 and b"Usage: safedel restore" in done.stderr


HOSTILE = "evil\x1b[2J\nname"


@pytest.fixture
def picker_trash(sandbox):
    trash_in_turns(sandbox, "pick", ["old1", "old2"], ["new1", "new2", "new3", HOSTILE])
    return sandbox


def pick(sandbox, answer):
    """Run the picker on a pty, answer it; return (the menu it showed, all it showed)."""
    env = sandbox.base_env(TERM="dumb", SAFEDEL_SESSION="pick")
    argv = [sys.executable, "-m", "safedel", "restore"]
    terminal = Terminal(argv, env, str(sandbox.work))
    try:
        terminal.expect(re.compile(rb"Restore which\?"), 60)
        menu = terminal.text()
        terminal.send(answer + "\n")
        if answer:
            terminal.expect(re.compile(rb"restored \d+ of \d+"), 60)
    finally:
        terminal.close()
    return menu, terminal.text()


def numbers(menu):
    """Each item's number in the menu, by its name."""
    return {name: int(n) for n, name in re.findall(r"^\s+(\d+)\s.*\s(\S+)\s*$", menu, re.M)}


def test_picker_single_item_range_and_turn(picker_trash):
    sandbox = picker_trash
    menu, _ = pick(sandbox, "")
    assert menu.index("a) turn") < menu.index("new1") < menu.index("b) turn") < menu.index("old1")
    assert "\x1b[2J" not in menu and "evil\\x1b[2J\\nname" in menu
    assert present(sandbox, ["old1", "old2", "new1", "new2", "new3"]) == []
    _, shown = pick(sandbox, "b")
    assert "restored 2 of 2" in shown
    assert present(sandbox, ["old1", "old2", "new1"]) == ["old1", "old2"]
    menu, _ = pick(sandbox, "")
    _, shown = pick(sandbox, str(numbers(menu)["new2"]))
    assert present(sandbox, ["new1", "new2", "new3"]) == ["new2"]
    menu, _ = pick(sandbox, "")
    low, high = sorted((numbers(menu)["new1"], numbers(menu)["new3"]))
    assert high - low == 1
    _, shown = pick(sandbox, f"{low}-{high}")
    assert present(sandbox, ["new1", "new3"]) == ["new1", "new3"]
    assert "restored 2 of 2" in shown


@pytest.mark.parametrize("key", ["bash", "zsh", "fish"])
def test_undo_in_an_interactive_shell_brings_back_a_confirmed_bulk_rm(sandbox, key, monkeypatch):
    from test_interactive import start

    monkeypatch.delenv("CI", raising=False)  # the guard asks only outside CI
    safedel_cmd = f"{shlex.quote(sys.executable)} -m safedel"
    terminal = start(sandbox, key, SAFEDEL_PROMPT="1")
    try:
        for index in range(3):
            (sandbox.work / f"e{index}").write_text("earlier")
        status, _ = terminal.run("rm e0 e1 e2")
        assert status == 0
        names = [f"f{index:02d}" for index in range(60)]
        for name in names:
            (sandbox.work / name).write_text(name)
        terminal.send("rm f*\n")
        terminal.expect(re.compile(rb"\[y/N\]"), 90)
        terminal.send("y\n")
        status, shown = terminal.run("true")
        assert present(sandbox, names) == [], shown
        status, shown = terminal.run(f"{safedel_cmd} undo")
        assert status == 0, shown
        assert present(sandbox, names) == names
        assert "restored 60 of 60" in shown
        status, shown = terminal.run(f"{safedel_cmd} undo")
        assert status == 0, shown
        assert present(sandbox, ["e0", "e1", "e2"]) == ["e0", "e1", "e2"]
    finally:
        terminal.close()


def test_two_interactive_shells_undo_only_their_own_turns(sandbox):
    from test_interactive import start

    safedel_cmd = f"{shlex.quote(sys.executable)} -m safedel"
    one, two = start(sandbox, "bash"), start(sandbox, "bash")
    try:
        for name in ("one-a", "two-a"):
            (sandbox.work / name).write_text(name)
        assert one.run("rm one-a")[0] == 0
        assert two.run("rm two-a")[0] == 0
        status, shown = one.run(f"{safedel_cmd} undo")
        assert status == 0, shown
        assert present(sandbox, ["one-a", "two-a"]) == ["one-a"]
        status, shown = one.run(f"{safedel_cmd} undo")
        assert status == 1 and "nothing to undo" in shown
        assert present(sandbox, ["two-a"]) == []
    finally:
        one.close()
        two.close()
