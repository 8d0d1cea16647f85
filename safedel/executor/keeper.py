"""The run's guard keeper (Linux): the turn's state, kept where the run's command
cannot reach it.

A command runs as the same user as safedel, so it can write the turn's ledger: append
an approval, truncate it, overwrite it with garbage. The keeper is a thread of the
`safedel run` (or `safedel serve`) process, started before the command, which reads
the ledger as it grows (inotify on its folder, and a look every 100 ms besides) and
keeps the turn's count, approvals and damage in its own memory (executor/keptturn.py).
Every process under the run asks it for its verdict (core/guard/keeperview.py): it
appends its take, then waits until the keeper has read that line and published what
it got. The publication (core/guard/keeperpost.py) is a memfd that only the keeper's
own mapping can write, sealed before the command starts, handed down at KEEPER_FD and
named in this process's main thread's name, which no other process can set.

The keeper is also the only one under a run who asks the person at the terminal: a
process of the command asks it (an `ask` line), since a terminal the command can reach
is one it can answer (a pty of its own, TIOCSTI). It asks on the run's own terminal, one
question at a time; no, Ctrl-D, and the asker's death (Ctrl-C killed it) are a no,
recorded as a reject. And `safedel serve` makes its ReportBlockChoice approvals through
it (mark), so that they count at once.
"""

import ctypes
import fcntl
import mmap
import os
import select
import threading

from ..core.guard import keeperpost, outside, prompt, rule
from ..core.guard.ledger import GuardError
from .keptturn import KeptTurn

_F_ADD_SEALS = 1033
# SEAL (no more seals), SHRINK, GROW, FUTURE_WRITE (Linux 5.1: no write but through a
# shared mapping made before it, which only this process has).
_SEALS = 0x0001 | 0x0002 | 0x0004 | 0x0010
_PR_SET_NAME = 15
_IN_EVENTS = 0x2 | 0x4 | 0x40 | 0x80 | 0x100 | 0x200 | 0x400 | 0x800  # all changes
_IN_CLOEXEC = 0o2000000
SIZE = 8 << 20  # room for the publication; pages are only used as written
POLL = 0.1


class Keeper:
    def __init__(self):
        self.turns = {}  # key -> KeptTurn
        self.records = {}  # run id -> [its pointer's name or "-", its record (JSON text)]
        self.lock = threading.RLock()
        self.asking = threading.Condition(self.lock)
        self.stopping = False
        self.asked = None  # (kept turn, kind) of the question on the terminal now
        self.seq = 0
        libc = ctypes.CDLL(None, use_errno=True)
        self._open_publication(libc)
        self._notify = libc.inotify_init1(_IN_CLOEXEC)
        self._add_watch = libc.inotify_add_watch
        keeperpost.forget()  # this process is a keeper now
        self.thread = threading.Thread(target=self._loop, name="guard-keeper", daemon=True)
        self.asker = threading.Thread(target=self._ask_loop, name="guard-asker", daemon=True)
        self.thread.start()
        self.asker.start()

    @classmethod
    def start(cls):
        """A running keeper, or None where there can be none (not Linux, no memfd, a
        kernel before 5.1). Called on the main thread, whose name it takes."""
        if not hasattr(os, "memfd_create") or threading.current_thread() is not (
            threading.main_thread()
        ):
            return None
        try:
            return cls()
        except (OSError, AttributeError, ValueError):
            return None

    def _open_publication(self, libc):
        fd = os.memfd_create(keeperpost.MEMFD, os.MFD_CLOEXEC | os.MFD_ALLOW_SEALING)
        try:
            os.ftruncate(fd, SIZE)
            self.mapping = mmap.mmap(fd, SIZE, mmap.MAP_SHARED, mmap.PROT_READ | mmap.PROT_WRITE)
            self._publish()
            fcntl.fcntl(fd, _F_ADD_SEALS, _SEALS)
            inode = os.fstat(fd).st_ino
            # Handed down to the command (inherited), not to safedel's own helpers.
            os.dup2(fd, keeperpost.KEEPER_FD, inheritable=True)
        finally:
            os.close(fd)
        name = f"{keeperpost.NAME}{inode:x}".encode("ascii")
        if libc.prctl(_PR_SET_NAME, name, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "cannot name the keeper's thread")

    def watch(self, settings, can_ask=False):
        """Keep the turn of settings (a run's fixed Settings) again; its key. Read now, so
        what is there counts as written before the command started. GuardError if its
        ledger's folder cannot be used."""
        with self.lock:
            kept = KeptTurn(settings, can_ask)
            found = self.turns.get(kept.key)
            if found is not None:
                kept.close()
                found.refs += 1
                return found.key
            self.turns[kept.key] = kept
            if self._notify >= 0:
                path = f"/proc/self/fd/{kept.directory.fd}".encode()
                self._add_watch(self._notify, path, ctypes.c_uint32(_IN_EVENTS))
            self._publish()
            return kept.key

    def hold_record(self, run_id, pointed, pointer=None):
        """Publish the run's record (pointed: its pointer's values, run id included),
        which every process under the run takes its values from and checks its files
        against (core/contract/keptrecord.py); pointer: the name of the pointer the run
        leaves (`<pid>-<start time>`), once known (place)."""
        from ..core import jsonl

        with self.lock:
            self.records[run_id] = [pointer or "-", jsonl.dumps(pointed)]
            self._publish()

    def place(self, run_id, pointer):
        """The name of the run's pointer, known once its root process runs."""
        with self.lock:
            if run_id in self.records and pointer:
                self.records[run_id][0] = pointer
                self._publish()

    def release_record(self, run_id):
        with self.lock:
            if self.records.pop(run_id, None) is not None:
                self._publish()

    def unwatch(self, key):
        with self.lock:
            kept = self.turns.get(key)
            if kept is not None:
                kept.refs -= 1
                if kept.refs <= 0:
                    del self.turns[key]
                    kept.update()  # a damaged turn is marked so one last time
                    kept.close()
                    self._publish()

    def drop(self, session):
        """Keep no turn of session any more, without a last look: its ledgers are about
        to be removed on purpose (`safedel serve`'s DeleteSession)."""
        with self.lock:
            for key in [k for k, kept in self.turns.items() if kept.where.session == session]:
                self.turns.pop(key).close()
            self._publish()

    def mark_if_kept(self, settings, op, by):
        """An approval (or reject) of the keeper's own, which counts at once, for the
        turn of settings if the keeper keeps it; False if it does not."""
        from .keptturn import key_of

        with self.lock:
            kept = self.turns.get(key_of(settings.session, settings.turn))
            if kept is None:
                return False
            kept.approve(op, by)
            kept.update()
            self._publish()
            return True

    def stop(self):
        """Keep nothing any more: a process still asking fails closed at once. A damaged
        turn is marked so in its ledger one last time, whatever the command did to it."""
        with self.lock:
            self.stopping = True
            self.asking.notify_all()
            if self.asked is not None and self.asked[1] != "outsideWorkspace":
                # The run ends while its question waits (Ctrl-C ended the command): a no.
                try:
                    self.asked[0].approve("reject", "keeper:prompt")
                except GuardError:
                    pass
            for kept in self.turns.values():
                kept.update()
                kept.close()
            self.turns.clear()
            self.records.clear()
            self._publish()
            try:
                os.close(keeperpost.KEEPER_FD)
            except OSError:
                pass
            ctypes.CDLL(None).prctl(_PR_SET_NAME, b"safedel", 0, 0, 0)
        keeperpost.forget()

    def _loop(self):
        while not self.stopping:
            try:
                ready = select.select([self._notify], [], [], POLL)[0] if self._notify >= 0 else []
                if ready:
                    os.read(self._notify, 65536)
            except (OSError, ValueError):
                if self.stopping:
                    return
            with self.lock:
                if self.stopping:
                    return
                changed = False
                for kept in self.turns.values():
                    before = (kept.hwm, len(kept.answers), kept.state.damaged, len(kept.questions))
                    kept.update()
                    now = (kept.hwm, len(kept.answers), kept.state.damaged, len(kept.questions))
                    changed = changed or before != now
                if changed:
                    self._publish()
                    self.asking.notify_all()

    def _ask_loop(self):
        while True:
            with self.lock:
                found = self._next_question()
                while found is None and not self.stopping:
                    self.asking.wait()
                    found = self._next_question()
                if self.stopping:
                    return
                kept, (ident, kind, payload) = found
                self.asked = (kept, kind)
            answer = _ask(kept, ident, kind, payload)
            with self.lock:
                self.asked = None
                if self.stopping:
                    return
                if answer is not None:
                    op = {"outsideWorkspace": rule.APPROVE_OUTSIDE}.get(kind, "approve")
                    op = op if answer else "reject" if kind != "outsideWorkspace" else None
                    try:
                        if op is not None:
                            kept.approve(op, "keeper:prompt")
                        kept.update()
                    except GuardError:
                        answer = False  # an answer that cannot be recorded: no
                kept.answers[ident] = "-" if answer is None else "1" if answer else "0"
                self._publish()

    def _next_question(self):
        for kept in self.turns.values():
            if kept.questions:
                return kept, kept.questions.pop(0)
        return None

    def _publish(self):
        """Write the state of every kept turn into the publication, as a seqlock: the
        number is odd while it is written, and a reader that sees it change reads again."""
        lines = [f"safedel-keeper 1 {os.getpid()}"]
        # The records first, where a reader stops looking for them (keptrecord.published).
        lines += [f"r {run} {pointer} {text}" for run, (pointer, text) in self.records.items()]
        for kept in self.turns.values():
            lines += kept.render()
        data = ("\n".join(lines) + "\n").encode("ascii", "replace")[: SIZE - keeperpost.HEADER]
        self.seq += 1
        self.mapping[0:8] = self.seq.to_bytes(8, "little")
        self.mapping[keeperpost.HEADER : keeperpost.HEADER + len(data)] = data
        self.mapping[8:16] = len(data).to_bytes(8, "little")
        self.seq += 1
        self.mapping[0:8] = self.seq.to_bytes(8, "little")


def _ask(kept, ident, kind, payload):
    """The person's answer at this process's terminal: True, False, None (cannot ask).
    The asker's death while the question waits (Ctrl-C killed it) is a no, and so is
    the turn being decided meanwhile (the asker recorded a reject as it was stopped)."""
    asker = ident.split(".", 1)[0]

    def gone():
        return not asker.isdigit() or _dead(asker) or kept._decided(kind) is not None

    try:
        if kind == "outsideWorkspace":
            return prompt.ask(payload, outside.describe(payload), gone)
        return prompt.ask(payload, None, gone)
    except (KeyError, TypeError, ValueError):
        return None  # a payload no shim wrote: nothing to show a person
    except prompt.Interrupted:
        return False


def _dead(pid):
    """Whether pid has ended (a zombie nobody has reaped yet included)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return handle.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except (OSError, IndexError):
        return True
