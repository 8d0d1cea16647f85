"""The NDJSON envelope: one JSON object per line, UTF-8.

A request has messageId, sessionId, command and optional data, and no `success`; a
response repeats the first three and adds success with data or error; an event is a
message of the server's own, with its own messageId and no `success`.
"""

import itertools
import json
import re
import threading
import time

MAX_LINE = 1 << 20  # bytes, newline excluded
# Enough to answer an oversized or broken line when its messageId can still be read.
_MESSAGE_ID = re.compile(rb'"messageId"\s*:\s*"((?:[^"\\]|\\.){1,200})"')


class ProtocolError(Exception):
    """A request the server answers with success: false (the connection stays open)."""


def encode(message):
    text = json.dumps(message, ensure_ascii=False, separators=(",", ":"))
    return text.encode("utf-8", "surrogatepass") + b"\n"


def salvage_id(raw):
    """The messageId of a line that could not be parsed, or None."""
    found = _MESSAGE_ID.search(raw[:4096])
    if found is None:
        return None
    try:
        return json.loads(b'"' + found.group(1) + b'"')
    except ValueError:
        return None


def parse(raw):
    """The request in one line: a dict, or ProtocolError saying why not."""
    try:
        message = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as exc:
        raise ProtocolError(f"not a JSON line: {exc}") from None
    if not isinstance(message, dict):
        raise ProtocolError("a message must be a JSON object")
    if "success" in message:
        raise ProtocolError("a request has no success field")
    for field in ("messageId", "command"):
        if not isinstance(message.get(field), str) or not message[field]:
            raise ProtocolError(f"missing field: {field}")
    data = message.get("data")
    if data is None:
        message["data"] = {}
    elif not isinstance(data, dict):
        raise ProtocolError("data must be an object")
    return message


def response(request, data=None, error=None):
    message = {
        "messageId": request.get("messageId"),
        "sessionId": request.get("sessionId"),
        "command": request.get("command"),
    }
    if error is None:
        message.update(success=True, data={} if data is None else data)
    else:
        message.update(success=False, error=error)
    return message


_event_ids = itertools.count(1)
_event_lock = threading.Lock()


def event(session_id, command, data):
    with _event_lock:
        number = next(_event_ids)
    return {"messageId": f"e{number}", "sessionId": session_id, "command": command, "data": data}


def now_ms():
    return int(time.time() * 1000)


def field(data, name, kind, required=True, default=None):
    """data[name] checked against kind (a type or tuple of types)."""
    if name not in data or data[name] is None:
        if required:
            raise ProtocolError(f"missing field: data.{name}")
        return default
    value = data[name]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ProtocolError(f"data.{name} has the wrong type")
    return value
