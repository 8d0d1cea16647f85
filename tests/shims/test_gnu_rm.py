"""safedel's rm launcher against /usr/bin/rm, side by side on identical trees.

Same arguments, same stdin: the same stdout, stderr and exit status, the same tree
left behind, and what vanished is in the trash with a report line (runtime "rm").
"""

import os
import subprocess
import sys

import pytest
from conftest import require
from gnu_side_by_side import SideBySide, assert_trashed


def tree(base):
    for name in (b"d", b"d/e", b"empty"):
        os.mkdir(os.path.join(base, name))
    for name in (b"a", b"b", b"f", b"d/x", b"d/e/y"):
        with open(os.path.join(base, name), "wb") as handle:
            handle.write(b"data")
    open(os.path.join(base, b"zero"), "wb").close()
    os.symlink(b"d", os.path.join(base, b"ln"))
    os.symlink(b"nowhere", os.path.join(base, b"dl"))


@pytest.fixture
def side(sandbox):
    require("/usr/bin/rm")
    pair = SideBySide(sandbox, "rm")
    pair.build(tree)
    return pair


CASES = [
    ["a"],
    ["a", "b", "nope"],
    ["-f", "nope"],
    ["-f"],
    [],
    ["d"],
    ["-d", "d"],
    ["-d", "empty"],
    ["-dv", "empty", "a"],
    ["-r", "d"],
    ["-rf", "d", "nope"],
    ["-rv", "d"],
    ["-Rv", "d/", "a"],
    ["-rv", "d//"],
    ["-v", "a", "d", "b"],
    ["--recursive", "--verbose", "d", "--", "-a"],
    ["f/"],
    ["-f", "f/"],
    ["-r", "."],
    ["-rf", "./"],
    ["-r", "d/.."],
    ["-d", "."],
    ["-rf", "/"],
    ["-rf", "//"],
    ["-r", "--preserve-root=all", "d"],
    ["ln/"],
    ["-r", "ln/"],
    ["-rf", "ln/"],
    ["-rv", "ln/"],
    ["ln"],
    ["-r", "ln"],
    ["dl"],
    ["dl/"],
    ["-f", "dl/"],
    [""],
    ["-f", ""],
    ["-rf", ""],
    ["a", "-v"],
    ["--one-file-system", "-rv", "d"],
    ["---presume-input-tty", "a"],
    ["--interactive=never", "a", "nope"],
    ["--interactive=n", "a"],
    ["--force", "--dir", "empty"],
    ["--rec", "--verb", "d"],
]
USAGE_ERRORS = [
    ["-x", "a"],
    ["-rx", "d"],
    ["--v", "a"],
    ["--foo", "a"],
    ["--foo=bar"],
    ["--force=1", "a"],
    ["--dir=3"],
    ["--interactive=bogus", "a"],
    ["--interactive=", "a"],
    ["--no-pre", "a"],
    ["--preserve-root=x", "a"],
    ["--preserve-root=al", "a"],
    ["-foo"],
    ["a", "-z", "b"],
]


@pytest.mark.parametrize("args", CASES, ids=lambda a: " ".join(a) or "(none)")
def test_same_as_gnu(side, sandbox, args):
    ours = side.same(args)
    assert_trashed(sandbox, ours, side.ours, "rm")


@pytest.mark.parametrize("args", USAGE_ERRORS, ids=" ".join)
def test_usage_errors_delete_nothing(side, sandbox, args):
    ours = side.same(args)
    assert ours.status == 1 and ours.gone == [] and sandbox.report() == []


def test_dash_file_hint(side):
    side.build(lambda base: open(os.path.join(base, b"-foo"), "wb").close())
    ours = side.same(["-foo"])
    assert b"Try 'rm ./-foo' to remove the file '-foo'." in ours.stderr
    assert side.same(["--", "-foo"]).gone == [b"-foo"]


PROMPTS = [
    (["-i", "a", "b"], b"y\nn\n"),
    (["-i", "a", "b"], b""),
    (["-i", "nope", "dl/"], b""),
    (["-i", "ln", "dl", "zero"], b"y\nn\ny\n"),
    (["-id", "empty", "d"], b"y\n"),
    (["-ri", "d"], b"y\ny\ny\ny\ny\ny\n"),
    (["-ri", "d"], b"y\ny\nn\ny\ny\n"),
    (["-ri", "d"], b"y\nn\ny\ny\n"),
    (["-riv", "d", "a"], b"y\ny\ny\nyes\ny\nYes\nn\n"),
    (["-ri", "d"], b"n\n"),
    (["-fi", "a"], b"y\n"),
    (["-if", "a"], b""),
    (["-I", "a", "b", "f"], b""),
    (["-I", "a", "b", "f", "zero"], b"y\n"),
    (["-I", "a", "b", "f", "zero"], b"n\n"),
    (["-Ir", "d"], b"y\n"),
    (["-Ir", "d"], b""),
    (["--interactive=once", "-r", "d", "a"], b"no\n"),
    (["--interactive=always", "a"], b"y\n"),
    (["--interactive", "a", "b"], b"n\ny\n"),
    (["---presume-input-tty", "-i", "a"], b"y\n"),
]


@pytest.mark.parametrize("args, answers", PROMPTS, ids=lambda v: repr(v))
def test_prompts_same_as_gnu(side, sandbox, args, answers):
    ours = side.same(args, answers)
    assert_trashed(sandbox, ours, side.ours, "rm")


def test_rm_ri_keeps_the_directory_whole_when_all_is_confirmed(side, sandbox):
    side.same(["-ri", "d"], b"y\n" * 6)
    assert [e["path"] for e in sandbox.report()] == [os.path.join(side.ours, "d")]


def test_rm_ri_trashes_only_what_was_confirmed(side, sandbox):
    ours = side.same(["-ri", "d"], b"y\ny\nn\ny\ny\n")
    assert b"d/e/y" not in ours.gone and b"d/x" in ours.gone
    assert [os.path.relpath(e["path"], side.ours) for e in sandbox.report()] == ["d/x"]


def test_safedel_rm_command(sandbox):
    """`safedel rm` is the same front end in-process, options (and `--`) as typed."""
    (sandbox.work / "-foo").write_text("x")
    (sandbox.work / "d").mkdir()
    argv = [sys.executable, "-m", "safedel", "rm", "-v", "--", "-foo", "d"]
    done = subprocess.run(argv, cwd=sandbox.work, env=sandbox.base_env(), capture_output=True)
    assert done.returncode == 1
    assert done.stdout == b"removed '-foo'\n"
    assert done.stderr == b"rm: cannot remove 'd': Is a directory\n"
    assert sandbox.trashed_names() == ["-foo"]
    assert [e["runtime"] for e in sandbox.report()] == ["rm"]
