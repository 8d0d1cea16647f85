"""The run's guard keeper's publication as it speaks of a turn (Linux); what a process
under a run asks it is core/guard/keeperview.py, which says why it exists, and where it
is found, and why a command cannot stand in for it, core/contract/keeperfind.py.

The publication: 8 bytes of sequence number (odd while the keeper writes), 8 of length,
then lines of ASCII words (no JSON but the run's record: a launcher would pay for `json`):
    safedel-keeper 1 PID
    t KEY INO HWM GRANTED MODE OUTSIDE CANASK DAMAGED THRESHOLD   per turn it keeps
    w KEY WHY...                                           why a damaged turn is
    v KEY ID VERDICT GRANTED                               the latest takes read
    a KEY ID ANSWER                                        the person's answers: 1, 0, -
    r RUN POINTER RECORD                   per run it keeps (core/contract/keptrecord.py)
KEY is <sha256(session)[:16]>/<sha256(turn)[:16]>; shims/node/keeper.cjs reads the same.
"""

from ..contract.keeperfind import (  # noqa: F401 (the names the keeper's users know)
    HEADER,
    KEEPER_FD,
    MAGIC,
    MEMFD,
    NAME,
    Unreachable,
    find,
    forget,
    keeper_pid,
    snapshot,
)
from ..contract.keeperfind import line as _line
from .ledger import GuardError


class View:
    """What the keeper says about one turn (data: the publication, bytes)."""

    __slots__ = (
        "ino",
        "hwm",
        "granted",
        "mode",
        "outside",
        "can_ask",
        "damaged",
        "threshold",
        "data",
        "key",
    )

    def __init__(self, fields, data, key):
        # INO HWM GRANTED MODE OUTSIDE CANASK DAMAGED THRESHOLD
        self.ino, self.hwm, self.granted = int(fields[0]), int(fields[1]), int(fields[2])
        self.threshold = int(fields[7])
        self.mode, self.outside = fields[3].decode("ascii"), fields[4] == b"1"
        self.can_ask = fields[5] == b"1"
        self.damaged = None
        if fields[6] == b"1":
            why = _line(data, b"w " + key + b" ")
            self.damaged = why.decode("ascii", "replace") if why else "found damaged by the run"
        self.data, self.key = data, key

    def verdict(self, take_id):
        """(verdict, granted, n, threshold) the keeper read take take_id with, or None."""
        found = _line(self.data, b"v " + self.key + b" " + take_id.encode("ascii") + b" ")
        if found is None:
            return None
        try:
            verdict, granted, n, threshold = found.split()
            return verdict.decode("ascii"), int(granted), int(n), int(threshold)
        except ValueError:
            raise GuardError("the run's guard keeper said what no keeper says") from None

    def answer(self, take_id):
        found = _line(self.data, b"a " + self.key + b" " + take_id.encode("ascii") + b" ")
        return None if found is None else {b"1": True, b"0": False}.get(found, "cannot")


def read(keeper, key):
    """The keeper's View of turn key; GuardError when the keeper is gone or keeps no
    such turn (a process that moved its deletions to another turn)."""
    try:
        data = snapshot(keeper)
    except Unreachable as exc:
        raise GuardError(str(exc)) from None
    return parse(data, key)


def parse(data, key):
    """The View of turn key in the publication's text data (bytes, after the header):
    the same in both runtimes (tests/vectors/keeper.json)."""
    if not data.startswith(MAGIC):
        raise GuardError("the run's guard keeper is not one")
    key = key.encode("ascii")
    fields = _line(data, b"t " + key + b" ")
    if fields is None:
        raise GuardError("the run's guard keeper keeps no such turn, so nothing was deleted")
    try:
        return View(fields.split(), data, key)
    except (ValueError, IndexError, UnicodeDecodeError):
        raise GuardError("the run's guard keeper said what no keeper says") from None
