"""The net with safedel's own trash and state inside the temp dir (HOME under TMPDIR,
as for arbitrary uids in containers), and with a project inside the temp dir.

A move into the trash there is a shim's move, not workspace data carried to where
deletions are left to the kernel: it goes through. What lies in the trash and the state
directory is judged by the net, whoever deletes it, and a temp directory that holds
them cannot take them along, by deletion or by rename. Plain temp files are still let
through to the kernel.
"""

import json
import os
import subprocess

import pytest
import trashlisting
from conftest import require
from keptkit import home_in_temp, tmpfs_project, trash_files
from netkit import GIT_ENV, NOBODY, nobody_package, nobody_scratch, require_net


def state_files(home):
    state = home / ".local" / "state" / "safedel"
    return sorted(str(p.relative_to(state)) for p in state.rglob("*") if p.is_file())


def home_with_a_trashed_file(sandbox):
    """home_in_temp(), after `rm a` put a workspace file in its trash (and its state
    dir has a ledger)."""
    env, home = home_in_temp(sandbox)
    (sandbox.work / "a").write_text("a")
    first = sandbox.run("rm", "a", env=env)
    assert first.returncode == 0 and trash_files(home) == ["a"], first.stderr
    return env, home


def test_the_shims_and_the_net_trash_into_a_home_in_the_temp_dir(sandbox):
    require_net()
    env, home = home_in_temp(sandbox)
    for name in ("a", "b"):
        (sandbox.work / name).write_text(name)
    done = sandbox.run("dash", "-c", "rm a && /usr/bin/rm b", env=env)
    assert done.returncode == 0, done.stderr
    assert trash_files(home) == ["a", "b"], done.stderr
    report = home / ".local" / "state" / "safedel" / "report.jsonl"
    events = [json.loads(line) for line in report.read_text().splitlines()]
    assert sorted(e["runtime"] for e in events if e["operation"] == "trash") == ["net", "rm"]
    require("trash-list")
    listed = trashlisting.agreeing(trashlisting.listings(str(sandbox.root), env=env))
    assert sorted(listed) == [str(sandbox.work / "a"), str(sandbox.work / "b")]


def test_the_net_keeps_the_trash_and_the_state_in_the_temp_dir(sandbox):
    require_net()
    busybox = require("busybox")
    env, home = home_with_a_trashed_file(sandbox)
    state_before = state_files(home)
    share = home / ".local" / "share"
    (sandbox.tmpdir / "cc").mkdir()
    (sandbox.tmpdir / "cc" / "c.o").write_text("obj")
    script = (
        f"/usr/bin/rm -rf {share}/Trash; {busybox} rm -rf {home}/.local;"
        f" /usr/bin/rm -rf {home}/.local/state/safedel;"
        f" /usr/bin/mv {share} {sandbox.tmpdir}/moved;"
        f" /usr/bin/rm -rf {sandbox.tmpdir}/moved {sandbox.tmpdir}/cc"
    )
    done = sandbox.run("dash", "-c", script, env=env)
    assert b"SAFE_DELETE_" in done.stderr
    # Nothing of the trash or the state went: the item and its info file, every state
    # file the run had (it adds its own); the plain temp directory went for real.
    assert trash_files(home) == ["a"], done.stderr
    assert (share / "Trash" / "files" / "a").read_text() == "a"
    assert (share / "Trash" / "info" / "a.trashinfo").is_file()
    assert set(state_before) <= set(state_files(home)), done.stderr
    assert not (sandbox.tmpdir / "cc").exists()
    assert not (sandbox.tmpdir / "moved").exists()


def test_temp_files_beside_a_home_in_the_temp_dir_are_left_to_the_kernel(sandbox):
    require_net()
    env, home = home_in_temp(sandbox)
    tmp = sandbox.tmpdir
    (tmp / "d").mkdir()
    for path in (tmp / "a.o", tmp / "d" / "b.o", home / "scratch.txt"):
        path.write_text("obj")
    script = f"/usr/bin/rm {tmp}/a.o {tmp}/d/b.o {home}/scratch.txt && /usr/bin/rmdir {tmp}/d"
    done = sandbox.run("dash", "-c", script, env=env)
    assert done.returncode == 0, done.stderr
    assert sorted(os.listdir(tmp)) == ["hh"]
    assert trash_files(home) == []


def test_a_temp_dir_holding_the_workspace_loses_nothing_under_the_net(sandbox):
    require_net()
    git = require("git")
    proj = sandbox.tmpdir / "x" / "proj"
    proj.mkdir(parents=True)
    subprocess.run([git, "init", "-q", str(proj)], check=True, env=sandbox.base_env(**GIT_ENV))
    (proj / "f").write_text("keep")
    # The shim: one rename, one trash item. Then /usr/bin/rm, which only the net sees.
    done = sandbox.run("rm", "-rf", str(proj.parent), cwd=proj)
    assert done.returncode == 0, done.stderr
    assert sandbox.trashed_names() == ["x"]
    assert (sandbox.trash / "files" / "x" / "proj" / "f").read_text() == "keep"
    proj.mkdir(parents=True)
    (proj / "g").write_text("keep too")
    done = sandbox.run("dash", "-c", f"/usr/bin/rm -rf {proj.parent}", cwd=proj)
    assert done.returncode == 0, done.stderr
    assert not proj.parent.exists()
    assert (sandbox.trash / "files" / "g").read_text() == "keep too", sandbox.trashed_names()


@pytest.mark.parametrize("net", ["on", "off"])
def test_uid_65534_with_its_home_in_the_temp_dir(net):
    if net == "on":
        require_net()
    with nobody_scratch("safedel-kept-") as scratch:
        nobody_package(os.path.join(scratch, "package"))
        tmp = os.path.join(scratch, "tmp")
        home, work = os.path.join(tmp, "hh"), os.path.join(scratch, "work")
        for path in (tmp, home, work):
            os.makedirs(path, exist_ok=True)
            os.chown(path, NOBODY, NOBODY)
        env = {
            "PATH": "/usr/bin:/bin",
            "SAFEDEL_CHURN_SECONDS": "0",
            "HOME": home,
            "TMPDIR": tmp,
            "SAFEDEL_PROMPT": "0",
            "PYTHONPATH": os.path.join(scratch, "package"),
        }
        argv = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
        argv += [require("/usr/bin/python3"), "-m", "safedel", "run", "-q", "--net", net, "--"]
        trash = os.path.join(home, ".local", "share", "Trash")
        # Without the net only the shims judge: `rm`, never /usr/bin/rm.
        remover = "/usr/bin/rm" if net == "on" else "rm"
        script = (
            f"echo a > a && rm a && echo b > b && {remover} b; {remover} -rf {trash};"
            f" rm -rf {trash}; echo scratch > {tmp}/s && {remover} {tmp}/s"
        )
        done = subprocess.run(
            [*argv, "/bin/dash", "-c", script],
            cwd=work,
            env=env,
            capture_output=True,
            timeout=120,
        )
        assert b"safedel's own trash or state" in done.stderr, done.stderr
        assert sorted(os.listdir(os.path.join(trash, "files"))) == ["a", "b"], done.stderr
        assert not os.path.exists(os.path.join(tmp, "s"))
        assert b"Invalid cross-device link" not in done.stderr


def test_the_net_keeps_the_trash_at_the_top_of_a_temp_dir_of_its_own(sandbox, tmpfs):
    require_net()
    env, proj, trash = tmpfs_project(sandbox, tmpfs)
    tmp = proj.parent
    (tmp / "c.o").write_text("obj")
    script = f'/usr/bin/rm f && /usr/bin/rm -rf "{trash}"; /usr/bin/rm "{tmp}/c.o"'
    done = sandbox.run("dash", "-c", script, cwd=proj, env=env)
    assert b"SAFE_DELETE_" in done.stderr, done.stderr
    assert (trash / "files" / "f").read_text() == "keep"
    assert (trash / "info" / "f.trashinfo").is_file()
    assert not (tmp / "c.o").exists()


def test_the_quick_paths_defer_to_the_full_judgement_in_a_kept_root(sandbox):
    # One file at a time, absolute and relative to the temp dir: the spellings the
    # net's fast paths take for temp files.
    require_net()
    env, home = home_with_a_trashed_file(sandbox)
    trash = home / ".local" / "share" / "Trash"
    ledger = next((home / ".local" / "state" / "safedel" / "bulk-guard").rglob("*.jsonl"))
    relative = os.path.relpath(trash / "info" / "a.trashinfo", sandbox.tmpdir)
    script = (
        f"/usr/bin/rm {trash}/files/a; /usr/bin/rm {ledger};"
        f" cd {sandbox.tmpdir} && /usr/bin/rm {relative}"
    )
    done = sandbox.run("dash", "-c", script, env=env)
    assert done.stderr.count(b"Operation not permitted") == 3, done.stderr
    assert (trash / "files" / "a").read_text() == "a"
    assert (trash / "info" / "a.trashinfo").is_file()
    assert ledger.is_file()
