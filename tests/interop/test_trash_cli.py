"""trash-cli and safedel read and restore each other's trash, both ways.

trash-cli's own commands do the checking, in a temporary HOME / XDG_DATA_HOME. Debian
12 ships trash-cli 0.17, whose trash-list has no --files or --trash-dir and lists the
topdir trashes of every mount (tmpfs included), so a tmpfs mount shows up there as is.
"""

import json
import os
import re
import subprocess
import sys

import pytest
from conftest import require

from safedel.core.trash import move

ENTRY = re.compile(r"^(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d) (.*)$")
RESTORE_ROW = re.compile(r"^\s*(\d+) \S+ \S+ (.*)$")
# trash-cli 0.17 has no `trash-list --files`; this is how trash-cli itself maps an info
# file to its item (the function trash-restore uses), run on trash-cli's own interpreter.
FILES_OF = """
import os, sys
from trashcli.trash import TrashDirectory, backup_file_path_from
for root in sys.argv[1:]:
    for info in TrashDirectory(root, "/").all_info_files():
        print(info, "->", backup_file_path_from(info), os.path.lexists(backup_file_path_from(info)))
"""


@pytest.fixture
def user(tmp_path, monkeypatch):
    """One isolated user, shared by safedel (in this process) and trash-cli (children)."""
    home = tmp_path / "home"
    data = home / ".local" / "share"
    data.mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_DATA_HOME", str(data))
    monkeypatch.delenv("SAFEDEL_TRASH_DIR", raising=False)
    env = {k: v for k, v in os.environ.items() if not k.startswith("SAFEDEL_")}
    env.update(SAFEDEL_REPORT=str(tmp_path / "report.jsonl"), SAFEDEL_STATE_DIR=str(tmp_path))
    return env


def trash_cli(tool, *args, env, cwd=None, input=None):
    return subprocess.run(
        [require(tool), *args], env=env, cwd=cwd, input=input, capture_output=True, text=True
    )


def make_items(work, mnt):
    """Files, a directory, links and a topdir-trash item; returns their paths."""
    work.mkdir(exist_ok=True)
    paths = []
    for name in ("plain.txt", "with space", "100% done", "-dash", "é-accent"):
        (work / name).write_text(name)
        paths.append(work / name)
    (work / "dir" / "inner").mkdir(parents=True)
    (work / "link").symlink_to(work / "plain.txt")
    (work / "dangling").symlink_to(work / "nowhere")
    (mnt / "sub").mkdir()
    (mnt / "sub" / "on tmpfs").write_text("topdir")
    return paths + [work / "dir", work / "link", work / "dangling", mnt / "sub" / "on tmpfs"]


def listed(stdout, under):
    return [m.group(2) for m in map(ENTRY.match, stdout.splitlines()) if m and under in m.group(2)]


def test_trash_list_shows_every_item_we_trash(user, tmp_path, tmpfs):
    mnt = tmpfs()
    items = make_items(tmp_path / "work", mnt)
    for path in items:
        move.trash(str(path))
    hostile = [b"new\nline", b"\xff\xfe-bytes", b"x" * 255]
    for raw in hostile:
        with open(os.path.join(os.fsencode(tmp_path / "work"), raw), "wb"):
            pass
        move.trash(os.path.join(os.fsencode(tmp_path / "work"), raw))
    done = trash_cli("trash-list", env=user)
    assert done.returncode == 0
    assert done.stderr == ""
    assert "Parse Error" not in done.stdout
    shown = listed(done.stdout, str(tmp_path))
    plain = {str(path) for path in items} | {str(tmp_path / "work" / ("x" * 255))}
    assert plain <= set(shown)
    # trash-cli shows undecodable bytes as U+FFFD and prints a newline as it is.
    assert str(tmp_path / "work" / "\ufffd\ufffd-bytes") in shown
    assert f"{tmp_path / 'work' / 'new'}\nline" in done.stdout
    assert len(shown) == len(items) + len(hostile)


def test_trash_cli_finds_the_file_for_every_entry(user, tmp_path, tmpfs):
    mnt = tmpfs()
    items = make_items(tmp_path / "work", mnt)
    for path in items:
        move.trash(str(path))
    roots = [user["XDG_DATA_HOME"] + "/Trash", f"{mnt}/.Trash-{os.getuid()}"]
    help_text = trash_cli("trash-list", "--help", env=user).stdout
    if "--files" in help_text:  # trash-cli >= 0.21
        done = trash_cli("trash-list", "--files", env=user)
        rows = [line.split(" -> ") for line in done.stdout.splitlines() if str(tmp_path) in line]
        assert len(rows) == len(items) and all(os.path.lexists(row[-1]) for row in rows)
        return
    interpreter = open(require("trash-list")).readline()[2:].strip()
    done = subprocess.run(
        [interpreter, "-c", FILES_OF, *roots], capture_output=True, text=True, check=True
    )
    rows = done.stdout.splitlines()
    assert len(rows) == len(items)
    assert all(row.endswith(" True") for row in rows), rows


def test_trash_restore_restores_our_items(user, tmp_path, tmpfs):
    mnt = tmpfs()
    items = make_items(tmp_path / "work", mnt)
    kinds = {}
    for path in items:
        kinds[path] = move.trash(str(path)).kind
    for path in items:
        listing = trash_cli("trash-restore", str(path), env=user, input="")
        rows = {
            m.group(2): m.group(1) for m in map(RESTORE_ROW.match, listing.stdout.splitlines()) if m
        }
        assert str(path) in rows, listing.stdout
        done = trash_cli("trash-restore", str(path), env=user, input=rows[str(path)] + "\n")
        assert done.returncode == 0 and done.stderr == "", done.stderr
        assert os.path.lexists(path)
    assert (tmp_path / "work" / "100% done").read_text() == "100% done"
    assert os.readlink(tmp_path / "work" / "dangling") == str(tmp_path / "work" / "nowhere")
    assert (tmp_path / "work" / "dir" / "inner").is_dir()
    assert (mnt / "sub" / "on tmpfs").read_text() == "topdir"
    assert listed(trash_cli("trash-list", env=user).stdout, str(tmp_path)) == []


def safedel(*args, env):
    return subprocess.run(
        [sys.executable, "-m", "safedel", *args], env=env, capture_output=True, text=True
    )


def test_safedel_lists_and_restores_what_trash_put_made(user, tmp_path, tmpfs):
    mnt = tmpfs()
    items = [p for p in make_items(tmp_path / "work", mnt) if p.name != "dangling"]
    for path in items:
        done = trash_cli("trash-put", "--", str(path), env=user)
        assert done.returncode == 0, done.stderr
    assert not any(os.path.lexists(path) for path in items)
    listing = safedel("list", "--json", str(tmp_path), env=user)
    assert listing.returncode == 0, listing.stderr
    entries = {entry["path"]: entry for entry in json.loads(listing.stdout)}
    assert set(entries) == {str(path) for path in items}
    assert entries[str(mnt / "sub" / "on tmpfs")]["trashDir"] == f"{mnt}/.Trash-{os.getuid()}"
    assert entries[str(tmp_path / "work" / "dir")]["kind"] == "dir"
    assert entries[str(tmp_path / "work" / "link")]["kind"] == "symlink"
    done = safedel("restore", *map(str, items), env=user)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "work" / "-dash").read_text() == "-dash"
    assert (mnt / "sub" / "on tmpfs").read_text() == "topdir"
    assert os.readlink(tmp_path / "work" / "link") == str(tmp_path / "work" / "plain.txt")
    after = trash_cli("trash-list", env=user)
    assert listed(after.stdout, str(tmp_path)) == [] and after.stderr == ""


def test_safedel_lists_and_restores_what_gio_trashed(user, tmp_path):
    work = tmp_path / "work"
    work.mkdir()
    (work / "g file%").write_text("from gio")
    done = subprocess.run(
        [require("gio"), "trash", str(work / "g file%")], env=user, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    entries = json.loads(safedel("list", "--json", env=user).stdout)
    assert [entry["path"] for entry in entries] == [str(work / "g file%")]
    assert safedel("restore", "--last", env=user).returncode == 0
    assert (work / "g file%").read_text() == "from gio"


def test_trash_cli_lists_and_restores_a_name_trashed_many_times(user, tmp_path):
    """A taken name gets name.<random hex> (O(1) naming): trash-cli maps each info
    file to its item by name alone, so every version is listed and restorable."""
    work = tmp_path / "work"
    work.mkdir()
    versions = [f"version {i}" for i in range(5)]
    for text in versions:
        (work / "conftest.c").write_text(text)
        move.trash(str(work / "conftest.c"))
    target = str(work / "conftest.c")
    assert listed(trash_cli("trash-list", env=user).stdout, str(tmp_path)) == [target] * 5
    listing = trash_cli("trash-restore", target, env=user, input="")
    rows = [m.group(1) for m in map(RESTORE_ROW.match, listing.stdout.splitlines()) if m]
    assert len(rows) == 5, listing.stdout
    done = trash_cli("trash-restore", target, env=user, input=rows[-1] + "\n")
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert (work / "conftest.c").read_text() in versions
    assert listed(trash_cli("trash-list", env=user).stdout, str(tmp_path)) == [target] * 4
