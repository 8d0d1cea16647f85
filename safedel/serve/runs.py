"""One served command: its environment, its spawn, its streamed output and its end.

The command's stdout and stderr are pipes that the server reads: every chunk goes to
the run's output file (so the result's views and outputFiles are those of `safedel run
--capture`) and out as a ProcessOutput event. A background process holding a pipe
cannot hold the run open: when the root exits, the executor ends the tree, and what is
still unread after DRAIN_SECONDS is left in the file.
"""

import _thread
import codecs
import os
import select
import sys
import threading
import time

from ..core.contract import runpointer, runrecord
from ..core.contract import settings as core_settings
from ..core.guard.outside import KIND as OUTSIDE
from ..core.guard.rule import CONFIRM
from ..core.report import write as report
from ..executor import approval, capture, captured, childenv, process, result, runstate, tree, view
from . import pointers, protocol, sessions, terminal

DRAIN_SECONDS = 1.0
ASKING = (CONFIRM, OUTSIDE)  # the signal kinds the user can answer
# cd first, then exec: posix_spawn has no working-directory action.
_CD = 'cd -- "$1" || exit 126; shift; exec "$@"'


class ServedRun:
    def __init__(self, server, session, conn, process_id, spec):
        self.server, self.session, self.conn = server, session, conn
        self.id = process_id
        self.spec = spec
        # A protected run's id comes with the directory it takes (spares.py) at start.
        self.run_id = capture.new_run_id() if spec["unprotected"] else None
        self.spare = None
        self.env = self._environment()
        self.execution = None
        self.done = threading.Event()  # the tree has ended
        self.reported = threading.Event()  # ProcessExit is out
        self._lock = threading.Lock()
        self._drain_by = None
        self._stdin = None
        self.signal = None  # the latest guard signal this run left
        self._signals_closed = False  # set once ProcessExit is being built
        self._signal_lock = threading.Lock()

    def _environment(self):
        spec, session = self.spec, self.session
        merged = dict(self.server.base_env)
        # The client's SAFEDEL_* variables are ignored: the contract is the server's.
        merged.update({k: v for k, v in spec["env"].items() if not k.startswith("SAFEDEL_")})
        if spec["unprotected"]:
            merged["SAFEDEL_SERVE_RUN"] = self.run_id  # found by the next server (leftovers.py)
            return merged
        options = childenv.RunOptions(
            decide_roots=True,
            cwd=spec["cwd"],
            session=session.id,
            turn=spec["turn"],
            tool_call=spec["toolCall"],
            threshold=session.threshold,
            report=session.report,
            workspace=session.roots,
        )
        merged.pop("SAFEDEL_TURN_FILE", None)
        env = childenv.child_environment(merged, self.server.home, options)
        env.update(SAFEDEL_PROMPT="0", SAFEDEL_HARNESS="1")
        return env

    def start(self):
        """Spawn the command; OSError (as a ProtocolError upstream) if it cannot be."""
        protected = not self.spec["unprotected"]
        self.pointer = None
        if protected:
            self.spare = self.server.spares.take(self.env["SAFEDEL_STATE_DIR"])
            self.run_id = self.spare.run_id
            self.env["SAFEDEL_RUN_ID"] = self.run_id
            try:
                self.pointer = self._record()
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
            raise
        command = self.spec["argv"]
        if self.spec["cwd"]:
            command = ["/bin/sh", "-c", _CD, "sh", self.spec["cwd"], *command]
        self.execution = process.Execution(
            command, self.env, fds, self.spec["timeoutMs"], self.spec["graceMs"]
        )

        self.net = self._net()
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
            self.server.watch.add(self, self.env["SAFEDEL_STATE_DIR"], self.session.id)
            self.offset = runstate.report_size(self.env)
            self.outputs = self.spare.outputs()
        else:
            state_dir = self.env.get("SAFEDEL_STATE_DIR") or self.server.state_dir
            self.outputs = capture.Outputs(state_dir, self.run_id)
        return self._channels()

    def _net(self):
        """The seccomp net, as `safedel run` has it (config `net`, Linux), on pipes and
        on a pty alike (its spawn opens the pty's slave in the child, after setsid)."""
        if self.spec["unprotected"]:
            return None
        if not sys.platform.startswith("linux"):
            return None
        from ..net.session import prepare

        return prepare(None, self.env)

    def _channels(self):
        """(fds for the executor, the child's file actions from the executor's, the
        child's ends to close here): pipes, or a pty (stream "pty")."""
        if self.spec["usePty"]:
            master, slave_path = terminal.open_pty(self.spec["cols"], self.spec["rows"])
            self._readers = {master: "pty"}
            self._stdin = os.dup(master)
            self.pty = master
            fds = {"stdout": master, "stderr": master}  # replaced by the pty's actions
            return fds, lambda _given: terminal.child_actions(slave_path), []
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        in_r, self._stdin = os.pipe()
        self._readers = {out_r: "stdout", err_r: "stderr"}
        self.pty = None

        def actions(given):
            return [(os.POSIX_SPAWN_DUP2, in_r, 0), *given]

        return {"stdout": out_w, "stderr": err_w}, actions, [out_w, err_w, in_r]

    def _record(self):
        """What runstate.record does for `safedel run`, at the cost a resident server
        can afford per run: the run record each time; the session's approval token and
        the pruning of old runs once (they hold until the server ends)."""
        state_dir = self.env["SAFEDEL_STATE_DIR"]
        fixed = core_settings.load(self.env)
        values = {"session": fixed.session, "turn": fixed.turn, "toolCall": fixed.tool_call}
        values.update(threshold=fixed.threshold, turnStart=fixed.turn_start, pid=os.getpid())
        values[runrecord.LEDGER] = runrecord.ledger_names(fixed.session, fixed.turn)
        # The run's ledger and report, whatever state dir the command names for itself.
        values.update({runrecord.STATE_DIR: fixed.state_dir, runrecord.REPORT: fixed.report})
        values.update(runstate.fixed_policy(fixed, self.env))
        # Found from the process tree by a command that drops SAFEDEL_RUN_ID or moves the
        # state dir, HOME or XDG_STATE_HOME (pointers.py); opened before the record is
        # written, so a run that could leave no pointer leaves nothing.
        pointer = None
        if sys.platform.startswith("linux"):
            pointer = pointers.Pointer(dict(values, run=self.run_id), self.server.folders)
        try:
            self.spare.write_record(values)  # runrecord.write, into a file made ahead
        except BaseException:
            if pointer is not None:
                pointer.close()
            raise
        with self.session.lock:
            if self.session.token_state_dir != state_dir:
                token = os.path.join(self.server.private, "approval-" + self.session.digest)
                approval.record(state_dir, self.session.id, approval.ensure_token(token))
                capture.prune(state_dir)
                self.session.token_state_dir = state_dir
        return pointer

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
            self._read_output()
        finally:
            self._pumped.release()

    def _read_output(self):
        decoders = {fd: codecs.getincrementaldecoder("utf-8")("replace") for fd in self._readers}
        # poll, not select: with hundreds of runs the fds pass select's limit of 1024.
        poller, open_fds = select.poll(), list(self._readers)
        for fd in open_fds:
            poller.register(fd, select.POLLIN)
        while open_fds:
            timeout = None if self._drain_by is None else 50
            ready = [fd for fd, _ in poller.poll(timeout)]
            if not ready and self._drain_by is not None and time.monotonic() > self._drain_by:
                break
            for fd in ready:
                try:
                    chunk = os.read(fd, 65536)
                except BlockingIOError:
                    continue
                except OSError:
                    chunk = b""  # EIO: a pty whose every slave end is closed
                if not chunk:
                    open_fds.remove(fd)
                    poller.unregister(fd)
                    continue
                stream = self._readers[fd]
                os.write(self.outputs.fds["stdout" if stream == "pty" else stream], chunk)
                self.session.count("outputBytes", len(chunk))
                self._emit_output(stream, decoders[fd].decode(chunk))
        for fd in self._readers:
            os.close(fd)

    def _emit_output(self, stream, text):
        if text:
            data = {"processId": self.id, "stream": stream, "data": text}
            data["timestamp"] = protocol.now_ms()
            self.conn.send(protocol.event(self.session.id, "ProcessOutput", data))

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
                outcome = captured._not_started(self.spec["argv"], failed, self.outputs)
            self.server.untrack(self.run_id)
        else:
            outcome = captured._not_started(self.spec["argv"], self.failed, self.outputs)
        if self.pointer is not None:
            self.pointer.remove()
        self._drain_by = time.monotonic() + DRAIN_SECONDS
        self._pumped.acquire()  # the output is read to its end, or drained
        with self._lock:
            self.done.set()
            if self._stdin is not None:
                os.close(self._stdin)
        # An empty file's view is known without opening it again by path.
        empty = {s for s, fd in self.outputs.fds.items() if os.fstat(fd).st_size == 0}
        self.outputs.close()
        budget = self.spec["maxOutput"]
        views = {s: self._view(s, budget, s in empty) for s in ("stdout", "stderr")}
        try:
            self._report(outcome, views)
        finally:
            if self.spare is not None:  # made after the ProcessExit, for the next run
                self.server.spares.refill(self.env["SAFEDEL_STATE_DIR"])

    def _view(self, stream, budget, empty):
        return ("", False) if empty else view.render(self.outputs.paths[stream], budget)

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

    def _report(self, outcome, views):
        env, events = self.env, []
        if not self.spec["unprotected"]:
            offset = report.read_after(env["SAFEDEL_REPORT"], self.offset)
            events = [e for e in offset if e.get("run") == self.run_id]
            self.take_signal()
            self.server.watch.remove(self)
        with self._signal_lock:
            self._signals_closed = True
            signal = self.signal
        env.setdefault("SAFEDEL_SESSION", self.session.id)
        env.setdefault("SAFEDEL_TURN", self.spec["turn"] or "")
        env.setdefault("SAFEDEL_TOOL_CALL", self.spec["toolCall"] or "")
        built = result.build(outcome, env, events, signal, self.run_id, views, self.outputs)
        self.session.count("trashed", len(built["trashed"]))
        self.session.count("refused", len(built["refused"]))
        self.session.count("restored", sum(e.get("operation") == "restore" for e in events))
        built["processId"] = self.id
        self.conn.send(protocol.event(self.session.id, "ProcessExit", built))
        self.server.finished(self)

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
