"""The Node shim trusts only trash directories that are its own, checks them before
every item, and deletes exempt trees without following a symlink swapped in by
another user (uid 65534, racing it)."""

import os
import pathlib
import shutil
import subprocess
import tempfile

import pytest
from conftest import require
from test_node_common import NODES, json_out, run_script

NOBODY = 65534

TWO_STEPS = r"""
const fs = require('fs');
const [first, second] = process.argv.slice(2);
const codes = [];
const del = (p) => {
  try { fs.unlinkSync(p); codes.push(null); } catch (e) { codes.push(e.code); }
};
del(first);
process.stdout.write('ready\n');
fs.readSync(0, Buffer.alloc(1));
del(second);
console.log(JSON.stringify(codes));
"""


@pytest.fixture
def shared(tmpfs):
    """A world-reachable tmpfs, like a shared mount (as root, in CI)."""
    if os.geteuid() != 0:
        pytest.skip("needs root, to play the other user")
    require("setpriv")
    base = pathlib.Path(tempfile.mkdtemp(prefix="safedel-node-", dir="/var/tmp"))
    os.chmod(base, 0o755)
    try:
        yield tmpfs("shared", mode="1777", at=base)
    finally:
        subprocess.run(["umount", "-l", str(base / "shared")], capture_output=True)
        shutil.rmtree(base, ignore_errors=True)


def foreign_dir(path, mode=0o700):
    path.mkdir(mode=mode)
    os.chmod(path, mode)
    os.chown(path, NOBODY, NOBODY)
    return path


@NODES
def test_a_foreign_shared_trash_is_not_used(sandbox, node, shared):
    foreign_dir(shared / ".Trash", 0o1777)
    (shared / "a").write_text("a")
    assert json_out(run_script(sandbox, node, TWO_STEPS, args=[str(shared / "a"), "-"]))
    assert not (shared / ".Trash" / "0").exists()
    assert os.listdir(shared / ".Trash-0" / "files") == ["a"]


@NODES
def test_a_trash_swapped_for_a_symlink_between_items_is_not_followed(sandbox, node, shared):
    (shared / ".Trash").mkdir()
    os.chmod(shared / ".Trash", 0o1777)
    theirs = foreign_dir(shared / "theirs", 0o755)
    (shared / "a").write_text("a")
    (shared / "b").write_text("b")
    script = sandbox.work / "two.cjs"
    script.write_text(TWO_STEPS)
    proc = subprocess.Popen(
        [require(node), str(script), str(shared / "a"), str(shared / "b")],
        env=sandbox.shim_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout.readline() == "ready\n"
    own = shared / ".Trash" / "0"
    assert os.listdir(own / "files") == ["a"]
    (theirs / "files").mkdir()
    (theirs / "info").mkdir()
    os.rename(own, shared / "moved")
    os.symlink(theirs, own)
    out, _ = proc.communicate("go\n", timeout=60)
    assert out.strip().endswith("[null,null]")
    assert os.listdir(theirs / "files") == [] and os.listdir(theirs / "info") == []
    assert os.listdir(shared / ".Trash-0" / "files") == ["b"]


@NODES
def test_a_trash_dir_setting_that_is_not_ours_fails_closed(sandbox, node):
    for name, owner, mode in (("foreign", NOBODY, 0o755), ("open", 0, 0o777)):
        trash_dir = sandbox.root / name
        trash_dir.mkdir()
        os.chmod(trash_dir, mode)
        os.chown(trash_dir, owner, owner)
        target = sandbox.work / name
        target.write_text("x")
        env = sandbox.shim_env(SAFEDEL_TRASH_DIR=str(trash_dir))
        codes = json_out(run_script(sandbox, node, TWO_STEPS, env=env, args=[str(target), "-"]))
        assert codes[0] == "EPERM" and target.exists(), name
        assert os.listdir(trash_dir) == []


ATTACKER = r"""
import os, sys
base, victim = sys.argv[1], sys.argv[2]
while True:
    for name in ("0", "b"):
        try:
            path = os.path.join(base, name)
            if os.path.isdir(path) and not os.path.islink(path):
                os.rename(path, path + ".old")
                os.symlink(victim, path)
            else:
                os.unlink(path)
                if os.path.isdir(path + ".old"):
                    os.rename(path + ".old", path)
        except OSError:
            pass
"""


def attack(base, victim):
    """Another user (uid 65534) swapping base/0 and base/b for symlinks to victim."""
    argv = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    argv += ["/usr/bin/python3", "-c", ATTACKER, str(base), str(victim)]
    return subprocess.Popen(argv)


@NODES
def test_racing_a_foreign_shared_trash_never_exposes_an_item(sandbox, node, shared):
    trash = foreign_dir(shared / ".Trash", 0o1777)
    theirs = foreign_dir(shared / "theirs", 0o777)
    attacker = attack(trash, theirs)
    outputs = []
    try:
        for trial in range(20):
            item = shared / f"item{trial}"
            item.write_text(str(trial))
            done = run_script(sandbox, node, TWO_STEPS, args=[str(item), "-"])
            outputs.append((trial, done.stdout, done.stderr, os.path.lexists(item)))
            assert not item.exists(), (trial, done.stdout, done.stderr)
    finally:
        attacker.kill()
        attacker.wait()
    listing = ["find", str(shared), "-name", "item*", "-o", "-name", "0*"]
    found = subprocess.run(listing, capture_output=True, text=True).stdout
    expected = sorted(f"item{n}" for n in range(20))
    assert sorted(os.listdir(shared / ".Trash-0" / "files")) == expected, (found, outputs)
    assert list(theirs.rglob("item*")) == []


RM_TREE = "require('fs').rmSync(process.argv[2], { recursive: true, force: true });"


@NODES
def test_racing_an_exempt_real_delete_never_follows_a_swapped_symlink(sandbox, node, shared):
    """The exempt dir is shared (1777, like /tmp); another user swaps a subdirectory
    of their tree for a symlink to your data while it is being deleted for real."""
    victim = sandbox.work / "data"
    victim.mkdir()
    for n in range(50):
        (victim / f"keep{n}").write_text("precious")
    env = sandbox.shim_env(TMPDIR=str(shared))
    for trial in range(20):
        theirs = shared / f"theirs{trial}"
        for sub in ("a", "b"):
            (theirs / sub).mkdir(parents=True)
            for n in range(300):
                (theirs / sub / f"f{n}").write_text("x")
        subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", str(theirs)], check=True)
        attacker = attack(theirs, victim)
        try:
            done = run_script(sandbox, node, RM_TREE, env=env, args=[str(theirs)])
        finally:
            attacker.kill()
            attacker.wait()
        assert len(os.listdir(victim)) == 50, (trial, done.stderr)
        assert sandbox.trashed_names() == []
