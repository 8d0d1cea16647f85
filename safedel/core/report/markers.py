"""Marker lines on stderr, the machine-readable signal that agent harnesses parse.

The payload is single-line JSON with every non-ASCII character escaped, so a hostile
file name can neither end the line nor fake a marker of its own.
"""

import _thread
import os
import sys

from .. import jsonl

PREFIX = "[safe-delete]"
CONFIRM_REQUIRED = "SAFE_DELETE_BULK_CONFIRM_REQUIRED"
REJECTED = "SAFE_DELETE_BULK_REJECTED"
FAIL_CLOSED = "SAFE_DELETE_FAIL_CLOSED"
GUARD_ERROR = "SAFE_DELETE_BULK_GUARD_ERROR"
OUTSIDE_WORKSPACE = "SAFE_DELETE_OUTSIDE_WORKSPACE"
MAX_TARGETS = 20
# thread id -> fd. A thread that judges deletions on behalf of a command it started
# (the net's supervisor) writes that command's markers where the command's own stderr
# goes: a harness reads markers from the captured stream, not from safedel's stderr.
_routes = {}


def format_marker(kind, payload):
    body = jsonl.dumps(payload)
    return f"{PREFIX}[{kind}] {body}\n"


def route(fd):
    """Send this thread's markers to fd from now on; None sends them to fd 2 again."""
    if fd is None:
        _routes.pop(_thread.get_ident(), None)
    else:
        _routes[_thread.get_ident()] = fd


def to_a_terminal():
    """Whether this thread's markers would land on a terminal, where a person reads."""
    fd = _routes.get(_thread.get_ident(), 2) if _routes else 2
    try:
        return os.isatty(fd)
    except OSError:
        return False


def emit(kind, payload):
    """Write the marker straight to fd 2 (or this thread's route), after whatever
    sys.stderr still buffers."""
    line = format_marker(kind, payload).encode("ascii")
    fd = _routes.get(_thread.get_ident(), 2) if _routes else 2
    if fd == 2:
        try:
            sys.stderr.flush()
        except (OSError, ValueError, AttributeError):
            pass
    try:
        os.write(fd, line)
    except OSError:
        pass


def parse_markers(text):
    """{kind: payload} holding the last marker of each kind, as a harness reads them."""
    found = {}
    for line in text.splitlines():
        if not line.startswith(PREFIX + "["):
            continue
        head, _, body = line.partition("] ")
        kind = head[len(PREFIX) + 1 :]
        try:
            found[kind] = jsonl.loads(body)
        except ValueError:
            continue
    return found
