"""A served run's config writes widen nothing for the session's later runs (issue #30,
case 2): OpenSession's roots stand against a `.safedel/config.local.toml` of `["/"]`,
and the session's threshold against the user config's, over the socket and stdio."""

import os
import signal
import subprocess
import sys

from configkit import LOCAL, PRECIOUS, project_with_victim, widen_user_config
from servekit import Raw, Served


class StdioRaw(Raw):
    """Raw, over a `safedel serve --stdio` process's pipes instead of a socket."""

    def __init__(self, proc):
        self.proc, self.sock = proc, self
        self.buffer, self.events, self.responses = b"", [], {}

    def recv(self, size):
        return os.read(self.proc.stdout.fileno(), size)

    def sendall(self, data):
        self.proc.stdin.write(data)
        self.proc.stdin.flush()

    def close(self):
        self.proc.stdin.close()


def attack(raw, sandbox):
    project, victim = project_with_victim(sandbox, files=60)
    raw.ok("o", "OpenSession", {"workspaceRoots": [str(project)]})

    def run(tag, turn, argv):
        data = {"argv": argv, "cwd": str(project), "turn": turn}
        started = raw.ok(tag, "RunExecutable", data)
        return raw.exit_of(started["processId"]), raw.of(started["processId"])

    wrote, _ = run("w", "T1", ["sh", "-c", f"{LOCAL} && {widen_user_config(sandbox)}"])
    assert wrote["exitCode"] == 0, wrote["stderr"]
    result, events = run("r", "T2", ["rm", str(victim)])
    assert result["exitCode"] != 0 and victim.read_bytes() == PRECIOUS
    asked = [e["data"]["kind"] for e in events if e["command"] == "GuardRequest"]
    assert asked == ["outsideWorkspace"]
    result, events = run("b", "T3", ["sh", "-c", "rm f*"])
    assert result["exitCode"] != 0 and len(list(project.glob("f*"))) == 60
    assert [e["command"] for e in events].count("GuardRequest") == 1
    assert sandbox.trashed_names() == []


def test_serve_socket_keeps_the_session_roots(sandbox):
    served = Served(sandbox)
    try:
        raw = Raw(served.path)
        attack(raw, sandbox)
        raw.close()
    finally:
        served.proc.send_signal(signal.SIGTERM)
        log = served.proc.stderr.read()
        assert served.stop() == 0
    # Said where the server's log goes: the roots are decided in the server.
    assert b"not applying workspace root '/'" in log


def test_serve_stdio_keeps_the_session_roots(sandbox):
    argv = [sys.executable, "-m", "safedel", "serve", "--stdio"]
    log = sandbox.root / "serve.log"
    with open(log, "wb") as stderr:
        proc = subprocess.Popen(
            argv,
            env=sandbox.base_env(),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr,
        )
    try:
        raw = StdioRaw(proc)
        attack(raw, sandbox)
        raw.close()
        assert proc.wait(60) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert b"not applying workspace root '/'" in log.read_bytes()
