"""Directories whose own mode stops a move but not the kernel's rmdir, under the Python shim.

rmdir needs write permission on the parent only, so plain Python removes an empty
directory of mode 0, 0500 or 0300 with os.rmdir, and shutil.rmtree removes an empty
one it can open. Moving a directory into the trash rewrites its '..', which wants u+w
on it: as a user (root is never stopped by a mode) the shim lends its owner u+wx for
the move and gives the mode back inside the trash. What the program sees must be what
plain Python gives it, and each directory must come back from the trash as it was.
"""

import os
import shutil
import stat
import subprocess
import tempfile

import pytest
from conftest import require

NOBODY = 65534
SCRIPT = r"""
import os, pathlib, shutil

def attempt(name, call):
    try:
        call()
    except OSError as exc:
        # (rmtree names the entry it failed on; the shim, the tree it left in place.)
        return f"{name}: {type(exc).__name__} {exc.errno}"
    return f"{name}: ok"

os.umask(0o022)
seen = []
for name, mode in (("d0", 0), ("d5", 0o500), ("d3", 0o300)):
    os.mkdir(name, mode)
    seen.append(attempt(name, lambda: os.rmdir(name)))
os.mkdir("q0", 0)
seen.append(attempt("q0", lambda: os.removedirs("q0")))
os.mkdir("pd", 0o500)
seen.append(attempt("pd", lambda: pathlib.Path("pd").rmdir()))
os.mkdir("full"), os.mkdir("full/x"), os.chmod("full", 0)
seen.append(attempt("full", lambda: os.rmdir("full")))
os.makedirs("t/a"), os.mkdir("t/a/e5", 0o500), os.mkdir("t/e5", 0o500)
seen.append(attempt("t", lambda: shutil.rmtree("t")))
for name, mode in (("r5", 0o500), ("r0", 0), ("r3", 0o300)):
    os.mkdir(name, mode)
    seen.append(attempt(name, lambda: shutil.rmtree(name)))
os.mkdir("n5"), open("n5/kept", "w").close(), os.chmod("n5", 0o500)
seen.append(attempt("n5", lambda: shutil.rmtree("n5")))
print("\n".join(seen))
print(sorted(os.listdir(".")))
"""
RESTORE = """
from safedel.trash import catalog, restore
for item in catalog.items():
    restore.restore(item)
"""
TRASHED = {"d0": 0, "d5": 0o500, "d3": 0o300, "q0": 0, "pd": 0o500, "t": 0o755, "r5": 0o500}


@pytest.fixture
def scratch():
    if os.geteuid() != 0:
        pytest.skip("needs root to act as uid 65534")
    require("setpriv")
    root = tempfile.mkdtemp(prefix="safedel-pyshim-modes-")
    os.chmod(root, 0o755)
    import safedel
    from safedel.executor import shimhome

    # A copy of safedel that uid 65534 can import (the checkout may be root's alone).
    ignore = shutil.ignore_patterns("__pycache__")
    package = os.path.join(root, "package", "safedel")
    shutil.copytree(os.path.dirname(safedel.__file__), package, ignore=ignore)
    if not os.path.isfile(os.path.join(package, "shims", "__init__.py")):
        shutil.copytree(shimhome.SHIMS_DIR, os.path.join(package, "shims"), ignore=ignore)
    for name in ("home", "plain", "shimmed", "tmp"):
        os.mkdir(os.path.join(root, name))
        os.chown(os.path.join(root, name), NOBODY, NOBODY)
    yield root
    subprocess.run(["chmod", "-R", "u+rwx", root], check=False)
    shutil.rmtree(root, ignore_errors=True)


def _as_nobody(scratch, where, argv, shimmed=True):
    env = {
        "PATH": "/usr/bin:/bin",
        "SAFEDEL_CHURN_SECONDS": "0",
        "HOME": os.path.join(scratch, "home"),
        "TMPDIR": os.path.join(scratch, "tmp"),
        "SAFEDEL_PROMPT": "0",
        "PYTHONPATH": os.path.join(scratch, "package"),
    }
    prefix = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    if shimmed:
        prefix += ["/usr/bin/python3", "-m", "safedel", "run", "-q", "--net", "off", "--"]
    return subprocess.run(
        [*prefix, *argv],
        cwd=os.path.join(scratch, where),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def _mode(path):
    return stat.S_IMODE(os.lstat(path).st_mode)


def test_closed_directories_go_to_the_trash_with_their_mode_and_come_back(scratch):
    python = require("/usr/bin/python3")
    plain = _as_nobody(scratch, "plain", [python, "-c", SCRIPT], shimmed=False)
    assert plain.returncode == 0, plain.stderr
    shimmed = _as_nobody(scratch, "shimmed", [python, "-c", SCRIPT])
    assert (shimmed.returncode, shimmed.stdout) == (0, plain.stdout)
    # The one tree it could not have emptied is not lent a mode: it stays, failed closed.
    assert [line for line in shimmed.stderr.splitlines() if '/shimmed/n5"' not in line] == []
    # What plain Python could not remove stays, as it was.
    assert plain.stdout.splitlines()[-1] == "['full', 'n5', 'r0', 'r3']"
    assert "full: OSError 39" in plain.stdout and "r0: PermissionError 13" in plain.stdout
    work = os.path.join(scratch, "shimmed")
    assert [_mode(f"{work}/{name}") for name in ("full", "r0", "r3", "n5")] == [0, 0, 0o300, 0o500]
    assert os.listdir(f"{work}/n5") == ["kept"]
    files = os.path.join(scratch, "home", ".local", "share", "Trash", "files")
    assert {name: _mode(os.path.join(files, name)) for name in os.listdir(files)} == TRASHED
    assert (_mode(f"{files}/t/a/e5"), _mode(f"{files}/t/e5")) == (0o500, 0o500)
    listed = _as_nobody(scratch, "shimmed", [require("trash-list")], shimmed=False)
    assert sorted(line.split(" ", 2)[2] for line in listed.stdout.splitlines()) == sorted(
        os.path.join(work, name) for name in TRASHED
    )
    # Back by rename, as its owner: each closed directory on the same loan, there and back.
    restored = _as_nobody(scratch, "shimmed", [python, "-c", RESTORE], shimmed=False)
    assert restored.returncode == 0, restored.stderr
    assert os.listdir(files) == []
    assert {name: _mode(os.path.join(work, name)) for name in TRASHED} == TRASHED
    assert (_mode(f"{work}/t/a/e5"), _mode(f"{work}/t/e5")) == (0o500, 0o500)


def test_the_rm_launchers_share_the_loan(scratch):
    # The same step carries out rm's and rmdir's trashing: the launchers behave alike.
    script = (
        "umask 022; mkdir -m0 a0 && mkdir -m0500 a5 && mkdir -m0 b0 && rm -rf a0 a5 && rmdir b0"
    )
    plain = _as_nobody(scratch, "plain", ["/bin/sh", "-c", script], shimmed=False)
    assert (plain.returncode, plain.stderr) == (0, "")
    shimmed = _as_nobody(scratch, "shimmed", ["/bin/sh", "-c", script])
    assert (shimmed.returncode, shimmed.stderr) == (0, "")
    assert os.listdir(os.path.join(scratch, "shimmed")) == []
    files = os.path.join(scratch, "home", ".local", "share", "Trash", "files")
    assert {name: _mode(os.path.join(files, name)) for name in os.listdir(files)} == {
        "a0": 0,
        "a5": 0o500,
        "b0": 0,
    }
