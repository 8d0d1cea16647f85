"""The net fails closed, leaves the kernel the deletions that are not ours to judge,
and refuses with the errno a program understands."""

import os
import signal
import subprocess
import sys
import time

import pytest
from conftest import last_markers, require
from netkit import GIT_ENV, make_tree, require_net, static_binary


def test_killing_the_supervisor_makes_deletions_fail(sandbox):
    require_net()
    victim = sandbox.work / "victim.txt"
    victim.write_text("keep me")
    script = "echo ready; read line; /usr/bin/rm victim.txt; echo rc=$?"
    argv = [sys.executable, "-m", "safedel", "run", "--", "dash", "-c", script]
    proc = subprocess.Popen(
        argv,
        cwd=sandbox.work,
        env=sandbox.base_env(),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert proc.stdout.readline() == b"ready\n"
    proc.kill()  # SIGKILL to safedel run, and with it the supervisor thread
    proc.wait(timeout=30)
    proc.stdin.write(b"go\n")
    proc.stdin.close()  # the orphaned dash still holds these pipes
    output = proc.stdout.read()
    errors = proc.stderr.read()
    assert output == b"rc=1\n", (output, errors)
    assert b"Function not implemented" in errors
    assert victim.read_text() == "keep me"
    assert proc.returncode == -signal.SIGKILL


def test_a_process_left_running_renames_but_cannot_delete_unjudged(sandbox):
    """After the run, nobody judges deletions: a raw unlink fails, and so does a shim's
    (no keeper holds the turn any more: it fails closed); renames are judged as before
    (an atomic save goes on, a move to the temp dir gets EXDEV); what answers the
    listener ends with the tree."""
    require_net()
    (sandbox.work / "victim.txt").write_text("keep me")
    (sandbox.work / "old.txt").write_text("old")
    left = (
        "read line < fifo; echo new > f.tmp; mv f.tmp saved.txt; echo mv=$? > rc;"
        " /bin/rm victim.txt; echo rm=$? >> rc; rm old.txt; echo shim=$? >> rc;"
        f" mv kept.txt {sandbox.tmpdir}/k; echo out=$? >> rc"
    )
    (sandbox.work / "kept.txt").write_text("kept")
    os.mkfifo(sandbox.work / "fifo")
    before = set(_afterlives())  # another test's background process may keep its own
    script = f"({left}) > /dev/null 2>&1 &"
    done = sandbox.run("dash", "-c", script, run_options=["--net", "on"])
    assert done.returncode == 0, done.stderr
    assert set(_afterlives()) - before, "nothing answers the listener after the run"
    with open(sandbox.work / "fifo", "w") as fifo:  # the run is over: now go
        fifo.write("go\n")
    deadline = time.monotonic() + 60
    while not _complete(sandbox.work / "rc") and time.monotonic() < deadline:
        time.sleep(0.05)
    # Carried out to the temp dir: EXDEV, mv copies, and the source's unlink fails.
    assert (sandbox.work / "rc").read_text().split() == ["mv=0", "rm=1", "shim=1", "out=1"]
    assert (sandbox.work / "kept.txt").read_text() == "kept"
    assert (sandbox.work / "saved.txt").read_text() == "new\n"
    assert (sandbox.work / "victim.txt").read_text() == "keep me"
    assert (sandbox.work / "old.txt").read_text() == "old"
    assert sandbox.trashed_names() == []
    assert _gone_in_time(lambda: set(_afterlives()) - before)


def _complete(rc):
    return rc.exists() and len(rc.read_text().split()) == 4


def _afterlives():
    found = subprocess.run(["pgrep", "-f", "safedel/net/afterlife.py"], capture_output=True)
    return found.stdout.split()


def _gone_in_time(find):
    deadline = time.monotonic() + 30
    while find() and time.monotonic() < deadline:
        time.sleep(0.05)
    return not find()


def test_exempt_temp_files_are_deleted_by_the_kernel(sandbox):
    require_net()
    scratch = sandbox.tmpdir / "cc-scratch"
    scratch.mkdir()
    for index in range(5):
        (scratch / f"cc{index}.o").write_text("obj")
    result = sandbox.run("dash", "-c", f"/bin/rm -r {scratch}")
    assert result.returncode == 0, result.stderr
    assert not scratch.exists()
    assert sandbox.trashed_names() == [] and sandbox.report() == []


def test_the_temp_root_is_known_wherever_the_kernel_finds_it(sandbox):
    """A file straight inside the temp root is left to the kernel whether it is named
    absolutely, from inside the root or through a symlink to it; once the root itself
    was moved into the work tree, what it holds is judged where it is now: trashed."""
    require_net()
    root = sandbox.tmpdir
    for name in ("abs.o", "rel.o", "via-link.o", "kept.txt"):
        (root / name).write_text(name)
    (sandbox.work / "tmp-link").symlink_to(root)
    moved = sandbox.work / "moved-tmp"
    script = (
        f"/bin/rm {root}/abs.o && cd {root} && /bin/rm rel.o && cd {sandbox.work}"
        f" && /bin/rm tmp-link/via-link.o && mv {root} {moved} && /bin/rm {moved}/kept.txt"
    )
    result = sandbox.run("dash", "-c", script)
    assert result.returncode == 0, result.stderr
    assert os.listdir(moved) == []
    assert sandbox.trashed_names() == ["kept.txt"]
    assert [event["path"] for event in sandbox.report()] == [str(moved / "kept.txt")]


def _git(sandbox, *args):
    return sandbox.run("git", *args, env=sandbox.base_env(**GIT_ENV))


def test_git_and_sed_put_nothing_in_the_trash(sandbox):
    require_net()
    assert _git(sandbox, "init", "-q").returncode == 0
    for index in range(30):
        (sandbox.work / f"f{index}.txt").write_text(f"line {index}\n")
    assert _git(sandbox, "add", ".").returncode == 0
    assert _git(sandbox, "commit", "-q", "-m", "one").returncode == 0
    (sandbox.work / "f1.txt").write_text("changed\n")
    assert _git(sandbox, "commit", "-q", "-am", "two").returncode == 0
    done = _git(sandbox, "gc", "-q", "--prune=now")
    assert done.returncode == 0, done.stderr
    done = sandbox.run(require("sed"), "-i", "s/line/LINE/", "f2.txt")
    assert done.returncode == 0, done.stderr
    assert (sandbox.work / "f2.txt").read_text() == "LINE 2\n"
    assert sandbox.trashed_names() == []
    assert [e for e in sandbox.report() if e["operation"] == "trash"] == []


def test_a_rebuild_in_an_ignored_tree_trashes_nothing_but_env_is_kept(sandbox):
    require_net()
    make = require("make")
    require("gcc")
    work = sandbox.work
    assert _git(sandbox, "init", "-q").returncode == 0
    (work / ".gitignore").write_text("build/\n.env\n")
    (work / "hello.c").write_text('#include <stdio.h>\nint main(void){puts("hi");return 0;}\n')
    (work / "Makefile").write_text(
        "build/hello: build/hello.o\n\tgcc -o $@ $<\n"
        "build/hello.o: hello.c\n\tmkdir -p build\n\tgcc -c -o $@ $<\n"
    )
    (work / ".env").write_text("SECRET=1\n")
    for round_ in range(3):
        (work / "hello.c").touch()
        os.utime(work / "hello.c", (1_700_000_000 + round_, 1_700_000_000 + round_))
        done = sandbox.run(make, "-s", "-B")
        assert done.returncode == 0, done.stderr
    assert subprocess.run([str(work / "build" / "hello")], capture_output=True).stdout == b"hi\n"
    assert sandbox.trashed_names() == []
    program = static_binary(sandbox.root, 'return unlink(".env") == 0 ? 0 : 1;')
    done = sandbox.run(program)
    assert done.returncode == 0, done.stderr
    assert not (work / ".env").exists()
    assert sandbox.trashed_names() == [".env"]


def test_guard_refusal_answers_eperm(sandbox):
    require_net()
    for name in ("a", "b", "c"):
        (sandbox.work / name).write_text(name)
    script = "for f in a b c; do /bin/rm $f || echo failed $f; done"
    result = sandbox.run("dash", "-c", script, run_options=["--threshold", "2"])
    assert result.stdout == b"failed c\n"
    assert b"/bin/rm: cannot remove 'c': Operation not permitted" in result.stderr
    assert "SAFE_DELETE_BULK_CONFIRM_REQUIRED" in last_markers(result.stderr)
    assert (sandbox.work / "c").read_text() == "c"
    assert sorted(sandbox.trashed_names()) == ["a", "b"]


def test_io_uring_is_refused_and_foreign_abis_are_killed(sandbox):
    require_net()
    probe = (
        "import ctypes, sys; libc = ctypes.CDLL(None, use_errno=True);"
        " params = ctypes.create_string_buffer(120);"
        " r = libc.syscall(425, 4, params); print(r, ctypes.get_errno()); sys.stdout.flush();"
        " libc.syscall(0x40000000 | 87, b'/nonexistent')"
    )
    result = sandbox.run(sys.executable, "-c", probe)
    assert result.stdout == b"-1 38\n"
    assert result.returncode == 128 + signal.SIGSYS


def test_a_nested_run_is_covered_by_the_outer_net(sandbox):
    require_net()
    tree = make_tree(sandbox.work)
    inner = [sys.executable, "-m", "safedel", "run", "-q", "--", "dash", "-c", "/bin/rm -r d"]
    result = sandbox.run(*inner)
    assert result.returncode == 0, result.stderr
    assert b"warning" not in result.stderr
    assert not tree.exists() and "d" in sandbox.trashed_names()


def test_sudo_still_works_under_the_net_as_root(sandbox):
    """Root installs the filter without no_new_privs, so setuid programs keep working;
    what sudo's real rm deletes still reaches the net."""
    require_net()
    if os.geteuid() != 0:
        pytest.skip("as a user, no_new_privs stops sudo from gaining root (docs/net.md says so)")
    sudo = require("sudo")
    tree = make_tree(sandbox.work)
    result = sandbox.run(sudo, "-n", "rm", "-rf", "d")
    assert result.returncode == 0, result.stderr
    assert not tree.exists() and "d" in sandbox.trashed_names()


def test_a_branch_switch_leaves_git_its_own_files_but_git_clean_trashes(sandbox):
    """git may delete what it can give back; what only the work tree holds is trashed."""
    require_net()
    work = sandbox.work
    assert _git(sandbox, "init", "-q", "-b", "main").returncode == 0
    (work / "a").write_text("a\n")
    assert _git(sandbox, "add", "a").returncode == 0
    assert _git(sandbox, "commit", "-q", "-m", "a").returncode == 0
    assert _git(sandbox, "checkout", "-q", "-b", "wide").returncode == 0
    (work / "many").mkdir()
    for index in range(60):  # more than the guard's threshold
        (work / "many" / f"f{index}").write_text(f"{index}\n")
    assert _git(sandbox, "add", ".").returncode == 0
    assert _git(sandbox, "commit", "-q", "-m", "wide").returncode == 0
    done = _git(sandbox, "checkout", "-q", "main")
    assert done.returncode == 0, done.stderr
    assert not (work / "many").exists()
    assert sandbox.trashed_names() == []
    (work / "notes.txt").write_text("only here\n")
    done = sandbox.run("dash", "-c", "/usr/bin/git clean -q -f", env=sandbox.base_env(**GIT_ENV))
    assert done.returncode == 0, done.stderr
    assert sandbox.trashed_names() == ["notes.txt"]


def test_emptying_the_trash_under_the_net_is_judged(sandbox):
    """trash-put renames; trash-empty deletes for real what the trash holds, which the
    net judges like any deletion: outside the workspace it is refused, and the item
    keeps its info file, so trash-list still shows it. (PYTHONPATH is dropped so that
    only the net, not the Python shim, sees trash-empty's deletions.)"""
    require_net()
    put, empty = require("trash-put"), require("trash-empty")
    listing = require("trash-list")
    (sandbox.work / "old.txt").write_text("old")
    assert sandbox.run(put, "old.txt").returncode == 0
    assert sandbox.trashed_names() == ["old.txt"]
    done = sandbox.run("env", "-u", "PYTHONPATH", empty)
    assert b"SAFE_DELETE_OUTSIDE_WORKSPACE" in done.stderr, done.stderr
    assert sandbox.trashed_names() == ["old.txt"]
    assert (sandbox.trash / "files" / "old.txt").read_text() == "old"
    listed = subprocess.run([listing], env=sandbox.base_env(), capture_output=True)
    assert str(sandbox.work / "old.txt").encode() in listed.stdout, listed


def test_the_net_judges_with_the_runs_own_workspace(sandbox):
    """--workspace reaches the supervisor too, even when safedel starts elsewhere."""
    require_net()
    tree = make_tree(sandbox.work)
    outside = sandbox.root / "elsewhere"
    outside.mkdir()
    (outside / "kept.txt").write_text("kept")
    script = f"/bin/rm -r {tree}; /bin/rm {outside / 'kept.txt'} || echo refused"
    result = sandbox.run(
        "dash", "-c", script, cwd=outside, run_options=["--workspace", str(sandbox.work)]
    )
    assert not tree.exists() and "d" in sandbox.trashed_names(), result.stderr
    assert result.stdout == b"refused\n"
    assert (outside / "kept.txt").read_text() == "kept"
    assert "SAFE_DELETE_OUTSIDE_WORKSPACE" in last_markers(result.stderr)
