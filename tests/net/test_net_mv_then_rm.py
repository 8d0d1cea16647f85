"""Issue #29, case 10: `mv` a workspace file into the temp dir, then `rm` it there.

Without the net (`--net off`, a bootstrapped shell, macOS) the rename goes through and
the temp dir is exempt: the file is deleted for real, as docs/coverage.md and
docs/net.md name it. With the net the rename is answered EXDEV, so mv copies and its
deletion of the original is judged: the data is in the trash, byte for byte, and
`safedel restore` puts it back. As the user, and as uid 65534 in a shared directory.
"""

import os
import subprocess

import pytest
from conftest import require
from netkit import as_nobody, nobody_package, nobody_scratch, require_net, restore_turn
from spellings import under_bootstrap

NOTES = b"notes \xff\x00 kept\n" * 100
SOURCE = b"int main(void) { return 0; }\n"
# (id, the command: mv into the temp dir, then a deletion there)
MOVES = [
    ("mv-rm", 'mv notes.txt "$TMPDIR/n" && rm "$TMPDIR/n"'),
    ("mv-bin-rm", 'mv notes.txt "$TMPDIR/" && /bin/rm -f "$TMPDIR/notes.txt"'),
    ("mv-tree", 'mv src "$TMPDIR/" && rm -rf "$TMPDIR/src" && rm notes.txt'),
    (
        "python",
        'python3 -c \'import os, shutil; shutil.move("notes.txt", os.environ["TMPDIR"])'
        '; os.remove(os.environ["TMPDIR"] + "/notes.txt")\'',
    ),
]


def plant(work):
    (work / "notes.txt").write_bytes(NOTES)
    (work / "src").mkdir()
    (work / "src" / "main.c").write_bytes(SOURCE)


def docs(name):
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "..", "..", "docs", name), encoding="utf-8") as handle:
        return handle.read()


def test_without_the_net_the_file_is_deleted_for_real_as_named(sandbox):
    plant(sandbox.work)
    done = sandbox.run("dash", "-c", MOVES[0][1], run_options=["--net", "off"])
    assert done.returncode == 0, done.stderr
    assert not (sandbox.work / "notes.txt").exists()
    assert not (sandbox.tmpdir / "n").exists()
    assert sandbox.trashed_names() == []
    for page in ("coverage.md", "net.md"):
        assert "moved into the temp dir, then deleted there" in docs(page), page


def test_in_a_bootstrapped_shell_the_file_is_deleted_for_real_as_named(sandbox):
    require("bash")
    plant(sandbox.work)
    script = under_bootstrap("bash", MOVES[0][1])
    env = sandbox.base_env()
    done = subprocess.run(
        ["bash", "-c", script], cwd=sandbox.work, env=env, capture_output=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert not (sandbox.work / "notes.txt").exists()
    assert sandbox.trashed_names() == []


@pytest.mark.parametrize("move_id,script", MOVES, ids=[m[0] for m in MOVES])
def test_with_the_net_the_data_survives_in_the_trash(sandbox, move_id, script):
    require_net()
    plant(sandbox.work)
    done = sandbox.run("dash", "-c", script)
    assert done.returncode == 0, done.stderr
    assert not (sandbox.work / "notes.txt").exists()
    files = sandbox.trash / "files"
    assert (files / "notes.txt").read_bytes() == NOTES, sandbox.trashed_names()
    if move_id == "mv-tree":
        assert not (sandbox.work / "src").exists() and not (sandbox.tmpdir / "src").exists()
        # mv copied the tree, then removed its originals entry by entry: each trashed.
        assert (files / "main.c").read_bytes() == SOURCE
    restored = restore_turn(sandbox)
    assert restored.returncode == 0, restored.stderr
    assert (sandbox.work / "notes.txt").read_bytes() == NOTES
    if move_id == "mv-tree":
        assert (sandbox.work / "src" / "main.c").read_bytes() == SOURCE


def test_uid_65534_in_a_shared_directory_keeps_its_moved_file():
    require_net()
    script = 'echo mine > notes.txt && mv notes.txt "$TMPDIR/n" && rm "$TMPDIR/n"'
    with nobody_scratch("safedel-net-mv-") as scratch:
        nobody_package(os.path.join(scratch, "package"))
        status, stderr = as_nobody(scratch, "work", script, netted=True)
        assert status == 0, stderr
        trash = os.path.join(scratch, "home", ".local", "share", "Trash", "files")
        with open(os.path.join(trash, "notes.txt"), "rb") as handle:
            assert handle.read() == b"mine\n"
        assert not os.path.exists(os.path.join(scratch, "tmp", "n"))
