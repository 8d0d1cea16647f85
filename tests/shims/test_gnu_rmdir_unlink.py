"""safedel's rmdir and unlink launchers against /usr/bin/rmdir and /usr/bin/unlink."""

import os

import pytest
from conftest import require
from gnu_side_by_side import SideBySide, assert_trashed


def tree(base):
    for name in (b"d", b"e", b"full", b"a", b"a/b", b"a/b/c", b"p", b"p/q", b"p/q/r"):
        os.mkdir(os.path.join(base, name))
    for name in (b"f", b"full/x", b"p/keep", b"-dash", b"new\nline"):
        with open(os.path.join(base, name), "wb") as handle:
            handle.write(b"x")
    os.mkdir(os.path.join(base, b"\xff-odd"))
    os.symlink(b"d", os.path.join(base, b"ld"))
    os.symlink(b"nowhere", os.path.join(base, b"dl"))


@pytest.fixture
def pair(sandbox):
    def make(tool):
        require(f"/usr/bin/{tool}")
        side = SideBySide(sandbox, tool)
        side.build(tree)
        return side

    return make


RMDIR = [
    ["d"],
    ["d", "e", "nope"],
    ["-v", "d", "full", "f"],
    ["full"],
    ["--ignore-fail-on-non-empty", "full", "d"],
    ["f"],
    ["f/"],
    ["ld"],
    ["ld/"],
    ["dl/"],
    ["."],
    [".."],
    ["d/."],
    ["e/.."],
    ["/"],
    ["--ignore-fail-on-non-empty", "/"],
    [""],
    [],
    ["-p", "a/b/c"],
    ["-pv", "a/b/c/"],
    ["-p", "p/q/r"],
    ["-p", "--ignore-fail-on-non-empty", "p/q/r"],
    ["-pv", "a//b//c", "d"],
    ["-v", "a/b/c", "a/b", "a"],
    ["-v", "a", "a/b/c"],
    ["-v", "--", "\xff-odd", "new\nline"],
    ["-x", "d"],
    ["--v", "d"],
    ["--parent", "a/b/c"],
    ["--ign", "full"],
    ["--verbose=1", "d"],
]


@pytest.mark.parametrize("args", RMDIR, ids=lambda a: " ".join(a) or "(none)")
def test_rmdir_same_as_gnu(pair, sandbox, args):
    side = pair("rmdir")
    args = [
        os.fsdecode(os.fsencode(a)) if "\xff" not in a else os.fsdecode(b"\xff-odd") for a in args
    ]
    ours = side.same(args)
    assert_trashed(sandbox, ours, side.ours, "rmdir")


UNLINK = [
    ["f"],
    ["-dash"],
    ["--", "-dash"],
    ["d"],
    ["d/"],
    ["ld/"],
    ["ld"],
    ["dl"],
    ["dl/"],
    ["f/"],
    [""],
    ["."],
    ["nope/x"],
    ["new\nline"],
    [],
    ["f", "d"],
    ["-x"],
    ["--foo"],
    ["--hel=1"],
]


@pytest.mark.parametrize("args", UNLINK, ids=lambda a: " ".join(a) or "(none)")
def test_unlink_same_as_gnu(pair, sandbox, args):
    side = pair("unlink")
    ours = side.same(args)
    assert_trashed(sandbox, ours, side.ours, "unlink")
    assert len(sandbox.report()) == len(ours.gone)


@pytest.mark.parametrize("tool", ["rmdir", "unlink"])
def test_help_and_version(pair, tool):
    side = pair(tool)
    gnu, ours = side.run(["--help"])
    assert ours.status == 0 and ours.stdout.splitlines()[0] == gnu.stdout.splitlines()[0]
    gnu, ours = side.run(["--version"])
    assert ours.status == 0 and ours.stdout.startswith(tool.encode() + b" (safedel)")
