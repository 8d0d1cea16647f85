"""Many runs on one server, and a server killed while it starts runs.

150 live runs hold well over 1024 descriptors: every wait and read must work with
descriptor numbers past select()'s limit, and a server started under the usual soft
limit of 1024 open files must raise it. A server killed with SIGKILL while runs are
being spawned must leave its successor a record of each of them.
"""

import os
import resource
import secrets
import signal
import socket

import psutil
from servekit import Raw, Served, wait_for

RUNS = 150
CYCLES = int(os.environ.get("CYC", 10))
CONNECTIONS = 3  # each asks for PIPELINED runs at once: at the kill some are mid-spawn
PIPELINED = 3


def _alive_run(pid):
    """True while pid is still a process that is not a zombie."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def _served_under_low_limit(sandbox):
    """A server started with the soft limit on open files at 1024."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(1024, hard), hard))
    try:
        return Served(sandbox)
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def _start_runs(raw):
    """RUNS `sleep 30` asked for at once; {processId: pid} once every one started."""
    for n in range(RUNS):
        raw.send(f"r{n}", "RunExecutable", {"argv": ["sleep", "30"]})
    pids = {}
    for n in range(RUNS):
        started = raw.ok(f"r{n}", "RunExecutable")
        pids[started["processId"]] = started["pid"]
    assert all(_alive_run(pid) for pid in pids.values())
    return pids


def _exits(raw):
    raw.drain()
    return {e["data"]["processId"] for e in raw.events if e["command"] == "ProcessExit"}


def test_150_runs_then_the_client_leaves_then_sigterm(sandbox):
    served = _served_under_low_limit(sandbox)
    try:
        raw = Raw(served.path)
        raw.ok("o", "OpenSession")
        server = psutil.Process(served.proc.pid)
        soft, hard = server.rlimit(psutil.RLIMIT_NOFILE)
        assert soft == hard  # raised to the hard limit at start
        pids = _start_runs(raw)
        assert server.num_fds() > 1024  # the case select() cannot watch
        other = Raw(served.path)
        assert other.ok("p1", "Ping") == {"pong": True}
        # The client stops sending: the server ends its runs and still reports each.
        raw.sock.shutdown(socket.SHUT_WR)
        assert other.ok("p2", "Ping") == {"pong": True}
        assert _exits(raw) == set(pids)
        assert wait_for(lambda: not any(_alive_run(pid) for pid in pids.values()))
        for pid in pids.values():  # reaped too: no defunct child of the server is left
            assert not psutil.pid_exists(pid) or psutil.Process(pid).ppid() != served.proc.pid
        assert not [c for c in server.children() if c.status() == psutil.STATUS_ZOMBIE]
        # As many again on the other connection, then SIGTERM: each ends and is reported.
        other.ok("o", "OpenSession")
        pids = _start_runs(other)
        served.proc.send_signal(signal.SIGTERM)
        assert _exits(other) == set(pids)  # read while it ends: a full socket would block it
        assert served.stop() == 0
        assert not any(_alive_run(pid) for pid in pids.values())
    finally:
        assert served.stop() == 0


def _marked(token):
    """Running `sleep` processes whose argument carries token."""
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        cmdline = proc.info["cmdline"] or []
        if proc.info["status"] == psutil.STATUS_ZOMBIE:
            continue
        if len(cmdline) == 2 and cmdline[0].endswith("sleep") and cmdline[1].endswith(token):
            found.append(proc.pid)
    return found


def test_kill_9_while_runs_start_leaves_no_survivor(sandbox):
    # Unique digits in each sleep's argument find every run, answered or not.
    token = str(secrets.randbelow(10**6)).zfill(6)
    served = Served(sandbox)
    try:
        for cycle in range(CYCLES):
            conns = [Raw(served.path) for _ in range(CONNECTIONS)]
            for c, raw in enumerate(conns):
                raw.ok("o", "OpenSession", session=f"S{c}")
            for n in range(PIPELINED):
                for c, raw in enumerate(conns):
                    argv = ["sleep", f"3{cycle}{c}{n}.{token}"]
                    raw.send(f"r{n}", "RunExecutable", {"argv": argv}, session=f"S{c}")
            conns[0].response("r0")  # one has started; others are mid-spawn
            served.proc.kill()
            served.proc.wait()
            served.proc.stderr.close()
            for raw in conns:
                raw.close()
            served = Served(sandbox)
            assert wait_for(lambda: not _marked(token), timeout=10), (cycle, _marked(token))
    finally:
        served.stop()
        for pid in _marked(token):  # never leave a sleep behind, even on failure
            os.kill(pid, 9)
