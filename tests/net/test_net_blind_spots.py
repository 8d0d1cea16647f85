"""The net's own blind spots: its state directory, a caller's credentials, a caller's
/proc/self however spelled, and a caller's root after chroot.

Each test drives real programs under `safedel run` and checks that the file named is
either in place (with the kernel's error, or EPERM and a marker) or in the trash, and
that no other file was touched.
"""

import os
import pathlib
import shutil
import subprocess
import tempfile

import pytest
from conftest import IN_CI, last_markers, require
from netkit import NOBODY, as_nobody, nobody_package, require_net, static_binary


def _require_root():
    if os.geteuid() != 0:
        if IN_CI:
            pytest.fail("CI runs as root")
        pytest.skip("needs root")


# -- the state directory ---------------------------------------------------------------


def _state_files(sandbox):
    approvals = sandbox.state / "approvals"
    approvals.mkdir()
    (approvals / "9dd4b110f4f6d872").write_text("token record")
    ledger = sandbox.state / "bulk-guard" / "37a8eec1ce19687d" / "d6174db3de0dada7.jsonl"
    ledger.parent.mkdir(parents=True)
    ledger.write_text('{"count": 3}\n')
    return approvals, ledger


@pytest.mark.parametrize(
    "remover",
    [
        "/bin/rm -rf {approvals} {ledger}",
        "busybox rm -rf {approvals} {ledger}",
        "python3 -I -c 'import os, sys; [os.remove(p) for p in sys.argv[1:]]' "
        "{approvals}/9dd4b110f4f6d872 {ledger}",
    ],
)
def test_the_state_directory_is_refused_to_any_remover(sandbox, remover):
    require_net()
    require("busybox")
    approvals, ledger = _state_files(sandbox)
    script = remover.format(approvals=approvals, ledger=ledger)
    done = sandbox.run("sh", "-c", script)
    assert done.returncode != 0, done.stderr
    assert (approvals / "9dd4b110f4f6d872").read_text() == "token record"
    assert ledger.read_text() == '{"count": 3}\n'
    marker = last_markers(done.stderr).get("SAFE_DELETE_FAIL_CLOSED")
    assert marker is not None and marker["reason"] == "safedel's own state", done.stderr
    assert sandbox.trashed_names() == []


def test_what_the_shims_delete_in_the_state_directory_is_left_to_the_kernel(sandbox):
    """A signal its reader claimed (JSON) goes; a file of data given the same kind of
    name by the same process stays, and so does anything under by-pid, which is no
    pointer folder here (test_net_bookkeeping.py has the real ones)."""
    require_net()
    signals = sandbox.state / "signals" / "37a8eec1ce19687d"
    signals.mkdir(parents=True)
    pointers = sandbox.state / "by-pid"
    pointers.mkdir()
    (pointers / "1-99").write_text("another process's pointer")
    script = (
        f"cd {signals} && echo '{{\"count\": 3}}' > .t.$$.ab.taking &&"
        f" echo precious > .u.$$.cd.taking && echo x > {pointers}/$$-42 &&"
        f" exec /bin/rm .t.$$.ab.taking .u.$$.cd.taking {pointers}/$$-42 {pointers}/1-99"
    )
    done = sandbox.run("sh", "-c", script)
    assert [p.read_text() for p in signals.iterdir()] == ["precious\n"], done.stderr
    assert sorted(os.listdir(pointers))[0] == "1-99" and len(os.listdir(pointers)) == 2
    assert done.stderr.count(b"Operation not permitted") == 3, done.stderr
    assert sandbox.trashed_names() == []


def test_a_ledger_backdated_by_the_command_is_not_a_day_old(sandbox):
    """touch sets mtime back but moves ctime to now: the ledger stays, its count holds."""
    require_net()
    _, ledger = _state_files(sandbox)
    script = f'touch -d "3 days ago" {ledger} && exec dash -c "/bin/rm {ledger}"'
    done = sandbox.run("sh", "-c", script)
    assert done.returncode != 0, done.stderr
    assert ledger.read_text() == '{"count": 3}\n'
    marker = last_markers(done.stderr).get("SAFE_DELETE_FAIL_CLOSED")
    assert marker is not None and marker["reason"] == "safedel's own state", done.stderr


def test_the_guards_pruning_is_judged_by_the_later_of_mtime_and_ctime(tmp_path, monkeypatch):
    """No test can make a ctime a day old, so the clock moves on instead: two days later
    a ledger untouched since is the pruning's; one touched since (ctime) is not."""
    from safedel.net import statefiles

    state = tmp_path / "state"
    ledger = state / "bulk-guard" / "37a8eec1ce19687d" / "d6174db3de0dada7.jsonl"
    ledger.parent.mkdir(parents=True)
    ledger.write_text("{}\n")
    real, caller = os.path.realpath(ledger), os.getpid()
    base = os.path.realpath(state) + os.sep
    assert statefiles.verdict(real, base, caller) == statefiles.REFUSE
    later = os.stat(ledger).st_ctime + 2 * 86400
    monkeypatch.setattr(statefiles.time, "time", lambda: later)
    assert statefiles.verdict(real, base, caller) == statefiles.KERNEL
    os.utime(ledger, (later, later))  # touched since: mtime fresh again
    assert statefiles.verdict(real, base, caller) == statefiles.REFUSE
    os.utime(ledger, (0, 0))  # mtime set back; ctime is the later, and it is fresh
    monkeypatch.setattr(statefiles.time, "time", lambda: os.stat(ledger).st_ctime + 3600)
    assert statefiles.verdict(real, base, caller) == statefiles.REFUSE


def test_a_rename_out_of_the_state_directory_is_refused_but_an_atomic_write_is_not(sandbox):
    require_net()
    approvals, ledger = _state_files(sandbox)
    sessions = sandbox.state / "workspace-sessions"
    sessions.mkdir()
    write = (
        "import os, sys; d = sys.argv[1]; t = f'{d}/.s.json.{os.getpid()}.tmp'; "
        "open(t, 'w').write('{}'); os.replace(t, f'{d}/s.json')"
    )
    script = (
        f'python3 -I -c "{write}" {sessions}; '
        f"/bin/mv {approvals} {sandbox.tmpdir}/aside; /bin/mv {ledger} {ledger}.old"
    )
    done = sandbox.run("sh", "-c", script)
    assert (sessions / "s.json").read_text() == "{}", done.stderr
    assert (approvals / "9dd4b110f4f6d872").read_text() == "token record", done.stderr
    assert ledger.read_text() == '{"count": 3}\n'
    assert not (sandbox.tmpdir / "aside").exists()
    assert sorted(os.listdir(ledger.parent)) == [ledger.name]
    assert done.stderr.count(b"SAFE_DELETE_FAIL_CLOSED") == 2, done.stderr


def test_a_rename_of_a_directory_above_the_state_directory_is_refused(sandbox):
    """`mv` of its parent takes the ledgers along as surely as `mv` of the state dir."""
    require_net()
    _, ledger = _state_files(sandbox)
    root = sandbox.state.parent
    (sandbox.tmpdir / "mine").mkdir()
    script = (
        f"/bin/mv {sandbox.tmpdir}/mine {sandbox.tmpdir}/moved && "
        f"cd {sandbox.work} && exec /bin/mv {root} {root}.old"
    )
    done = sandbox.run("sh", "-c", script)
    assert done.returncode != 0, done.stderr
    assert (sandbox.tmpdir / "moved").is_dir(), done.stderr
    assert ledger.read_text() == '{"count": 3}\n'
    assert not pathlib.Path(f"{root}.old").exists()
    assert b"Operation not permitted" in done.stderr, done.stderr
    marker = last_markers(done.stderr).get("SAFE_DELETE_FAIL_CLOSED")
    assert marker is not None and marker["reason"] == "safedel's own state", done.stderr


# -- a caller's own credentials ---------------------------------------------------------


def _as(uid, *argv):
    return ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", *argv]


def test_a_child_that_dropped_root_may_not_delete_what_the_kernel_refuses_it(sandbox):
    _require_root()
    require_net()
    require("setpriv")
    shared = sandbox.work / "shared"
    shared.mkdir()
    os.chmod(sandbox.work, 0o755)
    os.chmod(shared, 0o755)
    argv = _as(NOBODY, "/bin/rm", "-f", "rootfile")
    for netted in (False, True):
        (shared / "rootfile").write_text("root data")
        if netted:
            done = sandbox.run(*argv, cwd=shared)
        else:
            done = subprocess.run(argv, cwd=shared, capture_output=True, env=sandbox.base_env())
        assert done.returncode == 1, done.stderr
        assert b"Permission denied" in done.stderr, done.stderr
        assert b"SAFE_DELETE" not in done.stderr, done.stderr
        assert (shared / "rootfile").read_text() == "root data"
    assert sandbox.trashed_names() == []


def test_a_sticky_shared_directory_keeps_another_users_file(sandbox):
    _require_root()
    require_net()
    require("setpriv")
    os.chmod(sandbox.work, 0o755)
    sticky = sandbox.work / "sticky"
    sticky.mkdir()
    os.chmod(sticky, 0o1777)
    theirs, mine = sticky / "theirs.txt", sticky / "mine.txt"
    theirs.write_text("theirs")
    os.chown(theirs, 1000, 1000)
    argv = _as(NOBODY, "/bin/rm", "-f", "theirs.txt")
    plain = subprocess.run(argv, cwd=sticky, capture_output=True, env=sandbox.base_env())
    mine.write_text("mine")
    os.chown(mine, NOBODY, NOBODY)
    script = "/bin/rm -f theirs.txt; /bin/rm mine.txt"
    done = sandbox.run(*_as(NOBODY, "sh", "-c", script), cwd=sticky)
    assert plain.returncode == 1 and b"Operation not permitted" in plain.stderr
    assert b"theirs.txt': Operation not permitted" in done.stderr, done.stderr
    assert theirs.read_text() == "theirs"
    assert not mine.exists(), done.stderr
    assert sandbox.trashed_names() == ["mine.txt"]


# -- /proc/self, however spelled ---------------------------------------------------------


THREAD_C = r"""
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <unistd.h>
#include <fcntl.h>
static const char *scratch;
static void *worker(void *x) {
  (void)x;
  if (unshare(CLONE_FS) || chdir(scratch)) { perror("thread"); return 0; }
  close(open("data.txt", O_CREAT | O_WRONLY, 0600));
  printf("%d\n", unlink("/proc/self/cwd/data.txt"));
  return 0;
}
int main(int argc, char **argv) {
  scratch = argv[1]; pthread_t t;
  pthread_create(&t, 0, worker, 0); pthread_join(t, 0); return 0;
}
"""


def test_proc_self_in_a_thread_with_its_own_cwd_is_the_process(sandbox):
    """The kernel reads /proc/self as the thread group: the process's cwd (the
    workspace), not the thread's (a scratch dir in the exempt temp dir)."""
    require_net()
    gcc = require("gcc")
    source = sandbox.root / "thread.c"
    source.write_text(THREAD_C)
    program = sandbox.root / "thread"
    subprocess.run([gcc, "-pthread", "-o", str(program), str(source)], check=True)
    scratch = sandbox.tmpdir / "scratch"
    scratch.mkdir()
    (sandbox.work / "data.txt").write_text("precious")
    done = sandbox.run(str(program), str(scratch))
    assert done.stdout == b"0\n", done.stderr
    assert not (sandbox.work / "data.txt").exists()
    assert (scratch / "data.txt").exists()  # the thread's own cwd: untouched
    assert sandbox.trashed_names() == ["data.txt"]


@pytest.mark.parametrize("spelling", ["//proc/self/cwd", "/./proc/self/cwd", "/proc//self/cwd"])
def test_other_spellings_of_proc_self_are_the_callers(sandbox, spelling):
    """safedel run starts in the exempt temp dir, the caller works in the project: its
    /proc/self/cwd is the project, whatever the spelling."""
    require_net()
    start = sandbox.tmpdir / "start"
    start.mkdir()
    (start / "data.txt").write_text("decoy")
    (sandbox.work / "data.txt").write_text("precious")
    script = f"cd {sandbox.work} && /bin/rm {spelling}/data.txt"
    env = sandbox.base_env(SAFEDEL_WORKSPACE=str(sandbox.work))
    done = sandbox.run("sh", "-c", script, cwd=start, env=env)
    assert done.returncode == 0, done.stderr
    assert not (sandbox.work / "data.txt").exists()
    assert (start / "data.txt").read_text() == "decoy"
    assert sandbox.trashed_names() == ["data.txt"]


@pytest.mark.parametrize("via", ["link", "/proc/1/../self/cwd"])
def test_a_walk_through_proc_self_the_net_cannot_redo_fails_closed(sandbox, via):
    """A user's symlink to /proc/self/cwd in the temp dir, or a spelling through '..',
    cannot reach a workspace file: refused, with a marker, the file in place."""
    require_net()
    start = sandbox.tmpdir / "start"
    start.mkdir()
    (start / "data.txt").write_text("decoy")
    (sandbox.tmpdir / "link").symlink_to("/proc/self/cwd")
    (sandbox.work / "data.txt").write_text("precious")
    name = f"{sandbox.tmpdir}/link" if via == "link" else via
    script = f"cd {sandbox.work} && /bin/rm {name}/data.txt"
    env = sandbox.base_env(SAFEDEL_WORKSPACE=str(sandbox.work))
    done = sandbox.run("sh", "-c", script, cwd=start, env=env)
    assert done.returncode == 1, done.stderr
    assert b"Operation not permitted" in done.stderr, done.stderr
    assert last_markers(done.stderr).get("SAFE_DELETE_FAIL_CLOSED") is not None, done.stderr
    assert (sandbox.work / "data.txt").read_text() == "precious"
    assert (start / "data.txt").read_text() == "decoy"
    assert sandbox.trashed_names() == []


# -- a caller's own root -------------------------------------------------------------------

CHROOT_BODY = r"""
  if (chroot(argv[1]) || chdir(argv[2])) { perror("chroot"); return 1; }
  for (int i = 3; i < argc; i++) printf("%d ", unlink(argv[i]) ? errno : 0);
  return 0;
"""


def test_a_chrooted_caller_deletes_inside_its_root(sandbox):
    """After chroot(W), '/..' stays at W and an absolute symlink means W/...: the net
    must not see the real temp dir where the kernel acts in W's copy of its path."""
    _require_root()
    require_net()
    jail = sandbox.work / "jail"
    inside = jail / str(sandbox.tmpdir).lstrip("/")
    inside.mkdir(parents=True)
    (inside / "notes.txt").write_text("precious")
    (inside / "todo.txt").write_text("precious too")
    (jail / "t").symlink_to(str(sandbox.tmpdir))  # absolute: W's own copy, for the kernel
    (inside / "later.txt").write_text("precious as well")
    (jail / "sub").mkdir()
    for name in ("notes.txt", "todo.txt", "later.txt"):
        (sandbox.tmpdir / name).write_text("decoy")
    program = static_binary(sandbox.root, CHROOT_BODY)
    climb = "/.." * (len(sandbox.tmpdir.parts) + 2)
    absolute = [f"{climb}{sandbox.tmpdir}/notes.txt", "/t/todo.txt"]
    done = sandbox.run(program, str(jail), "/sub", *absolute, "../sub/../t/later.txt")
    assert done.stdout == b"0 0 0 ", done.stderr
    assert sorted(os.listdir(inside)) == [], done.stderr
    for name in ("notes.txt", "todo.txt", "later.txt"):
        assert (sandbox.tmpdir / name).read_text() == "decoy"
    assert sandbox.trashed_names() == ["later.txt", "notes.txt", "todo.txt"]


@pytest.fixture
def scratch():
    _require_root()
    require("setpriv")
    root = tempfile.mkdtemp(prefix="safedel-net-chroot-")
    os.chmod(root, 0o755)
    yield root
    shutil.rmtree(root, ignore_errors=True)


def test_a_user_chrooted_in_its_own_user_namespace_deletes_inside_its_root(scratch):
    """The same as an unprivileged user: `unshare -r`, then chroot."""
    require_net()
    unshare = require("unshare")
    nobody_package(os.path.join(scratch, "package"))
    program = static_binary(pathlib.Path(scratch), CHROOT_BODY)
    os.chmod(program, 0o755)
    temp = os.path.join(scratch, "tmp")
    jail = os.path.join(scratch, "work", "jail")
    inside = os.path.join(jail, temp.lstrip("/"))
    os.makedirs(inside)
    os.makedirs(temp, exist_ok=True)
    for where, text in ((inside, "precious"), (temp, "decoy")):
        with open(os.path.join(where, "notes.txt"), "w") as handle:
            handle.write(text)
    subprocess.run(["chown", "-R", f"{NOBODY}:{NOBODY}", scratch], check=True)
    climb = "/.." * (temp.count("/") + 2)
    script = f"{unshare} -r {program} {jail} / {climb}{temp}/notes.txt"
    status, stderr = as_nobody(scratch, "work", script, netted=True)
    assert status == 0, stderr
    assert not os.path.exists(os.path.join(inside, "notes.txt")), stderr
    with open(os.path.join(temp, "notes.txt")) as handle:
        assert handle.read() == "decoy"
    trash = os.path.join(scratch, "home", ".local", "share", "Trash", "files")
    assert os.listdir(trash) == ["notes.txt"], stderr
