"""The outside-workspace question over serve: GuardRequest, allow_once for the turn,
allow_session adding the folder to the session's workspace."""

import json
import subprocess
import sys

import pytest
from servekit import Raw, Served


@pytest.fixture
def served(sandbox):
    server = Served(sandbox)
    yield server
    assert server.stop() == 0


def _rm(raw, tag, project, turn, path):
    started = raw.ok(
        "r" + tag, "RunExecutable", {"argv": ["rm", path], "cwd": str(project), "turn": turn}
    )
    return raw.exit_of(started["processId"]), raw.of(started["processId"])


@pytest.mark.parametrize("choice", ["allow_once", "allow_session"])
def test_outside_the_workspace_asks_and_the_answer_lets_it_through(served, sandbox, choice):
    project, docs = sandbox.work / "proj", sandbox.work / "docs"
    project.mkdir()
    docs.mkdir()
    for name in ("a", "b"):
        (docs / name).write_text(name)
    raw = Raw(served.path)
    raw.ok("o", "OpenSession", {"workspaceRoots": [str(project)]})
    result, events = _rm(raw, "1", project, "T1", str(docs / "a"))
    assert result["exitCode"] != 0 and (docs / "a").exists()
    [asked] = [e for e in events if e["command"] == "GuardRequest"]
    assert asked["data"]["kind"] == "outsideWorkspace"
    assert asked["data"]["payload"]["targets"] == [str(docs / "a")]
    raw.ok("c", "ReportBlockChoice", {"choice": choice})
    result, _ = _rm(raw, "2", project, "T1", str(docs / "a"))
    assert result["exitCode"] == 0 and not (docs / "a").exists()
    # A later turn: only allow_session made the folder part of the workspace.
    result, _ = _rm(raw, "3", project, "T2", str(docs / "b"))
    assert (result["exitCode"] == 0) == (choice == "allow_session")
    listed = subprocess.run(
        [sys.executable, "-m", "safedel", "workspace", "list", "--json", "--session", "S"],
        env=sandbox.base_env(),
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    )
    roots = [(r["path"], r["scope"]) for r in json.loads(listed.stdout)["roots"]]
    assert ((str(docs), "session") in roots) == (choice == "allow_session")
