"""Under `safedel run`, deletions at any depth reach the trash; the gaps are exactly the
ones the coverage table (docs/coverage.md) names."""

import os
import shutil

import pytest
from conftest import IN_CI, last_markers, require

from safedel.net import kernel_supports


def make_tree(root, name="d"):
    target = root / name
    (target / "sub").mkdir(parents=True)
    (target / "sub" / "f.txt").write_text("data")
    return target


def assert_trashed(sandbox, target, runtime="rm"):
    assert not os.path.lexists(target)
    assert target.name in sandbox.trashed_names()
    events = [e for e in sandbox.report() if e["operation"] == "trash"]
    assert any(e["path"] == str(target) and e["runtime"] == runtime for e in events), events


SHELLS = [
    ("bash", ["bash", "-c"]),
    ("sh", ["sh", "-c"]),
    ("dash", ["dash", "-c"]),
    ("busybox", ["busybox", "sh", "-c"]),
    ("zsh", ["zsh", "-c"]),
]


@pytest.mark.parametrize("tool,prefix", SHELLS, ids=[s[0] for s in SHELLS])
def test_rm_rf_in_every_shell(sandbox, tool, prefix):
    require(tool)
    target = make_tree(sandbox.work)
    result = sandbox.run(*prefix, "rm -rf d")
    assert result.returncode == 0, result.stderr
    assert_trashed(sandbox, target)
    assert b"safedel: moved 1 item to the trash" in result.stderr


@pytest.mark.parametrize(
    "script",
    [
        "/bin/rm -rf d",
        "/usr/bin/rm -rf d",
        "command rm -rf d",
        "\\rm -rf d",
        "env rm -rf d",
        "nohup rm -rf d 2>/dev/null",
        "tool=rm; $tool -rf d",
        "VAR=1 rm -rf d",
    ],
)
def test_bash_forms(sandbox, script):
    target = make_tree(sandbox.work)
    result = sandbox.run("bash", "-c", script)
    assert result.returncode == 0, result.stderr
    assert_trashed(sandbox, target)


def test_zsh_absolute_path(sandbox):
    require("zsh")
    target = make_tree(sandbox.work)
    assert sandbox.run("zsh", "-c", "/bin/rm -rf d").returncode == 0
    assert_trashed(sandbox, target)


def test_bash_script_file_with_absolute_rm(sandbox):
    target = make_tree(sandbox.work)
    script = sandbox.work / "clean.sh"
    script.write_text("#!/bin/bash\nset -euo pipefail\n/bin/rm -rf d\necho done\n")
    script.chmod(0o755)
    result = sandbox.run(str(script))
    assert result.stdout == b"done\n", result.stderr
    assert_trashed(sandbox, target)


def test_make_clean(sandbox):
    require("make")
    target = make_tree(sandbox.work, "build")
    (sandbox.work / "Makefile").write_text("clean:\n\trm -rf build\n")
    result = sandbox.run("make", "clean")
    assert result.returncode == 0, result.stderr
    assert_trashed(sandbox, target)


def test_xargs_rm(sandbox):
    names = [f"x{i}.txt" for i in range(3)]
    for name in names:
        (sandbox.work / name).write_text(name)
    (sandbox.work / "list").write_text("\n".join(names) + "\n")
    result = sandbox.run("sh", "-c", "xargs rm < list")
    assert result.returncode == 0, result.stderr
    for name in names:
        assert_trashed(sandbox, sandbox.work / name)


def test_find_delete_and_find_exec(sandbox):
    objs = [sandbox.work / "a.o", sandbox.work / "b.o"]
    for obj in objs:
        obj.write_text("o")
    keep = sandbox.work / "keep.c"
    keep.write_text("c")
    result = sandbox.run("find", ".", "-name", "*.o", "-delete")
    assert result.returncode == 0, result.stderr
    for obj in objs:
        assert_trashed(sandbox, obj, runtime="find")
    assert keep.exists()
    tmps = [sandbox.work / "c.tmp", sandbox.work / "d.tmp"]
    for tmp in tmps:
        tmp.write_text("t")
    result = sandbox.run("find", ".", "-name", "*.tmp", "-exec", "rm", "{}", "+")
    assert result.returncode == 0, result.stderr
    for tmp in tmps:
        assert_trashed(sandbox, tmp)


def test_npm_script(sandbox):
    require("npm")
    target = make_tree(sandbox.work, "dist")
    (sandbox.work / "package.json").write_text(
        '{"name": "p", "version": "1.0.0", "scripts": {"clean": "rm -rf dist"}}'
    )
    result = sandbox.run("npm", "run", "--silent", "clean")
    assert result.returncode == 0, result.stderr
    assert_trashed(sandbox, target)


# The boundary: what is NOT covered, exactly as the coverage table (docs/coverage.md) says.
GAPS = [
    (["dash", "-c", "/bin/rm -rf d"], "`/bin/rm` under dash"),
    (["bash", "-c", "exec /bin/rm -rf d"], "exec /bin/rm"),
    (["env", "-i", "/usr/bin/rm", "-rf", "d"], "env -i"),
    (["busybox", "rm", "-rf", "d"], "busybox rm"),
    (["bash", "--posix", "-c", "/bin/rm -rf d"], "`/bin/rm` in bash in POSIX mode"),
    (["perl", "-e", "unlink 'd/sub/f.txt'; rmdir 'd/sub'; rmdir 'd'"], "`perl -e unlink`"),
    (
        [
            "node",
            "-e",
            "require('child_process').execFileSync(process.execPath,"
            " ['-e', \"require('fs').rmSync('d', {recursive: true})\"], {env: {}})",
        ],
        "Node children started with `env: {}`",
    ),
    (
        [
            "node",
            "-e",
            "const b = process.binding('fs');"
            " b.unlink('d/sub/f.txt'); b.rmdir('d/sub'); b.rmdir('d')",
        ],
        "`process.binding('fs')`",
    ),
]


@pytest.mark.parametrize("argv,table_row", GAPS, ids=[g[1] for g in GAPS])
def test_documented_gaps_really_delete(sandbox, argv, table_row):
    """The shims' gaps, with the net switched off (macOS, Windows, containers)."""
    require(argv[0])
    target = make_tree(sandbox.work)
    result = sandbox.run(*argv, run_options=["--net", "off"])
    assert result.returncode == 0, result.stderr
    assert not os.path.lexists(target)
    assert sandbox.trashed_names() == []
    docs = os.path.join(os.path.dirname(__file__), "..", "..", "docs")
    coverage = open(os.path.join(docs, "coverage.md")).read()
    assert table_row in coverage, f"docs/coverage.md's table must name {table_row}"


@pytest.mark.parametrize("argv,table_row", GAPS, ids=[g[1] for g in GAPS])
def test_the_net_closes_each_gap(sandbox, argv, table_row):
    """The coverage table's "with the net" column: on Linux the same commands trash."""
    require(argv[0])
    supported, why = kernel_supports()
    if not supported:
        (pytest.fail if IN_CI else pytest.skip)(f"no net here: {why}")
    target = make_tree(sandbox.work)
    result = sandbox.run(*argv)
    assert result.returncode == 0, result.stderr
    assert not os.path.lexists(target)
    assert {"d", "sub", "f.txt"} <= set(sandbox.trashed_names())
    assert "net" in {e["runtime"] for e in sandbox.report() if e["operation"] == "trash"}


def test_refusals_keep_everything(sandbox):
    home_marker = sandbox.home / "precious"
    home_marker.write_text("keep")
    cases = {
        "rm -rf /": b"rm: it is dangerous to operate recursively on '/'",
        'rm -rf "$UNSET/"': b"rm: it is dangerous to operate recursively on '/'",
        "rm -rf .": b"rm: refusing to remove '.' or '..' directory: skipping '.'",
        "rm -rf ~": b"safedel",
    }
    for script, message in cases.items():
        result = sandbox.run("bash", "-c", script)
        assert result.returncode == 1, script
        assert message in result.stderr, (script, result.stderr)
    assert home_marker.read_text() == "keep"
    assert sandbox.trashed_names() == []
    assert "SAFE_DELETE_FAIL_CLOSED" in last_markers(sandbox.run("bash", "-c", "rm -rf ~").stderr)


def test_rm_empty_string_is_like_gnu(sandbox):
    result = sandbox.run("bash", "-c", 'rm -rf ""')
    expected = shutil.which("rm", path="/usr/bin:/bin")
    gnu = __import__("subprocess").run([expected, "-rf", ""], capture_output=True)
    assert (result.returncode, result.stdout) == (gnu.returncode, gnu.stdout) == (0, b"")
