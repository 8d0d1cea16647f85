"""A served command cannot change its run's deletion policy through its own environment:
the served run's record fixes the workspace roots, exempt roots, outside-workspace
choice and trash, as `safedel run`'s does (tests/cli/test_run_record_policy.py)."""

import json
import os
import shlex

import pytest
from conftest import require
from servekit import Raw, Served

from safedel.core.report import markers


@pytest.fixture
def served(sandbox):
    server = Served(sandbox)
    yield server
    assert server.stop() == 0


@pytest.mark.parametrize("deleter", ["rm -f", "busybox rm -f", "python3", "node"])
def test_a_served_command_cannot_change_its_runs_policy(served, sandbox, deleter):
    require("node")
    require("busybox")
    inside, outside = sandbox.work / "in", sandbox.root / "outside" / "out"
    outside.parent.mkdir()
    for path in (inside, outside):
        path.write_text("keep me")
    if deleter == "python3":
        deleter = "python3 -c 'import os, sys; os.remove(sys.argv[1])'"
    elif deleter == "node":
        deleter = "node -e 'require(\"fs\").rmSync(process.argv[1])'"
    script = (
        f'env SAFEDEL_WORKSPACE_ROOTS= SAFEDEL_EXEMPT=/ XDG_DATA_HOME="$TMPDIR/x" '
        f"{deleter} {shlex.quote(str(inside))}; "
        f"env SAFEDEL_WORKSPACE_ROOTS=/ SAFEDEL_OUTSIDE_WORKSPACE=allow SAFEDEL_EXEMPT=/ "
        f"{deleter} {shlex.quote(str(outside))}"
    )
    raw = Raw(served.path)
    raw.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)]})
    started = raw.ok(
        "r", "RunExecutable", {"command": script, "cwd": str(sandbox.work), "turn": "T"}
    )
    result = raw.exit_of(started["processId"])
    assert not inside.exists(), result["stderr"]
    assert (sandbox.trash / "files" / "in").read_text() == "keep me"
    assert not (sandbox.tmpdir / "x").exists()
    assert outside.read_text() == "keep me", result["stderr"]
    assert result["guard"]["type"] == "outsideWorkspace"
    assert result["guard"]["payload"]["targets"] == [str(outside)]
    record = json.loads((sandbox.state / "runs" / result["runId"] / "run.json").read_text())
    assert record["workspaceRoots"] == [str(sandbox.work)]
    assert record["homeTrash"] == str(sandbox.trash)


@pytest.mark.parametrize("deleter", ["rm -f", "python3", "node"])
def test_a_served_command_that_rewrites_its_runs_files_deletes_nothing(served, sandbox, deleter):
    # The served run's record and its root's pointer are the user's files; the server's
    # keeper holds the record the run started with (core/contract/keptrecord.py).
    require("node")
    outside = sandbox.root / "outside" / "out"
    outside.parent.mkdir()
    outside.write_text("keep me")
    if deleter == "python3":
        deleter = "python3 -c 'import os, sys; os.remove(sys.argv[1])'"
    elif deleter == "node":
        deleter = "node -e 'require(\"fs\").rmSync(process.argv[1])'"
    tests = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    attack = os.path.join(tests, "recordattack.py")
    script = f"python3 {shlex.quote(attack)} widen && {deleter} {shlex.quote(str(outside))}"
    raw = Raw(served.path)
    raw.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)]})
    started = raw.ok(
        "r", "RunExecutable", {"command": script, "cwd": str(sandbox.work), "turn": "T"}
    )
    result = raw.exit_of(started["processId"])
    assert outside.read_text() == "keep me", result["stderr"]
    assert "rewrote " in result["stderr"]
    marker = f"[safe-delete][{markers.FAIL_CLOSED}] "
    reasons = [
        json.loads(line[len(marker) :])["reason"]
        for line in result["stderr"].splitlines()
        if line.startswith(marker)
    ]
    assert reasons and all("differs from the run's record" in r for r in reasons), result
