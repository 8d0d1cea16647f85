"""Marker lines read back out of a command's output, the way a harness should read them.

A marker counts only when it is a whole line of its own: `[safe-delete][KIND] {json}`,
pure ASCII (safedel escapes every other character), KIND a SAFE_DELETE_ name, the
payload one JSON object and nothing after it. Anything else that merely looks like a
marker (a wrong prefix, broken or non-object JSON, a marker inside a longer line, two
on one line, a line too long to be ours) is ignored, never an error. The last marker of
each kind wins.

A file name can hold a newline, and a tool that prints it raw (a native error message,
say) can thus put a line starting with the prefix into the output. safedel writes its
own marker before the error line of a path, never after it, so a marker right after an
error line that names the same path, or that leaves a quote open, is taken to be part
of that name and ignored.
"""

import errno
import json
import re

PREFIX = "[safe-delete]["
CONFIRM_REQUIRED = "SAFE_DELETE_BULK_CONFIRM_REQUIRED"
REJECTED = "SAFE_DELETE_BULK_REJECTED"
FAIL_CLOSED = "SAFE_DELETE_FAIL_CLOSED"
GUARD_ERROR = "SAFE_DELETE_BULK_GUARD_ERROR"
OUTSIDE_WORKSPACE = "SAFE_DELETE_OUTSIDE_WORKSPACE"
# The kinds after which a harness should ask its user (a person must decide).
ASK_KINDS = (CONFIRM_REQUIRED, OUTSIDE_WORKSPACE, FAIL_CLOSED)
MAX_LINE = 1 << 20  # 20 targets of the longest escaped paths fit well inside
_KIND_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_ERROR_WORDS = ("error", "cannot", "failed", "denied", "not permitted", "[errno ")
# Native errors name the errno without any of those words: Node's `e.message` reads
# "ENOTEMPTY: directory not empty, rmdir '<name>", Python's str(exc) "[Errno 39] ...".
_ERRNO_NAME = re.compile(r"\bE[A-Z0-9]+\b")
_ERRNO_NAMES = frozenset(errno.errorcode.values())
_QUOTES = {"'": "'", '"': '"', "\u2018": "\u2019"}


def _reject_constant(name):
    raise ValueError(f"{name} is not JSON")


def parse_line(line):
    """(kind, payload) if line is exactly one marker, else None."""
    line = line[:-1] if line.endswith("\r") else line
    if len(line) > MAX_LINE or not line.startswith(PREFIX) or not line.isascii():
        return None
    kind, sep, body = line[len(PREFIX) :].partition("] ")
    if not sep or not kind.startswith("SAFE_DELETE_") or not set(kind) <= _KIND_CHARS:
        return None
    if not (body.startswith("{") and body.endswith("}")):
        return None
    try:
        payload = json.loads(body, parse_constant=_reject_constant)
    except (ValueError, RecursionError):
        return None
    return (kind, payload) if isinstance(payload, dict) else None


def _paths_of(payload):
    named = [payload.get("path")]
    targets = payload.get("targets")
    if isinstance(targets, list):
        named.extend(targets)
    return [p for p in named if isinstance(p, str) and p]


def _is_error_line(line):
    lowered = line.lower()
    if any(word in lowered for word in _ERROR_WORDS):
        return True
    return any(name in _ERRNO_NAMES for name in _ERRNO_NAME.findall(line))


def _leaves_quote_open(line):
    """True when a quoted name in line is not closed by its end (shell-style: a quote
    inside another kind of quote is text, a backslash outside quotes escapes)."""
    closing = None
    escaped = False
    for char in line:
        if escaped:
            escaped = False
        elif closing is None:
            if char == "\\":
                escaped = True
            else:
                closing = _QUOTES.get(char)
        elif char == closing:
            closing = None
    return closing is not None


def follows_error_for_it(previous, payload):
    """True when the marker line is most likely the rest of a name in an error message."""
    if previous is None or not _is_error_line(previous):
        return False
    return _leaves_quote_open(previous) or any(p in previous for p in _paths_of(payload))


class Scan:
    """The last marker of each kind in some output, and what a harness should do."""

    def __init__(self):
        self.markers = {}  # kind -> payload
        self.order = []  # kinds, in the order their last marker came
        self._previous = None

    def feed_line(self, line):
        line = line.rstrip("\n")
        found = parse_line(line)
        if found is not None and not follows_error_for_it(self._previous, found[1]):
            kind, payload = found
            self.markers[kind] = payload
            if kind in self.order:
                self.order.remove(kind)
            self.order.append(kind)
        self._previous = line if len(line) <= MAX_LINE else None

    def skip_line(self):
        """A line too long to be a marker, or to name a path a marker could follow."""
        self._previous = None

    def ask(self):
        """(kind, payload) of the marker that means "ask the user", or None."""
        for kind in reversed(self.order):
            if kind in ASK_KINDS:
                return kind, self.markers[kind]
        return None

    def as_json(self):
        asking = self.ask()
        return {
            "markers": dict(self.markers),
            "askUser": asking is not None,
            "ask": None if asking is None else {"kind": asking[0], "payload": asking[1]},
        }


def scan_text(text):
    scan = Scan()
    for line in text.split("\n"):
        scan.feed_line(line)
    return scan


def scan_stream(handle):
    """Scan a binary stream line by line; a line longer than MAX_LINE is skipped whole
    without being held in memory."""
    scan = Scan()
    while True:
        line = handle.readline(MAX_LINE + 2)
        if not line:
            return scan
        if len(line) > MAX_LINE + 1 and not line.endswith(b"\n"):
            while line and not line.endswith(b"\n"):
                line = handle.readline(MAX_LINE)
            scan.skip_line()
            continue
        scan.feed_line(line.decode("utf-8", "replace"))
