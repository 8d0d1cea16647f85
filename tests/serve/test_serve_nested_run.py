"""A `safedel run` that a served command starts (issue #30, case 5): its refusal is the
served run's question, so the harness gets its GuardRequest (confirmRequired), and
the nested run's own clean-up (its pointers) is never judged by the served run's net.
"""

import sys

from servekit import Raw, Served

FILES = 60
# Its own session, turn and threshold: none of them counts inside a run.
NESTED = f"{sys.executable} -m safedel run --session S2 --turn T2 --threshold 99999 -- rm f*"


def make_files(sandbox):
    for n in range(FILES):
        (sandbox.work / f"f{n}").write_text(f"content {n}\n")
    return {f"f{n}": f"content {n}\n" for n in range(FILES)}


def contents(folder):
    return {p.name: p.read_text() for p in folder.iterdir()}


def test_a_nested_run_in_a_served_run_asks_the_served_harness(sandbox):
    before = make_files(sandbox)
    served = Served(sandbox)
    try:
        raw = Raw(served.path)
        raw.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)]})
        data = {"command": NESTED, "cwd": str(sandbox.work), "turn": "T"}
        started = raw.ok("r", "RunExecutable", data)
        exited = raw.exit_of(started["processId"])
        asked = [e["data"] for e in raw.of(started["processId"]) if e["command"] == "GuardRequest"]
        assert [q["kind"] for q in asked] == ["confirmRequired"], asked
        assert asked[0]["payload"]["targetCount"] == FILES
        assert exited["exitCode"] == 1 and contents(sandbox.work) == before

        reply = raw.ok("a", "ReportBlockChoice", {"choice": "allow_once"})
        assert reply["applied"] == "approve"
        started = raw.ok("r2", "RunExecutable", data)
        assert raw.exit_of(started["processId"])["exitCode"] == 0
        assert contents(sandbox.work) == {}
        trashed = {p.name: p.read_text() for p in (sandbox.trash / "files").iterdir()}
        assert trashed == before
    finally:
        assert served.stop() == 0
