"""A served run's command cannot answer its own guard question through the server's
socket: the server refuses a peer that is one of its own descendants."""

import os
import sys

from servekit import Raw, Served

from safedel.core.guard import turn as guardturn

# The command's try: connect to the socket (same uid, so SO_PEERCRED's uid check
# passes) and answer the pending question with allow_once. Prints what came back.
SELF_ANSWER = """
import json, socket, sys
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.settimeout(20)
sock.connect(sys.argv[1])
message = {"messageId": "x", "sessionId": "S", "command": "ReportBlockChoice",
           "data": {"choice": "allow_once"}}
try:
    sock.sendall(json.dumps(message).encode() + b"\\n")
    print("reply:", sock.recv(65536) or b"closed")
except OSError as exc:
    print("reply: closed", exc)
"""


def test_a_served_command_cannot_answer_its_own_guard_question(sandbox):
    served = Served(sandbox)
    try:
        (sandbox.root / "answer.py").write_text(SELF_ANSWER)
        for n in range(3):
            (sandbox.work / f"f{n}").write_text("x")
        raw = Raw(served.path)
        raw.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)], "threshold": 2})
        command = (
            f"rm f0 f1; rm f2; {sys.executable} {sandbox.root}/answer.py {served.path}; "
            "rm f2 && echo deleted"
        )
        started = raw.ok(
            "r", "RunExecutable", {"command": command, "cwd": str(sandbox.work), "turn": "T"}
        )
        result = raw.exit_of(started["processId"])
        assert "reply: closed" in result["stdout"] and "deleted" not in result["stdout"]
        assert "GuardRequest" in [e["command"] for e in raw.of(started["processId"])]
        assert (sandbox.work / "f2").exists()
        assert guardturn.status(str(sandbox.state), "S", "T").mode == "open"
        # The harness, which is no descendant of the server, still answers.
        assert raw.ok("c", "ReportBlockChoice", {"choice": "allow_once"})["applied"] == "approve"
        started = raw.ok(
            "r2", "RunExecutable", {"argv": ["rm", "f2"], "cwd": str(sandbox.work), "turn": "T"}
        )
        assert raw.exit_of(started["processId"])["exitCode"] == 0
        assert os.listdir(sandbox.work) == []
    finally:
        assert served.stop() == 0
