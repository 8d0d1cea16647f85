"""A `safedel serve` started before a run refuses a client from inside that run: else a
command could open a session of its own (any threshold, any workspace) and delete past
its run's guard. The connection is closed, as for a served run's own command."""

import os
import sys

import pytest
from conftest import IN_CI
from servekit import Raw, Served

from safedel.core.contract import runpointer
from safedel.net import kernel_supports

# The command's try: open a session as a harness would. Prints what came back.
OPEN_SESSION = """
import json, socket, sys
sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
sock.settimeout(20)
sock.connect(sys.argv[1])
message = {"messageId": "o", "sessionId": "X", "command": "OpenSession",
           "data": {"workspaceRoots": ["/"], "threshold": 99999}}
try:
    sock.sendall(json.dumps(message).encode() + b"\\n")
    print("reply:", sock.recv(65536) or b"closed")
except OSError as exc:
    print("reply: closed", exc)
"""


def _require_net():
    ok, why = kernel_supports()
    if not ok:
        if IN_CI:
            pytest.fail(f"the net is required under CI=true: {why}")
        pytest.skip(why)


@pytest.mark.parametrize(
    "net, scrub",
    [
        ("on", True),  # the net's seccomp filter, whatever the environment says
        ("off", True),  # the run's pointer above it, with its environment emptied
        ("off", False),  # its pointer, and SAFEDEL_RUN_ID in its environment
    ],
)
def test_a_client_inside_a_run_cannot_open_a_session(sandbox, net, scrub):
    if net == "on":
        _require_net()
    served = Served(sandbox)
    try:
        (sandbox.root / "open.py").write_text(OPEN_SESSION)
        command = [sys.executable, "-I", str(sandbox.root / "open.py"), served.path]
        if scrub:
            command = ["/usr/bin/env", "-i", *command]
        done = sandbox.run(*command, run_options=["--net", net])
        assert done.stdout.startswith(b"reply: closed"), (done.stdout, done.stderr)
        # A client outside every run still opens its session.
        raw = Raw(served.path)
        assert raw.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)]}) is not None
        raw.close()
    finally:
        assert served.stop() == 0


# The same try through safedel.client: it must say the server closed the connection
# (waiting out its timeout instead ends in queue.Empty, not ServeError).
CLIENT = """
import sys
from safedel import client
try:
    with client.connect(sys.argv[1], "X") as conn:
        conn.open_session(workspace_roots=["/"], threshold=99999)
    print("opened")
except client.ServeError as exc:
    print("refused:", exc)
"""


def test_the_python_client_says_the_server_closed_the_connection(sandbox):
    served = Served(sandbox)
    try:
        (sandbox.root / "client.py").write_text(CLIENT)
        command = [sys.executable, str(sandbox.root / "client.py"), served.path]
        done = sandbox.run(*command, run_options=["--net", "off"])
        out = done.stdout.decode()
        assert out.startswith("refused: the server closed the connection"), (out, done.stderr)
    finally:
        assert served.stop() == 0


@pytest.mark.parametrize("net", ["on", "off"])
def test_with_the_net_off_a_command_that_removes_its_run_s_pointer_is_not_told_apart(sandbox, net):
    """The case docs/harness.md names: the server judges a peer by what it is (its
    seccomp filters, a run pointer above it), never by its environment. With the net
    off, a command that removes its run's pointer (a file of its own user, with
    /bin/rm, which the net-less run does not see) and empties its environment carries
    neither, and is let in. Under the net the same command is refused: the filter stays
    and the pointer's removal is refused too."""
    if net == "on":
        _require_net()
    served = Served(sandbox)
    try:
        (sandbox.root / "open.py").write_text(OPEN_SESSION)
        pointers = " ".join(
            os.path.join(root, *parts, "$PPID-*") for root, parts in runpointer.places()
        )
        script = (
            f"env -i /bin/rm -f {pointers}; "
            f"exec env -i {sys.executable} -I {sandbox.root / 'open.py'} {served.path}"
        )
        done = sandbox.run("sh", "-c", script, run_options=["--net", net])
        if net == "on":
            assert done.stdout.startswith(b"reply: closed"), (done.stdout, done.stderr)
        else:
            assert b'"success":true' in done.stdout, (done.stdout, done.stderr)
    finally:
        assert served.stop() == 0
