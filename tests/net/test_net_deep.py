"""A tree deeper than PATH_MAX, removed by GNU rm under the net alone, and put back.

GNU rm walks such a tree by descriptor and unlinks each entry relative to its parent's
descriptor. The net must trash each entry too, named by its real path in the report
and Path=, moved relative to the caller's own descriptor; not refuse the call with
`File name too long` because the kernel will not spell that path. Restore walks back
down by descriptor, parents first, and keeps an entry in the trash when a folder on
its way is missing or has become a symlink.
"""

import json
import os
import subprocess
import sys

from conftest import require
from netkit import require_net

from safedel.trash import catalog

NAME = "x" * 200
LEVELS = 24  # 24 x 201 bytes: past PATH_MAX (4096) below the top


def _deep_tree(top):
    top.mkdir()
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for _ in range(LEVELS):
            os.mkdir(NAME, dir_fd=fd)
            below = os.open(NAME, os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            os.close(fd)
            fd = below
        leaf = os.open("leaf.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd)
        os.write(leaf, b"bottom")
        os.close(leaf)
    finally:
        os.close(fd)


def test_gnu_rm_of_a_tree_past_path_max_trashes_every_entry(sandbox):
    require_net()
    _deep_tree(sandbox.work / "deep")
    # /bin/rm under dash: no launcher, only the net sees rm's calls.
    done = sandbox.run("dash", "-c", "/bin/rm -rf deep", run_options=("--threshold", "99999"))
    assert done.returncode == 0, done.stderr
    assert not (sandbox.work / "deep").exists()
    events = [e for e in sandbox.report() if e["operation"] == "trash"]
    assert len(events) == LEVELS + 2 and {e["runtime"] for e in events} == {"net"}
    leaf = next(e for e in events if e["path"].endswith("/leaf.txt"))
    expected = os.path.join(str(sandbox.work), "deep", *[NAME] * LEVELS, "leaf.txt")
    assert leaf["path"] == os.path.realpath(sandbox.work) + expected[len(str(sandbox.work)) :]
    assert len(leaf["path"]) > 4096
    with open(leaf["trashPath"], "rb") as handle:
        assert handle.read() == b"bottom"


def _walk_down(top, levels):
    """A descriptor on the directory levels below top, opened component by component
    without following a symlink (the caller closes it)."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(levels):
        below = os.open(NAME, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd)
        os.close(fd)
        fd = below
    return fd


def _safedel(sandbox, *argv):
    env = sandbox.base_env(SAFEDEL_SESSION=sandbox.session)
    argv = [sys.executable, "-m", "safedel", *argv]
    return subprocess.run(argv, cwd=sandbox.work, env=env, capture_output=True, timeout=120)


def _trashed_from(sandbox, top):
    base = os.fsencode(os.path.realpath(top))
    items = catalog.items([os.fsencode(sandbox.trash)])
    return [item for item in items if catalog.under(item, base)]


def test_undo_puts_a_tree_past_path_max_back_whole(sandbox):
    require_net()
    top = sandbox.work / "deep"
    _deep_tree(top)
    done = sandbox.run("sh", "-c", "/bin/rm -rf deep", run_options=("--threshold", "99999"))
    assert done.returncode == 0, done.stderr
    assert not top.exists()
    trashed = _trashed_from(sandbox, top)
    assert len(trashed) == LEVELS + 2
    leaf = os.path.join(os.path.realpath(top), *[NAME] * LEVELS, "leaf.txt")
    # list shows every entry, the deep ones by their whole path
    listed = _safedel(sandbox, "list", "--json")
    assert listed.returncode == 0, listed.stderr
    assert leaf in {row["path"] for row in json.loads(listed.stdout)}
    # One deep entry alone: its folders are still in the trash, and none is made for it.
    alone = _safedel(sandbox, "restore", leaf)
    assert alone.returncode == 1
    assert b"is missing; past PATH_MAX no folder is made" in alone.stderr
    assert len(_trashed_from(sandbox, top)) == LEVELS + 2
    done = _safedel(sandbox, "undo")
    assert done.returncode == 0, done.stderr[-2000:]
    fd = _walk_down(top, LEVELS)
    try:
        with open(os.open("leaf.txt", os.O_RDONLY | os.O_NOFOLLOW, dir_fd=fd), "rb") as f:
            assert f.read() == b"bottom"
        assert os.listdir(fd) == ["leaf.txt"]
    finally:
        os.close(fd)
    assert _trashed_from(sandbox, top) == []
    restores = [e for e in sandbox.report() if e["operation"] == "restore"]
    assert len(restores) == LEVELS + 2


def test_restore_past_path_max_never_follows_a_symlink_swapped_in(sandbox):
    require_net()
    top = sandbox.work / "deep"
    _deep_tree(top)
    # python -I: no shim, so only the net sees the unlinkat, deep below the work tree
    unlink = (
        "import os\nfd = os.open('deep', os.O_RDONLY)\n"
        f"for _ in range({LEVELS}):\n"
        f"    below = os.open('{NAME}', os.O_RDONLY, dir_fd=fd); os.close(fd); fd = below\n"
        "os.unlink('leaf.txt', dir_fd=fd)\n"
    )
    done = sandbox.run(require("python3"), "-I", "-c", unlink)
    assert done.returncode == 0, done.stderr
    (trashed,) = _trashed_from(sandbox, top)
    assert trashed.original.endswith(b"/leaf.txt") and len(trashed.original) > 4096
    # The deepest folder is swapped for a symlink to a directory elsewhere.
    elsewhere = sandbox.work / "elsewhere"
    elsewhere.mkdir()
    fd = _walk_down(top, LEVELS - 1)
    try:
        os.rename(NAME, os.path.join(elsewhere, "moved"), src_dir_fd=fd)
        os.symlink(str(elsewhere), NAME, dir_fd=fd)
    finally:
        os.close(fd)
    done = _safedel(sandbox, "restore", os.fsdecode(trashed.original))
    assert done.returncode == 1
    assert b"is a symlink now; past PATH_MAX none is followed" in done.stderr
    assert os.listdir(elsewhere) == ["moved"]
    assert os.listdir(elsewhere / "moved") == []
    assert [item.original for item in _trashed_from(sandbox, top)] == [trashed.original]
    # The folder back in place, with a new leaf.txt in the way: the restore walks down to
    # it by descriptor for --rename and --overwrite too.
    fd = _walk_down(top, LEVELS - 1)
    try:
        os.unlink(NAME, dir_fd=fd)
        os.rename(os.path.join(elsewhere, "moved"), NAME, dst_dir_fd=fd)
    finally:
        os.close(fd)
    fd = _walk_down(top, LEVELS)
    try:
        with open(os.open("leaf.txt", os.O_WRONLY | os.O_CREAT, 0o644, dir_fd=fd), "w") as f:
            f.write("newer")
        leaf = os.fsdecode(trashed.original)
        done = _safedel(sandbox, "restore", leaf)
        assert done.returncode == 1 and b"already exists" in done.stderr
        done = _safedel(sandbox, "restore", "--overwrite", leaf)
        assert done.returncode == 0, done.stderr[-2000:]
        with open(os.open("leaf.txt", os.O_RDONLY, dir_fd=fd), "rb") as f:
            assert f.read() == b"bottom"
        (newer,) = _trashed_from(sandbox, top)  # what was in the way, trashed by descriptor
        assert newer.original == trashed.original
        done = _safedel(sandbox, "restore", "--rename", leaf)
        assert done.returncode == 0, done.stderr[-2000:]
        assert sorted(os.listdir(fd)) == ["leaf.txt", "leaf.txt.restored-1"]
        with open(os.open("leaf.txt.restored-1", os.O_RDONLY, dir_fd=fd), "rb") as f:
            assert f.read() == b"newer"
    finally:
        os.close(fd)
    assert _trashed_from(sandbox, top) == []
