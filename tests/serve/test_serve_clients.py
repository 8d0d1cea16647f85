"""One scenario through three clients: hand-written NDJSON, safedel.client, and a Node
script that uses only `net`. Each process's events come in the same order."""

import json
import subprocess

import pytest
from conftest import require
from servekit import Raw, Served

from safedel import client

TALKER = 'read line; echo "got $line"; sleep 0.1; echo two >&2; sleep 0.1; echo three; exit 3'


def _plan(sandbox, name):
    folder = sandbox.work / name
    folder.mkdir()
    for item in ("x", "y"):
        (folder / item).write_text("x")
    return {
        "session": f"S-{name}",
        "open": {"workspaceRoots": [str(sandbox.work)], "threshold": 1},
        "runs": [
            {"data": {"command": TALKER}, "input": "héllo\n"},
            {"data": {"argv": ["rm", "x", "y"], "cwd": str(folder), "turn": f"T-{name}"}},
        ],
    }


def _shape(events):
    """What must be the same whatever the client: (command, stream or kind, text), with
    consecutive chunks of one stream joined (chunk boundaries depend on timing), and
    GuardRequests put just before ProcessExit: one comes as the refusal is written,
    which races the refused command's stderr through its pipe."""
    out, asked = [], []
    for event in events:
        data = event["data"]
        if event["command"] == "ProcessOutput":
            if out and out[-1][:2] == ("ProcessOutput", data["stream"]):
                out[-1] = ("ProcessOutput", data["stream"], out[-1][2] + data["data"])
            else:
                out.append(("ProcessOutput", data["stream"], data["data"]))
        elif event["command"] == "GuardRequest":
            asked.append(("GuardRequest", data["kind"], data["payload"]["targetCount"]))
        else:
            out += asked
            out.append(("ProcessExit", data["exitCode"], (data["guard"] or {}).get("type")))
    return out


def _by_raw(path, plan):
    raw = Raw(path)
    raw.ok("o", "OpenSession", plan["open"], session=plan["session"])
    shapes = []
    for number, step in enumerate(plan["runs"]):
        started = raw.ok(f"r{number}", "RunExecutable", step["data"], session=plan["session"])
        pid = started["processId"]
        if "input" in step:
            raw.ok(
                f"w{number}",
                "ProcessWrite",
                {"processId": pid, "data": step["input"], "eof": True},
                session=plan["session"],
            )
        raw.exit_of(pid)
        shapes.append(_shape(raw.of(pid)))
    raw.close()
    return shapes


def _by_client(path, plan):
    shapes = []
    with client.connect(path, plan["session"]) as conn:
        conn.open_session(workspace_roots=plan["open"]["workspaceRoots"], threshold=1)
        for step in plan["runs"]:
            data = dict(step["data"])
            run = conn.run(data.pop("argv", None), data.pop("command", None), **data)
            if "input" in step:
                run.write(step["input"], eof=True)
            shapes.append(_shape(list(run.messages(timeout=30))))
            assert (run.guard is not None) == ("GuardRequest" in [s[0] for s in shapes[-1]])
    return shapes


def _by_node(path, plan):
    node = require("node")
    here = __file__.rsplit("/", 1)[0]
    done = subprocess.run(
        [node, f"{here}/driver.cjs", path, json.dumps(plan)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    return [_shape(events) for events in found.values()]


@pytest.fixture
def served(sandbox):
    server = Served(sandbox)
    yield server
    assert server.stop() == 0


def test_the_same_events_through_every_client(served, sandbox):
    results = {}
    for name, drive in (("raw", _by_raw), ("py", _by_client), ("node", _by_node)):
        text = json.dumps(drive(served.path, _plan(sandbox, name)))
        # The refusal names its folder, session and turn: the same but for the client's name.
        for mine, common in ((f"/{name}/", "/N/"), (f"S-{name}", "S"), (f"T-{name}", "T")):
            text = text.replace(mine, common)
        results[name] = [[tuple(item) for item in shape] for shape in json.loads(text)]
    talker, guarded = results["raw"]
    assert talker == [
        ("ProcessOutput", "stdout", "got héllo\n"),
        ("ProcessOutput", "stderr", "two\n"),
        ("ProcessOutput", "stdout", "three\n"),
        ("ProcessExit", 3, None),
    ]
    assert guarded[-2:] == [
        ("GuardRequest", "confirmRequired", 2),
        ("ProcessExit", 1, "confirmRequired"),
    ]
    assert results["py"] == results["raw"] and results["node"] == results["raw"]
