"""Restore never passes through another user's symlink: a folder on the way that they
swapped for a link to their own directory stops the restore, and the item stays in
the trash."""

import os
import subprocess
import sys

from safedel.trash import catalog, restorewalk

from .conftest import as_nobody


def safedel(sandbox, *argv):
    return subprocess.run(
        [sys.executable, "-m", "safedel", *argv],
        env=sandbox.base_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )


def test_restore_refuses_a_planted_symlink_on_the_way(sandbox, shared):
    area = os.path.join(shared, "shared")
    os.mkdir(area)
    os.chmod(area, 0o1777)
    vdir = os.path.join(area, "vdir")
    os.mkdir(vdir)
    with open(os.path.join(vdir, "secret.txt"), "w") as handle:
        handle.write("secret")
    env = sandbox.shim_env(SAFEDEL_WORKSPACE_ROOTS=area)  # the shared folder is worked in
    done = subprocess.run(["rm", os.path.join(vdir, "secret.txt")], env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    done = subprocess.run(["rm", "-r", vdir], env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    theirs = os.path.join(area, "theirs")
    planted = as_nobody(
        ["sh", "-c", f"mkdir -m 0700 {theirs} && ln -s {theirs} {vdir}"],
    )
    assert planted.wait(timeout=30) == 0 and os.path.islink(vdir)
    done = safedel(sandbox, "restore", "--turn", sandbox.turn)
    assert done.returncode == 1
    assert "a symlink owned by uid 65534" in done.stderr
    assert os.listdir(theirs) == []  # nothing of ours went in there
    originals = {os.fsdecode(i.original) for i in catalog.items([os.fsencode(sandbox.trash)])}
    assert os.path.join(vdir, "secret.txt") in originals  # still safe in our trash


def test_our_own_and_roots_symlinks_are_followed(tmp_path):
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "mine").symlink_to(real)
    fd = restorewalk.open_directory(os.fsencode(tmp_path / "mine" / "new" / "deeper"))
    try:
        assert os.path.samestat(os.fstat(fd), os.stat(real / "new" / "deeper"))
    finally:
        os.close(fd)
