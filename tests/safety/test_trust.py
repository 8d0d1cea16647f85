"""Trust only our own trash dirs: another user's `.Trash`, a swapped trash root, a
foreign --trash-dir, a foreign `.Trash-$uid`, a Path= that escapes, a FIFO for an
info file and a name made to look like a marker. Mount cases run in a private mount
namespace; the attacker is uid 65534."""

import json
import os
import subprocess
import sys

import pytest
from conftest import require

from safedel import catalog, restoring

from .conftest import HERE, need_root


def mount_case(sandbox, case, shared):
    need_root()
    require("unshare")
    point = os.path.join(shared, "mnt")
    os.mkdir(point)
    env = sandbox.base_env()
    done = subprocess.run(
        ["unshare", "-m", "--propagation", "private", sys.executable]
        + [os.path.join(HERE, "mountcase.py"), case, point],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_another_users_shared_trash_is_never_used(sandbox, shared):
    result = mount_case(sandbox, "foreign_shared_trash", shared)
    assert "/.Trash-0/files/f" in result["first"]["ok"]["trashPath"]
    assert result["shared"] == []


def test_a_trash_root_swapped_between_two_items_takes_nothing(sandbox, shared):
    result = mount_case(sandbox, "swapped_trash_root", shared)
    assert "ok" in result["first"]
    assert result["second"]["errno"] and "symlink" in result["second"]["reason"]
    assert result["theirs"] == []


def test_a_trash_dir_someone_else_owns_is_refused(sandbox, shared):
    result = mount_case(sandbox, "foreign_trash_dir", shared)
    assert "belongs to another user" in result["result"]["reason"]
    assert result["theirs"] == []


def test_a_foreign_topdir_trash_is_not_listed_nor_restored(sandbox, shared):
    result = mount_case(sandbox, "foreign_listed", shared)
    assert "Makefile.sh" not in result["list"]["out"]
    assert result["restore"]["code"] != 0 and not result["planted"]
    doctor = {row["check"]: row["detail"] for row in json.loads(result["doctor"]["out"])}
    assert "belongs to another user (uid 65534)" in doctor["foreign trash dirs"]


def plant_info(sandbox, name, content):
    info = sandbox.trash / "info"
    info.mkdir(parents=True, exist_ok=True)
    (sandbox.trash / "files").mkdir(exist_ok=True)
    path = os.path.join(os.fsencode(info), name + b".trashinfo")
    with open(path, "wb") as handle:
        handle.write(content)
    with open(os.path.join(os.fsencode(sandbox.trash / "files"), name), "wb") as handle:
        handle.write(b"planted")


def safedel(sandbox, *argv):
    return subprocess.run(
        [sys.executable, "-m", "safedel", *argv],
        env=sandbox.base_env(),
        capture_output=True,
        timeout=60,
    )


@pytest.mark.parametrize(
    "path_field",
    [b"/etc/../root/planted", b"relative/planted", b"proj/../../planted"],
)
def test_a_path_that_escapes_is_shown_invalid_and_never_restored(sandbox, path_field):
    plant_info(sandbox, b"planted", b"[Trash Info]\nPath=" + path_field + b"\n")
    listed = json.loads(safedel(sandbox, "list", "--json").stdout)
    mine = [entry for entry in listed if entry["trashDir"] == str(sandbox.trash)]
    assert len(mine) == 1 and mine[0]["invalid"]
    done = safedel(sandbox, "restore", mine[0]["path"])
    assert done.returncode == 1
    # --last picks among the same candidates; restore() itself refuses it too
    (item,) = catalog.items([os.fsencode(sandbox.trash)])
    with pytest.raises(restoring.RestoreError):
        restoring.restore(item)
    assert (sandbox.trash / "files" / "planted").exists()


def test_a_fifo_info_file_never_hangs_list_or_restore(sandbox):
    info = sandbox.trash / "info"
    info.mkdir(parents=True)
    os.mkfifo(info / "x.trashinfo")
    listed = safedel(sandbox, "list", "--json")  # the timeout is the failure
    assert listed.returncode == 0 and b"not a regular file" in listed.stderr
    assert catalog.items([os.fsencode(sandbox.trash)]) == []  # what restore reads


def test_names_in_warnings_cannot_fake_a_line(sandbox):
    name = b"a\n[safe-delete][SAFE_DELETE_FAIL_CLOSED] {}\x1b[2J\xff"
    plant_info(sandbox, name, b"not an info file")
    done = safedel(sandbox, "list")
    assert b"\x1b" not in done.stderr and b"\xff" not in done.stderr
    assert not any(line.startswith(b"[safe-delete]") for line in done.stderr.splitlines())
    assert b"skipped " in done.stderr and b"\\n[safe-delete]" in done.stderr


def test_trash_list_agrees_with_safedel_list(sandbox):
    work = sandbox.work
    (work / "a" / "b").mkdir(parents=True)
    (work / "ln").symlink_to(work / "a" / "b")
    for name in ("f", "g h"):
        (work / "a" / name).write_text(name)
    env = sandbox.shim_env()
    for operand in ("ln/../f", "a/g h", "a/b"):
        done = subprocess.run(["rm", "-r", operand], cwd=work, env=env, capture_output=True)
        assert done.returncode == 0, done.stderr
    ours = {e["path"] for e in json.loads(safedel(sandbox, "list", "--json").stdout)}
    ours = {path for path in ours if path.startswith(str(work))}
    theirs = subprocess.run(
        [require("trash-list")], env=sandbox.base_env(), capture_output=True, text=True
    )
    listed = {line.split(" ", 2)[2] for line in theirs.stdout.splitlines() if line.strip()}
    listed = {path for path in listed if path.startswith(str(work))}  # other tests' mounts
    assert ours == listed == {str(work / "a" / n) for n in ("f", "g h", "b")}
