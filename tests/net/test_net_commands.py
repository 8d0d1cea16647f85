"""Under the net, programs the shims cannot see still trash instead of destroying.

Each command runs twice on the same tree: once without safedel (the baseline status,
stdout and stderr) and once under `safedel run`. Under the net the data must be in
the trash, restorable, and the program must not notice any difference.
"""

import os
import shutil
import subprocess

import pytest
from conftest import require
from netkit import (
    make_tree,
    require_net,
    restore_turn,
    snapshot,
    static_binary,
    summary_free,
    without_safedel,
)

PY_NO_SHIM = (
    "import os, subprocess, sys; env = dict(os.environ, PYTHONPATH='');"
    " subprocess.run([sys.executable, '-c', 'import shutil; shutil.rmtree(\"d\")'],"
    " env=env, check=True)"
)
PY_SUBPROCESS_RM = "import subprocess; subprocess.run(['/usr/bin/rm', '-rf', 'd'], check=True)"

COMMANDS = {
    "PATH=/usr/bin:/bin rm -rf": ["sh", "-c", "PATH=/usr/bin:/bin rm -rf d"],
    "command -p rm": ["bash", "-c", "command -p rm -rf d"],
    "hash -p": ["bash", "-c", "hash -p /usr/bin/rm rm; rm -rf d"],
    "find -exec /usr/bin/rm": ["find", ".", "-name", "d", "-prune", "-exec", "/usr/bin/rm"]
    + ["-rf", "{}", "+"],
    "subprocess /usr/bin/rm": ["python3", "-c", PY_SUBPROCESS_RM],
    "make recipe": ["make", "-s", "-f", "Makefile.clean"],
    "rsync --delete": ["rsync", "-a", "--delete", "empty/", "d/"],
    "perl unlink": ["perl", "-e", "unlink 'd/sub/f.txt' or die; rmdir 'd/sub' or die"],
    "python child, PYTHONPATH replaced": ["python3", "-c", PY_NO_SHIM],
    "env -i": ["env", "-i", "/usr/bin/rm", "-rf", "d"],
    "busybox rm": ["busybox", "rm", "-rf", "d"],
    "/bin/rm under dash": ["dash", "-c", "/bin/rm -rf d"],
    "git clean -fdx": ["git", "clean", "-q", "-fdx", "d"],
    "command /bin/rm": ["bash", "-c", "command /bin/rm -rf d"],
    "bash -l -c rm": ["bash", "-l", "-c", "rm -rf d"],
    "python -I": ["python3", "-I", "-c", "import shutil; shutil.rmtree('d')"],
    "posix.unlink": ["python3", "-c", "import posix; posix.unlink('d/top.txt')"],
}


def prepare(root, case):
    root.mkdir(parents=True, exist_ok=True)
    tree = make_tree(root)
    (root / "empty").mkdir()
    (root / "Makefile.clean").write_text("clean:\n\t/usr/bin/rm -rf d\n")
    if case == "git clean -fdx":
        env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1"}
        subprocess.run(["git", "init", "-q", str(root)], check=True, env={**os.environ, **env})
    return tree


@pytest.mark.parametrize("case", list(COMMANDS))
def test_the_data_ends_up_in_the_trash(sandbox, case):
    require_net()
    argv = list(COMMANDS[case])
    argv[0] = require(argv[0])
    baseline_root = sandbox.root / "baseline"
    prepare(baseline_root, case)
    expected = without_safedel(sandbox, argv, baseline_root)
    tree = prepare(sandbox.work, case)
    before = snapshot(tree)
    result = sandbox.run(*argv)
    assert (result.returncode, result.stdout) == (expected.returncode, expected.stdout)
    assert summary_free(result.stderr) == expected.stderr
    after_baseline = snapshot(baseline_root / "d") if (baseline_root / "d").exists() else {}
    after = snapshot(tree) if tree.exists() else {}
    assert after == after_baseline, "the program must see the same end state"
    events = [e for e in sandbox.report() if e["operation"] == "trash"]
    assert events and all(e["runtime"] in ("net", "rm", "python", "find") for e in events)
    assert "net" in {e["runtime"] for e in events}
    restored = restore_turn(sandbox)
    assert restored.returncode == 0, restored.stderr
    assert snapshot(tree) == before


def test_a_static_binary_is_caught(sandbox):
    require_net()
    program = static_binary(
        sandbox.root,
        'if (unlink("d/sub/f.txt") != 0) { perror("unlink"); return 1; }\n'
        'if (rmdir("d/sub") != 0) { perror("rmdir"); return 2; }\n'
        'if (rmdir("d") == 0 || errno != ENOTEMPTY) { puts("rmdir d?"); return 3; }\n'
        'if (unlink("d") == 0 || errno != EISDIR) { puts("unlink d?"); return 4; }\n'
        'puts("done"); return 0;',
    )
    tree = make_tree(sandbox.work)
    result = sandbox.run(program)
    assert (result.returncode, result.stdout) == (0, b"done\n"), result.stderr
    assert not (tree / "sub").exists() and (tree / "top.txt").exists()
    assert sorted(sandbox.trashed_names()) == ["f.txt", "sub"]
    restored = restore_turn(sandbox)
    assert restored.returncode == 0, restored.stderr
    assert (tree / "sub" / "f.txt").read_text() == "data"


def test_trash_cli_lists_what_the_net_trashed(sandbox):
    require_net()
    trash_list = require("trash-list")
    tree = make_tree(sandbox.work)
    assert sandbox.run("dash", "-c", "/bin/rm -rf d").returncode == 0
    listing = subprocess.run(
        [trash_list], env=sandbox.base_env(), capture_output=True, text=True, timeout=60
    ).stdout
    for path in (tree, tree / "sub", tree / "sub" / "f.txt", tree / "top.txt"):
        assert f" {path}\n" in listing, listing


def test_net_off_leaves_the_gap_open(sandbox):
    tree = make_tree(sandbox.work)
    result = sandbox.run("dash", "-c", "/bin/rm -rf d", run_options=["--net", "off"])
    assert result.returncode == 0
    assert not tree.exists() and sandbox.trashed_names() == []
    shutil.rmtree(sandbox.work, ignore_errors=True)
