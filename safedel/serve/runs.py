"""One served command: its lifecycle (start, the threads that stream its output and wait
for its end, the end itself) and its control (signals, keys, stdin, the pty's size).

What it is set up with (environment, run record, channels, net) is runsetup.py's; its
output and its ProcessExit are runoutput.py's. The command's stdout and stderr are pipes
that the server reads. A background process holding a pipe cannot hold the run open:
when the root exits, the executor ends the tree, and what is still unread after
DRAIN_SECONDS is left in the file.
"""

import _thread
import os
import threading
import time

from ..core.contract import runpointer
from ..core.guard.outside import KIND as OUTSIDE
from ..core.guard.rule import CONFIRM
from ..executor import capture, captured, process, runstate, tree
from . import pointers, protocol, runoutput, runsetup, sessions, terminal

DRAIN_SECONDS = 1.0
ASKING = (CONFIRM, OUTSIDE)  # the signal kinds the user can answer


class ServedRun:
    def __init__(self, server, session, conn, process_id, spec):
        self.server, self.session, self.conn = server, session, conn
        self.id = process_id
        self.spec = spec
        # A protected run's id comes with the directory it takes (spares.py) at start.
        self.run_id = capture.new_run_id() if spec["unprotected"] else None
        self.spare = None
        self.env = runsetup.environment(self)
        self.execution = None
        self.done = threading.Event()  # the tree has ended
        self.reported = threading.Event()  # ProcessExit is out
        self._lock = threading.Lock()
        self.drain_by = None  # once the tree has ended: read its output until then
        self._stdin = None
        self.signal = None  # the latest guard signal this run left
        self._signals_closed = False  # set once ProcessExit is being built
        self._signal_lock = threading.Lock()
        self.kept = None  # the turn's key in the server's guard keeper, while kept

    def start(self):
        """Spawn the command; OSError (as a ProtocolError upstream) if it cannot be."""
        protected = not self.spec["unprotected"]
        self.pointer = None
        if protected:
            self.spare = self.server.spares.take(self.env["SAFEDEL_STATE_DIR"])
            self.run_id = self.spare.run_id
            self.env["SAFEDEL_RUN_ID"] = self.run_id
            try:
                self.pointer = runsetup.record(self)
            except BaseException:
                self.spare.discard()  # no record: the directory is nobody's
                raise
        try:
            fds, actions, child_ends = self._prepare(protected)
        except BaseException:
            if self.pointer is not None:
                self.pointer.close()  # nothing was spawned: nothing wrote it
            if self.spare is not None:
                self.spare.discard()  # what the run has not taken yet
            self._unkeep()
            raise
        self.execution = process.Execution(
            runsetup.command(self.spec), self.env, fds, self.spec["timeoutMs"], self.spec["graceMs"]
        )

        self.net = runsetup.net(self.spec, self.env)
        pointer = self.pointer
        self.execution.spawn = pointers.spawner(self.server.forks, self.net, pointer, actions)
        # Before the spawn: a server killed at any moment after it must leave the
        # record its successor ends the tree by (the run id is in the tree's environment).
        self.server.expect(self.run_id)
        try:
            self.execution.start()
        except OSError as exc:
            self.failed = exc
            self.server.untrack(self.run_id)
        except BaseException:
            self.server.untrack(self.run_id)  # nothing runs: no record to leave
            if pointer is not None:
                pointer.remove()
            raise
        else:
            self.failed = None
            # `<pid>-<start time>`, read once: the pointer's name and the journal's entry.
            key = runpointer.pid_key(self.execution.pid)
            if pointer is not None:
                pointer.key = key
                if self.kept is not None:  # what the root's processes check it by
                    self.server.keeper.place(self.run_id, key)
            # Several trees side by side: only this root's processes are this run's.
            self.execution.tree = tree.Tree(self.execution.pid, exclusive=False)
            self.server.track(self.run_id, self.execution.pid, key)
        finally:
            for fd in child_ends:
                os.close(fd)
        os.set_blocking(self._stdin, False)
        self.session.count("runs")
        return {"processId": self.id, "runId": self.run_id, "pid": self.execution.pid}

    def _prepare(self, protected):
        """The run's turn, guard watch, report offset and output files; its channels."""
        if protected:
            sessions.open_turn(self.session, self.env)
            keeper, fixed = self.server.keeper, self.fixed
            if keeper is not None:  # after open_turn: its approval was there before
                keeper.hold_record(self.run_id, self.pointed)
                self.kept = keeper.watch(fixed)
            self.server.watch.add(self, self.env["SAFEDEL_STATE_DIR"], self.session.id)
            self.offset = runstate.report_size(self.env)
            self.outputs = self.spare.outputs()
        else:
            state_dir = self.env.get("SAFEDEL_STATE_DIR") or self.server.state_dir
            self.outputs = capture.Outputs(state_dir, self.run_id)
        fds, actions, child_ends, self.readers, self._stdin, self.pty = runsetup.channels(self.spec)
        return fds, actions, child_ends

    def begin(self):
        """After the response is out: stream the output and wait for the end."""
        # _thread, not threading: Thread.start() waits until the new thread has run, a
        # scheduling delay in front of every round trip on a busy machine.
        self._pumped = _thread.allocate_lock()
        self._pumped.acquire()
        _thread.start_new_thread(self._pump, ())
        _thread.start_new_thread(self._finish, ())

    def _pump(self):
        try:
            runoutput.read_output(self)
        finally:
            self._pumped.release()

    def _finish(self):
        try:
            self._end()
        finally:
            self.reported.set()

    def _end(self):
        if self.failed is None:
            outcome = self.execution.wait()
            if self.net is not None:
                self.net.close()
            # The fork server answers before its child's exec: a failed exec is known
            # now, and the run did not start, as with a failed spawn.
            failed = self.server.forks.exec_failure(self.execution.pid)
            if failed is not None:
                outcome = captured.not_started(self.spec["argv"], failed, self.outputs)
            self.server.untrack(self.run_id)
        else:
            outcome = captured.not_started(self.spec["argv"], self.failed, self.outputs)
        if self.pointer is not None:
            self.pointer.remove()
        self._unkeep()
        self.drain_by = time.monotonic() + DRAIN_SECONDS
        self._pumped.acquire()  # the output is read to its end, or drained
        with self._lock:
            self.done.set()
            if self._stdin is not None:
                os.close(self._stdin)
        # An empty file's view is known without opening it again by path.
        empty = {s for s, fd in self.outputs.fds.items() if os.fstat(fd).st_size == 0}
        self.outputs.close()
        budget = self.spec["maxOutput"]
        views = {
            s: runoutput.view(self.outputs, s, budget, s in empty) for s in ("stdout", "stderr")
        }
        try:
            runoutput.report(self, outcome, views)
        finally:
            if self.spare is not None:  # made after the ProcessExit, for the next run
                self.server.spares.refill(self.env["SAFEDEL_STATE_DIR"])

    def _unkeep(self):
        kept, self.kept = self.kept, None
        if kept is not None:
            self.server.keeper.unwatch(kept)
            self.server.keeper.release_record(self.run_id)

    def take_signal(self):
        """Take the guard signal the run left, if any, and put a question the user can
        answer to the harness as a GuardRequest: as soon as the refusal is written
        (asking.Watch), and once more when the run ends, before its ProcessExit."""
        with self._signal_lock:
            if self._signals_closed or self.spec["unprotected"]:
                return
            env = self.env
            state_dir, session = env["SAFEDEL_STATE_DIR"], env["SAFEDEL_SESSION"]
            signal = runstate.take_signal(state_dir, session, self.run_id)
            if signal is None:
                return
            self.signal = signal
            if signal.get("type") in ASKING:
                kind = signal["type"]
                request_id = sessions.ask(self.session, kind, env, signal.get("payload"))
                data = {"processId": self.id, "requestId": request_id, "kind": kind}
                data.update(payload=signal.get("payload"), turn=signal.get("turn"))
                self.conn.send(protocol.event(self.session.id, "GuardRequest", data))

    def close_signals(self):
        """No more guard questions once the ProcessExit is being built: the last signal."""
        with self._signal_lock:
            self._signals_closed = True
            return self.signal

    def alive(self):
        return not self.done.is_set()

    def kill(self, signum):
        with self._lock:
            if not self.done.is_set() and self.execution is not None and self.failed is None:
                self.execution.stop(signum)

    def send_key(self, name):
        """A named key: its bytes on a pty; without one, CTRL_C interrupts the tree
        (SIGINT, as a terminal would send) and other keys go to stdin."""
        if name not in terminal.KEYS:
            raise protocol.ProtocolError(f"unknown key {name!r}")
        if self.pty is None and name == "CTRL_C":
            import signal

            self.kill(signal.SIGINT)
            return 0
        return self.write(terminal.KEYS[name])

    def resize(self, cols, rows):
        with self._lock:
            if self.pty is None:
                raise protocol.ProtocolError("the process has no pty (usePty)")
            if self.done.is_set():
                raise protocol.ProtocolError("the process has exited")
            terminal.resize(self._stdin, cols, rows)

    def write(self, data, eof=False):
        with self._lock:
            if self.done.is_set() or self._stdin is None:
                raise protocol.ProtocolError("the process has exited")
            try:
                written = os.write(self._stdin, data) if data else 0
            except BlockingIOError:
                raise protocol.ProtocolError("the process's stdin is full") from None
            except BrokenPipeError:
                raise protocol.ProtocolError("the process closed its stdin") from None
            if eof:
                os.close(self._stdin)
                self._stdin = None
        return written
