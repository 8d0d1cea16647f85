"""Two served runs under the net at once: each deletion is judged for its own run."""

import pytest
from servekit import Raw, Served

STEPS = 'while read -r name; do env /bin/rm "$name"; echo "done $?"; done'


@pytest.fixture
def served(sandbox):
    server = Served(sandbox)
    yield server
    assert server.stop() == 0


def test_a_later_run_does_not_lend_its_contract_to_an_earlier_one(served, sandbox):
    first, second = sandbox.work / "first", sandbox.work / "second"
    for folder in (first, second):
        folder.mkdir()
        (folder / "f").write_text("x")
    raw = Raw(served.path)
    raw.ok("o1", "OpenSession", {"workspaceRoots": [str(first)]}, session="A")
    raw.ok("o2", "OpenSession", {"workspaceRoots": [str(second)]}, session="B")
    data = {"command": STEPS, "shell": "bash", "cwd": str(first), "turn": "TA"}
    early = raw.ok("r1", "RunExecutable", data, session="A")["processId"]
    data = {"argv": ["cat"], "cwd": str(second), "turn": "TB"}
    late = raw.ok("r2", "RunExecutable", data, session="B")["processId"]
    raw.ok("w", "ProcessWrite", {"processId": early, "data": "f\n", "eof": True}, session="A")
    result = raw.exit_of(early)
    raw.ok("e", "ProcessWrite", {"processId": late, "eof": True}, session="B")
    raw.exit_of(late)
    assert "done 0" in result["stdout"] and not (first / "f").exists(), result
    [event] = result["safeDeleteEvents"]
    assert (event["session"], event["turn"], event["run"]) == ("A", "TA", result["runId"])
    assert event["runtime"] == "net"


def test_the_nets_refusal_speaks_to_a_harness_whatever_the_servers_environment(served, sandbox):
    """The server's own environment has no SAFEDEL_HARNESS; the run's has. The net's
    supervisor judges by the run's, in its own thread, not through os.environ."""
    for name in ("a", "b"):
        (sandbox.work / name).write_text(name)
    raw = Raw(served.path)
    raw.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)], "threshold": 1})
    data = {"argv": ["env", "-i", "/bin/rm", "a", "b"], "cwd": str(sandbox.work), "turn": "T"}
    result = raw.exit_of(raw.ok("r", "RunExecutable", data)["processId"])
    [refused] = result["refused"]
    assert refused["runtime"] == "net", result
    assert "the user must approve it" in refused["reason"], refused
    assert "safedel guard approve" not in refused["reason"]
