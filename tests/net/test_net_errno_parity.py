"""The net does what it allows itself (net/perform.py), so it must answer as the
kernel would: the same errno for a flag the kernel rejects, a descriptor that is not
open, a directory moved by a caller without write on it, a name taken under
RENAME_NOREPLACE, and a caller in a user namespace of its own, whose capabilities reach
only what that namespace maps. The same program runs bare and under `safedel run`, as
root and as a child that dropped to uid 65534, and prints each call's errno."""

import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import pytest
from conftest import IN_CI, require
from netkit import NOBODY, require_net

PROGRAM = r"""
import ctypes, json, os, sys

libc = ctypes.CDLL(None, use_errno=True)
AT_FDCWD, NOREPLACE, WHITEOUT = -100, 1, 4

def call(function, *args):
    ctypes.set_errno(0)
    return 0 if function(*args) == 0 else ctypes.get_errno()

def unlinkat(dirfd, path, flags):
    return call(libc.unlinkat, dirfd, path.encode(), flags)

def renameat2(old, new, flags, dirfd=AT_FDCWD):
    return call(libc.renameat2, dirfd, old.encode(), AT_FDCWD, new.encode(), flags)

def plant(path, owner, mode, directory=False):
    if directory:
        os.mkdir(path)
    else:
        with open(path, "w") as handle:
            handle.write("x")
    os.chown(path, owner, owner)
    os.chmod(path, mode)

places, nobody = {"tmp": sys.argv[1], "work": sys.argv[2]}, int(sys.argv[3])
results = {}
for place, base in places.items():
    plant(base + "/flag", 0, 0o644)
    said = {
        "unlinkat with a flag the kernel rejects": unlinkat(AT_FDCWD, base + "/flag", 0x100),
        "unlinkat through a descriptor that is not open": unlinkat(99, "flag", 0),
        "renameat2 through one not open": renameat2("flag", base + "/y", 0, dirfd=99),
    }
    plant(base + "/open", 0, 0o777, True)
    plant(base + "/open2", 0, 0o777, True)
    plant(base + "/open/rootdir", 0, 0o755, True)
    plant(base + "/sticky", 0, 0o1777, True)
    plant(base + "/sticky/rootfile", 0, 0o644)
    plant(base + "/sticky/mine", nobody, 0o644)
    plant(base + "/ro", 0, 0o755, True)
    plant(base + "/ro/rootfile", 0, 0o644)
    plant(base + "/nobodys", nobody, 0o755, True)
    plant(base + "/nobodys/file", nobody, 0o644)
    plant(base + "/whiteout", 0, 0o644)
    said["RENAME_WHITEOUT"] = renameat2(base + "/whiteout", base + "/whiteout2", WHITEOUT)
    results.update((place + ": " + name, value) for name, value in said.items())
    read, write = os.pipe()
    child = os.fork()
    if child == 0:
        os.setgroups([])
        os.setresgid(nobody, nobody, nobody)
        os.setresuid(nobody, nobody, nobody)
        moved = (base + "/open/rootdir", base + "/open2/rootdir", 0)
        onto = (base + "/sticky/mine", base + "/sticky/rootfile", NOREPLACE)
        found = {
            "a root directory moved to another parent": renameat2(*moved),
            "RENAME_NOREPLACE onto root's file in a sticky dir": renameat2(*onto),
            "unlink of root's file in a sticky dir": unlinkat(AT_FDCWD, onto[1], 0),
            "unlink in a directory it may not write": unlinkat(AT_FDCWD, base + "/ro/rootfile", 0),
        }
        os.write(write, json.dumps(found).encode())
        os._exit(0)
    os.close(write)
    os.waitpid(child, 0)
    with os.fdopen(read) as answer:
        for name, value in json.load(answer).items():
            results[place + " as 65534: " + name] = value
print(json.dumps(results, sort_keys=True))
"""


def _errnos(tmp, work, run=None):
    """The program's answers in tmp and work (made here, reachable by uid 65534: the net
    redoes a caller's rights on the parent, not the search of every directory above)."""
    for folder in (tmp, work):
        folder.mkdir()
        folder.chmod(0o755)
    command = [sys.executable, "-c", PROGRAM, str(tmp), str(work), str(NOBODY)]
    if run is None:
        done = subprocess.run(command, capture_output=True, timeout=60)
    else:
        env = run.__self__.base_env(TMPDIR=str(tmp))
        done = run(*command, env=env, run_options=("--workspace", str(work)))
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.decode().strip().splitlines()[-1])


def _need_root():
    if os.getuid() != 0:
        message = "needs root, to plant and drop to uid 65534"
        pytest.fail(message) if IN_CI else pytest.skip(message)


def test_what_the_net_does_itself_fails_as_the_kernel_fails(sandbox):
    require_net()
    _need_root()
    scratch = tempfile.mkdtemp(prefix="safedel-parity-", dir="/tmp")
    try:
        os.chmod(scratch, 0o755)
        top = pathlib.Path(scratch)
        bare = _errnos(top / "bare-tmp", top / "bare-work")
        # Under the run: one part in the run's exempt temp dir, one in its workspace.
        netted = _errnos(top / "tmp", top / "work", run=sandbox.run)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    assert netted == bare
    assert bare["tmp: unlinkat with a flag the kernel rejects"] == 22  # EINVAL
    assert bare["tmp as 65534: unlink of root's file in a sticky dir"] == 1  # EPERM


def test_a_caller_in_a_user_namespace_of_its_own_has_only_its_mapped_rights(sandbox):
    """`unshare -r` makes the caller root with every capability in a namespace that
    maps only root: over uid 65534's directory it may not delete, as bare."""
    require_net()
    unshare = require("unshare")
    _need_root()
    script = (
        "import os, sys\n"
        "try:\n    os.unlink(sys.argv[1]); print(0)\n"
        "except OSError as exc:\n    print(exc.errno)\n"
    )
    answers = []
    for where, runner in (("bare", None), ("net", sandbox.run)):
        folder = sandbox.tmpdir / f"nobodys-{where}"
        folder.mkdir()
        (folder / "file").write_text("theirs")
        for path in (folder, folder / "file"):
            os.chown(path, NOBODY, NOBODY)
        command = [unshare, "-r", sys.executable, "-c", script, str(folder / "file")]
        done = runner(*command) if runner else subprocess.run(command, capture_output=True)
        assert done.returncode == 0, done.stderr
        answers.append(done.stdout.decode().split()[-1])
        assert (folder / "file").read_text() == "theirs"
    assert answers == ["13", "13"]  # EACCES both ways
