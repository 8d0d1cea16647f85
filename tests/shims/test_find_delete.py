"""safedel's find launcher against /usr/bin/find: -delete trashes what find would delete.

Without -delete the real find runs unchanged; with it, the same entries go (to the
trash), in find's depth-first order, with find's messages and exit status.
"""

import os
import subprocess

import pytest
from conftest import last_markers, require
from gnu_side_by_side import SideBySide, assert_trashed


def tree(base):
    for name in (b"d", b"d/e", b"d/e/deep", b"empty", b"x", b"src", b"new\nline-dir"):
        os.mkdir(os.path.join(base, name))
    files = (b"a.o", b"d/b.o", b"d/e/c.o", b"d/e/deep/keep.c", b"src/m.c", b"src/m.o")
    files += (b"new\nline-dir/f", b"-dash.o", b"caf\xc3\xa9.o", b"\xff.o")
    for name in files:
        with open(os.path.join(base, name), "wb") as handle:
            handle.write(b"x")
    open(os.path.join(base, b"zero.o"), "wb").close()
    os.symlink(b"d", os.path.join(base, b"link.o"))
    os.symlink(b"nowhere", os.path.join(base, b"dangling.o"))


@pytest.fixture
def side(sandbox):
    require("/usr/bin/find")
    pair = SideBySide(sandbox, "find")
    pair.build(tree)
    return pair


PASSTHROUGH = [
    ["."],
    [".", "-name", "*.o"],
    [".", "-name", "-delete"],
    [".", "-type", "d", "-print0"],
    ["nope", "-name", "x"],
    [".", "-badpredicate"],
]
DELETE = [
    [".", "-name", "*.o", "-delete"],
    ["d", "-delete"],
    [".", "-delete"],
    [".", "-type", "d", "-delete"],
    [".", "-type", "d", "-empty", "-delete"],
    [".", "-name", "b.o", "-delete", "-print"],
    [".", "-name", "e", "-prune", "-o", "-delete"],
    [".", "-depth", "-name", "deep", "-prune", "-o", "-name", "*.o", "-delete"],
    ["x/.", "-delete"],
    ["x/", "-delete"],
    ["nope", "d/e", "-delete"],
    [".", "-maxdepth", "1", "-name", "*.o", "-delete"],
    [".", "-path", "./d/*", "-delete"],
    ["-P", ".", "-name", "*.o", "-exec", "echo", "found", "{}", ";", "-delete"],
    [".", "-name", "*.o", "-delete", "-o", "-name", "*.c", "-print"],
    [".", "(", "-name", "m.*", "-o", "-name", "f", ")", "-delete"],
    [".", "-name", "*.c", "-printf", "%p -delete\\n", "-delete"],
]


@pytest.mark.parametrize("args", PASSTHROUGH, ids=" ".join)
def test_without_delete_find_is_unchanged(side, sandbox, args):
    ours = side.same(args)
    assert ours.gone == [] and sandbox.report() == []


@pytest.mark.parametrize("args", DELETE, ids=lambda a: " ".join(a).replace("\n", "\\n"))
def test_delete_same_as_gnu(side, sandbox, args):
    ours = side.same(args)
    assert_trashed(sandbox, ours, side.ours, "find")


@pytest.mark.parametrize("lang", ["C.UTF-8", "C"])
def test_delete_messages_quote_like_find(side, sandbox, lang):
    env, shim_env = sandbox.base_env(LANG=lang), sandbox.shim_env(LANG=lang)
    ours = side.same([".", "-type", "d", "-delete"], env=env, shim_env=shim_env)
    assert b"new\\nline-dir" in ours.stderr and ours.status == 1


def test_a_whole_tree_is_one_item(side, sandbox):
    side.same(["d", "-delete"])
    assert [e["path"] for e in sandbox.report()] == [os.path.join(side.ours, "d")]
    assert sandbox.trashed_names() == ["d"]


def test_the_match_list_is_one_guard_batch(sandbox):
    require("/usr/bin/find")
    pair = SideBySide(sandbox, "find")
    pair.build(tree)
    env = sandbox.shim_env(threshold=3)
    gnu, ours = pair.run([".", "-name", "*.o", "-delete"], shim_env=env)
    assert ours.status == 1 and ours.gone == [] and gnu.gone
    assert ours.stderr.splitlines()[0].startswith(b"find: bulk guard: ")
    marker = last_markers(ours.stderr)["SAFE_DELETE_BULK_CONFIRM_REQUIRED"]
    assert marker["targetCount"] == len(gnu.gone)


def test_inert_find_deletes_for_real(side, sandbox):
    inert = sandbox.shim_env()
    del inert["SAFEDEL_ACTIVE"]
    ours = side.same([".", "-name", "*.o", "-delete"], shim_env=inert)
    assert ours.gone and sandbox.trashed_names() == []


def chain(base):
    for name in (b"p", b"p/q", b"p/q/r", b"s", b"s/t", b"s/keep"):
        os.mkdir(os.path.join(base, name))
    with open(os.path.join(base, b"s/keep/f"), "wb") as handle:
        handle.write(b"x")


@pytest.mark.parametrize(
    "args",
    [
        [".", "-type", "d", "-empty", "-delete"],
        ["p", "s", "-empty", "-delete"],
        [".", "-mindepth", "1", "-empty", "-delete"],
    ],
)
def test_empty_is_tested_again_after_the_contents_go(sandbox, args):
    require("/usr/bin/find")
    pair = SideBySide(sandbox, "find")
    pair.build(chain)
    ours = pair.same(args)
    assert b"p" in ours.gone and b"s/t" in ours.gone and b"s" not in ours.gone
    assert_trashed(sandbox, ours, pair.ours, "find")


def linked(base):
    os.makedirs(os.path.join(base, b"target", b"sub"))
    for name in (b"target/f", b"target/sub/g", b"s/h"):
        os.makedirs(os.path.dirname(os.path.join(base, name)), exist_ok=True)
        with open(os.path.join(base, name), "wb") as handle:
            handle.write(b"x")
    os.symlink(b"target", os.path.join(base, b"tl"))
    os.symlink(b"../target", os.path.join(base, b"s/ln"))
    os.symlink(b"nowhere", os.path.join(base, b"s/dangling"))


@pytest.mark.parametrize(
    "args",
    [
        ["tl/", "-delete"],
        ["tl", "-delete"],
        ["-H", "tl", "-delete"],
        ["-L", "s", "-delete"],
        ["-L", ".", "-xtype", "l", "-delete"],
        ["-L", ".", "-name", "g", "-delete"],
        ["-H", "-L", "-P", "s", "-delete"],
    ],
)
def test_symbolic_links_as_gnu_find(sandbox, args):
    require("/usr/bin/find")
    pair = SideBySide(sandbox, "find")
    pair.build(linked)
    ours = pair.same(args)
    assert_trashed(sandbox, ours, pair.ours, "find")


def findutils_tree(base):
    for name in (b"tmp", b"tmp/top", b"tmp/top/one", b"tmp/top/one/foo", b"tmp/top/two"):
        os.mkdir(os.path.join(base, name))
    os.mkdir(os.path.join(base, b"tmp/top/dir"))
    open(os.path.join(base, b"tmp/top/file"), "wb").close()


# The -delete cases of findutils' own suite (find.gnu/delete, deletedir, deletefile).
@pytest.mark.parametrize(
    "args",
    [
        ["tmp", "-path", "tmp/top/two", "-delete"],
        ["tmp", "-path", "tmp/top/dir", "-delete", "-print"],
        ["tmp", "-path", "tmp/top/file", "-delete", "-print"],
    ],
)
def test_findutils_own_delete_cases(sandbox, args):
    require("/usr/bin/find")
    pair = SideBySide(sandbox, "find")
    pair.build(findutils_tree)
    ours = pair.same(args)
    assert len(ours.gone) == 1
    assert_trashed(sandbox, ours, pair.ours, "find")


@pytest.fixture
def pinned_tree(sandbox):
    """work/{gnu,ours}/d/{a, imm (chattr +i), app/ (chattr +a) holding f}."""
    chattr = require("chattr")
    made = []

    def setup(base):
        os.makedirs(os.path.join(base, b"d", b"app"))
        for name in (b"d/a", b"d/imm", b"d/app/f"):
            open(os.path.join(base, name), "wb").close()
        for flag, name in ((b"+i", b"d/imm"), (b"+a", b"d/app")):
            path = os.path.join(base, name)
            if subprocess.run([chattr, flag, path]).returncode != 0:
                pytest.skip("chattr does not work on this file system (or not as root)")
            made.append((flag.replace(b"+", b"-"), path))

    pair = SideBySide(sandbox, "find")
    pair.build(setup)
    yield pair
    for flag, path in made:
        subprocess.run([chattr, flag, path], check=False)
    # Wherever a pinned entry ended up (the trash, should a rename take it along),
    # the temporary tree must stay removable.
    subprocess.run([chattr, "-R", "-f", "-ia", str(sandbox.root)], check=False)


@pytest.mark.parametrize(
    "args", [["d", "-delete"], ["d", "-name", "f", "-delete"], ["d", "-delete", "-print"]]
)
def test_immutable_and_append_only_stay(pinned_tree, args):
    ours = pinned_tree.same(args)
    assert ours.status == 1 and b"d/imm" not in ours.gone


def test_under_the_net_find_is_answered_by_it(sandbox):
    """Inside safedel run the kernel allows no second listener: the launcher hands
    find over to the net, which trashes each call; -delete's value is still find's."""
    from safedel import net

    if not net.kernel_supports()[0]:
        pytest.skip("no seccomp user notification here")
    require("/usr/bin/find")
    tree(os.fsencode(sandbox.work))
    done = sandbox.run("find", "d", "-name", "*.o", "-delete", "-print", "-o", "-name", "e")
    assert done.returncode == 0, done.stderr
    assert sorted(done.stdout.splitlines()) == [b"d/b.o", b"d/e/c.o"]
    assert not os.path.lexists(sandbox.work / "d" / "b.o")
    assert sorted(sandbox.trashed_names()) == ["b.o", "c.o"]
    assert {e["runtime"] for e in sandbox.report() if e["operation"] == "trash"} == {"net"}


@pytest.mark.parametrize("args", [["-rf", "d"], ["-rf", "d/app"], ["-rf", "d/imm"]])
def test_rm_with_chattr_inside_as_gnu(pinned_tree, sandbox, args):
    """chattr +i/+a inside a tree rm would otherwise move whole: GNU stops there."""
    rm = SideBySide(sandbox, "rm")
    ours = rm.same(args)
    assert ours.status == 1
    assert_trashed(sandbox, ours, rm.ours, "rm")


def test_rm_with_a_pinned_directory_deep_inside(sandbox):
    """The whole-tree check asks every directory's flags, as root too."""
    chattr = require("chattr")
    rm = SideBySide(sandbox, "rm")

    def setup(base):
        os.makedirs(os.path.join(base, b"t/a/b/app"))
        for name in (b"t/f", b"t/a/g", b"t/a/b/app/h"):
            open(os.path.join(base, name), "wb").close()
        if subprocess.run([chattr, "+a", os.path.join(base, b"t/a/b/app")]).returncode:
            pytest.skip("chattr does not work on this file system (or not as root)")

    rm.build(setup)
    try:
        ours = rm.same(["-rf", "t"])
        assert ours.status == 1 and sorted(ours.gone) == [b"t/a/g", b"t/f"]
        assert_trashed(sandbox, ours, rm.ours, "rm")
    finally:
        subprocess.run([chattr, "-R", "-f", "-ia", str(sandbox.root)], check=False)


def test_answered_find_meets_the_guard_once(sandbox):
    """Answered one by one, entries within the turn's limit go; at the first refusal
    the guard says why once, and every later entry stays with find's own message."""
    require("/usr/bin/find")
    pair = SideBySide(sandbox, "find")
    pair.build(tree)
    env = sandbox.shim_env(threshold=3)
    gnu, ours = pair.run([".", "-name", "*.o", "-delete", "-print"], shim_env=env)
    assert ours.status == 1 and len(ours.gone) == 3 and len(gnu.gone) > 3
    assert ours.stdout.count(b"\n") == 3
    markers = [line for line in ours.stderr.splitlines() if line.startswith(b"[safe-delete]")]
    assert len(markers) == 1 and b"BULK_CONFIRM_REQUIRED" in markers[0]
    refused = [line for line in ours.stderr.splitlines() if b"cannot delete" in line]
    assert len(refused) == len(gnu.gone) - 3
