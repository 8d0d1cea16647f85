"""Guard signal files: a refusal left where a harness finds it, taken exactly once.

<state>/signals/<sha256(session)[:16]>/<sha256(tool call or turn)[:16]>.json holds one
JSON object: {"type": "confirmRequired"|"rejected"|"guardError", "payload": {...},
"session", "turn", "toolCall", "createdAt"}. Writers replace it whole by rename, so a
reader never sees half a file; a reader claims it by renaming it to a private name
first, so two readers can never both take the same signal.
"""

import os
import time

from . import jsonl
from .guard import SIGNALS, digest
from .private import open_dir


def signal_parts(session, key):
    return [SIGNALS, digest(session), digest(key) + ".json"]


def _unique(name):
    return f".{name}.{os.getpid()}.{os.urandom(4).hex()}"


def write_signal(settings, kind, payload):
    """Leave the latest refusal for the tool call (or the turn). Never raises."""
    signal = {"type": kind, "payload": payload, "session": settings.session}
    signal.update(turn=settings.turn, toolCall=settings.tool_call)
    signal["createdAt"] = int(time.time() * 1000)
    parts = signal_parts(settings.session, settings.tool_call or settings.turn)
    name = parts.pop()
    data = jsonl.dumps(signal).encode("ascii")
    temporary = _unique(name) + ".tmp"
    try:
        with open_dir(settings.state_dir, parts) as directory:
            fd = directory.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
            try:
                os.write(fd, data)
            finally:
                os.close(fd)
            directory.replace(temporary, name)
    except OSError:
        pass  # the marker and the report event already carry the refusal


def take_signal(state_dir, session, key):
    """The pending signal for key (a tool call or turn), removed; None when there is none."""
    parts = signal_parts(session, key)
    name = parts.pop()
    claimed = _unique(name) + ".taking"
    try:
        with open_dir(state_dir, parts, create_dirs=False) as directory:
            directory.replace(name, claimed)
            try:
                fd = directory.open(claimed, os.O_RDONLY)
                with os.fdopen(fd, "rb") as handle:
                    data = handle.read()
            finally:
                directory.unlink(claimed)
    except OSError:
        return None  # nothing pending, or another reader claimed it first
    try:
        return jsonl.loads(data)
    except ValueError:
        return None
