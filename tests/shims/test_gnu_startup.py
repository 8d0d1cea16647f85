"""What the launchers load on their way to a simple removal.

A launcher's cost is mostly start-up, so the path of `rm -f FILE` (and of rmdir,
unlink and find) must not import the heavy standard modules, and the engine must come
from the shim home's bundle rather than one .pyc per module.
"""

import os
import pathlib
import shutil
import subprocess

import pytest

from safedel import materialize

HEAVY = ("re", "enum", "locale", "json", "hashlib", "typing", "collections", "pathlib")


def private_home(tmp_path):
    """A shim home of this test's own (the launchers name their lib dir in full)."""
    return pathlib.Path(materialize.materialize(str(tmp_path / "shims")))


def run_launcher(sandbox, shim_home, name, args, home=None):
    """Run bin/<name> with -X importtime; (completed, imported module names)."""
    home = home or shim_home
    launcher = os.path.join(home, "bin", name)
    with open(launcher, "rb") as handle:
        python = handle.readline()[2:].split()[0].decode()
    done = subprocess.run(
        [python, "-I", "-S", "-X", "importtime", launcher, *args],
        cwd=sandbox.work,
        env=sandbox.shim_env(),
        capture_output=True,
    )
    names = {
        line.split("|")[-1].strip()
        for line in done.stderr.decode().splitlines()
        if line.startswith("import time:") and "|" in line
    }
    return done, names


@pytest.mark.parametrize(
    "name,args,make",
    [
        ("rm", ["-f", "victim"], "file"),
        ("rm", ["victim"], "file"),
        ("unlink", ["victim"], "file"),
        ("rmdir", ["victim"], "dir"),
        ("find", ["victim", "-delete"], "file"),
    ],
)
def test_simple_removal_imports_nothing_heavy(sandbox, shim_home, name, args, make):
    victim = sandbox.work / "victim"
    victim.mkdir() if make == "dir" else victim.write_bytes(b"x")
    done, names = run_launcher(sandbox, shim_home, name, args)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert not victim.exists()
    assert names & set(HEAVY) == set(), sorted(names & set(HEAVY))
    assert "safedel_core.deletion" in names  # it really went through the engine


def test_engine_comes_from_the_bundle(sandbox, shim_home, tmp_path):
    # A private home, so its __pycache__ shows what was read from .py files.
    home = private_home(tmp_path)
    cache = home / "lib" / "safedel_core" / "__pycache__"
    shutil.rmtree(cache, ignore_errors=True)
    (sandbox.work / "victim").write_bytes(b"x")
    done, names = run_launcher(sandbox, shim_home, "rm", ["victim"], home=str(home))
    assert done.returncode == 0 and not (sandbox.work / "victim").exists()
    # Nothing is found on the path: the launcher boots from the bundle, which serves
    # the package, the launcher module and the engine, deletion and trash included.
    assert not cache.exists() or os.listdir(cache) == []
    assert {"safedel_core", "safedel_core.trash", "safedel_core.guard"} <= names


def test_without_the_bundle_the_launcher_still_works(sandbox, shim_home, tmp_path):
    home = private_home(tmp_path)
    (home / "lib" / "safedel_core.bundle").unlink()
    (sandbox.work / "victim").write_bytes(b"x")
    done, _ = run_launcher(sandbox, shim_home, "rm", ["-v", "victim"], home=str(home))
    assert done.returncode == 0 and done.stdout == b"removed 'victim'\n"
    assert len(os.listdir(sandbox.trash / "files")) == 1


def test_a_bundle_from_another_interpreter_is_ignored(sandbox, shim_home, tmp_path):
    home = private_home(tmp_path)
    bundle = home / "lib" / "safedel_core.bundle"
    bundle.write_bytes(b"\0\0\0\0" + bundle.read_bytes()[4:])
    (sandbox.work / "victim").write_bytes(b"x")
    done, _ = run_launcher(sandbox, shim_home, "rm", ["victim"], home=str(home))
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert not (sandbox.work / "victim").exists()


def test_a_damaged_bundle_falls_back_to_the_files(sandbox, shim_home, tmp_path):
    home = private_home(tmp_path)
    bundle = home / "lib" / "safedel_core.bundle"
    data = bundle.read_bytes()
    bundle.write_bytes(data[: len(data) // 2])  # the index survives, modules do not
    (sandbox.work / "victim").write_bytes(b"x")
    done, _ = run_launcher(sandbox, shim_home, "rm", ["victim"], home=str(home))
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert not (sandbox.work / "victim").exists()
