"""A tree deeper than PATH_MAX, removed by GNU rm under the net alone.

GNU rm walks such a tree by descriptor and unlinks each entry relative to its parent's
descriptor. The net must trash each entry too, named by its real path in the report
and Path=, moved relative to the caller's own descriptor; not refuse the call with
`File name too long` because the kernel will not spell that path.
"""

import os

from netkit import require_net

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
