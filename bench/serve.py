"""`safedel serve`: a warm server's round trip for `true`, and Ping under load.

The round trip is RunExecutable sent to ProcessExit read, on one raw socket, against
`safedel run -- true` and bare `true` spawned in the same rounds, and against a second
server whose config switches the net off (its fork and supervisor are most of the
cost). The same round trips are counted in CPU time too (the server's own, that of the
children it reaped and that of its fork server, in batches of BATCH, since /proc counts
in clock ticks), which a shared machine's load does not inflate. Ping is timed while
8 served commands stream a line every 10 ms to another connection that reads them;
each round gives the p99 of its pings, and the row's median is over rounds.
"""

import json
import os
import socket
import statistics
import subprocess
import threading
import time

from . import rows
from .harness import Sandbox, WorkloadError, interleave, timed_spawn, tool
from .startup import safedel_command

SERVED = "serve: RunExecutable true → ProcessExit"
SERVED_NO_NET = "serve: the same, net = false in the config"
RUN = "safedel run -- true"
TRUE = "bare true"
PING = "serve: Ping p99 (per round), 8 commands streaming"
SERVED_CPU = "serve: RunExecutable true, CPU time (server and its children)"
SERVED_NO_NET_CPU = "serve: the same, net = false: CPU time"
BATCH = 40
STREAMERS = 8
PINGS = 200
STREAM = "while :; do echo 'a line of build output, as a compiler prints it'; sleep 0.01; done"


def row_list():
    workload = "safedel serve"
    return [
        rows.Row(workload, SERVED, "per run", rows.absolute(0.005, " median")),
        rows.Row(workload, SERVED_NO_NET, "per run", anchor_of=SERVED),
        rows.Row(workload, RUN, "per run", anchor_of=SERVED),
        rows.Row(workload, TRUE, "per run", anchor_of=SERVED),
        rows.Row(workload, PING, "per round", rows.absolute(0.002)),
        rows.Row(workload, SERVED_CPU, "per run"),
        rows.Row(workload, SERVED_NO_NET_CPU, "per run", anchor_of=SERVED_CPU),
    ]


class _Line:
    """A raw NDJSON connection: send a request, read messages."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(path)
        self.reader = self.sock.makefile("rb")
        self.ids = 0

    def send(self, command, data=None):
        self.ids += 1
        message = {"messageId": f"b{self.ids}", "sessionId": "bench", "command": command}
        self.sock.sendall(json.dumps(dict(message, data=data or {})).encode() + b"\n")
        return message["messageId"]

    def read(self):
        line = self.reader.readline()
        if not line:
            raise WorkloadError("the server closed the connection")
        return json.loads(line)

    def call(self, command, data=None):
        message_id = self.send(command, data)
        while True:
            message = self.read()
            if message.get("messageId") == message_id:
                if not message["success"]:
                    raise WorkloadError(message["error"])
                return message["data"]


def _round_trip(conn, true, cwd):
    start = time.perf_counter()
    process_id = conn.call("RunExecutable", {"argv": [true], "cwd": None})["processId"]
    while True:
        message = conn.read()
        if message["command"] == "ProcessExit" and message["data"]["processId"] == process_id:
            break
    elapsed = time.perf_counter() - start
    if message["data"]["exitCode"] != 0:
        raise WorkloadError(f"true exited {message['data']['exitCode']}")
    return elapsed


def _cpu_seconds(pid, helpers=True):
    """utime + stime + cutime + cstime of pid, in seconds, and that of the children it
    keeps running (its fork server), whose CPU no reaping counts."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except FileNotFoundError:
        return 0.0  # a child that ended meanwhile
    own = sum(int(f) for f in fields[11:15]) / os.sysconf("SC_CLK_TCK")
    if not helpers:
        return own
    return own + sum(_cpu_seconds(child, False) for child in _children(pid))


def _children(pid):
    found = []
    for task in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{task}/children", encoding="ascii") as handle:
                found += [int(p) for p in handle.read().split()]
        except OSError:
            continue
    return found


def _cpu_per_run(server, conn, true, cwd):
    before = _cpu_seconds(server.pid)
    for _ in range(BATCH):
        _round_trip(conn, true, cwd)
    return (_cpu_seconds(server.pid) - before) / BATCH


def _ping_round(path, conn):
    """The p99 of PINGS pings while STREAMERS commands stream to another connection."""
    load = _Line(path)
    load.call("OpenSession")
    ids = [load.call("RunExecutable", {"command": STREAM})["processId"] for _ in range(STREAMERS)]
    threading.Thread(target=_drain, args=(load,), daemon=True).start()
    time.sleep(0.2)  # let them all stream
    samples = []
    for _ in range(PINGS):
        start = time.perf_counter()
        conn.call("Ping")
        samples.append(time.perf_counter() - start)
    for process_id in ids:
        conn_kill = load.send("ProcessKill", {"processId": process_id})
        del conn_kill
    load.sock.close()
    return statistics.quantiles(samples, n=100)[98]


def _drain(conn):
    try:
        while conn.reader.readline():
            pass
    except (OSError, ValueError):
        pass


def _confirm(config, env):
    """What `safedel config trust` records when a person says yes: a config file's
    `net = false` applies only then (docs/configuration.md)."""
    from safedel.commands.configview import record
    from safedel.core.contract import confirmed

    text, info = confirmed.read(config)
    record(env["SAFEDEL_STATE_DIR"], config, text, info, dict(env, SAFEDEL_CONFIG=config))


def run(profile, root, shim_home):
    sandbox = Sandbox(root, "serve", shim_home)
    servers = []
    try:
        true = tool("true")
        if not true:
            missing = (SERVED, SERVED_NO_NET, RUN, TRUE, SERVED_CPU, SERVED_NO_NET_CPU)
            return rows.fill(row_list(), {}, dict.fromkeys(missing, "true is not installed"))
        env = sandbox.base_env()
        path = os.path.join(sandbox.root, "serve", "serve.sock")
        server, conn = _start(path, env, sandbox.work)
        servers.append(server)
        config = os.path.join(sandbox.root, "no-net.toml")
        with open(config, "w", encoding="utf-8") as handle:
            handle.write("net = false\n")
        _confirm(config, env)
        plain_path = os.path.join(sandbox.root, "serve-no-net", "serve.sock")
        plain, plain_conn = _start(plain_path, dict(env, SAFEDEL_CONFIG=config), sandbox.work)
        servers.append(plain)
        errors = os.path.join(sandbox.root, "stderr")
        timers = {
            SERVED: lambda: _round_trip(conn, true, sandbox.work),
            SERVED_NO_NET: lambda: _round_trip(plain_conn, true, sandbox.work),
            RUN: lambda: timed_spawn([*safedel_command(), "run", "--", true], env, errors),
            TRUE: lambda: timed_spawn([true], env, errors),
        }
        results = interleave(timers, profile.run_rounds, max(profile.warmup, 1))
        cpu = {
            SERVED_CPU: lambda: _cpu_per_run(server, conn, true, sandbox.work),
            SERVED_NO_NET_CPU: lambda: _cpu_per_run(plain, plain_conn, true, sandbox.work),
        }
        results.update(interleave(cpu, max(3, profile.run_rounds // 2), 1))
        pings = [_ping_round(path, conn) for _ in range(max(3, profile.warmup + 3))]
        results[PING] = pings
        return rows.fill(row_list(), results, {})
    finally:
        for server in servers:
            server.terminate()
            server.wait(60)
        sandbox.close()


def _start(path, env, cwd):
    """A warm server on path, and a connection with its session open."""
    argv = [*safedel_command(), "serve", "--socket", path]
    server = subprocess.Popen(argv, env=env, cwd=cwd, stderr=subprocess.DEVNULL)
    try:
        conn = _wait_for(path, server)
        conn.call("OpenSession", {"workspaceRoots": [cwd]})
    except BaseException:
        server.kill()
        server.wait()
        raise
    return server, conn


def _wait_for(path, server):
    deadline = time.monotonic() + 60
    while True:
        try:
            return _Line(path)
        except OSError:
            if server.poll() is not None or time.monotonic() > deadline:
                raise WorkloadError("safedel serve did not start") from None
            time.sleep(0.05)
