"""`safedel list` and `safedel restore`, run as `python3 -m safedel` in a sandboxed user.

Items are trashed by the engine every runtime uses (core.deletion.trash_one), in a child
process with the sandbox's environment, so the report holds real trash events.
"""

import json
import os
import pty
import re
import subprocess
import sys

import pytest

from safedel.core.trash import info as trashinfo

TRASH = """
import sys
from safedel.core import deletion
from safedel.core.contract import settings
s = settings.load()
for path in sys.argv[1:]:
    deletion.trash_one(s, "python", path)
"""
HOSTILE = [b"new\nline", b"-dash", b"100%", b"with  spaces ", b"\xff\xfe-bytes", b"n" * 255]


def engine_trash(sandbox, *paths, turn=None, session=None):
    env = sandbox.base_env(
        SAFEDEL_SESSION=session or sandbox.session, SAFEDEL_TURN=turn or sandbox.turn
    )
    subprocess.run([sys.executable, "-c", TRASH, *paths], env=env, cwd=sandbox.work, check=True)


def safedel(sandbox, *args, env=None):
    return subprocess.run(
        [sys.executable, "-m", "safedel", *args],
        env=env or sandbox.base_env(COLUMNS="400"),
        cwd=sandbox.work,
        capture_output=True,
    )


def listed(sandbox, *args):
    done = safedel(sandbox, "list", "--json", *args)
    assert done.returncode == 0, done.stderr
    return [os.fsencode(entry["path"]) for entry in json.loads(done.stdout)]


def make(path, content=b"x"):
    path = os.fsencode(path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as handle:
        handle.write(content)
    return path


def read(path):
    with open(path, "rb") as handle:
        return handle.read()


def test_a_fresh_machine_has_an_empty_trash(sandbox):
    done = safedel(sandbox, "list")
    assert (done.returncode, done.stdout, done.stderr) == (0, b"The trash is empty.\n", b"")
    assert listed(sandbox) == []
    assert not sandbox.trash.exists()  # listing creates nothing
    done = safedel(sandbox, "restore", "--last")
    assert done.returncode == 1 and b"the trash is empty" in done.stderr
    done = safedel(sandbox, "restore", "--turn", "turn-1")
    assert done.returncode == 1 and b"nothing that turn turn-1 trashed" in done.stderr
    done = safedel(sandbox, "restore", str(sandbox.work / "gone"))
    assert done.returncode == 1 and b"nothing in the trash was deleted from" in done.stderr


def test_hostile_names_round_trip_through_list_and_restore(sandbox):
    work = os.fsencode(sandbox.work)
    paths = [make(os.path.join(work, name), name) for name in HOSTILE]
    engine_trash(sandbox, *paths)
    assert sorted(listed(sandbox)) == sorted(paths)
    table = safedel(sandbox, "list").stdout.decode("utf-8")
    assert "new\\nline" in table and "\\xff\\xfe-bytes" in table and "\x1b" not in table
    assert len(re.findall(r"│ file │", table)) == len(HOSTILE)  # one row each, none broken
    done = safedel(sandbox, "restore", *paths)
    assert done.returncode == 0, done.stderr
    for name, path in zip(HOSTILE, paths, strict=True):
        assert read(path) == name
    assert listed(sandbox) == []


def test_filters_by_turn_session_prefix_and_since(sandbox):
    work = sandbox.work
    engine_trash(sandbox, make(work / "a" / "one"), turn="t1")
    engine_trash(sandbox, make(work / "b" / "two"), turn="t2")
    engine_trash(sandbox, make(work / "b" / "three"), turn="t2", session="other")

    def names(*args):
        return sorted(os.path.basename(p).decode() for p in listed(sandbox, *args))

    assert names("--turn", "t2") == ["three", "two"]
    assert names("--turn", "t2", "--session", sandbox.session) == ["two"]
    assert names("--session", "other") == ["three"]
    assert names(str(work / "b")) == ["three", "two"]
    assert names("b") == ["three", "two"]  # relative to the current directory
    assert names(str(work / "b" / "tw")) == []  # a prefix is a whole path component
    # Pretend "one" was trashed long ago.
    info = sandbox.trash / "info" / "one.trashinfo"
    info.write_bytes(re.sub(rb"DeletionDate=.*", b"DeletionDate=2020-01-02T03:04:05", read(info)))
    assert names("--since", "1d") == ["three", "two"]
    assert names("--since", "2h30m") == ["three", "two"]
    assert names("--since", "2020-01-01") == ["one", "three", "two"]
    assert names("--since", "2020-01-02T03:05") == ["three", "two"]
    done = safedel(sandbox, "list", "--since", "yesterday")
    assert done.returncode == 2 and b"duration like 30m" in done.stderr


def test_restore_refuses_an_existing_path_unless_told(sandbox):
    target = make(sandbox.work / "file", b"old")
    engine_trash(sandbox, target)
    make(target, b"new")
    done = safedel(sandbox, "restore", target)
    assert done.returncode == 1 and b"already exists (use --rename or --overwrite)" in done.stderr
    assert read(target) == b"new" and len(listed(sandbox)) == 1
    assert safedel(sandbox, "restore", "--rename", target).returncode == 0
    assert read(target + b".restored-1") == b"old" and read(target) == b"new"
    engine_trash(sandbox, target + b".restored-1")  # trashed from its new name
    engine_trash(sandbox, target)  # "new" is in the trash now
    make(target, b"newest")
    done = safedel(sandbox, "restore", "--overwrite", target)
    assert done.returncode == 0, done.stderr
    assert read(target) == b"new"
    # What --overwrite replaced went to the trash, not away.
    trashed = {read(sandbox.trash / "files" / n) for n in os.listdir(sandbox.trash / "files")}
    assert b"newest" in trashed


def test_overwrite_never_replaces_a_directory(sandbox):
    target = make(sandbox.work / "thing")
    engine_trash(sandbox, target)
    os.mkdir(target)
    done = safedel(sandbox, "restore", "--overwrite", target)
    assert done.returncode == 1 and b"never replaces a directory" in done.stderr
    assert os.path.isdir(target) and len(listed(sandbox)) == 1


def test_restore_makes_missing_parents_and_reports_it(sandbox):
    target = make(sandbox.work / "deep" / "er" / "leaf", b"leaf")
    engine_trash(sandbox, target)
    engine_trash(sandbox, sandbox.work / "deep")
    done = safedel(sandbox, "restore", target)
    assert done.returncode == 0, done.stderr
    assert read(target) == b"leaf"
    event = sandbox.report()[-1]
    assert event["operation"] == "restore" and event["path"] == os.fsdecode(target)
    assert event["trashPath"].endswith("/files/leaf") and event["runtime"] == "cli"
    assert not os.path.exists(sandbox.trash / "info" / "leaf.trashinfo")


def test_restore_turn_undoes_the_whole_turn(sandbox):
    work = sandbox.work
    make(work / "d" / "early")
    make(work / "d" / "late")
    engine_trash(sandbox, work / "d" / "early", turn="t1")
    engine_trash(sandbox, work / "d", make(work / "loose"), turn="t1")
    engine_trash(sandbox, make(work / "other"), turn="t2")
    done = safedel(sandbox, "restore", "--turn", "t1")
    assert done.returncode == 0, done.stderr
    assert all(os.path.exists(work / p) for p in ("d/early", "d/late", "loose"))
    assert listed(sandbox) == [os.fsencode(work / "other")]
    restored = [e for e in sandbox.report() if e["operation"] == "restore"]
    assert len(restored) == 3
    done = safedel(sandbox, "restore", "--turn", "t1")
    assert done.returncode == 1  # nothing of t1 is left in the trash


def test_restore_turn_asks_for_a_session_when_two_share_the_turn(sandbox):
    engine_trash(sandbox, make(sandbox.work / "a"), turn="t", session="s1")
    engine_trash(sandbox, make(sandbox.work / "b"), turn="t", session="s2")
    done = safedel(sandbox, "restore", "--turn", "t")
    assert done.returncode == 1 and b"several sessions (s1, s2)" in done.stderr
    assert safedel(sandbox, "restore", "--turn", "t", "--session", "s2").returncode == 0
    assert os.path.exists(sandbox.work / "b") and not os.path.exists(sandbox.work / "a")


def test_restore_last_takes_the_newest_item(sandbox):
    engine_trash(sandbox, make(sandbox.work / "first"))
    engine_trash(sandbox, make(sandbox.work / "second"))
    assert safedel(sandbox, "restore", "--last").returncode == 0
    assert os.path.exists(sandbox.work / "second") and not os.path.exists(sandbox.work / "first")


def test_list_and_restore_see_safedel_trash_dir(sandbox, tmp_path):
    override = tmp_path / "one-trash"
    env = sandbox.base_env(SAFEDEL_TRASH_DIR=override, COLUMNS="400")
    target = make(sandbox.work / "kept", b"kept")
    subprocess.run([sys.executable, "-c", TRASH, target], env=env, check=True)
    assert os.listdir(override / "files") == ["kept"]
    done = safedel(sandbox, "list", "--json", env=env)
    assert [entry["trashDir"] for entry in json.loads(done.stdout)] == [str(override)]
    assert safedel(sandbox, "restore", target, env=env).returncode == 0
    assert read(target) == b"kept" and os.listdir(override / "info") == []


def test_restore_across_devices_fails_closed(sandbox, tmpfs):
    """An entry whose original place is now on another device stays in the trash."""
    mnt = tmpfs()
    for sub in ("files", "info"):
        (sandbox.trash / sub).mkdir(parents=True, exist_ok=True)
    (sandbox.trash / "files" / "moved").write_text("only copy")
    info = trashinfo.render(os.fsencode(mnt / "moved"), trashinfo.deletion_date())
    (sandbox.trash / "info" / "moved.trashinfo").write_bytes(info)
    done = safedel(sandbox, "restore", str(mnt / "moved"))
    assert done.returncode == 1
    assert b"on another device than the trash, and safedel never copies" in done.stderr
    assert (sandbox.trash / "files" / "moved").read_text() == "only copy"
    assert (sandbox.trash / "info" / "moved.trashinfo").exists()
    assert not (mnt / "moved").exists()


def run_in_terminal(argv, env, cwd):
    controller, terminal = pty.openpty()
    child = subprocess.Popen(
        argv, stdin=terminal, stdout=terminal, stderr=terminal, env=env, cwd=cwd
    )
    os.close(terminal)
    output = b""
    while True:
        try:
            chunk = os.read(controller, 65536)
        except OSError:  # EIO once the child has closed the terminal
            break
        if not chunk:
            break
        output += chunk
    os.close(controller)
    assert child.wait() == 0, output
    return output


@pytest.mark.parametrize("terminal", [True, False], ids=["terminal", "pipe"])
def test_restoring_many_items_shows_a_progress_bar_only_on_a_terminal(sandbox, terminal):
    engine_trash(sandbox, *(make(sandbox.work / f"f{n}") for n in range(30)))
    argv = [sys.executable, "-m", "safedel", "restore", "--turn", sandbox.turn]
    env = sandbox.base_env(TERM="xterm-256color", COLUMNS="100")
    if terminal:
        output = run_in_terminal(argv, env, sandbox.work)
        assert b"Restoring" in output and b"100%" in output
    else:
        done = subprocess.run(argv, env=env, cwd=sandbox.work, capture_output=True)
        assert done.returncode == 0 and b"Restoring" not in done.stderr + done.stdout
    assert len(os.listdir(sandbox.work)) == 30
