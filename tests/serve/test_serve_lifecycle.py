"""The server's end: SIGTERM, kill -9 and a successor on the same path."""

import json
import os
import signal
import time

from servekit import Raw, Served, gone, wait_for

# A root that starts a grandchild of its own, both printing their pids.
TREE = "sleep 300 & echo $! $$; wait"


def _start_tree(raw, tag):
    started = raw.ok(tag, "RunExecutable", {"command": TREE})
    while True:
        out = [e for e in raw.of(started["processId"]) if e["command"] == "ProcessOutput"]
        if out:
            return [int(p) for p in out[0]["data"]["data"].split()]
        raw.read()


def test_sigterm_ends_every_tree_and_removes_the_socket(sandbox):
    served = Served(sandbox)
    raw = Raw(served.path)
    raw.ok("o", "OpenSession")
    pids = _start_tree(raw, "r1") + _start_tree(raw, "r2")
    served.proc.send_signal(signal.SIGTERM)
    assert served.stop() == 0
    raw.drain()
    assert all(gone(pid) for pid in pids)
    assert not os.path.exists(served.path)
    exits = [e for e in raw.events if e["command"] == "ProcessExit"]
    assert len(exits) == 2 and all(e["data"]["interrupted"] for e in exits)


def test_sigterm_repeated_until_it_exits_is_still_a_clean_exit(sandbox):
    """A supervisor that repeats SIGTERM while the server ends gets exit 0, not -15."""
    served = Served(sandbox)
    raw = Raw(served.path)
    raw.ok("o", "OpenSession")
    pids = _start_tree(raw, "r1")
    sent = 0
    while served.proc.poll() is None:
        served.proc.send_signal(signal.SIGTERM)
        sent += 1
        time.sleep(0.001)
    assert sent > 1  # the later ones reached a server that was already ending
    assert served.stop() == 0
    assert all(gone(pid) for pid in pids)
    assert not os.path.exists(served.path)


def test_kill_9_then_a_new_server_on_the_same_path(sandbox):
    served = Served(sandbox)
    raw = Raw(served.path)
    raw.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)], "threshold": 2})
    (sandbox.work / "a").write_text("x")
    (sandbox.work / "b").write_text("x")
    raw.exit_of(
        raw.ok(
            "r0", "RunExecutable", {"argv": ["rm", "a", "b"], "cwd": str(sandbox.work), "turn": "T"}
        )["processId"]
    )
    pids = _start_tree(raw, "r1")
    served.proc.kill()
    served.proc.wait()
    served.proc.stderr.close()
    assert os.path.exists(served.path)  # a stale socket is left behind
    successor = Served(sandbox)  # takes the stale socket over
    try:
        # The next server ends what the dead one left running.
        assert wait_for(lambda: all(gone(pid) for pid in pids))
        raw = Raw(successor.path)
        raw.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)], "threshold": 2})
        # Guard state is on disk: the turn's count carries over.
        (sandbox.work / "c").write_text("x")
        started = raw.ok(
            "r", "RunExecutable", {"argv": ["rm", "c"], "cwd": str(sandbox.work), "turn": "T"}
        )
        result = raw.exit_of(started["processId"])
        assert result["guard"]["type"] == "confirmRequired" and (sandbox.work / "c").exists()
    finally:
        assert successor.stop() == 0


def test_closing_the_connection_ends_its_runs(sandbox):
    served = Served(sandbox)
    try:
        raw = Raw(served.path)
        raw.ok("o", "OpenSession")
        pids = _start_tree(raw, "r")
        raw.close()
        assert wait_for(lambda: all(gone(pid) for pid in pids))
        assert Raw(served.path).ok("p", "Ping") == {"pong": True}
    finally:
        served.stop()


def test_a_second_server_in_the_same_directory_leaves_the_first_ones_runs(sandbox):
    """Both keep their journals in the directory's procs/: the second starts while the
    first is alive, so what the first runs is not a dead server's leftover."""
    first = Served(sandbox, sandbox.root / "serve" / "first.sock")
    second = None
    try:
        raw = Raw(first.path)
        raw.ok("o", "OpenSession")
        pids = _start_tree(raw, "r")
        second = Served(sandbox, sandbox.root / "serve" / "second.sock")
        assert Raw(second.path).ok("p", "Ping") == {"pong": True}
        assert not any(gone(pid) for pid in pids)
        assert raw.ok("a", "ProcessIsAlive", _pid_of(raw))["alive"] is True
    finally:
        if second is not None:
            assert second.stop() == 0
        assert first.stop() == 0
    assert all(gone(pid) for pid in pids)


def _pid_of(raw):
    [started] = [e for e in raw.events if e["command"] == "ProcessOutput"][:1]
    return {"processId": started["data"]["processId"]}


def test_each_run_has_its_own_directory_and_none_is_left_unused(sandbox):
    """Run directories are made ahead of the runs; the server removes the one it had
    ready when it ends, so the state dir holds the runs that ran, each complete."""
    served = Served(sandbox)
    raw = Raw(served.path)
    raw.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)]})
    ids = []
    for number in range(3):
        data = {"argv": ["sh", "-c", f"echo out{number}; echo err{number} >&2"]}
        result = raw.exit_of(raw.ok(f"r{number}", "RunExecutable", data)["processId"])
        assert (result["stdout"], result["stderr"]) == (f"out{number}\n", f"err{number}\n")
        run_dir = sandbox.state / "runs" / result["runId"]
        assert result["outputFiles"] == {s: str(run_dir / s) for s in ("stdout", "stderr")}
        record = json.loads((run_dir / "run.json").read_text())
        assert (record["session"], record["stateDir"]) == ("S", str(sandbox.state))
        ids.append(result["runId"])
    assert len(set(ids)) == 3
    assert served.stop() == 0
    made = sorted(n for n in os.listdir(sandbox.state / "runs") if n.startswith("r-"))
    assert made == sorted(ids)
