"""The trash engine across devices (real tmpfs mounts) and on every failure path.

On each failure: the item is still where it was, and no .trashinfo is left behind.
Permission failures run the trash step as uid 65534, because root ignores modes.
"""

import errno
import json
import os
import shutil
import stat
import subprocess
import tempfile
import time

import pytest
from conftest import IN_CI, REPO, require

from safedel.core.trash import info, move

NOBODY = 65534
TRASH_AS = """
import json, sys
sys.path.insert(0, sys.argv[1])
from safedel_core.trash import move
try:
    print(json.dumps({"ok": move.trash(sys.argv[2]).as_event()}))
except OSError as exc:
    print(json.dumps({"errno": exc.errno, "reason": getattr(exc, "reason", str(exc))}))
"""


@pytest.fixture
def home_trash(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    monkeypatch.delenv("SAFEDEL_TRASH_DIR", raising=False)
    return tmp_path / "data" / "Trash"


def info_files(*roots):
    """Every .trashinfo under the given directories (an orphan would show up here)."""
    found = []
    for root in roots:
        for folder, _, names in os.walk(root):
            found += [os.path.join(folder, n) for n in names if n.endswith(".trashinfo")]
    return found


def path_field(info_path):
    with open(info_path, "rb") as handle:
        return info.parse(handle.read())[0]


def test_an_item_on_another_device_goes_to_topdir_trash_uid(home_trash, tmpfs, tmp_path):
    mnt = tmpfs()
    (mnt / "sub").mkdir()
    (mnt / "sub" / "f").write_text("x")
    # Reached through a symlink from the first device: Path= must still start at mnt.
    (tmp_path / "via").symlink_to(mnt / "sub")
    record = move.trash(str(tmp_path / "via" / "f"))
    root = mnt / f".Trash-{os.getuid()}"
    assert record.trash_path == str(root / "files" / "f")
    assert stat.S_IMODE(os.stat(root).st_mode) == 0o700
    assert path_field(record.info_path) == b"sub/f"
    assert info_files(home_trash) == []


def test_a_sticky_dot_trash_gets_a_per_user_folder(home_trash, tmpfs):
    mnt = tmpfs()
    (mnt / ".Trash").mkdir(mode=0o1777)
    os.chmod(mnt / ".Trash", 0o1777)
    (mnt / "f").touch()
    record = move.trash(str(mnt / "f"))
    assert record.trash_path == str(mnt / ".Trash" / str(os.getuid()) / "files" / "f")
    assert path_field(record.info_path) == b"f"


@pytest.mark.parametrize("shape", ["not sticky", "symlink to a sticky dir"])
def test_an_unsafe_dot_trash_is_passed_over(home_trash, tmpfs, shape):
    mnt = tmpfs()
    if shape == "not sticky":
        (mnt / ".Trash").mkdir()
        os.chmod(mnt / ".Trash", 0o777)
    else:
        (mnt / "elsewhere").mkdir()
        os.chmod(mnt / "elsewhere", 0o1777)
        (mnt / ".Trash").symlink_to(mnt / "elsewhere")
    (mnt / "f").touch()
    record = move.trash(str(mnt / "f"))
    assert record.trash_path == str(mnt / f".Trash-{os.getuid()}" / "files" / "f")
    assert not os.path.exists(mnt / ".Trash" / str(os.getuid()))


def test_a_mount_point_is_not_moved(home_trash, tmpfs):
    mnt = tmpfs()
    with pytest.raises(move.TrashFailure) as caught:
        move.trash(str(mnt))
    assert caught.value.errno == errno.EBUSY
    assert os.path.ismount(mnt)


def test_trash_dir_on_another_device_fails_closed_without_copying(home_trash, tmpfs, tmp_path):
    mnt = tmpfs()
    (mnt / "f").write_text("only copy")
    with pytest.raises(move.TrashFailure) as caught:
        move.trash(str(mnt / "f"), str(tmp_path / "override"))
    assert caught.value.errno == errno.EXDEV
    assert "never copies" in caught.value.reason
    assert (mnt / "f").read_text() == "only copy"
    assert info_files(tmp_path) == []


def test_a_read_only_topdir_without_a_trash_fails_closed(home_trash, tmpfs, tmp_path):
    mnt = tmpfs()
    (mnt / "f").write_text("only copy")
    subprocess.run(["mount", "-o", "remount,ro", str(mnt)], check=True)
    with pytest.raises(move.TrashFailure) as caught:
        move.trash(str(mnt / "f"))
    assert caught.value.errno == errno.EXDEV
    assert caught.value.reason.startswith(f"no usable trash on device of {mnt} (")
    assert "Read-only file system" in caught.value.reason
    assert (mnt / "f").read_text() == "only copy"
    assert info_files(tmp_path) == []


def test_a_full_tmpfs_leaves_the_item_and_no_orphan(home_trash, tmpfs, tmp_path):
    mnt = tmpfs(size="256k")
    (mnt / "first").touch()
    move.trash(str(mnt / "first"))  # the topdir trash exists before the disk fills
    (mnt / "victim").write_text("only copy")
    with pytest.raises(OSError) as filling, open(mnt / "filler", "wb") as filler:
        while True:
            filler.write(b"\0" * 65536)
            filler.flush()
    assert filling.value.errno == errno.ENOSPC
    with pytest.raises(move.TrashFailure) as caught:
        move.trash(str(mnt / "victim"))
    assert "No space left on device" in caught.value.reason
    assert (mnt / "victim").read_text() == "only copy"
    assert [os.path.basename(p) for p in info_files(tmp_path)] == ["first.trashinfo"]


@pytest.fixture
def nobody_area(tmpfs):
    """A world-readable tmpfs with a copy of safedel/core that uid 65534 can import."""
    if os.geteuid() != 0:
        if IN_CI:
            pytest.fail("these tests need root under CI=true")
        pytest.skip("needs root to switch to uid 65534")
    require("setpriv")
    require("/usr/bin/python3")
    base = tempfile.mkdtemp(prefix="safedel-nobody-", dir="/var/tmp")
    os.chmod(base, 0o755)
    try:
        area = tmpfs("area", at=__import__("pathlib").Path(base))
        shutil.copytree(os.path.join(REPO, "safedel", "core"), area / "lib" / "safedel_core")
        yield area
    finally:
        subprocess.run(["umount", "-l", os.path.join(base, "area")], capture_output=True)
        shutil.rmtree(base)


def trash_as_nobody(area, path, data_home):
    env = {
        "PATH": "/usr/bin:/bin",
        "SAFEDEL_CHURN_SECONDS": "0",
        "XDG_DATA_HOME": str(data_home),
        "HOME": str(area),
    }
    done = subprocess.run(
        ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        + ["/usr/bin/python3", "-c", TRASH_AS, str(area / "lib"), str(path)],
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def owned_by_nobody(*paths):
    for path in paths:
        os.chown(path, NOBODY, NOBODY)


def test_an_unwritable_parent_leaves_the_item_and_no_orphan(nobody_area):
    data = nobody_area / "data"
    (data / "Trash").mkdir(parents=True)
    (nobody_area / "locked").mkdir()
    (nobody_area / "locked" / "f").write_text("only copy")
    owned_by_nobody(data, data / "Trash", nobody_area / "locked" / "f")
    outcome = trash_as_nobody(nobody_area, nobody_area / "locked" / "f", data)
    assert outcome["errno"] == errno.EACCES
    assert outcome["reason"] == "cannot move it into the trash: Permission denied"
    assert (nobody_area / "locked" / "f").read_text() == "only copy"
    assert info_files(nobody_area) == []


@pytest.mark.parametrize("locked", ["info", "files"])
def test_an_unwritable_trash_leaves_the_item_and_no_orphan(nobody_area, locked):
    data = nobody_area / "data"
    for sub in ("files", "info"):
        (data / "Trash" / sub).mkdir(parents=True)
    (nobody_area / "mine").mkdir()
    (nobody_area / "mine" / "f").write_text("only copy")
    owned_by_nobody(data, data / "Trash", nobody_area / "mine", nobody_area / "mine" / "f")
    owned_by_nobody(*(data / "Trash" / sub for sub in ("files", "info") if sub != locked))
    outcome = trash_as_nobody(nobody_area, nobody_area / "mine" / "f", data)
    # Someone else's folder inside the trash is not used at all.
    assert outcome["errno"] == errno.EPERM and "belongs to another user" in outcome["reason"]
    assert (nobody_area / "mine" / "f").read_text() == "only copy"
    assert info_files(nobody_area) == []


def test_an_unwritable_topdir_with_no_trash_fails_closed(nobody_area, tmp_path):
    # Home is on the first device; the item is on the tmpfs, whose top is root's 0755.
    data = nobody_area / "data"
    data.mkdir()
    (nobody_area / "mine").mkdir()
    (nobody_area / "mine" / "f").write_text("only copy")
    owned_by_nobody(nobody_area / "mine", nobody_area / "mine" / "f")
    home = tempfile.mkdtemp(prefix="safedel-home-", dir="/var/tmp")
    try:
        os.chown(home, NOBODY, NOBODY)
        outcome = trash_as_nobody(nobody_area, nobody_area / "mine" / "f", home)
    finally:
        shutil.rmtree(home)
    assert outcome["errno"] == errno.EXDEV
    assert outcome["reason"] == (
        f"no usable trash on device of {nobody_area} "
        f"({nobody_area}/.Trash-{NOBODY}: Permission denied)"
    )
    assert (nobody_area / "mine" / "f").read_text() == "only copy"
    assert info_files(nobody_area) == []


def test_a_directory_of_100000_files_is_one_rename(home_trash, tmpfs, capsys):
    mnt = tmpfs(size="64m", extra="nr_inodes=200k")
    big = os.fsencode(mnt / "big")
    os.mkdir(big)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    for number in range(100_000):
        os.close(os.open(b"%s/%d" % (big, number), flags, 0o600))
    inode = os.stat(big).st_ino
    started = time.perf_counter()
    record = move.trash(big)
    elapsed = time.perf_counter() - started
    # One rename keeps the directory's inode and all of its entries in place.
    assert os.stat(record.trash_path).st_ino == inode
    assert os.path.dirname(record.trash_path) == str(mnt / f".Trash-{os.getuid()}" / "files")
    assert len(os.listdir(record.trash_path)) == 100_000
    with capsys.disabled():
        print(f"\n[measured] trashing a directory of 100,000 files: {elapsed * 1000:.2f} ms")
