"""One turn as the run's keeper keeps it (executor/keeper.py): its ledger read as it
grows, checked, and turned into the verdicts the keeper publishes.

The keeper trusts what it read before the run's command started (written by people,
the harness and earlier runs), the lines it wrote itself, and nothing else that lifts
the guard. Each later line is judged by the rule (core/guard/rule.py) over the
keeper's own state, never over the file's past, which the command may have rewritten:
- an approval the keeper did not make is voided (a `void` line, so that no reader
  after this run counts it either); one without an id damages the turn;
- a ledger that shrank, was rewritten where the keeper had read it, or was removed or
  replaced, and any line safedel never writes, damage the turn: the keeper appends a
  `damaged` line, so the turn fails closed for every reader until a person resets it.
"""

import os
from collections import OrderedDict

from ..core import jsonl
from ..core.guard import ledger, rule
from ..core.guard import turn as guardturn
from ..core.private import digest, open_dir

RECENT = 256  # the verdicts published per turn: more than any concurrent burst waits on
_ASK_KINDS = ("confirmRequired", "outsideWorkspace")


class Where:
    """What core/guard/turn.mark needs to append to a turn's ledger."""

    def __init__(self, state_dir, session, turn, digests):
        self.state_dir, self.session, self.turn, self.digests = state_dir, session, turn, digests


def key_of(session, turn):
    return f"{digest(session)}/{digest(turn)}"


class KeptTurn:
    def __init__(self, settings, can_ask):
        state_dir, session, turn = settings.state_dir, settings.session, settings.turn
        names = [digest(session), digest(turn)]
        self.key = "/".join(names)
        self.where = Where(state_dir, session, turn, {session: names[0], turn: names[1]})
        # No take is granted past the run's own threshold, whatever its line says: the
        # command may have rewritten the run record its processes read it from.
        self.threshold = settings.threshold
        self.parts = [ledger.LEDGERS, names[0]]
        self.name = names[1] + ".jsonl"
        self.directory = open_dir(state_dir, self.parts)
        self.can_ask, self.refs = can_ask, 1
        self.fd = self.ino = None
        self.hwm, self.anchor = 0, b""
        self.state = rule.TurnState()
        self.own = set()  # ids of the approvals this keeper wrote
        self.verdicts = OrderedDict()  # take id -> its published line
        self.answers = {}  # take id -> "1", "0", "-"
        self.questions = []  # (take id, kind, payload) waiting for the asking thread
        self.update(trusting=True)

    def close(self):
        if self.fd is not None:
            os.close(self.fd)
        self.fd = None
        self.directory.close()

    def _damage(self, why):
        self.state.damage(why)

    def _open(self):
        try:
            fd = self.directory.open(self.name, os.O_RDONLY)
        except FileNotFoundError:
            return False
        info = os.fstat(fd)
        self.fd, self.ino, self.identity = fd, info.st_ino, (info.st_dev, info.st_ino)
        return True

    def _still_the_file(self):
        """The ledger's path still leads to the file read (a reset or a replacement
        during the run leaves the processes under it writing where the keeper is not)."""
        path = os.path.join(self.where.state_dir, *self.parts, self.name)
        try:
            found = os.lstat(path)
        except OSError:
            return False
        return (found.st_dev, found.st_ino) == self.identity

    def update(self, trusting=False):
        """Read what was appended since the last call. trusting: the lines were there
        before the command started."""
        if self.state.damaged is not None:
            return self._mark_damaged()
        if self.fd is None and not self._open():
            return None
        if not self._still_the_file():
            self._damage("the ledger was removed or replaced while the run was going")
            return self._mark_damaged()
        size = os.fstat(self.fd).st_size
        if size < self.hwm:
            self._damage("the ledger shrank while the run was going")
        elif self.anchor and os.pread(self.fd, len(self.anchor), self.hwm - len(self.anchor)) != (
            self.anchor
        ):
            self._damage("the ledger was rewritten while the run was going")
        else:
            data = os.pread(self.fd, size - self.hwm, self.hwm)
            end = data.rfind(b"\n") + 1  # a line still being written waits for its newline
            voided = rule.voided_ids(data[:end]) if trusting else frozenset()
            for line in data[:end].splitlines(keepends=True):
                self._line(line, trusting, voided)
                self.hwm += len(line)
                self.anchor = line
        return self._mark_damaged()

    def _line(self, line, trusting, voided):
        record = rule.parse_line(line)
        if record is None:
            if rule.glued_to_a_fragment(line):
                inner = rule.parse_line(line[line.rfind(rule.RECORD_START) :])
                if inner.get("op") == "take":  # never granted: its writer takes again
                    self._verdict(inner, "torn")
                return
            self._damage("a line in it is not a record safedel writes")
            return
        op = record["op"]
        if op in rule.APPROVALS:
            ident = record.get("id")
            if trusting and ident not in voided or ident in self.own:
                self.own.discard(ident)  # once: a copy the command appends is no approval
                self.state.apply(record)
            elif not isinstance(ident, str):
                self._damage("an approval the run did not make, with no id to void it by")
            elif ident not in voided:
                guardturn.mark(self.where, rule.VOID, "keeper", id=ident)
            return
        if op == "take" and isinstance(record.get("t"), int) and record["t"] > self.threshold:
            verdict = self.state.apply(dict(record, t=self.threshold))
        else:
            verdict = self.state.apply(record)
        if op == "take":
            self._verdict(record, verdict)
        elif op == "ask" and not trusting:
            self._question(record)

    def _verdict(self, take, verdict):
        """Publish the verdict on a take, with the count and threshold it was read with:
        its writer checks them against what it wrote (a line rewritten before the keeper
        read it is not the take its writer asked for)."""
        ident, n, t = take.get("id"), take.get("n"), take.get("t")
        if isinstance(ident, str) and _word(ident) and isinstance(n, int) and isinstance(t, int):
            granted = self.state.granted
            self.verdicts[ident] = f"v {self.key} {ident} {verdict} {granted} {n} {t}"
            while len(self.verdicts) > RECENT:
                self.verdicts.popitem(last=False)

    def _question(self, record):
        ident, kind = record.get("take"), record.get("kind")
        if not isinstance(ident, str) or kind not in _ASK_KINDS or ident in self.answers:
            return
        decided = self._decided(kind)
        if decided is not None:
            self.answers[ident] = decided
        elif not self.can_ask:
            self.answers[ident] = "-"
        else:
            payload = record.get("payload") if isinstance(record.get("payload"), dict) else {}
            self.questions.append((ident, kind, payload))

    def _decided(self, kind):
        if kind == "outsideWorkspace":
            return "1" if self.state.outside else None
        return {"approved": "1", "rejected": "0"}.get(self.state.mode)

    def _mark_damaged(self):
        """Leave the damage in the ledger, so that every reader after this run fails
        closed too: again whenever the mark is gone (the command overwrote it)."""
        if self.state.damaged is None or self._marked():
            return None
        try:
            guardturn.mark(self.where, rule.DAMAGED, "keeper", why=self.state.damaged)
        except ledger.GuardError:
            pass  # the published state fails the run's takes closed all the same
        return None

    def _marked(self):
        try:
            fd = self.directory.open(self.name, os.O_RDONLY)
        except OSError:
            return False
        try:
            with os.fdopen(fd, "rb") as handle:
                return rule.replay(handle.read().splitlines(keepends=True)).damaged is not None
        except OSError:
            return False

    def approve(self, op, by):
        """Write an approval (or a reject) of the keeper's own; GuardError if it cannot."""
        fields = {}
        if op in rule.APPROVALS:
            fields["id"] = f"k{os.getpid()}.{os.urandom(6).hex()}"
            self.own.add(fields["id"])
        guardturn.mark(self.where, op, by, **fields)

    def render(self):
        """This turn's lines of the publication (core/guard/keeperview.py)."""
        s = self.state
        damaged = "0" if s.damaged is None else "1"
        flags = f"{int(s.outside)} {int(self.can_ask)} {damaged} {self.threshold}"
        lines = [f"t {self.key} {self.ino or 0} {self.hwm} {s.granted} {s.mode} {flags}"]
        if s.damaged is not None:
            lines.append(f"w {self.key} {_ascii(s.damaged)}")
        lines += self.verdicts.values()
        lines += [f"a {self.key} {i} {a}" for i, a in self.answers.items() if _word(i)]
        return lines


def _word(ident):
    return ident.replace(".", "").isalnum() and ident.isascii()


def _ascii(text):
    return jsonl.dumps(text)[1:-1].replace("\n", " ")
