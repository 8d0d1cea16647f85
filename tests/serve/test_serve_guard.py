"""The bulk guard over serve: trashing, GuardRequest, and the user's answer."""

import json
import os
import time

import pytest
from conftest import last_markers
from resultschema import valid_result
from servekit import Raw, Served

from safedel.core import private
from safedel.core.guard import turn as guardturn


@pytest.fixture
def served(sandbox):
    server = Served(sandbox)
    yield server
    assert server.stop() == 0


def _files(sandbox, prefix, count):
    for i in range(count):
        (sandbox.work / f"{prefix}{i}").write_text("x")
    return [f"{prefix}{i}" for i in range(count)]


def _rm(raw, tag, sandbox, turn, names):
    started = raw.ok(
        tag, "RunExecutable", {"argv": ["rm", *names], "cwd": str(sandbox.work), "turn": turn}
    )
    return raw.exit_of(started["processId"]), raw.of(started["processId"])


def test_rm_rf_is_trashed_and_reported(served, sandbox):
    raw = Raw(served.path)
    raw.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)]})
    (sandbox.work / "dir" / "sub").mkdir(parents=True)
    (sandbox.work / "dir" / "sub" / "f").write_text("keep me")
    started = raw.ok(
        "r", "RunExecutable", {"command": "rm -rf dir", "cwd": str(sandbox.work), "turn": "T"}
    )
    result = raw.exit_of(started["processId"])
    assert result["exitCode"] == 0 and not (sandbox.work / "dir").exists()
    valid_result(result)
    [event] = result["safeDeleteEvents"]
    assert event["operation"] == "trash" and event["path"] == str(sandbox.work / "dir")
    assert event["turn"] == "T" and event["session"] == "S" and event["run"] == result["runId"]
    assert (sandbox.trash / "files" / "dir" / "sub" / "f").read_text() == "keep me"
    assert raw.ok("s", "GetStatistics")["trashed"] == 1
    # The run's record names the turn's ledger, so its launchers need no sha256.
    record = json.loads((sandbox.state / "runs" / result["runId"] / "run.json").read_text())
    assert record["ledger"] == [private.digest("S"), private.digest("T")]


def test_51st_deletion_asks_allow_once_on_another_connection(served, sandbox):
    first, second = Raw(served.path), Raw(served.path)
    first.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)]})
    second.ok("o", "OpenSession")
    result, _ = _rm(first, "r1", sandbox, "T1", _files(sandbox, "a", 50))
    assert result["exitCode"] == 0 and len(result["trashed"]) == 50
    result, events = _rm(first, "r2", sandbox, "T1", _files(sandbox, "b", 1))
    assert result["exitCode"] != 0 and (sandbox.work / "b0").exists()
    [asked] = [e for e in events if e["command"] == "GuardRequest"]
    commands = [e["command"] for e in events if e["command"] != "ProcessOutput"]
    assert commands == ["GuardRequest", "ProcessExit"]
    assert events[-1]["command"] == "ProcessExit"
    assert asked["data"]["kind"] == "confirmRequired" and asked["data"]["turn"] == "T1"
    assert asked["data"]["payload"]["targets"] == [str(sandbox.work / "b0")]
    assert asked["data"]["payload"] == result["guard"]["payload"]
    # The harness asks its user and answers on its other connection.
    answer = second.ok(
        "c", "ReportBlockChoice", {"requestId": asked["data"]["requestId"], "choice": "allow_once"}
    )
    assert answer["applied"] == "approve" and answer["turn"] == "T1"
    result, events = _rm(first, "r3", sandbox, "T1", ["b0"])
    assert result["exitCode"] == 0 and not (sandbox.work / "b0").exists()
    assert result["guard"] is None and "GuardRequest" not in [e["command"] for e in events]
    # A question is answered once.
    assert (
        "no guard question" in second.call("c2", "ReportBlockChoice", {"choice": "deny"})["error"]
    )


def test_deny_rejects_the_turn(served, sandbox):
    raw = Raw(served.path)
    raw.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)], "threshold": 3})
    _rm(raw, "r1", sandbox, "T2", _files(sandbox, "a", 3))
    result, events = _rm(raw, "r2", sandbox, "T2", _files(sandbox, "b", 2))
    [asked] = [e for e in events if e["command"] == "GuardRequest"]
    assert asked["data"]["payload"]["threshold"] == 3
    assert raw.ok("c", "ReportBlockChoice", {"choice": "deny"})["applied"] == "reject"
    result, events = _rm(raw, "r3", sandbox, "T2", ["b1"])
    assert (sandbox.work / "b1").exists() and result["guard"]["type"] == "rejected"
    assert "GuardRequest" not in [e["command"] for e in events]
    assert "SAFE_DELETE_BULK_REJECTED" in last_markers(result["stderr"])
    assert raw.ok("s", "GetStatistics")["refused"] == 3
    # DeleteSession forgets the session's guard state: the rejected turn starts afresh.
    assert raw.ok("d", "DeleteSession")["ledgersRemoved"] >= 1
    raw.ok("o2", "OpenSession", {"workspaceRoots": [str(sandbox.work)], "threshold": 3})
    result, _ = _rm(raw, "r4", sandbox, "T2", ["b1"])
    assert result["exitCode"] == 0 and not (sandbox.work / "b1").exists()


def test_allow_session_approves_later_turns(served, sandbox):
    raw = Raw(served.path)
    raw.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)], "threshold": 2})
    _, events = _rm(raw, "r1", sandbox, "T4", _files(sandbox, "a", 3))
    assert "GuardRequest" in [e["command"] for e in events]
    raw.ok("c", "ReportBlockChoice", {"choice": "allow_session"})
    result, _ = _rm(raw, "r2", sandbox, "T5", _files(sandbox, "b", 5))
    assert result["exitCode"] == 0 and len(result["trashed"]) == 5
    assert not any(name.startswith("b") for name in os.listdir(sandbox.work))


def test_guard_approve_inside_a_served_command_refuses(served, sandbox):
    raw = Raw(served.path)
    raw.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)]})
    import sys

    argv = [sys.executable, "-m", "safedel", "guard", "approve", "--session", "S", "--turn", "T"]
    result = raw.exit_of(raw.ok("r", "RunExecutable", {"argv": argv})["processId"])
    # Under the net its filter says the command runs inside a run; without it, the
    # session's approvals are bound to the server's token.
    assert result["exitCode"] == 1
    assert "approval must come from the user" in result["stderr"] or (
        "approval token" in result["stderr"]
    )


def test_the_net_catches_a_native_rm(served, sandbox):
    """/bin/rm by its path passes the shims by; the net under a served run does not."""
    raw = Raw(served.path)
    raw.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)]})
    (sandbox.work / "native" / "sub").mkdir(parents=True)
    (sandbox.work / "native" / "sub" / "f").write_text("keep me")
    data = {"argv": ["/bin/rm", "-rf", "native"], "cwd": str(sandbox.work), "turn": "T"}
    result = raw.exit_of(raw.ok("r", "RunExecutable", data)["processId"])
    assert result["exitCode"] == 0 and not (sandbox.work / "native").exists()
    assert result["trashed"], result
    restored = [n for n in sandbox.trashed_names() if n in ("native", "f", "sub")]
    assert restored


def test_the_nets_markers_are_in_the_served_stderr(served, sandbox):
    """A refusal by the net says so in the run's own stderr, where a shim's would be."""
    raw = Raw(served.path)
    raw.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)]})
    outside = sandbox.root / "elsewhere"
    outside.mkdir()
    (outside / "kept.txt").write_text("kept")
    data = {"argv": ["/bin/rm", str(outside / "kept.txt")], "cwd": str(sandbox.work)}
    result = raw.exit_of(raw.ok("r", "RunExecutable", data)["processId"])
    assert result["exitCode"] == 1 and (outside / "kept.txt").read_text() == "kept"
    assert "SAFE_DELETE_OUTSIDE_WORKSPACE" in last_markers(result["stderr"]), result


# One deletion per line read from stdin, so the test decides when each step runs.
STEPS = 'i=0; while read -r name; do rm "$name"; echo "step $i $?"; i=$((i+1)); done'


def _until(raw, predicate):
    """Read messages until an event satisfies predicate; that event."""
    while True:
        for event in raw.events:
            if predicate(event):
                return event
        raw.read()


def _step(raw, process_id, names, last):
    raw.ok("w" + last, "ProcessWrite", {"processId": process_id, "data": "\n".join(names) + "\n"})
    _until(raw, lambda e: e["command"] == "ProcessOutput" and f"step {last} " in _out(raw))


def _out(raw):
    return "".join(
        e["data"]["data"]
        for e in raw.events
        if e["command"] == "ProcessOutput" and e["data"]["stream"] == "stdout"
    )


def test_guard_request_comes_while_the_run_waits(served, sandbox):
    """The 51st deletion of a turn, one step of a running script, is asked about at
    once: the run is still alive, and allow_once lets its later steps through."""
    raw = Raw(served.path)
    raw.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)]})
    names = _files(sandbox, "f", 60)
    data = {"command": STEPS, "shell": "bash", "cwd": str(sandbox.work), "turn": "T"}
    pid = raw.ok("r", "RunExecutable", data)["processId"]
    _step(raw, pid, names[:50], "49")
    assert "GuardRequest" not in [e["command"] for e in raw.events]
    _step(raw, pid, names[50:51], "50")
    asked = _until(raw, lambda e: e["command"] == "GuardRequest")
    assert "step 50 1" in _out(raw) and (sandbox.work / "f50").exists()
    assert asked["data"]["processId"] == pid and asked["data"]["kind"] == "confirmRequired"
    assert asked["data"]["payload"]["targets"] == [str(sandbox.work / "f50")]
    assert raw.ok("a", "ProcessIsAlive", {"processId": pid})["alive"] is True
    assert "ProcessExit" not in [e["command"] for e in raw.events]
    reply = {"requestId": asked["data"]["requestId"], "choice": "allow_once"}
    assert raw.ok("c", "ReportBlockChoice", reply)["applied"] == "approve"
    _step(raw, pid, names[50:], "60")  # f50 again, then the last nine
    raw.ok("e", "ProcessWrite", {"processId": pid, "eof": True})
    result = raw.exit_of(pid)
    assert result["exitCode"] == 0 and sorted(os.listdir(sandbox.work)) == []
    assert len(result["trashed"]) == 60 and result["guard"]["type"] == "confirmRequired"
    commands = [e["command"] for e in raw.of(pid) if e["command"] != "ProcessOutput"]
    assert commands == ["GuardRequest", "ProcessExit"]


def test_deny_while_the_run_waits_refuses_its_later_steps(served, sandbox):
    raw = Raw(served.path)
    raw.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)], "threshold": 2})
    names = _files(sandbox, "g", 4)
    data = {"command": STEPS, "shell": "bash", "cwd": str(sandbox.work), "turn": "T"}
    pid = raw.ok("r", "RunExecutable", data)["processId"]
    _step(raw, pid, names[:3], "2")
    asked = _until(raw, lambda e: e["command"] == "GuardRequest")
    assert asked["data"]["payload"]["targets"] == [str(sandbox.work / "g2")]
    assert raw.ok("a", "ProcessIsAlive", {"processId": pid})["alive"] is True
    assert raw.ok("c", "ReportBlockChoice", {"choice": "deny"})["applied"] == "reject"
    _step(raw, pid, names[3:], "3")
    raw.ok("e", "ProcessWrite", {"processId": pid, "eof": True})
    result = raw.exit_of(pid)
    assert "step 3 1" in result["stdout"] and (sandbox.work / "g3").exists()
    assert result["guard"]["type"] == "rejected"
    assert "SAFE_DELETE_BULK_REJECTED" in last_markers(result["stderr"])
    # A rejected turn is not a question: one GuardRequest, for the step that asked.
    assert [e["command"] for e in raw.of(pid)].count("GuardRequest") == 1


def test_guard_request_while_running_after_the_signal_folder_is_pruned(served, sandbox):
    """Pruning removes a session's signal folder once it has been idle for a day; a
    later run of the session is still asked about while it runs."""
    raw = Raw(served.path)
    raw.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)], "threshold": 1})
    _rm(raw, "r1", sandbox, "T", _files(sandbox, "a", 2))  # refused: the folder exists
    folder = sandbox.state / "signals" / private.digest("S")
    assert folder.is_dir()
    guardturn.prune(str(sandbox.state), now=time.time() + 3 * 86400)
    assert not folder.exists()
    names = _files(sandbox, "h", 2)
    data = {"command": STEPS, "shell": "bash", "cwd": str(sandbox.work), "turn": "T2"}
    pid = raw.ok("r", "RunExecutable", data)["processId"]
    _step(raw, pid, names, "1")
    asked = _until(raw, lambda e: e["command"] == "GuardRequest" and e["data"]["processId"] == pid)
    assert asked["data"]["payload"]["targets"] == [str(sandbox.work / "h1")]
    assert raw.ok("a", "ProcessIsAlive", {"processId": pid})["alive"] is True
    raw.ok("e", "ProcessWrite", {"processId": pid, "eof": True})
    assert raw.exit_of(pid)["guard"]["type"] == "confirmRequired"
