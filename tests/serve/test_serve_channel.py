"""A served command has no way to the channel between the server and its harness
(issue #30, case 1): not through /proc/<pid>/fd, pidfd_getfd, ptrace or
/proc/<pid>/mem of the server, the fork server or the harness, not through a
descriptor it inherited, not through the socket. As root (its runs start without
CAP_SYS_PTRACE) and as uid 65534, on stdio and on a socket.

Each case is the attack as a command would make it (channel_attack.py), run by a
harness that keeps its end private as docs/harness.md says (channel_harness.py). The
harness hands the server's stdin to the server twice, once as an inheritable extra
descriptor: the mistake the server must not pass on to its runs.
"""

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time

import pytest
from conftest import IN_CI, require
from robustness import fuzzcase

from safedel.core.guard import turn as guardturn

HERE = os.path.dirname(os.path.abspath(__file__))
NOBODY = 65534
FILES = 60
CAP_SYS_PTRACE = 19
SETPRIV = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]


def _need_root():
    if os.geteuid() != 0:
        if IN_CI:
            pytest.fail("these tests need root under CI=true")
        pytest.skip("needs root, to be root and to act as uid 65534")
    require("setpriv")


@pytest.fixture(scope="module")
def package():
    """A copy of safedel and its dependencies that uid 65534 can read."""
    _need_root()
    base = tempfile.mkdtemp(prefix="safedel-channel-pkg-", dir="/var/tmp")
    os.chmod(base, 0o755)
    try:
        yield fuzzcase.readable_package(os.path.join(base, "package"))
    finally:
        shutil.rmtree(base, ignore_errors=True)


class World:
    """A shared directory (under /var/tmp, 0755) with the server's HOME, state dir,
    socket directory and a work tree of FILES files, owned by the user under test."""

    def __init__(self, base, user, package):
        self.base, self.user = base, user
        self.work = os.path.join(base, "work")
        self.state = os.path.join(base, "state")
        self.sock = os.path.join(base, "serve", "serve.sock")
        for name in ("home", "work", "tmp", "state", "serve"):
            os.mkdir(os.path.join(base, name), 0o700 if name == "serve" else 0o755)
        for n in range(FILES):
            with open(os.path.join(self.work, f"f{n}"), "w") as handle:
                handle.write(f"content {n}\n")
        shutil.copy(os.path.join(HERE, "channel_attack.py"), base)
        shutil.copy(os.path.join(HERE, "channel_harness.py"), base)
        if user == "nobody":
            for path, dirs, files in os.walk(base):
                for name in [path, *(os.path.join(path, n) for n in dirs + files)]:
                    os.lchown(name, NOBODY, NOBODY)
        self.env = fuzzcase.base_env(base)
        self.env.update(
            XDG_STATE_HOME=os.path.join(base, "home", "state"),
            XDG_DATA_HOME=os.path.join(base, "home", "data"),
            XDG_CONFIG_HOME=os.path.join(base, "home", "config"),
            XDG_CACHE_HOME=os.path.join(base, "home", "cache"),
            SAFEDEL_STATE_DIR=self.state,
        )
        if user == "nobody":
            self.env["PYTHONPATH"] = package

    def argv(self, *args):
        prefix = SETPRIV if self.user == "nobody" else []
        return [*prefix, sys.executable, *args]

    def contents(self, where=None):
        where = where or self.work
        found = {}
        for name in os.listdir(where) if os.path.isdir(where) else ():
            with open(os.path.join(where, name)) as handle:
                found[name] = handle.read()
        return found

    def trashed(self):
        return self.contents(os.path.join(self.base, "home", "data", "Trash", "files"))


@pytest.fixture(params=["root", "nobody"])
def world(request, tmp_path):
    _need_root()
    package = request.getfixturevalue("package") if request.param == "nobody" else None
    base = tempfile.mkdtemp(prefix="safedel-channel-", dir="/var/tmp")
    os.chmod(base, 0o755)
    try:
        yield World(base, request.param, package)
    finally:
        shutil.rmtree(base, ignore_errors=True)


def _serve_stdio(world):
    """Start the server on pipes and the harness on their other ends; the harness's
    output once it is done."""
    to_server_r, to_server_w = os.pipe()
    from_server_r, from_server_w = os.pipe()
    leaked = os.dup(to_server_w)  # the harness's mistake: its end, inheritable
    os.set_inheritable(leaked, True)
    server = subprocess.Popen(
        world.argv("-m", "safedel", "serve", "--stdio"),
        stdin=to_server_r,
        stdout=from_server_w,
        pass_fds=(leaked,),
        env=world.env,
        cwd=world.base,
    )
    harness = subprocess.Popen(
        world.argv(os.path.join(world.base, "channel_harness.py"), "stdio")
        + [str(from_server_r), str(to_server_w), *_tail(world)],
        pass_fds=(from_server_r, to_server_w),
        stdout=subprocess.PIPE,
        env=world.env,
        cwd=world.base,
    )
    for fd in (to_server_r, to_server_w, from_server_r, from_server_w, leaked):
        os.close(fd)
    return _finish(harness, server)


def _serve_socket(world):
    leaked_r, leaked_w = os.pipe()
    os.set_inheritable(leaked_w, True)
    server = subprocess.Popen(
        world.argv("-m", "safedel", "serve", "--socket", world.sock),
        stdout=subprocess.DEVNULL,
        pass_fds=(leaked_w,),
        env=world.env,
        cwd=world.base,
    )
    os.close(leaked_w)
    try:
        _wait_listening(world.sock, server)
        harness = subprocess.Popen(
            world.argv(os.path.join(world.base, "channel_harness.py"), "socket", world.sock)
            + _tail(world),
            stdout=subprocess.PIPE,
            env=world.env,
            cwd=world.base,
        )
        return _finish(harness, server)
    finally:
        os.set_blocking(leaked_r, False)
        try:
            assert not os.read(leaked_r, 65536), "an inherited descriptor was written"
        except BlockingIOError:
            pass
        os.close(leaked_r)


def _tail(world):
    return [world.work, os.path.join(world.base, "channel_attack.py"), require("/usr/bin/python3")]


def _wait_listening(path, server):
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert server.poll() is None, "the server ended before it listened"
        probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        try:
            probe.connect(path)
            return
        except OSError:
            time.sleep(0.05)
        finally:
            probe.close()
    raise AssertionError("the server never listened")


def _finish(harness, server):
    try:
        out, _ = harness.communicate(timeout=150)
        assert harness.returncode == 0, out
        return json.loads(out)
    finally:
        harness.kill() if harness.poll() is None else None
        server.terminate()
        server.wait(60)


def _attack_report(messages):
    exits = [m for m in messages if m.get("command") == "ProcessExit" and "success" not in m]
    assert len(exits) == 1, exits
    stdout = exits[0]["data"]["stdout"]
    found = [line for line in stdout.splitlines() if line.startswith('{"inherited"')]
    assert found, stdout
    return json.loads(found[-1]), exits[0]["data"]


def _yama_scope():
    try:
        with open("/proc/sys/kernel/yama/ptrace_scope") as handle:
            return int(handle.read())
    except OSError:
        return 0


@pytest.mark.parametrize("mode", ["stdio", "socket"])
def test_a_served_command_cannot_reach_the_server_s_channel(world, mode):
    _attacked(world, mode)


@pytest.mark.parametrize("world", ["root"], indirect=True)
def test_nor_a_root_harness_that_stayed_dumpable(world):
    """Served runs lack CAP_SYS_PTRACE, which a root harness has: the kernel keeps a
    process from one whose capabilities are not a subset of its own."""
    world.env["CHANNEL_HARNESS_DUMPABLE"] = "1"
    _attacked(world, "stdio")


def _attacked(world, mode):
    before = world.contents()
    done = _serve_stdio(world) if mode == "stdio" else _serve_socket(world)
    messages = done["messages"]
    attack, result = _attack_report(messages)

    # Nothing of the server, the fork server or the harness was reached, and the command
    # inherited no descriptor of theirs; the same tries on a decoy of its own work.
    assert attack["reached"] == [], attack
    # The one descriptor a command is meant to inherit: the run keeper's publication,
    # a memfd sealed against writes before the command starts (executor/keeper.py).
    keepers = [fd for fd in attack["inherited"] if "/memfd:safedel-keeper" in fd]
    assert [fd for fd in attack["inherited"] if fd not in keepers] == [], attack
    assert attack["targets"], attack
    assert attack["control"]["fd"] is True, attack
    if _yama_scope() <= 1:
        assert attack["control"]["pidfd"] is True and attack["control"]["ptrace"] is True
    if world.user == "root":
        for name in ("CapBnd", "CapEff", "CapPrm", "CapInh", "CapAmb"):
            assert not int(attack["caps"][name], 16) & (1 << CAP_SYS_PTRACE), attack["caps"]

    # The harness heard the server only: replies to its own requests and the run's
    # events; the forged lines stayed the run's output.
    for message in messages:
        assert "forged" not in message.get("messageId", ""), message
        if "success" in message:
            assert message["messageId"] in ("o", "r", "x"), message
        else:
            assert message["command"] in ("ProcessOutput", "ProcessExit", "GuardRequest")
    questions = [m["data"] for m in messages if m.get("command") == "GuardRequest"]
    assert questions and all(q["kind"] == "confirmRequired" for q in questions), questions
    assert not any("forged" in q for q in questions)
    assert '"forged": true' in result["stdout"]
    assert "rm=1" in result["stdout"]

    # No session of the command's own, no approval, nothing lost: what the guard let
    # through before its question (one by one under the net, where no launcher runs)
    # is in the trash, byte for byte, and the rest where it was.
    assert done["x"]["success"] is False and "no open session" in done["x"]["error"]
    assert guardturn.status(world.state, "S", "T").mode == "open"
    trashed = world.trashed()
    assert len(trashed) <= 5, sorted(trashed)
    assert {**world.contents(), **trashed} == before


PING = b'{"messageId":"p","sessionId":"S","command":"Ping"}\n'


@pytest.mark.parametrize("dropped", ["setpcap", "setpcap,-sys_ptrace"])
def test_a_root_server_starts_only_if_its_runs_can_lose_cap_sys_ptrace(sandbox, dropped):
    """Without CAP_SETPCAP a root server cannot take CAP_SYS_PTRACE from its runs: it
    does not start, and says why. Where CAP_SYS_PTRACE is gone already (Docker's
    default set), there is nothing to take, and it serves."""
    _need_root()
    argv = ["setpriv", f"--bounding-set=-{dropped}", sys.executable, "-m", "safedel", "serve"]
    done = subprocess.run(
        [*argv, "--stdio"], input=PING, env=sandbox.base_env(), capture_output=True, timeout=60
    )
    if dropped == "setpcap":
        assert done.returncode == 1 and done.stdout == b"", done
        assert b"CAP_SETPCAP" in done.stderr and b"CAP_SYS_PTRACE" in done.stderr
    else:
        assert done.returncode == 0, done.stderr
        assert json.loads(done.stdout)["data"] == {"pong": True}


def test_the_client_refuses_a_socket_another_process_put_in_the_server_s_place(sandbox):
    """A command of the same user can rename the server's socket away and listen in its
    place; a harness that names the server it started is not fooled."""
    from servekit import Served

    from safedel import client

    served = Served(sandbox)
    aside = served.path + ".aside"
    impostor = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        with client.connect(served.path, "S", server_pid=served.proc.pid) as conn:
            assert conn.ping() == {"pong": True}
        os.rename(served.path, aside)
        impostor.bind(served.path)
        impostor.listen(1)
        with pytest.raises(client.ServeError, match="is not served by process"):
            client.connect(served.path, "S", server_pid=served.proc.pid)
    finally:
        impostor.close()
        os.unlink(served.path)
        os.rename(aside, served.path)
        assert served.stop() == 0
