"""The server's end: SIGTERM, kill -9 and a successor on the same path."""

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
