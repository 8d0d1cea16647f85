"""A served `safedel serve --socket` in a sandbox, and a raw NDJSON connection to it
(hand-written lines, no client library)."""

import json
import os
import signal
import socket
import subprocess
import sys
import time

TIMEOUT = 30


class Served:
    """`safedel serve --socket PATH` started with the sandbox's environment."""

    def __init__(self, sandbox, path=None, extra=()):
        self.sandbox = sandbox
        self.path = str(path or sandbox.root / "serve" / "serve.sock")
        argv = [sys.executable, "-m", "safedel", "serve", "--socket", self.path, *extra]
        self.proc = subprocess.Popen(argv, env=sandbox.base_env(), stderr=subprocess.PIPE)
        deadline = time.monotonic() + TIMEOUT
        while True:
            try:
                Raw(self.path).close()
                return
            except OSError:
                if self.proc.poll() is not None:
                    raise AssertionError(self.proc.stderr.read().decode()) from None
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(TIMEOUT)
        self.proc.stderr.close()
        return code


class Raw:
    """One socket connection speaking NDJSON by hand; events are kept in arrival order."""

    def __init__(self, path):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(TIMEOUT)
        self.sock.connect(path)
        self.buffer = b""
        self.events = []  # every server event read so far, in order
        self.responses = {}

    def send_line(self, raw):
        self.sock.sendall(raw if raw.endswith(b"\n") else raw + b"\n")

    def send(self, message_id, command, data=None, session="S"):
        message = {"messageId": message_id, "sessionId": session, "command": command}
        if data is not None:
            message["data"] = data
        self.send_line(json.dumps(message).encode())

    def read(self):
        """The next message, parsed; events are also appended to self.events."""
        while b"\n" not in self.buffer:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise EOFError("the server closed the connection")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        message = json.loads(line)
        if "success" in message:
            self.responses[message["messageId"]] = message
        else:
            self.events.append(message)
        return message

    def response(self, message_id):
        while message_id not in self.responses:
            self.read()
        return self.responses.pop(message_id)

    def call(self, message_id, command, data=None, session="S"):
        self.send(message_id, command, data, session)
        return self.response(message_id)

    def ok(self, message_id, command, data=None, session="S"):
        reply = self.call(message_id, command, data, session)
        assert reply["success"] is True, reply
        assert {reply["messageId"], reply["command"]} == {message_id, command}
        return reply["data"]

    def exit_of(self, process_id):
        """Read until the ProcessExit of process_id; its data."""
        while True:
            for event in self.events:
                if event["command"] == "ProcessExit" and event["data"]["processId"] == process_id:
                    return event["data"]
            self.read()

    def output_of(self, process_id, text):
        """Read until some ProcessOutput of process_id holds text."""
        while not any(
            e["command"] == "ProcessOutput" and text in e["data"]["data"]
            for e in self.of(process_id)
        ):
            self.read()

    def drain(self):
        """Read everything up to the server's end of the connection."""
        try:
            while True:
                self.read()
        except (EOFError, OSError):
            pass

    def of(self, process_id):
        return [e for e in self.events if e["data"].get("processId") == process_id]

    def close(self):
        self.sock.close()


def normalized(events):
    """(command, stream, text) with consecutive chunks of one stream joined: chunk
    boundaries depend on timing, the order of what was written does not."""
    out = []
    for event in events:
        data = event["data"]
        if event["command"] == "ProcessOutput":
            if out and out[-1][0] == "ProcessOutput" and out[-1][1] == data["stream"]:
                out[-1] = ("ProcessOutput", data["stream"], out[-1][2] + data["data"])
            else:
                out.append(("ProcessOutput", data["stream"], data["data"]))
        elif event["command"] == "ProcessExit":
            out.append(("ProcessExit", data["exitCode"], data["stdout"] + "|" + data["stderr"]))
        else:
            out.append((event["command"], data.get("kind"), ""))
    return out


def gone(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:  # a zombie nobody reaps yet is gone too
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] == "Z"
    except OSError:
        return True


def wait_for(predicate, timeout=TIMEOUT):
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.02)
    return True
