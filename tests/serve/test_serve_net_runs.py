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
