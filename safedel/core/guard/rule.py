"""The bulk guard's rule: the verdict on each take in a turn's ledger, a pure function of
the lines before it, so every process in any runtime computes the same answer without a
lock. tests/vectors/ledger.json checks it here and in the Node shim (shims/node/ledger.cjs);
core/guard/ledger.py reads and writes the file.

Every line safedel writes is a whole record. The one other shape a line can legitimately
have is a fragment that a full disk tore off (it has no newline of its own) glued to the
whole record written after it: that line is skipped, the fragment was never granted.
Anything else (garbage, a blank line, a record no writer makes, a `damaged` line) means
the ledger was written by something other than safedel: the turn is damaged, and every
later take fails closed until a person resets the turn. An unknown op is kept and
ignored, so an older reader survives a newer writer.
"""

from .. import jsonl

ALLOW = "allow"
CONFIRM = "confirmRequired"
REJECTED = "rejected"
APPROVE_OUTSIDE = "approveOutside"
WITHDRAW = "withdraw"
DAMAGED = "damaged"
VOID = "void"
APPROVALS = ("approve", APPROVE_OUTSIDE)
# How every record safedel writes begins: a torn fragment is a prefix of one.
RECORD_START = b'{"op":"'


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

    __slots__ = ("mode", "granted", "takes", "refused", "threshold", "outside", "damaged")

    def __init__(self):
        self.mode = "open"
        self.granted = self.takes = self.refused = 0
        self.threshold = None
        self.outside = False  # deletions outside the workspace approved for the turn
        self.damaged = None  # why the ledger cannot be trusted, once it cannot

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
        elif op == DAMAGED:
            self.damage(f"marked damaged: {record.get('why') or 'no reason given'}")
        elif op == WITHDRAW and self.refused:
            # Only a refused take is ever withdrawn, and it granted nothing: the
            # verdicts of later takes stay as they were.
            self.takes -= 1
            self.refused -= 1
        return None

    def damage(self, why):
        if self.damaged is None:
            self.damaged = why

    def take(self, n, threshold):
        """Apply a take of n under threshold; return its verdict."""
        self.threshold = threshold
        self.takes += 1
        if self.damaged is not None:
            verdict = DAMAGED
        elif self.mode == "rejected":
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


def glued_to_a_fragment(line):
    """Whether line is a fragment a full disk tore off, glued to the whole record written
    after it: the fragment begins as every record does and holds no newline, and what
    follows its last record start is a whole record."""
    body = line[:-1] if line.endswith(b"\n") else line
    start = body.rfind(RECORD_START)
    if start <= 0 or not body.startswith(RECORD_START):
        return False
    return parse_line(body[start:]) is not None


def apply_line(state, line, voided=frozenset()):
    """Apply one ledger line to state; return the verdict for a take, else None. A line
    that is neither a record nor a torn fragment glued to one damages the turn; an
    approval whose id is in voided (voided_ids: a run's keeper found that it did not
    make it) changes nothing."""
    if isinstance(line, str):
        line = line.encode("utf-8", "surrogateescape")
    fields = _take_fields(line)
    if fields is not None and fields[2] > 0:  # parse_line then state.apply, without it
        return state.take(fields[1], fields[2])
    record = parse_line(line)
    if record is not None:
        if voided and record["op"] in APPROVALS and record.get("id") in voided:
            return None
        return state.apply(record)
    if not glued_to_a_fragment(line):
        state.damage("a line in it is not a record safedel writes")
    return None


def voided_ids(data):
    """The ids of the approvals that `void` lines anywhere in data (bytes) take back. A
    void holds for the whole ledger, lines before it included: every reader reads to the
    end of the file before it decides, so it looks for them first."""
    if b'"void"' not in data:
        return frozenset()
    found = set()
    for line in data.splitlines():
        if b'"void"' in line:
            record = parse_line(line)
            if record is not None and record["op"] == VOID and isinstance(record.get("id"), str):
                found.add(record["id"])
    return frozenset(found)


def verdicts(lines):
    """[(record or None, verdict or None)] for a sequence of ledger lines: the pure rule."""
    state, voided = TurnState(), voided_ids(b"\n".join(_bytes(line) for line in lines))
    return [(parse_line(line), apply_line(state, line, voided)) for line in lines]


def replay(lines):
    """The TurnState after a sequence of ledger lines."""
    state, voided = TurnState(), voided_ids(b"\n".join(_bytes(line) for line in lines))
    for line in lines:
        apply_line(state, line, voided)
    return state


def _bytes(line):
    return line if isinstance(line, bytes) else line.encode("utf-8", "surrogateescape")
