"""Run directories made ahead of time, so that starting a run creates no file.

A served run keeps its record and its output where `safedel run --capture` does:
<state>/runs/<run id>/run.json, stdout and stderr. Making that directory and its three
files is four inode allocations, which on some file systems cost a few hundred
microseconds each: most of a warm round trip for `true`. So after a run's ProcessExit
is out, the server makes the next run's directory under a fresh run id, creates its
files empty (O_EXCL, 0600, in 0700 directories opened without following symlinks, as
before) and keeps them open. The next protected run in that state dir takes it: it
writes its record into the open file before its spawn, as a run always did, and its
output goes to the open files. Nothing names the run id before the run takes it.

A spare older than MAX_AGE_SECONDS is dropped (its directory's age is what pruning
goes by), and so is one whose files were removed meanwhile; a run that finds no spare
(the first, or several at once) makes its own directory, as before. The server removes
its unused spares when it ends; one left by a killed server is an empty record and two
empty files, pruned like any old run.
"""

import _thread
import os
import threading
import time

from ..core import jsonl
from ..core.contract import runrecord
from ..core.private import open_dir
from ..executor import capture

MAX_AGE_SECONDS = 600
MAX_STATE_DIRS = 8  # spares kept at once, one per state dir
WAIT_SECONDS = 1.0  # for a spare being made: sooner than making another
NAMES = (runrecord.RECORD, "stdout", "stderr")
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC


class Spare:
    """One run's directory, made: its run id, path and open files."""

    def __init__(self, state_dir):
        self.run_id = capture.new_run_id()
        self.made = time.monotonic()
        self.fds = {}
        self.runs = open_dir(state_dir, [runrecord.RUNS])  # kept to remove it by
        try:
            with self.runs.subdir(self.run_id, create=True) as directory:
                self.path = directory.path
                for name in NAMES:
                    self.fds[name] = directory.open(name, _CREATE)
        except OSError:
            self.discard()
            raise

    def usable(self):
        """Young enough, and every file still where the run's readers look for it."""
        if time.monotonic() - self.made > MAX_AGE_SECONDS:
            return False
        try:
            return all(os.fstat(fd).st_nlink for fd in self.fds.values())
        except OSError:
            return False

    def write_record(self, values):
        """The run's record, once (runrecord.write's content); OSError if it fails."""
        data = jsonl.dumps(values).encode("ascii")
        fd = self.fds.pop(runrecord.RECORD)
        try:
            if os.write(fd, data) != len(data):
                raise OSError("the run record was written in part")
        finally:
            os.close(fd)

    def outputs(self):
        """The run's capture.Outputs, on the open stdout and stderr; the spare is the
        run's from now on."""
        streams = ("stdout", "stderr")
        paths = {s: os.path.join(self.path, s) for s in streams}
        self.runs.close()
        return capture.Outputs.opened({s: self.fds.pop(s) for s in streams}, paths)

    def discard(self):
        """Close what is open and remove the directory (best effort)."""
        for fd in self.fds.values():
            os.close(fd)
        self.fds = {}
        if self.runs.fd is None:
            return  # taken by its run
        try:
            with self.runs.subdir(self.run_id) as directory:
                for name in NAMES:
                    try:
                        directory.unlink(name)
                    except OSError:
                        pass
            self.runs.rmdir(self.run_id)
        except OSError:
            pass
        finally:
            self.runs.close()


class Spares:
    """The server's spares: at most one ready, or being made, per state dir."""

    def __init__(self):
        self._lock = threading.Lock()
        self._ready = {}  # state dir -> Spare
        self._making = {}  # state dir -> Event set when made
        self._closed = False

    def take(self, state_dir):
        """A Spare for state_dir: the one made ahead while it is good, else a new one
        (OSError when none can be made)."""
        with self._lock:
            making = self._making.get(state_dir)
        if making is not None:
            making.wait(WAIT_SECONDS)
        with self._lock:
            spare = self._ready.pop(state_dir, None)
        if spare is not None:
            if spare.usable():
                return spare
            spare.discard()
        return Spare(state_dir)

    def refill(self, state_dir):
        """Make state_dir's next spare in the background, off any run's critical path."""
        with self._lock:
            if self._closed or state_dir in self._ready or state_dir in self._making:
                return
            if len(self._ready) + len(self._making) >= MAX_STATE_DIRS:
                return
            made = self._making[state_dir] = threading.Event()
        # _thread: Thread.start() waits until the new thread has run.
        _thread.start_new_thread(self._make, (state_dir, made))

    def _make(self, state_dir, made):
        try:
            spare = Spare(state_dir)
        except OSError:
            spare = None  # the next run makes its own, and says why if it cannot
        with self._lock:
            del self._making[state_dir]
            if spare is not None and not self._closed:
                self._ready[state_dir], spare = spare, None
        if spare is not None:
            spare.discard()  # the server is ending: before close() stops waiting
        made.set()

    def close(self):
        """Remove the unused spares, once those being made are done."""
        with self._lock:
            self._closed = True
            making = list(self._making.values())
        for made in making:
            made.wait(WAIT_SECONDS)
        with self._lock:
            spares, self._ready = list(self._ready.values()), {}
        for spare in spares:
            spare.discard()
