"""A harness of `safedel serve` that keeps its end private as docs/harness.md says, and
records every line the server sends it (hand-written NDJSON; safedel.client is used
only for keep_private).

    python channel_harness.py stdio READ_FD WRITE_FD WORK ATTACK PYTHON
    python channel_harness.py socket PATH WORK ATTACK PYTHON

It opens session S (threshold 5, workspace WORK), runs one command in turn T that
asks the guard a question (`rm` of 8 files), runs ATTACK with PYTHON (given this
harness's pid and, on a socket, the socket's path), then `rm` of all 60 files, and
reads until that run's ProcessExit. Then it asks for the statistics of session X,
which only the attack could have opened. It prints one JSON object: every message
received, in order, and the reply about X. With CHANNEL_HARNESS_DUMPABLE=1 it skips
keep_private (a root harness whose runs lack capabilities it has is out of their
reach all the same).
"""

import json
import os
import select
import socket
import sys

from safedel import client

TIMEOUT = 90


class Lines:
    def __init__(self, rfd, wfd):
        self.rfd, self.wfd, self.buffer, self.seen = rfd, wfd, b"", []

    def send(self, message_id, command, data=None, session="S"):
        line = {"messageId": message_id, "sessionId": session, "command": command}
        line["data"] = data or {}
        payload = json.dumps(line).encode() + b"\n"
        while payload:
            payload = payload[os.write(self.wfd, payload) :]

    def read(self):
        while b"\n" not in self.buffer:
            if not select.select([self.rfd], [], [], TIMEOUT)[0]:
                raise TimeoutError("the server said nothing")
            chunk = os.read(self.rfd, 65536)
            if not chunk:
                raise EOFError("the server closed the channel")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        message = json.loads(line)
        self.seen.append(message)
        return message

    def response(self, message_id):
        while True:
            message = self.read()
            if "success" in message and message["messageId"] == message_id:
                return message


def main():
    if os.environ.get("CHANNEL_HARNESS_DUMPABLE") != "1":
        assert client.keep_private(), "PR_SET_DUMPABLE failed"
    mode = sys.argv[1]
    if mode == "stdio":
        lines = Lines(int(sys.argv[2]), int(sys.argv[3]))
        work, attack, python = sys.argv[4:7]
        where = ""
    else:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.connect(sys.argv[2])
        lines = Lines(sock.fileno(), sock.fileno())
        work, attack, python = sys.argv[3:6]
        where = sys.argv[2]
    lines.send("o", "OpenSession", {"workspaceRoots": [work], "threshold": 5})
    opened = lines.response("o")
    assert opened["success"], opened
    eight = " ".join(f"f{n}" for n in range(8))
    command = f"rm {eight}; {python} {attack} {os.getpid()} {where}; rm f*; echo rm=$?"
    lines.send("r", "RunExecutable", {"command": command, "cwd": work, "turn": "T"})
    started = lines.response("r")
    assert started["success"], started
    process_id = started["data"]["processId"]
    while True:
        message = lines.read()
        exited = message.get("command") == "ProcessExit" and "success" not in message
        if exited and message["data"].get("processId") == process_id:
            break
    lines.send("x", "GetStatistics", session="X")
    other = lines.response("x")
    print(json.dumps({"messages": lines.seen, "x": other}))


if __name__ == "__main__":
    main()
