"""The fork server that starts served runs under the net: its children are the server's,
each run has its own listener, and killing it at any moment never lets a command run
without the net."""

import os
import random
import signal
import threading
import time

import pytest
from servekit import Raw, Served, gone, wait_for

from safedel.serve import forking, terminal

# Only the net can catch this deletion: no shim on PATH, no SAFEDEL_* variables.
NATIVE = 'env -i /bin/rm -f -- "$1"; echo "rm $?"'


def _children(pid):
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/children") as handle:
                found += [int(p) for p in handle.read().split()]
        except FileNotFoundError:
            continue  # a thread that ended meanwhile
    return found


def _fork_server(served):
    """The pid of the server's fork server, once it is up (or None)."""
    holder = []

    def find():
        for child in _children(served.proc.pid):
            try:
                with open(f"/proc/{child}/cmdline", "rb") as handle:
                    if b"forkserver.py" in handle.read():
                        holder.append(child)
                        return True
            except OSError:
                continue
        return False

    return holder[0] if wait_for(find) else None


def _open(served, sandbox, session="S"):
    raw = Raw(served.path)
    roots = {"workspaceRoots": [str(sandbox.work)], "threshold": 99999}
    raw.ok("o", "OpenSession", roots, session=session)
    return raw


def _native_rm(raw, sandbox, name, tag, session="S"):
    path = sandbox.work / name
    path.write_text(name)
    data = {"argv": ["sh", "-c", NATIVE, "sh", str(path)], "cwd": str(sandbox.work)}
    data["turn"] = tag
    return path, raw.ok(tag, "RunExecutable", data, session=session)["processId"]


@pytest.fixture
def served(sandbox):
    server = Served(sandbox)
    yield server
    assert server.stop() == 0


def test_a_run_is_the_servers_child_under_the_filter(served, sandbox):
    raw = _open(served, sandbox)
    helper = _fork_server(served)
    assert helper is not None
    started = raw.ok("r", "RunExecutable", {"argv": ["cat", "/proc/self/status"]})
    status = raw.exit_of(started["processId"])["stdout"]
    assert "\nSeccomp:\t2" in status and "\nNoNewPrivs:" in status
    assert f"\nPPid:\t{served.proc.pid}\n" in status  # not the fork server's
    assert helper in _children(served.proc.pid)  # and still there for the next run


def test_each_concurrent_run_has_its_own_listener(served, sandbox):
    """Runs started at once from two connections: each native deletion is judged by its
    own run's supervisor and lands in its own run's result."""
    raws = [_open(served, sandbox), _open(served, sandbox)]
    assert _fork_server(served) is not None
    started = []
    for index in range(8):
        raw = raws[index % 2]
        path, process_id = _native_rm(raw, sandbox, f"f{index}", f"r{index}")
        started.append((raw, path, process_id))
    for raw, path, process_id in started:
        result = raw.exit_of(process_id)
        assert "rm 0" in result["stdout"] and not path.exists(), result
        [event] = result["safeDeleteEvents"]
        assert event["runtime"] == "net" and event["run"] == result["runId"]
        assert event["path"] == str(path)


def test_a_fork_server_killed_at_any_moment_never_lets_a_command_run_bare(served, sandbox):
    raw = _open(served, sandbox)
    assert _fork_server(served) is not None
    stop = threading.Event()
    killed = []
    chance = random.Random(12)

    def helpers():
        """The fork server, and any child of its that has not exec'd yet."""
        found = []
        for child in _children(served.proc.pid):
            try:
                with open(f"/proc/{child}/cmdline", "rb") as handle:
                    if b"forkserver.py" in handle.read():
                        found.append(child)
            except OSError:
                continue
        return found

    def killer():
        while not stop.is_set():
            if not helpers():
                stop.wait(0.01)
                continue
            # Some time into its life: idle, mid-request, or cloning.
            if stop.wait(chance.uniform(0.0, 0.3)):
                return
            for pid in helpers():
                try:
                    os.kill(pid, signal.SIGKILL)
                    killed.append(pid)
                except OSError:
                    continue

    thread = threading.Thread(target=killer)
    thread.start()
    runs, deadline = 0, time.monotonic() + 60
    try:
        # Through several deaths and restarts (the server waits a second before each).
        while (runs < 30 or len(killed) < 3) and time.monotonic() < deadline:
            runs += 1
            index = runs
            path, process_id = _native_rm(raw, sandbox, f"k{index}", f"k{index}")
            result = raw.exit_of(process_id)
            if path.exists():  # it failed closed: the file stays
                assert result["exitCode"] != 0 or "rm 0" not in result["stdout"], result
                continue
            # Gone only by the net: trashed, in this run's result.
            [event] = result["safeDeleteEvents"]
            assert event["runtime"] == "net" and event["path"] == str(path), result
    finally:
        stop.set()
        thread.join()
    assert len(killed) >= 3  # the fork server was really killed, and started again
    assert _fork_server(served) is not None
    path, process_id = _native_rm(raw, sandbox, "after", "after")
    assert raw.exit_of(process_id)["safeDeleteEvents"][0]["runtime"] == "net"


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL])
def test_the_fork_server_never_outlives_the_server(sandbox, how):
    served = Served(sandbox)
    raw = _open(served, sandbox)
    helper = _fork_server(served)
    assert helper is not None
    served.proc.send_signal(how)
    served.proc.wait()
    served.proc.stderr.close()
    raw.close()
    assert wait_for(lambda: gone(helper))


def test_the_actions_a_child_applies():
    pipes = [(os.POSIX_SPAWN_DUP2, 7, 0), (os.POSIX_SPAWN_DUP2, 9, 1), (os.POSIX_SPAWN_DUP2, 9, 2)]
    actions, passed = forking.encode(pipes)
    assert passed == [7, 9]
    assert actions == [("dup", 0, None, 0), ("dup", 1, None, 1), ("dup", 1, None, 2)]
    # A pty: the slave opened in the child, then duplicated there, nothing passed.
    actions, passed = forking.encode(terminal.child_actions("/dev/pts/9"))
    assert passed == []
    assert actions[1:] == [("dup", None, 0, 1), ("dup", None, 0, 2)]
    assert forking.encode([(os.POSIX_SPAWN_CLOSE, 5)]) is None


def test_an_exec_that_fails_is_a_run_that_did_not_start(served, sandbox):
    raw = _open(served, sandbox)
    assert _fork_server(served) is not None
    bad = sandbox.work / "bad"
    bad.write_bytes(b"\x7fELF\x02not a program")
    bad.chmod(0o755)
    result = raw.exit_of(raw.ok("r", "RunExecutable", {"argv": [str(bad)]})["processId"])
    assert result["exitCode"] == 126, result
    assert "Exec format error" in result["stderr"], result


CAP_SYS_PTRACE = 19


def test_a_root_run_started_by_the_fork_server_has_no_cap_sys_ptrace(served, sandbox):
    """serve/seal.py: the fork server's child drops CAP_SYS_PTRACE before the exec, as
    the direct fork does, so a root command cannot open the server's descriptors."""
    if os.geteuid() != 0:
        pytest.skip("the capability is root's")
    raw = _open(served, sandbox)
    assert _fork_server(served) is not None
    data = {"argv": ["grep", "^Cap", "/proc/self/status"], "cwd": str(sandbox.work)}
    started = raw.ok("c", "RunExecutable", data)
    lines = raw.exit_of(started["processId"])["stdout"].splitlines()
    caps = dict(line.split(":\t") for line in lines)
    assert set(caps) == {"CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb"}, caps
    assert all(not int(v, 16) & (1 << CAP_SYS_PTRACE) for v in caps.values()), caps
    assert int(caps["CapEff"], 16) != 0  # still root: only that one capability went
