"""Trust only our own trash dirs: another user's `.Trash`, a swapped trash root, a
foreign --trash-dir, a foreign `.Trash-$uid`, a Path= that escapes, a FIFO for an
info file and a name made to look like a marker. Mount cases run in a private mount
namespace; the attacker is uid 65534."""

import errno
import json
import os
import subprocess
import sys

import pytest
import trashlisting
from conftest import require

from safedel.trash import catalog, restore

from .conftest import HERE, NOBODY, need_root


def mount_case(sandbox, case, shared, *args):
    need_root()
    require("unshare")
    require("trash-list")
    point = os.path.join(shared, "mnt")
    os.mkdir(point)
    env = sandbox.base_env()
    done = subprocess.run(
        ["unshare", "-m", "--propagation", "private", sys.executable]
        + [os.path.join(HERE, "mountcase.py"), case, point, *map(json.dumps, args)],
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    result["point"] = point
    return result


def agreeing(result):
    return trashlisting.agreeing(result["listed"])


def test_another_users_shared_trash_is_never_used(sandbox, shared):
    result = mount_case(sandbox, "foreign_shared_trash", shared)
    assert "/.Trash-0/files/f" in result["first"]["ok"]["trashPath"]
    assert result["shared"] == []
    # their .Trash holds no .Trash/0, so trash-list has nothing there to read either
    assert list(agreeing(result)) == [result["point"] + "/f"]


def test_a_trash_root_swapped_between_two_items_takes_nothing(sandbox, shared):
    result = mount_case(sandbox, "swapped_trash_root", shared)
    assert "ok" in result["first"]
    assert result["second"]["errno"] and "symlink" in result["second"]["reason"]
    assert result["theirs"] == []
    # trash-list reads the symlinked .Trash-0 (their empty dir), safedel skips it: f1
    # sits in the moved-away dir, which is no trash dir for either
    assert agreeing(result) == {}


def test_a_trash_dir_someone_else_owns_is_refused(sandbox, shared):
    result = mount_case(sandbox, "foreign_trash_dir", shared)
    assert "belongs to another user" in result["result"]["reason"]
    assert result["theirs"] == []
    assert agreeing(result) == {}


def test_a_foreign_topdir_trash_is_not_listed_nor_restored(sandbox, shared):
    result = mount_case(sandbox, "foreign_listed", shared)
    assert "Makefile.sh" not in result["list"]["out"]
    assert result["restore"]["code"] != 0 and not result["planted"]
    doctor = {row["check"]: row["detail"] for row in json.loads(result["doctor"]["out"])}
    assert "belongs to another user (uid 65534)" in doctor["foreign trash dirs"]
    # The one principled difference: the freedesktop spec asks nothing about who owns
    # $topdir/.Trash-$uid, so trash-list shows what uid 65534 planted there; safedel
    # does not (and says why in doctor).
    planted = ["2030-01-01 00:00:00", result["point"] + "/proj/Makefile.sh"]
    assert result["listed"] == {"trash_list": [planted], "skipped": [], "safedel": []}


def test_trash_list_and_safedel_list_agree_on_every_topdir_trash(sandbox, shared):
    result = mount_case(sandbox, "topdir_trashes", shared)
    m = result["point"]
    trashed = {name: r["ok"]["trashPath"] for name, r in result["trashed"].items()}
    assert trashed == {
        "ok": f"{m}/ok/.Trash/0/files/f",
        "open": f"{m}/open/.Trash-0/files/f",
        "planted": f"{m}/planted/.Trash-0/files/f",
        "theirs": f"{m}/theirs/.Trash-0/files/f",
    }
    listed = result["listed"]
    ours = [[d, p] for d, p in listed["safedel"]]
    assert sorted(p for _, p in ours) == [f"{m}/{n}/f" for n in ("ok", "open", "planted", "theirs")]
    # Both skip a .Trash without the sticky bit (the spec's rule), trash-list saying so;
    # trash-list also reads the .Trash/0 that uid 65534 made (the spec checks only the
    # sticky bit and the symlink), safedel does not: those two planted items are the
    # whole difference, and doctor names both dirs.
    assert listed["skipped"] == [f"TrashDir skipped because parent not sticky: {m}/open/.Trash/0"]
    planted = [["2030-01-01 00:00:00", f"{m}/{n}"] for n in ("planted/evil", "theirs/bad")]
    assert listed["trash_list"] == sorted(ours + planted)
    doctor = {row["check"]: row["detail"] for row in json.loads(result["doctor"]["out"])}
    skipped = doctor["foreign trash dirs"]
    assert f"{m}/open/.Trash is not a root-owned sticky directory" in skipped
    for name in ("planted", "theirs"):
        assert f"{m}/{name}/.Trash/0 belongs to another user (uid 65534)" in skipped


SYSTEM_PYTHON = "/usr/bin/python3"  # safedel is not installed there: only the shim loads it


def shim_spec(sandbox, shared, runtime):
    point = os.path.join(shared, "mnt")  # mount_case mounts it; the mount is the workspace
    env = sandbox.shim_env(SAFEDEL_WORKSPACE_ROOTS=point)
    if runtime == "node":
        return {"node": require("node"), "env": env}
    return {"python": require(SYSTEM_PYTHON), "env": env}


def code_names(codes):
    """Python's errno numbers and Node's codes, alike: [None | "EXDEV", ...]."""
    return [errno.errorcode[c] if isinstance(c, int) else c for c in codes]


@pytest.mark.parametrize("runtime", ["python", "node"])
@pytest.mark.parametrize("swap", ["trash_uid", "shared_uid", "in_place"])
def test_a_shimmed_process_never_follows_its_swapped_trash_root(sandbox, shared, swap, runtime):
    """A process that trashed once holds its trash root; swapped for a symlink to the
    attacker's directory, the next item fails closed or goes to a trash that is ours."""
    spec = shim_spec(sandbox, shared, runtime)
    result = mount_case(sandbox, "shim_swapped_root", shared, spec, swap)
    assert result["ready"] == "ready\n", result["stderr"]
    assert result["theirs"] == [[], []]
    if swap == "trash_uid":  # .Trash-$uid was the only trash on the mount: fail closed
        assert code_names(result["codes"]) == [None, "EXDEV"], result["stderr"]  # no trash
        assert result["where"] == {"f1": ["away/files"], "f2": ["."]}
        (marker,) = [line for line in result["stderr"].splitlines() if "[safe-delete]" in line]
        assert marker.startswith("[safe-delete][SAFE_DELETE_FAIL_CLOSED] ")
        assert "is a symlink" in json.loads(marker.split(" ", 1)[1])["reason"]
        assert agreeing(result) == {}
    else:  # .Trash/$uid is unusable now: the next item goes to a .Trash-$uid of ours
        assert result["codes"] == [None, None], result["stderr"]
        first = "away/0/files" if swap == "shared_uid" else "away/files"
        assert result["where"] == {"f1": [first], "f2": [".Trash-0/files"]}
        assert list(agreeing(result)) == [result["point"] + "/f2"]


REMOVE = """
import os, sys
try:
    os.remove(sys.argv[1])
    print("removed")
except OSError as exc:
    print(exc.errno)
"""


@pytest.mark.parametrize("how", ["SAFEDEL_TRASH_DIR", "--trash-dir"])
@pytest.mark.parametrize("owner, mode", [(NOBODY, 0o777), (NOBODY, 0o1777), (0, 0o777)])
def test_a_trash_dir_setting_not_ours_fails_closed_in_a_shimmed_python(sandbox, how, owner, mode):
    """--trash-dir / SAFEDEL_TRASH_DIR naming a world-writable directory (someone
    else's, or ours but open to all) takes nothing: the file stays, with a marker."""
    need_root()
    python = require(SYSTEM_PYTHON)
    trash_dir = sandbox.root / "shared-trash"
    for path in (trash_dir, trash_dir / "files", trash_dir / "info"):
        path.mkdir()
        os.chmod(path, mode)
        os.chown(path, owner, owner)
    target = sandbox.work / "keep.txt"
    target.write_text("mine")
    if how == "--trash-dir":
        done = sandbox.run(python, "-c", REMOVE, str(target), run_options=(how, str(trash_dir)))
    else:
        env = sandbox.shim_env(SAFEDEL_TRASH_DIR=trash_dir)
        done = subprocess.run([python, "-c", REMOVE, str(target)], env=env, capture_output=True)
    assert done.stdout.decode().strip() == str(errno.EPERM), done.stderr
    assert target.read_text() == "mine"
    assert os.listdir(trash_dir / "files") == os.listdir(trash_dir / "info") == []
    (marker,) = [line for line in done.stderr.decode().splitlines() if "[safe-delete]" in line]
    assert marker.startswith("[safe-delete][SAFE_DELETE_FAIL_CLOSED] ")
    why = "writable by other users" if owner == 0 else "belongs to another user (uid 65534)"
    assert why in json.loads(marker.split(" ", 1)[1])["reason"]


@pytest.mark.parametrize("runtime", ["python", "node"])
def test_a_shimmed_process_racing_a_trash_root_swap_exposes_nothing(sandbox, shared, runtime):
    """Case 5 as a race: 20 items, each at another moment of uid 65534 swapping
    .Trash-0 for a symlink to their directory and back."""
    result = mount_case(sandbox, "shim_race", shared, shim_spec(sandbox, shared, runtime))
    assert result["ready"] == ["ready\n", "ready\n"], result["stderr"]
    assert result["theirs"] == [[], []]
    failed = [code for code in code_names(result["codes"]) if code is not None]
    closed = result["stderr"].count("[safe-delete][SAFE_DELETE_FAIL_CLOSED] ")
    # never ENOENT: the item is still there (a swapped-away root said so before)
    assert closed == len(failed) and set(failed) <= {"EXDEV", "EPERM", "EIO"}, result
    names = ["warm"] + [f"item{n}" for n in range(20)]
    for name, code in zip(names, result["codes"], strict=True):
        # trashed into a trash dir of ours (whatever its name now), or failed closed
        places = [".Trash-0/files", ".Trash-0.away/files"] if code is None else ["."]
        assert result["where"][name] in [[place] for place in places], (name, code, result)
    assert result["codes"][0] is None
    listed = agreeing(result)
    trashed_here = [n for n, w in result["where"].items() if w == [".Trash-0/files"]]
    assert sorted(listed) == sorted(f"{result['point']}/{n}" for n in trashed_here)


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
    with pytest.raises(restore.RestoreError):
        restore.restore(item)
    assert (sandbox.trash / "files" / "planted").exists()


@pytest.mark.trash_list_hangs  # trash-cli 0.17 reads a FIFO info file and waits forever
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
    require("trash-list")
    listed = trashlisting.listings(str(work), env=sandbox.base_env())
    assert sorted(trashlisting.agreeing(listed)) == [str(work / "a" / n) for n in ("b", "f", "g h")]
