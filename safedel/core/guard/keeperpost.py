"""The run's guard keeper's publication, found and read (Linux); what a process under a
run asks it is core/guard/keeperview.py, which says why it exists.

Where the keeper publishes, and why a command cannot stand in for it:
- the run process names its main thread `sdkeep <inode>` (prctl PR_SET_NAME): only a
  process can name its own threads, and /proc/<pid>/stat shows the name to everyone,
  even for the net's supervisor, which is not dumpable. The run process is an ancestor
  of every process under it (a child subreaper, or their parent), so the outermost
  ancestor with such a name is the run's keeper, whatever the command names its own;
- the publication is a memfd of that inode, sealed against every write but the
  keeper's own mapping (F_SEAL_FUTURE_WRITE), handed to the command at KEEPER_FD. A
  process reads its own copy, or the first of its ancestors' it can open through /proc
  (a program that closed its descriptors before it started this one): whichever it
  opens, the inode says it is the keeper's.

The publication: 8 bytes of sequence number (odd while the keeper writes), 8 of length,
then lines of ASCII words (no JSON: a launcher would pay for `json`):
    safedel-keeper 1 PID
    t KEY INO HWM GRANTED MODE OUTSIDE CANASK DAMAGED THRESHOLD   per turn it keeps
    w KEY WHY...                                           why a damaged turn is
    v KEY ID VERDICT GRANTED                               the latest takes read
    a KEY ID ANSWER                                        the person's answers: 1, 0, -
KEY is <sha256(session)[:16]>/<sha256(turn)[:16]>; shims/node/keeper.cjs reads the same.
"""

import os
import sys
import time

from .ledger import GuardError

KEEPER_FD = 1000
MEMFD = "safedel-keeper"
NAME = "sdkeep "  # the run process's main thread: `sdkeep <inode in hex>`
HEADER = 16
MAGIC = b"safedel-keeper 1 "
_found = []  # [(pid, inode) or None] once looked up: ancestors only die, never appear
_held = []  # [fd] this process opened on the keeper's memfd


def _stat(pid):
    """(parent pid, thread name) of pid from /proc/<pid>/stat, or None."""
    try:
        fd = os.open(f"/proc/{pid}/stat", os.O_RDONLY)
        try:
            data = os.read(fd, 2048)
        finally:
            os.close(fd)
        close = data.rindex(b")")
        name = data[data.index(b"(") + 1 : close]
        return int(data[close + 2 :].split()[1]), name
    except (OSError, ValueError, IndexError):
        return None


def _keeper_named(name):
    """The inode a keeper's thread name gives, or None."""
    if not name.startswith(NAME.encode()):
        return None
    try:
        return int(name[len(NAME) :], 16)
    except ValueError:
        return None


def _lookup():
    """[(pid, inode) of the outermost keeper among this process and its ancestors, the
    pids from this process up to it]."""
    chain, found, pid = [], None, os.getpid()
    while pid > 0 and len(chain) < 256:
        info = _stat(pid)
        if info is None:
            break
        chain.append(pid)
        inode = _keeper_named(info[1])
        if inode is not None:
            found = (pid, inode, list(chain))
        pid = info[0]
    return found


def keeper_pid():
    """The outermost ancestor of this process (itself included) that is a keeper."""
    found = find()
    return None if found is None else found[0]


def find():
    """(pid, inode, the pids from this process up to it) of the run's keeper, or None."""
    if not sys.platform.startswith("linux"):
        return None
    if not _found:
        _found.append(_lookup())
    return _found[0]


def forget():
    """Look the keeper up again (a process that started or stopped one)."""
    _found.clear()
    while _held:
        try:
            os.close(_held.pop())
        except OSError:
            pass


def _publication(found):
    """A descriptor on the keeper's memfd: this process's own inherited one, else one
    opened through an ancestor that still holds it."""
    _pid, inode, chain = found
    if _held and _is_it(_held[0], inode):
        return _held[0]
    forget_held = list(_held)
    _held.clear()
    for fd in forget_held:
        try:
            os.close(fd)
        except OSError:
            pass
    if _is_it(KEEPER_FD, inode):
        return KEEPER_FD
    for pid in chain:
        try:
            fd = os.open(f"/proc/{pid}/fd/{KEEPER_FD}", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            continue
        if _is_it(fd, inode):
            _held.append(fd)
            return fd
        os.close(fd)
    raise GuardError("cannot reach the run's guard keeper, so nothing was deleted")


def _is_it(fd, inode):
    try:
        info = os.fstat(fd)
    except OSError:
        return False
    return info.st_ino == inode and info.st_nlink == 0


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


def _line(data, head):
    """The rest of the line that starts with head, or None."""
    start = data.find(b"\n" + head)
    if start < 0:
        return None
    start += 1 + len(head)
    end = data.find(b"\n", start)
    return data[start : end if end >= 0 else len(data)]


def read(keeper, key):
    """The keeper's View of turn key; GuardError when the keeper is gone or keeps no
    such turn (a process that moved its deletions to another turn)."""
    fd = _publication(keeper)
    pause = 0.0
    while True:
        try:
            head = os.pread(fd, HEADER, 0)
            length = int.from_bytes(head[8:16], "little")
            data = os.pread(fd, length, HEADER)
            again = os.pread(fd, 8, 0)
        except OSError as exc:
            raise GuardError(f"cannot read the run's guard keeper: {exc.strerror}") from None
        if again == head[:8] and not head[0] & 1:
            break
        if pause > 1.0:  # a keeper descheduled mid-write gets well over a second
            raise GuardError("the run's guard keeper never stops writing")
        time.sleep(pause)
        pause = pause * 2 or 0.0001
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
