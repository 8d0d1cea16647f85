"""Conformance: the server driven over a raw socket with hand-written NDJSON lines."""

import json
import os

import pytest
from resultschema import valid_result
from servekit import Raw, Served, normalized

MIB = 1 << 20


@pytest.fixture
def served(sandbox):
    server = Served(sandbox)
    yield server
    assert server.stop() == 0
    assert not os.path.exists(server.path)  # removed on SIGTERM


def test_envelope_and_error_paths(served, sandbox):
    raw = Raw(served.path)
    reply = raw.call("m1", "Ping")
    assert reply == {
        "messageId": "m1",
        "sessionId": "S",
        "command": "Ping",
        "success": True,
        "data": {"pong": True},
    }
    # Bad JSON whose messageId can be read: an error response.
    raw.send_line(b'{"messageId":"m2","command":"Ping",')
    reply = raw.response("m2")
    assert reply["success"] is False and "JSON" in reply["error"]
    # Bad JSON without one: dropped, and the connection stays usable.
    raw.send_line(b"this is not json")
    raw.send_line(b'["an", "array"]')
    assert raw.call("m3", "Ping")["success"] is True
    assert raw.events == [] and raw.responses == {}
    # A line over 1 MiB: an error response naming the limit, then business as usual.
    big = b'{"messageId":"m4","command":"Ping","data":{"pad":"' + b"x" * (MIB + 10) + b'"}}'
    raw.send_line(big)
    reply = raw.response("m4")
    assert reply["success"] is False and str(MIB) in reply["error"]
    raw.send_line(b'{"command":"Ping","data":{"pad":"' + b"y" * (MIB + 10) + b'"}}')
    assert raw.call("m5", "Ping")["success"] is True
    assert raw.responses == {}
    # Unknown command, missing fields, a response-shaped request.
    assert "unknown command" in raw.call("m6", "Explode")["error"]
    raw.send_line(b'{"messageId":"m7","sessionId":"S"}')
    assert raw.response("m7")["error"] == "missing field: command"
    raw.send_line(b'{"messageId":"m8","command":"Ping","success":true}')
    assert raw.response("m8")["success"] is False
    # No session yet.
    assert "OpenSession" in raw.call("m9", "RunExecutable", {"argv": ["true"]})["error"]
    opened = raw.ok("m10", "OpenSession", {"workspaceRoots": [str(sandbox.work)]})
    assert opened["version"] and "capabilities" in opened
    assert raw.ok("m11", "OpenSession", {"workspaceRoots": ["/elsewhere"]}) == opened
    assert raw.call("m12", "RunExecutable", {})["error"] == "give either data.argv or data.command"
    reply = raw.call("m13", "RunExecutable", {"argv": "true"})
    assert reply["error"] == "data.argv has the wrong type"
    reply = raw.call("m14", "RunExecutable", {"argv": ["true"], "unprotected": True})
    assert "--allow-unprotected" in reply["error"]
    assert raw.call("m15", "ReportBlockChoice", {})["error"] == "missing field: data.choice"
    assert "no guard question" in raw.call("m16", "ReportBlockChoice", {"choice": "deny"})["error"]
    for number, command in enumerate(["ProcessKill", "ProcessIsAlive", "ProcessWrite"]):
        reply = raw.call(f"u{number}", command, {"processId": "p-nope"})
        assert reply["error"] == "unknown processId 'p-nope'"
    assert raw.call("m17", "ProcessKill", {})["error"] == "missing field: data.processId"
    assert raw.events == []


def test_runs_stream_write_kill_and_statistics(served, sandbox):
    raw = Raw(served.path)
    raw.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)]})
    # argv, cwd, env; the client cannot switch the shims off.
    env = {"FOO": "bar", "SAFEDEL_ACTIVE": "0", "PATH": "/usr/bin:/bin"}
    script = 'echo "$FOO $SAFEDEL_ACTIVE $(pwd)"; echo "$PATH" >&2; exit 3'
    started = raw.ok(
        "r1", "RunExecutable", {"argv": ["sh", "-c", script], "cwd": str(sandbox.work), "env": env}
    )
    result = raw.exit_of(started["processId"])
    assert result["exitCode"] == 3
    # The result object of safedel run, with the processId its schema allows.
    valid_result(result)
    assert result["stdout"] == f"bar 1 {sandbox.work}\n"
    first = result["stderr"].split(":")[0]  # the shims come first, whatever PATH said
    assert first.endswith(os.path.join(os.path.basename(sandbox.shim_home), "bin"))
    assert result["session"] == "S" and result["runId"] == started["runId"]
    events = raw.of(started["processId"])
    assert [e["command"] for e in events][-1] == "ProcessExit"
    assert all(isinstance(e["data"].get("timestamp", 0), int) for e in events)
    assert (
        "".join(e["data"]["data"] for e in events if e["data"].get("stream") == "stdout")
        == result["stdout"]
    )
    # A command string with a shell, stdin through ProcessWrite.
    cat = raw.ok("r2", "RunExecutable", {"command": "cat; echo done", "shell": "bash"})["processId"]
    assert raw.ok("w1", "ProcessWrite", {"processId": cat, "data": "héllo\n"})["written"] == 7
    raw.ok(
        "w2", "ProcessWrite", {"processId": cat, "data": "aGk=", "encoding": "base64", "eof": True}
    )
    assert raw.exit_of(cat)["stdout"] == "héllo\nhidone\n"
    assert "exited" in raw.call("w3", "ProcessWrite", {"processId": cat, "data": "x"})["error"]
    # A long command: alive, killed, then not alive.
    sleeper = raw.ok("r3", "RunExecutable", {"argv": ["sleep", "300"]})["processId"]
    assert raw.ok("a1", "ProcessIsAlive", {"processId": sleeper})["alive"] is True
    assert raw.ok("k1", "ProcessKill", {"processId": sleeper})["wasAlive"] is True
    killed = raw.exit_of(sleeper)
    assert killed["interrupted"] is True and killed["exitCode"] is None
    assert raw.ok("a2", "ProcessIsAlive", {"processId": sleeper})["alive"] is False
    # Not found, and a timeout.
    missing = raw.ok("r4", "RunExecutable", {"argv": ["no-such-command-here"]})["processId"]
    assert raw.exit_of(missing)["exitCode"] == 127
    slow = raw.ok("r5", "RunExecutable", {"argv": ["sleep", "300"], "timeoutMs": 200})["processId"]
    assert raw.exit_of(slow)["timedOut"] is True
    stats = raw.ok("s1", "GetStatistics")
    assert stats["runs"] == 5 and stats["running"] == 0 and stats["outputBytes"] > 20
    assert raw.ok("c1", "CloseSession")["killed"] == 0
    assert "OpenSession" in raw.call("s2", "GetStatistics")["error"]
    raw.ok("o2", "OpenSession")
    long = raw.ok("r6", "RunExecutable", {"argv": ["sleep", "300"]})["processId"]
    assert raw.ok("d1", "DeleteSession")["killed"] == 1
    assert raw.exit_of(long)["interrupted"] is True
    assert "OpenSession" in raw.call("d2", "DeleteSession")["error"]


def test_interleaved_runs_on_two_connections(served, sandbox):
    first, second = Raw(served.path), Raw(served.path)
    first.ok("o", "OpenSession")
    second.ok("o", "OpenSession")
    loop = 'for i in 1 2 3 4; do echo "{0}$i"; sleep 0.05; done'
    a = first.ok("ra", "RunExecutable", {"command": loop.format("a")})["processId"]
    b = second.ok("rb", "RunExecutable", {"command": loop.format("b")})["processId"]
    # Pings are answered while both stream.
    assert first.ok("p", "Ping") == {"pong": True}
    first.exit_of(a)
    second.exit_of(b)
    assert {e["data"]["processId"] for e in first.events} == {a}
    assert {e["data"]["processId"] for e in second.events} == {b}
    for raw, name in ((first, "a"), (second, "b")):
        out = normalized(raw.events)
        assert out[0] == ("ProcessOutput", "stdout", "".join(f"{name}{i}\n" for i in range(1, 5)))
        assert out[-1][0] == "ProcessExit" and len(out) == 2


def test_socket_path_rules(sandbox, tmp_path):
    import subprocess
    import sys

    def start(path):
        argv = [sys.executable, "-m", "safedel", "serve", "--socket", str(path)]
        return subprocess.run(
            argv, env=sandbox.base_env(), capture_output=True, text=True, timeout=60
        )

    plain = tmp_path / "private" / "file"
    plain.parent.mkdir(mode=0o700)
    plain.write_text("x")
    done = start(plain)
    assert done.returncode == 1 and "not a socket" in done.stderr and plain.read_text() == "x"
    open_dir = tmp_path / "open"
    open_dir.mkdir(mode=0o755)
    os.chmod(open_dir, 0o755)
    done = start(open_dir / "s.sock")
    assert done.returncode == 1 and "open to other users" in done.stderr
    served = Served(sandbox)
    try:
        assert os.stat(served.path).st_mode & 0o777 == 0o600
        assert os.stat(os.path.dirname(served.path)).st_mode & 0o777 == 0o700
        done = start(served.path)
        assert done.returncode == 1 and "already listening" in done.stderr
    finally:
        served.stop()


def test_stdio_mode_and_eof(sandbox):
    import subprocess
    import sys

    argv = [sys.executable, "-m", "safedel", "serve", "--stdio"]
    proc = subprocess.Popen(
        argv, env=sandbox.base_env(), stdin=subprocess.PIPE, stdout=subprocess.PIPE
    )
    lines = [
        {"messageId": "1", "sessionId": "S", "command": "OpenSession"},
        {
            "messageId": "2",
            "sessionId": "S",
            "command": "RunExecutable",
            "data": {"argv": ["sh", "-c", "echo $$; exec sleep 300"]},
        },
    ]
    proc.stdin.write(b"".join(json.dumps(m).encode() + b"\n" for m in lines))
    proc.stdin.flush()
    seen = [json.loads(proc.stdout.readline()) for _ in range(3)]
    assert [m["command"] for m in seen] == ["OpenSession", "RunExecutable", "ProcessOutput"]
    pid = int(seen[2]["data"]["data"])
    proc.stdin.close()  # EOF: the server ends the tree it started, then itself
    rest = [json.loads(line) for line in proc.stdout]
    assert proc.wait(60) == 0
    assert rest[-1]["command"] == "ProcessExit" and rest[-1]["data"]["interrupted"] is True
    from servekit import gone

    assert gone(pid)


def test_only_the_owner_may_connect(sandbox):
    import subprocess

    from conftest import require

    if os.getuid() != 0:
        pytest.skip("needs root to connect as another user")
    import shutil
    import tempfile

    # Outside the test's own tree, which only root may enter.
    top = tempfile.mkdtemp(prefix="safedel-serve-peer-", dir="/tmp")
    served = Served(sandbox, path=os.path.join(top, "serve", "serve.sock"))
    try:
        # Open the file modes wide: the SO_PEERCRED check alone must keep others out.
        for path in (top, os.path.dirname(served.path)):
            os.chmod(path, 0o755)
        os.chmod(served.path, 0o666)
        probe = (
            "import socket,sys\ns=socket.socket(socket.AF_UNIX)\ns.connect(sys.argv[1])\n"
            'try:\n s.sendall(b\'{"messageId":"1","command":"Ping"}\\n\')\n'
            " print(repr(s.recv(100)))\nexcept OSError: print('closed')"
        )
        done = subprocess.run(
            # The system's python: the test's own may live where nobody may read.
            [require("/usr/bin/python3"), "-c", probe, served.path],
            user=65534,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr
        assert done.stdout.strip() in ("b''", "closed")  # closed without an answer
        assert Raw(served.path).call("p", "Ping")["success"] is True
    finally:
        served.stop()
        shutil.rmtree(top, ignore_errors=True)
