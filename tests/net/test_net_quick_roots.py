"""The net's quick path walks an absolute path to the temp dir from the caller's own
root, following no symlink: a symlink on the way (a chroot's own temp dir) is followed
by the kernel in the caller's root, but would be followed by the supervisor from its
own, where an absolute target may name the real temp dir.

Here a chroot inside the workspace has, at the temp dir's path, an absolute symlink
whose target is, for the host, a link to the real temp dir and, inside the chroot, a
directory of workspace files. Unlinking "the temp dir's" files there deletes those
workspace files: they must reach the trash, not be left to the kernel.
"""

import os

import pytest
from conftest import require
from netkit import require_net, static_binary

UNLINK_EACH = """
int status = 0;
for (int i = 1; i < argc; i++)
    if (unlink(argv[i]) != 0) { perror(argv[i]); status = 1; }
return status;
"""


def test_a_chroot_whose_temp_dir_is_a_symlink_is_judged_in_the_chroot(sandbox):
    require_net()
    if os.geteuid() != 0:
        pytest.skip("chroot needs root")
    chroot = require("chroot")
    tmp, rootfs = str(sandbox.tmpdir), sandbox.work / "rootfs"
    hop = sandbox.root / "hop"  # the host's: a link to the real temp dir
    hop.symlink_to(tmp)
    inside = rootfs / str(hop).lstrip("/")  # the chroot's: a directory of workspace files
    (inside / "cc").mkdir(parents=True)
    (inside / "straight.txt").write_text("mine")
    (inside / "cc" / "deeper.txt").write_text("mine")
    (sandbox.tmpdir / "cc").mkdir()  # the real temp dir has the same subdirectory
    at_tmp = rootfs / tmp.lstrip("/")
    at_tmp.parent.mkdir(parents=True, exist_ok=True)
    at_tmp.symlink_to(hop)
    program = static_binary(sandbox.root, UNLINK_EACH)
    os.rename(program, rootfs / "unlink-each")
    done = sandbox.run(
        chroot, str(rootfs), "/unlink-each", f"{tmp}/straight.txt", f"{tmp}/cc/deeper.txt"
    )
    assert done.returncode == 0, done.stderr
    assert sorted(sandbox.trashed_names()) == ["deeper.txt", "straight.txt"], done.stderr
    assert os.listdir(sandbox.tmpdir / "cc") == []
