"""The bulk guard's rule: the verdict on each take in a turn's ledger, a pure function of
the lines before it, so every process in any runtime computes the same answer without a
lock. tests/vectors/ledger.json checks it here and in the Node shim (shims/node/ledger.cjs);
core/guard/ledger.py reads and writes the file.

A line that is not a whole record (a torn fragment, a blank line) was never granted, and
is skipped; an unknown op is kept and ignored, so an older reader survives a newer writer.
"""

from .. import jsonl

ALLOW = "allow"
CONFIRM = "confirmRequired"
REJECTED = "rejected"
APPROVE_OUTSIDE = "approveOutside"
WITHDRAW = "withdraw"


class Decision:
    __slots__ = ("verdict", "count", "threshold", "state", "take_id")

    def __init__(self, verdict, count, threshold, state, take_id=None):
        self.verdict = verdict
        self.count = count
        self.threshold = threshold
        self.state = state
        self.take_id = take_id  # the ledger line this decision answered, if any


class TurnState:
    """Running state while reading a ledger in file order."""

    __slots__ = ("mode", "granted", "takes", "refused", "threshold", "outside")

    def __init__(self):
        self.mode = "open"
        self.granted = self.takes = self.refused = 0
        self.threshold = None
        self.outside = False  # deletions outside the workspace approved for the turn

    def copy(self):
        other = TurnState()
        for name in self.__slots__:
            setattr(other, name, getattr(self, name))
        return other

    def apply(self, record):
        """Apply one ledger record; return the verdict for a take, else None."""
        op = record["op"]
        if op == "take":
            return self.take(int(record["n"]), int(record["t"]))
        if op in ("approve", "reject"):
            self.mode = "approved" if op == "approve" else "rejected"
        elif op == APPROVE_OUTSIDE:
            self.outside = True
        elif op == WITHDRAW and self.refused:
            # Only a refused take is ever withdrawn, and it granted nothing: the
            # verdicts of later takes stay as they were.
            self.takes -= 1
            self.refused -= 1
        return None

    def take(self, n, threshold):
        """Apply a take of n under threshold; return its verdict."""
        self.threshold = threshold
        self.takes += 1
        if self.mode == "rejected":
            verdict = REJECTED
        elif self.mode == "approved" or self.granted + n <= threshold:
            self.granted += n
            return ALLOW
        else:
            verdict = CONFIRM
        self.refused += 1
        return verdict


def _take_line(line):
    """The record on a take line exactly as ledger.take() writes it, or None for any other
    shape (then the JSON parser decides)."""
    fields = _take_fields(line)
    if fields is None:
        return None
    ident, n, t, ts = fields
    return {"op": "take", "id": ident.decode("ascii"), "n": n, "t": t, "ts": ts}


def _take_fields(line):
    """(id, n, t, ts) of a take line exactly as ledger.take() writes it, or None: _take_line
    without the record. Every rm call reads its turn's ledger from the start, so these
    lines are read many times over, and most of a ledger is such lines."""
    if not (line.startswith(b'{"op":"take","id":"') and line.endswith(b"}\n")):
        return None
    fields = line[19:-2].split(b",")  # id", "n":N, "t":T, "ts":MS
    if len(fields) != 4:
        return None
    ident, n, t, ts = fields
    if not (ident.endswith(b'"') and ident[:-1].replace(b".", b"").isalnum()):
        return None  # isalnum is ASCII letters and digits only, for bytes
    if not (n.startswith(b'"n":') and t.startswith(b'"t":') and ts.startswith(b'"ts":')):
        return None
    numbers = (n[4:], t[4:], ts[5:])
    for value in numbers:
        if not value.isdigit() or (value[:1] == b"0" and value != b"0"):
            return None
    return ident[:-1], int(numbers[0]), int(numbers[1]), int(numbers[2])


def parse_line(line):
    """The record on one ledger line, or None for anything that is not a whole record
    (a torn fragment, a blank line): such a line was never granted, and is skipped."""
    if isinstance(line, bytes):
        record = _take_line(line)
        if record is not None:
            return record if record["t"] > 0 else None
    try:
        record = jsonl.loads(line)
        # Unknown ops are kept (and ignored) so an older reader survives a newer writer.
        if (
            isinstance(record, dict)
            and isinstance(record.get("op"), str)
            and (record["op"] != "take" or int(record["n"]) >= 0 < int(record["t"]))
        ):
            return record
    except (ValueError, KeyError, TypeError):
        pass
    return None


def apply_line(state, line):
    """Apply one ledger line to state; return the verdict for a take, else None."""
    fields = _take_fields(line) if isinstance(line, bytes) else None
    if fields is not None:  # parse_line then state.apply, without the record
        return state.take(fields[1], fields[2]) if fields[2] > 0 else None
    record = parse_line(line)
    return None if record is None else state.apply(record)


def verdicts(lines):
    """[(record or None, verdict or None)] for a sequence of ledger lines: the pure rule."""
    state = TurnState()
    return [(parse_line(line), apply_line(state, line)) for line in lines]
