"""A served `bash -i` on a pseudo-terminal: input, Ctrl-C and a resize; the net on a pty."""

import pytest
from conftest import last_markers, require
from servekit import Raw, Served


@pytest.fixture
def served(sandbox):
    server = Served(sandbox)
    yield server
    assert server.stop() == 0


def _screen(raw, process_id):
    return "".join(e["data"]["data"] for e in raw.of(process_id) if e["command"] == "ProcessOutput")


def _until(raw, process_id, text):
    while text not in _screen(raw, process_id):
        try:
            raw.read()
        except TimeoutError:
            raise AssertionError(f"no {text!r} in {_screen(raw, process_id)!r}") from None


def test_bash_on_a_pty(served, sandbox):
    bash = require("bash")
    raw = Raw(served.path)
    raw.ok("o", "OpenSession")
    data = {"argv": [bash, "--norc", "-i"], "usePty": True, "cols": 100, "rows": 30}
    data["env"] = {"PS1": "$ "}
    pid = raw.ok("r", "RunExecutable", data)["processId"]

    def line(tag, text):
        raw.ok(tag, "ProcessWrite", {"processId": pid, "data": text + "\n"})

    line("w1", "stty size; tty")
    _until(raw, pid, "30 100")
    _until(raw, pid, "/dev/pts/")  # a terminal of its own
    # Ctrl-C reaches the foreground job: the sleep ends and the shell reads on.
    # The job itself says when it runs in the foreground: a Ctrl-C sent earlier would
    # reach bash between two commands instead.
    line("w2", "sh -c 'echo started-$((20+1)); exec sleep 300'")
    _until(raw, pid, "started-21")
    raw.ok("k", "ProcessSendKey", {"processId": pid, "key": "CTRL_C"})
    line("w3", "echo after-$((40+2))")
    _until(raw, pid, "after-42")
    raw.ok("z", "ProcessResize", {"processId": pid, "cols": 120, "rows": 40})
    line("w4", "stty size")
    _until(raw, pid, "40 120")
    assert (
        "unknown key" in raw.call("k2", "ProcessSendKey", {"processId": pid, "key": "F99"})["error"]
    )
    line("w5", "exit 7")
    result = raw.exit_of(pid)
    assert result["exitCode"] == 7 and "after-42" in result["stdout"]
    assert {e["data"]["stream"] for e in raw.of(pid) if e["command"] == "ProcessOutput"} == {"pty"}


def test_resize_needs_a_pty_and_ctrl_c_interrupts_without_one(served):
    raw = Raw(served.path)
    raw.ok("o", "OpenSession")
    pid = raw.ok("r", "RunExecutable", {"argv": ["sleep", "300"]})["processId"]
    reply = raw.call("z", "ProcessResize", {"processId": pid, "cols": 80, "rows": 24})
    assert "no pty" in reply["error"]
    assert (
        raw.call("z2", "ProcessResize", {"processId": pid})["error"] == "missing field: data.cols"
    )
    raw.ok("k", "ProcessSendKey", {"processId": pid, "key": "CTRL_C"})
    assert raw.exit_of(pid)["interrupted"] is True


def test_the_net_watches_a_pty_run(served, sandbox):
    """/bin/rm by its path, on a pty: the net trashes what it deletes and its refusal's
    marker shows on the terminal, where the command's own stderr goes."""
    raw = Raw(served.path)
    raw.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)]})
    (sandbox.work / "native").mkdir()
    (sandbox.work / "native" / "f").write_text("keep me")
    outside = sandbox.root / "elsewhere"
    outside.mkdir()
    (outside / "kept.txt").write_text("kept")
    script = f"/bin/rm -rf native; /bin/rm {outside / 'kept.txt'}; tty"
    data = {"argv": ["/bin/sh", "-c", script], "cwd": str(sandbox.work), "usePty": True}
    result = raw.exit_of(raw.ok("r", "RunExecutable", data)["processId"])
    assert not (sandbox.work / "native").exists() and result["trashed"], result
    assert (outside / "kept.txt").read_text() == "kept" and result["exitCode"] == 0
    assert "/dev/pts/" in result["stdout"]  # the terminal is still the command's own
    assert "SAFE_DELETE_OUTSIDE_WORKSPACE" in last_markers(result["stdout"]), result
