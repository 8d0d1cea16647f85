"""The command table and the lifecycle of `safedel serve`.

Each connection has a reader thread; each run a waiting thread and an output thread,
so a Ping is answered while commands stream. SIGTERM (or stdin EOF in stdio mode) ends
every process tree the server started, then the socket is removed. The pid of each
run is recorded in <private dir>/procs/ (leftovers.py), so a server started on the same
path after a kill -9 ends the process trees its predecessor left.
"""

import os
import shutil
import signal
import socket
import sys
import tempfile
import threading
import time
import traceback

from .. import __version__
from ..core.contract import settings as core_settings
from ..executor import environ, killedruns, limits, shimhome
from . import (
    asking,
    commands,
    forking,
    leftovers,
    peers,
    pointers,
    protocol,
    seal,
    spares,
    transport,
)

KILL_GRACE_MS = 2_000
REPORT_SECONDS = 0.25  # the shutdown's allowance per run for its report


def _keeper():
    """The server's guard keeper (executor/keeper.py), on Linux."""
    if not sys.platform.startswith("linux"):
        return None
    from ..executor.keeper import Keeper

    keeper = Keeper.start()
    if keeper is None:
        sys.stderr.write(
            "safedel serve: warning: no guard keeper here (it needs Linux 5.1 or later), so "
            "every deletion the guard counts in a served run will fail closed\n"
        )
    return keeper


class Server:
    def __init__(self, private, allow_unprotected=False):
        self.private = private
        self.allow_unprotected = allow_unprotected
        self.base_env = environ.original()
        self.state_dir = core_settings.load(self.base_env).state_dir
        self.home = shimhome.materialize()
        self.version = __version__
        self.sessions = {}
        self.runs = {}
        self.lock = threading.Lock()
        self.stopping = threading.Event()
        self.watch = asking.Watch()
        self.keeper = _keeper()  # every served run's turn, kept from its command
        self.forks = forking.ForkServer()  # starts the runs (Linux)
        self.spares = spares.Spares()  # run directories made ahead of the runs
        self.folders = pointers.Folders()  # where the runs' pointers go
        leftovers.raise_fd_limit()
        self.records = leftovers.Records(private)
        self.predecessor_died = self.records.end_leftovers()

    def sweep_trash(self):
        """Once the ending signals are handled, before the first request: a server or
        a run killed mid-move left an info file without its item (killedruns.py)."""
        try:
            killedruns.sweep(force=self.predecessor_died)
        except OSError:
            pass

    # -- the processes it started (leftovers.py) ------------------------------------
    def expect(self, run_id):
        self.records.expect(run_id)

    def track(self, run_id, pid, key=None):
        self.records.track(run_id, pid, key)

    def untrack(self, run_id):
        self.records.untrack(run_id)

    def warm_net(self):
        """Start the fork server before the first run needs it: it starts every run on
        Linux, under the net or not, so that the run's pointer exists before its exec."""
        if sys.platform.startswith("linux"):
            self.forks.warm()

    def finished(self, run):
        pass  # the run stays listed, so ProcessIsAlive can say it is over

    # -- connections --------------------------------------------------------------
    def serve_connection(self, conn):
        try:
            for line, oversized in conn.lines():
                if self.stopping.is_set():
                    break
                self.handle_line(conn, line, oversized)
        finally:
            # Nobody is left to send it input: end what this connection started (its
            # ProcessExit still goes out, for a client that only closed its sending side).
            with self.lock:
                mine = [r for r in self.runs.values() if r.conn is conn]
            for run in mine:
                run.kill(signal.SIGTERM)
            for run in mine:
                run.reported.wait(KILL_GRACE_MS / 1000 + 25)
            conn.close()

    def handle_line(self, conn, line, oversized):
        if line is None:
            message_id = protocol.salvage_id(oversized)
            if message_id is not None:
                error = f"line longer than {protocol.MAX_LINE} bytes"
                conn.send(protocol.response({"messageId": message_id}, error=error))
            return
        if not line.strip():
            return
        try:
            request = protocol.parse(line)
        except protocol.ProtocolError as exc:
            message_id = protocol.salvage_id(line)
            if message_id is not None:
                conn.send(protocol.response({"messageId": message_id}, error=str(exc)))
            return
        after = None
        try:
            data = commands.dispatch(self, conn, request)
            if isinstance(data, tuple):
                data, after = data
            reply = protocol.response(request, data)
        except protocol.ProtocolError as exc:
            reply = protocol.response(request, error=str(exc))
        except (OSError, limits.LimitError) as exc:
            reply = protocol.response(request, error=getattr(exc, "strerror", None) or str(exc))
        except Exception as exc:  # a bug must not take the connection down with it
            traceback.print_exc()
            reply = protocol.response(request, error=f"internal error: {exc!r}")
        conn.send(reply)
        if after is not None:
            after()

    # -- the end ------------------------------------------------------------------
    def shutdown(self):
        self.stopping.set()
        with self.lock:
            runs = list(self.runs.values())
        for run in runs:
            run.kill(signal.SIGTERM)
        # One deadline for all: a client that stops reading blocks each run's report,
        # and waiting the full grace run after run would hold SIGTERM for minutes. Each
        # run's end still costs something (its tree looked up, its result read and
        # sent): 150 runs took 8 to 21 s to report on an idle 2-CPU machine, and past 27 s
        # under load, which cut their reports short. So the deadline grows with them.
        deadline = time.monotonic() + KILL_GRACE_MS / 1000 + 25 + REPORT_SECONDS * len(runs)
        for run in runs:
            run.reported.wait(max(0.0, deadline - time.monotonic()))
        self.forks.close()
        self.spares.close()
        self.folders.close()


def _sealed():
    """Before anything else: no command the server will run may reach its channel
    (seal.py). StartError when a root server could not keep them from it."""
    why = seal.check_root()
    if why is not None:
        raise transport.StartError(why)
    seal.seal()


def serve_socket(path, allow_unprotected=False):
    _sealed()
    listener = transport.listen(path)
    try:
        server = Server(os.path.dirname(os.path.abspath(path)), allow_unprotected)
    except BaseException:  # a shim home that is not private: no socket left behind
        listener.close()
        os.unlink(path)
        raise
    wake_r, _ = _signal_pipe()
    server.sweep_trash()
    import selectors

    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ)
    selector.register(wake_r, selectors.EVENT_READ)
    try:
        while True:
            ready = [key.fileobj for key, _ in selector.select()]
            if wake_r in ready:
                break
            sock, _ = listener.accept()
            if transport.peer_uid(sock) != os.getuid():
                sock.close()  # only the socket's owner may drive it
                continue
            if peers.refused(transport.peer_pid(sock)):
                # A run's command must not answer its own guard question, nor open a
                # session of its own past its run's guard.
                sock.close()
                continue
            fd = sock.detach()
            conn = transport.Connection(fd, fd, f"fd{fd}", closer=_closer(fd))
            threading.Thread(target=server.serve_connection, args=(conn,), daemon=True).start()
    finally:
        server.shutdown()
        _settled()
        listener.close()
        try:
            os.unlink(path)
        except OSError:
            pass
    return 0


def _closer(fd):
    closed = []

    def close():
        if not closed:
            closed.append(True)
            try:
                socket.socket(fileno=fd).close()
            except OSError:
                pass

    return close


def serve_stdio(allow_unprotected=False):
    _sealed()
    # The protocol leaves fds 0 and 1: nothing else may print there, nor inherit them.
    rfd, wfd = seal.stdio_fds()
    private = tempfile.mkdtemp(prefix="safedel-serve-")
    server = Server(private, allow_unprotected)
    conn = transport.Connection(rfd, wfd, "stdio")
    wake_r, wake_w = _signal_pipe()
    server.sweep_trash()

    def read():
        server.serve_connection(conn)
        _poke(wake_w)  # stdin's end

    threading.Thread(target=read, daemon=True).start()
    try:
        os.read(wake_r, 64)  # stdin's end or an ending signal, whichever comes first
    finally:
        server.shutdown()
        _settled()
        shutil.rmtree(private, ignore_errors=True)
    return 0


ENDING_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


def _signal_pipe():
    """(read end, write end) of a pipe that an ending signal writes a byte to.

    The byte is written by the C handler, in whichever thread took the signal
    (set_wakeup_fd): a signal sent to the process may be taken by any thread, and
    Python runs its handlers in the main thread only, at its next bytecode, so a main
    thread asleep in a call the signal did not interrupt slept on, and a SIGTERM was
    lost now and then.
    """
    wake_r, wake_w = os.pipe()
    os.set_blocking(wake_w, False)
    for signum in ENDING_SIGNALS:
        signal.signal(signum, lambda *_: None)  # handled: the byte is the message
    signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
    return wake_r, wake_w


def _poke(fd):
    try:
        os.write(fd, b"!")
    except OSError:
        pass  # full: a wake-up is pending anyway


def _settled():
    """Every run is ended and reported: a second SIGTERM now has nothing left to do.

    Python puts the default action back for handled signals while it finalizes, so a
    supervisor that repeats its SIGTERM would turn a clean exit into death by signal.
    """
    for signum in ENDING_SIGNALS:
        signal.signal(signum, signal.SIG_IGN)
