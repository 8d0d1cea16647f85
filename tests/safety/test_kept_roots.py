"""What lies inside the temp dir but must not be deleted for real: a project used as the
workspace, and safedel's own trash and state when HOME is under the temp dir (HOME=/tmp
for arbitrary uids in containers). The shims alone (`--net off`, as on macOS): rm,
Python and Node.
"""

import json
import os
import subprocess

import pytest
import trashlisting
from conftest import require
from keptkit import home_in_temp, tmpfs_project, trash_files

# The same deletion in each runtime's shim: argv, given the path.
REMOVERS = {
    "rm": lambda path: ["rm", "-rf", path],
    "python": lambda path: ["python3", "-c", f"import shutil; shutil.rmtree({path!r})"],
    "node": lambda path: [
        "node",
        "-e",
        f"require('fs').rmSync({json.dumps(path)}, {{ recursive: true }})",
    ],
}


def ledgers(home):
    guard = home / ".local" / "state" / "safedel" / "bulk-guard"
    return sorted(str(p.relative_to(guard)) for p in guard.rglob("*.jsonl"))


def temp_project(sandbox):
    """tmpdir/x/proj, a git work tree holding f: the workspace of a run started there."""
    git = require("git")
    proj = sandbox.tmpdir / "x" / "proj"
    proj.mkdir(parents=True)
    subprocess.run([git, "init", "-q", str(proj)], check=True, env=sandbox.base_env())
    (proj / "f").write_text("keep")
    return proj


@pytest.mark.parametrize("runtime", sorted(REMOVERS))
def test_a_temp_dir_holding_the_workspace_is_trashed_whole(sandbox, runtime):
    if runtime == "node":
        require("node")
    proj = temp_project(sandbox)
    scratch = sandbox.tmpdir / "scratch"
    (scratch / "d").mkdir(parents=True)
    (scratch / "d" / "a.o").write_text("obj")
    command = REMOVERS[runtime]
    argv = ["sh", "-c", '"$@" && rm -rf "$SCRATCH"', "sh", *command(str(proj.parent))]
    done = sandbox.run(
        *argv, cwd=proj, run_options=["--net", "off"], env=sandbox.base_env(SCRATCH=scratch)
    )
    assert done.returncode == 0, done.stderr
    # The directory holding the project went to the trash in one piece, and counted;
    # a plain temp directory beside it is still deleted for real.
    assert not proj.parent.exists() and not scratch.exists()
    assert sandbox.trashed_names() == ["x"], done.stderr
    assert (sandbox.trash / "files" / "x" / "proj" / "f").read_text() == "keep"
    trashed = [e for e in sandbox.report() if e["operation"] == "trash"]
    assert [e["path"] for e in trashed] == [os.path.realpath(proj.parent)], trashed
    assert trashed[0].get("counted", True), trashed
    assert b"SAFE_DELETE_OUTSIDE_WORKSPACE" not in done.stderr


def test_a_workspace_file_in_the_temp_dir_is_still_trashed(sandbox):
    proj = temp_project(sandbox)
    done = sandbox.run("rm", "f", cwd=proj, run_options=["--net", "off"])
    assert done.returncode == 0, done.stderr
    assert sandbox.trashed_names() == ["f"]


def test_home_in_the_temp_dir_trashes_into_its_own_trash(sandbox):
    env, home = home_in_temp(sandbox)
    (sandbox.work / "a").write_text("a")
    done = sandbox.run("rm", "a", env=env, run_options=["--net", "off"])
    assert done.returncode == 0, done.stderr
    assert trash_files(home) == ["a"]
    require("trash-list")
    listed = trashlisting.listings(str(sandbox.root), env=env)
    assert list(trashlisting.agreeing(listed)) == [str(sandbox.work / "a")], listed


@pytest.mark.parametrize("runtime", sorted(REMOVERS))
def test_home_in_the_temp_dir_keeps_its_trash_and_state(sandbox, runtime):
    if runtime == "node":
        require("node")
    env, home = home_in_temp(sandbox)
    (sandbox.work / "a").write_text("a")
    first = sandbox.run("rm", "a", env=env, run_options=["--net", "off"])
    assert first.returncode == 0 and trash_files(home) == ["a"], first.stderr
    kept = ledgers(home)
    assert kept, "the run left no guard ledger"
    share, state = home / ".local" / "share", home / ".local" / "state" / "safedel"
    (sandbox.tmpdir / "cc").mkdir()
    (sandbox.tmpdir / "cc" / "c.o").write_text("obj")
    for path in (share / "Trash", share / "Trash" / "files", home / ".local", state):
        done = sandbox.run(*REMOVERS[runtime](str(path)), env=env, run_options=["--net", "off"])
        assert done.returncode != 0, (path, done.stderr)
        assert b"SAFE_DELETE_" in done.stderr, (path, done.stderr)
        assert trash_files(home) == ["a"], (path, done.stderr)
        assert ledgers(home)[: len(kept)] == kept, (path, done.stderr)
    # The trash dir itself and what holds a kept root are refused by name; the temp
    # dir's plain files are still deleted for real, and nothing else went to the trash.
    refused = sandbox.run(
        *REMOVERS[runtime](str(share / "Trash")), env=env, run_options=["--net", "off"]
    )
    assert b"safedel's own trash or state" in refused.stderr, refused.stderr
    done = sandbox.run(
        *REMOVERS[runtime](str(sandbox.tmpdir / "cc")), env=env, run_options=["--net", "off"]
    )
    assert done.returncode == 0, done.stderr
    assert not (sandbox.tmpdir / "cc").exists()
    assert trash_files(home) == ["a"]
    assert (share / "Trash" / "files" / "a").read_text() == "a"


def test_every_temp_entry_at_once_leaves_the_trash(sandbox):
    # `rm -rf $TMPDIR/*`: the home is refused (it is HOME), scratch goes for real.
    env, home = home_in_temp(sandbox)
    (sandbox.work / "a").write_text("a")
    (sandbox.tmpdir / "scratch.txt").write_text("s")
    script = 'rm a; rm -rf "$TMPDIR"/*'
    done = sandbox.run("sh", "-c", script, env=env, run_options=["--net", "off"])
    assert done.returncode != 0, done.stderr
    assert not (sandbox.tmpdir / "scratch.txt").exists()
    assert trash_files(home) == ["a"], done.stderr
    assert ledgers(home), done.stderr


def test_the_trash_at_the_top_of_a_temp_dir_of_its_own_is_kept(sandbox, tmpfs):
    env, proj, trash = tmpfs_project(sandbox, tmpfs)
    done = sandbox.run("rm", "f", cwd=proj, env=env, run_options=["--net", "off"])
    assert done.returncode == 0, done.stderr
    assert os.listdir(trash / "files") == ["f"], done.stderr
    node = "require('fs').rmSync(process.argv[1], { recursive: true })"
    script = f'rm -rf "{trash}"; rm -rf "{trash}/files/f"; node -e "$JS" "{trash}"'
    env["JS"] = node
    require("node")
    done = sandbox.run("sh", "-c", script, cwd=proj, env=env, run_options=["--net", "off"])
    assert b"rmSync" in done.stderr or b"EPERM" in done.stderr, done.stderr
    assert b"SAFE_DELETE_" in done.stderr, done.stderr
    assert (trash / "files" / "f").read_text() == "keep"
    assert (trash / "info" / "f.trashinfo").is_file()
