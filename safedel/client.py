"""A small client for `safedel serve` (standard library only).

    from safedel import client
    client.keep_private()  # no command may open this process's end (docs/harness.md)
    with client.connect("/run/user/1000/safedel/serve.sock", server_pid=pid) as conn:
        conn.open_session("S", workspace_roots=["/work/repo"])
        run = conn.run(["rm", "-rf", "build"], cwd="/work/repo", turn="t1")
        for stream, text in run.output():
            print(stream, text, end="")
        result = run.wait()  # the executor's result object
        if run.guard is not None:  # the bulk guard asked: ask the user
            conn.answer_guard(run.guard["requestId"], "allow_once")

One reader thread sorts what arrives: responses to the request that waits for them,
events to the run they belong to (GuardRequest events go to the run, too).
"""

from __future__ import annotations

import itertools
import json
import queue
import socket
import struct
import sys
import threading
from collections.abc import Iterator
from typing import Any

_END = object()


class ServeError(Exception):
    """The server answered success: false; the message is its error."""


class Run:
    """A served process: its output as it arrives, stdin, kill, and its result."""

    def __init__(self, conn: Connection, process_id: str):
        self.conn = conn
        self.id = process_id
        self.events: queue.Queue = queue.Queue()
        self.guard: dict | None = None  # the GuardRequest's data, if one came
        self.result: dict | None = None

    def _take(self, message: dict) -> None:
        if message["command"] == "GuardRequest":
            self.guard = message["data"]
        self.events.put(message)
        if message["command"] == "ProcessExit":
            self.events.put(_END)

    def messages(self, timeout: float | None = None) -> Iterator[dict]:
        """Every event of this process, in order, up to and with ProcessExit."""
        while self.result is None:
            item = self.events.get(timeout=timeout)
            if item is _END:
                return
            if item["command"] == "ProcessExit":
                self.result = item["data"]
            yield item

    def output(self, timeout: float | None = None) -> Iterator[tuple[str, str]]:
        """(stream, text) chunks until the process exits."""
        for message in self.messages(timeout):
            if message["command"] == "ProcessOutput":
                yield message["data"]["stream"], message["data"]["data"]

    def wait(self, timeout: float | None = None) -> dict:
        for _ in self.messages(timeout):
            pass
        assert self.result is not None
        return self.result

    def write(self, text: str, eof: bool = False) -> int:
        data = {"processId": self.id, "data": text, "eof": eof}
        return self.conn.request("ProcessWrite", data)["written"]

    def kill(self, signal: str = "SIGTERM") -> None:
        self.conn.request("ProcessKill", {"processId": self.id, "signal": signal})

    def alive(self) -> bool:
        return self.conn.request("ProcessIsAlive", {"processId": self.id})["alive"]


class Connection:
    def __init__(self, sock: socket.socket, session_id: str = "default"):
        self.sock = sock
        self.session_id = session_id
        self._ids = itertools.count(1)
        self._waiting: dict[str, queue.Queue] = {}
        self._runs: dict[str, Run] = {}
        self._early: dict[str, list] = {}  # events that came before their Run existed
        self._lock = threading.Lock()
        self._send_lock = threading.Lock()
        self._closed = False  # the server closed the connection (or it broke)
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        try:
            self._read_lines()
        except (OSError, ValueError):
            pass  # a reset connection ends like a closed one
        with self._lock:
            self._closed = True
            for waiter in self._waiting.values():
                waiter.put(None)

    def _read_lines(self) -> None:
        for line in self.sock.makefile("rb"):
            message = json.loads(line)
            if "success" in message:
                with self._lock:
                    waiter = self._waiting.pop(message["messageId"], None)
                if waiter is not None:
                    waiter.put(message)
                continue
            process_id = (message.get("data") or {}).get("processId")
            with self._lock:
                run = self._runs.get(process_id)
                if run is None:
                    self._early.setdefault(process_id, []).append(message)
            if run is not None:
                run._take(message)

    def request(self, command: str, data: dict | None = None, timeout: float = 30) -> Any:
        message_id = f"c{next(self._ids)}"
        waiter: queue.Queue = queue.Queue()
        with self._lock:
            if self._closed:
                raise ServeError("the server closed the connection")
            self._waiting[message_id] = waiter
        message = {"messageId": message_id, "sessionId": self.session_id, "command": command}
        message["data"] = data or {}
        line = json.dumps(message, ensure_ascii=False).encode("utf-8") + b"\n"
        try:
            with self._send_lock:
                self.sock.sendall(line)
        except OSError as exc:
            raise ServeError(f"the server closed the connection ({exc.strerror})") from None
        reply = waiter.get(timeout=timeout)
        if reply is None:
            raise ServeError("the server closed the connection")
        if not reply["success"]:
            raise ServeError(reply["error"])
        return reply["data"]

    def ping(self) -> dict:
        return self.request("Ping")

    def open_session(
        self,
        session_id: str | None = None,
        workspace_roots: list[str] | None = None,
        threshold: int | None = None,
        report_path: str | None = None,
    ) -> dict:
        self.session_id = session_id or self.session_id
        data: dict[str, Any] = {"workspaceRoots": workspace_roots or []}
        if threshold is not None:
            data["threshold"] = threshold
        if report_path is not None:
            data["reportPath"] = report_path
        return self.request("OpenSession", data)

    def run(self, argv: list[str] | None = None, command: str | None = None, **options) -> Run:
        """Start a process: argv, or command (with options shell=...); other options
        as RunExecutable's data (cwd, env, turn, toolCall, timeoutMs, maxOutput)."""
        data = dict(options)
        if argv is not None:
            data["argv"] = list(argv)
        if command is not None:
            data["command"] = command
        reply = self.request("RunExecutable", data)
        run = Run(self, reply["processId"])
        with self._lock:
            self._runs[run.id] = run
            early = self._early.pop(run.id, [])
        for message in early:
            run._take(message)
        return run

    def answer_guard(self, request_id: str | None, choice: str) -> dict:
        """allow_once, allow_session or deny for the guard question request_id."""
        data = {"choice": choice}
        if request_id is not None:
            data["requestId"] = request_id
        return self.request("ReportBlockChoice", data)

    def statistics(self) -> dict:
        return self.request("GetStatistics")

    def close(self) -> None:
        try:
            self.sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        self.sock.close()

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *_exc: object) -> None:
        self.close()


def connect(path: str, session_id: str = "default", server_pid: int | None = None) -> Connection:
    """A connection to the server listening on path. server_pid: the pid of the server
    this harness started; the connection is refused (ServeError) when the process at
    the other end is another one, such as a listener a command of the same user put
    at the path after renaming the server's socket away (Linux)."""
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    if server_pid is not None and hasattr(socket, "SO_PEERCRED"):
        creds = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        if struct.unpack("3i", creds)[0] != server_pid:
            sock.close()
            raise ServeError(f"{path} is not served by process {server_pid}")
    return Connection(sock, session_id)


def keep_private() -> bool:
    """Make this process not dumpable (Linux): a process of the same user without
    CAP_SYS_PTRACE, such as a command the server runs, can then neither open this
    process's descriptors through /proc/<pid>/fd (its ends of the server's pipes and
    socket) nor take them with pidfd_getfd, nor attach to it. Call it before starting
    or connecting to the server. True when done; False where there is no such call."""
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    return ctypes.CDLL(None, use_errno=True).prctl(4, 0, 0, 0, 0) == 0  # PR_SET_DUMPABLE
