"""The Node shim trusts only trash directories that are its own, checks them before
every item, and deletes exempt trees without following a symlink swapped in by
another user (uid 65534, racing it)."""

import json
import os
import pathlib
import shutil
import subprocess
import sys
import tempfile

import pytest
from conftest import require
from node_mounts import NOBODY, attack
from test_node_common import NODES, json_out, run_script
from trashlisting import agreeing

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


def in_private_mounts(sandbox, node, scenario):
    """Run a node_mounts.py scenario in a mount namespace of its own (see there)."""
    if os.geteuid() != 0:
        pytest.skip("needs root, to mount and to play the other user")
    require("setpriv")
    script = sandbox.work / "two.cjs"
    script.write_text(TWO_STEPS)
    env = sandbox.shim_env()
    env["SAFEDEL_OUTSIDE_WORKSPACE"] = "allow"  # the scenarios' mounts are no workspace
    require("trash-list")
    spec = {"scenario": scenario, "node": require(node), "env": env}
    spec["plain_env"] = sandbox.base_env()
    spec["script"] = str(script)
    driver = os.path.join(os.path.dirname(__file__), "node_mounts.py")
    argv = [require("unshare"), "-m", "--propagation", "private", sys.executable, driver]
    done = subprocess.run([*argv, json.dumps(spec)], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@NODES
def test_a_foreign_shared_trash_is_not_used(sandbox, node):
    seen = in_private_mounts(sandbox, node, "foreign_trash")
    assert seen["stdout"].strip().endswith('[null,"ENOENT"]')
    assert not seen["uid_dir"] and seen["own"] == ["a"]
    # their .Trash holds no .Trash/0: trash-list has nothing else there to read
    (only,) = agreeing(seen["listed"])
    assert only.endswith("/shared/a")


@NODES
def test_a_trash_swapped_for_a_symlink_between_items_is_not_followed(sandbox, node):
    seen = in_private_mounts(sandbox, node, "swapped_between_items")
    assert seen["ready"] == "ready\n" and seen["first"] == ["a"]
    assert seen["stdout"].strip().endswith("[null,null]")
    assert seen["theirs"] == [[], []]
    assert seen["fallback"] == ["b"]
    # trash-list reads the symlinked .Trash/0 (their empty dir), safedel skips it; a sits
    # in the moved-away dir, no trash dir for either
    (only,) = agreeing(seen["listed"])
    assert only.endswith("/shared/b")


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


@NODES
def test_racing_a_foreign_shared_trash_never_exposes_an_item(sandbox, node):
    seen = in_private_mounts(sandbox, node, "race_foreign_trash")
    assert [t for t in seen["trials"] if t[3]] == [], seen["trials"]
    assert seen["own"] == sorted(f"item{n}" for n in range(20)), seen
    assert all("/.Trash-0/" in path for path in seen["found"]), seen["found"]
    assert sorted(os.path.basename(p) for p in agreeing(seen["listed"])) == seen["own"]


@pytest.fixture
def shared():
    """A world-writable sticky directory outside the sandbox, like /tmp."""
    if os.geteuid() != 0:
        pytest.skip("needs root, to play the other user")
    require("setpriv")
    path = pathlib.Path(tempfile.mkdtemp(prefix="safedel-node-", dir="/var/tmp"))
    os.chmod(path, 0o1777)
    yield path
    shutil.rmtree(path, ignore_errors=True)


RM_TREE = """
const fs = require('fs');
const [tree, how] = process.argv.slice(2);
const options = { recursive: true, force: true };
if (how === 'sync') fs.rmSync(tree, options);
else if (how === 'promise') fs.promises.rm(tree, options).catch(() => {});
else fs.rm(tree, options, () => {});
"""


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
            how = ("sync", "promise", "callback")[trial % 3]
            done = run_script(sandbox, node, RM_TREE, env=env, args=[str(theirs), how])
        finally:
            attacker.kill()
            attacker.wait()
        assert len(os.listdir(victim)) == 50, (trial, done.stderr)
        assert sandbox.trashed_names() == []
