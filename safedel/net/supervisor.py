"""The supervisor thread of `safedel run`: answer each deleting call of the process tree.

Per call: read the path from the caller's memory once, resolve it by descriptor, check
the notification is still live, then either do the call itself where the net lets it
happen (net/perform: never CONTINUE, which would have the kernel read the path again),
fail it with the errno the kernel would give, or judge it through the same pipeline as
the shims (runtime "net"): trashed on the caller's behalf and answered with success,
or refused with EPERM. Any unexpected error answers EPERM: the net fails closed.
"""

import _thread
import errno
import fcntl
import os
import select
import sys
import time

from ..core.contract import host, settings
from . import bpf, notify

# The rest of the net is imported when first needed (_ready, _judging, _decide):
# `safedel run -- true` with the net on pays only for the filter and this thread.

RUNTIME = "net"


class Supervisor:
    def __init__(
        self, listener, environ, machine, marker_fd=None, git=None, after_run=False, started=None
    ):
        self._listener = listener
        self._machine = machine
        # After the run (net/afterlife.py): renames judged, every deletion ENOSYS.
        self._after_run = after_run
        self._channel = notify.Channel(listener)
        self._marker_fd = marker_fd  # the command's stderr, when it is not ours; owned
        self._environ = environ
        self._turn_file = bool(environ.get("SAFEDEL_TURN_FILE"))
        self._names = {nr: name for name, nr in bpf.ARCHES[machine][2].items()}
        # Made at the first call (_ready): most commands delete nothing, and `safedel
        # run -- true` must not pay for the settings and ctypes' libc. The places (git,
        # the trash, the state directory...) at the first call that the quick path
        # (net/quick.py) leaves: a build that only churns temp files never needs them.
        self._settings = self._exempt = self._memory = self._quick = None
        self._places = None
        self._git = git  # inert.locate() before the command started
        # When the command started (birth.mark()): see ignored.
        self._started = started
        self._wake_r, self._wake_w = os.pipe2(os.O_CLOEXEC)
        self._finished = _thread.allocate_lock()
        self._finished.acquire()

    def start(self):
        # The run's contract (run id, workspace roots, turn) reaches the pipeline in the
        # settings loaded from the run's environment, and harness mode per thread
        # (host.judge_for), never through os.environ: `safedel serve` supervises
        # several runs in one process.
        # _thread, not threading: Thread.start() waits until the new thread has run,
        # which on a busy machine put a scheduling delay in front of every command.
        _thread.start_new_thread(self._run, ())

    def _run(self):
        try:
            self._serve()
        finally:
            if "safedel.core.report.markers" in sys.modules:
                sys.modules["safedel.core.report.markers"].route(None)
            host.judge_for(None)
            self._finished.release()

    def serve(self):
        """Answer calls in this thread until every process of the tree is gone (the
        afterlife's loop: nothing asks it to stop)."""
        self._serve()

    def stop(self):
        """After the command exits: answer what is already queued, then close.

        A background process that outlives the run has nobody to judge it any more:
        its deletions then fail (ENOSYS), never succeed unjudged, and its renames go on
        (net/afterlife.py answers them)."""
        os.write(self._wake_w, b"x")
        self._finished.acquire()
        if self._places is not None:
            self._places.close()
        if notify.tree_lives_on(self._listener):
            from . import afterlife

            afterlife.hand_over(
                self._listener, self._environ, self._machine, self._git, self._started
            )
        for fd in (self._wake_r, self._wake_w, self._listener, self._marker_fd):
            if fd is not None:
                os.close(fd)

    def _serve(self):
        notify.prefer_sync_wakeup(self._listener)
        poller = select.poll()
        poller.register(self._listener, select.POLLIN)
        poller.register(self._wake_r, select.POLLIN)
        stopping = None  # once asked to stop: the end of a short drain
        listener, readable, gone = self._listener, select.POLLIN, select.POLLHUP | select.POLLERR
        while True:
            events = poller.poll(0 if stopping else None)
            if stopping and (not events or time.monotonic() > stopping):
                return  # a busy background process must not hold the run open
            flags = 0
            for fd, happened in events:
                if fd == listener:
                    flags = happened
                elif not stopping:  # the wake-up pipe
                    stopping = time.monotonic() + 0.5
                    poller.unregister(self._wake_r)
            if flags & readable:
                self._one()
            elif flags & gone:
                return  # every process of the tree is gone

    def _ready(self):
        from . import exempt, quick

        self._settings = settings.load(self._environ)
        self._exempt = exempt.of_run(self._settings)
        self._memory = notify.Memory()
        # After the run too: what an exempt root holds (a temp file, the resource
        # tracker's shared memory) goes at once; every other deletion is ENOSYS then.
        self._quick = quick.Quick(
            self._names, self._memory, self._exempt, self._channel.still_valid
        )

    def _judging(self):
        from . import moves, places

        self._places = places.Places(
            self._settings, self._environ, self._git, self._started, self._exempt
        )
        self._renames = moves.Renames(self._channel, self._memory, self._places, self._fail_closed)

    def _one(self):
        # The hot path of a build's temp-file churn: every call pays for each method
        # call and attribute lookup here, so Channel's receive is spelled out (same
        # buffer, same errors).
        channel, listener = self._channel, self._listener
        buffer = channel.recv_buffer
        buffer[:] = channel.zeros
        try:
            fcntl.ioctl(listener, notify.NOTIF_RECV, buffer, True)
        except OSError as exc:
            if exc.errno not in (errno.ENOENT, errno.EINTR):  # else: its caller went away
                settings.warn_once(f"the net could not read a call: {exc}")
            return
        notif = notify.NOTIF.unpack(buffer)
        try:
            fast = self._quick
            if fast is None and self._memory is None:
                self._ready()
                fast = self._quick
            # The commonest call by far first, with as little as can decide it.
            done = None if fast is None else fast.settles(notif[0], notif[1], notif[3], notif[6:])
            if done is not None:
                channel.answer(notif[0], done)
                return
            if self._places is None:
                self._judging()
            self._decide(notif)
        except Exception as exc:  # fail closed on anything unforeseen
            settings.warn_once(f"the net refused a deletion after an error: {exc!r}")
            channel.answer(notif[0], errno.EPERM)

    def _decide(self, notif):
        from . import callerperm, gitunlink, moves, target, walk

        channel, notif_id, tid = self._channel, notif[0], notif[1]
        name = self._names.get(notif[3])
        if name in moves.NAMES:
            self._renames.answer(notif, name)
            return
        if self._after_run:
            channel.answer(notif_id, errno.ENOSYS)  # nobody judges deletions any more
            return
        if name == "unlinkat" and notif[8] & 0xFFFFFFFF & ~target.AT_REMOVEDIR:
            channel.answer(notif_id, errno.EINVAL)  # as the kernel, before any lookup
            return
        dirfd, address, removes_dir = target.arguments(self._names, notif[3], notif[6:])
        try:
            raw = self._memory.string(tid, address)
            located = target.locate(tid, dirfd, raw, removes_dir)
        except OSError as exc:
            if channel.still_valid(notif_id):
                channel.answer(notif_id, exc.errno or errno.EIO)
            return
        try:
            found = target.resolve(tid, dirfd, raw, removes_dir, located)
        except OSError as exc:
            if channel.still_valid(notif_id):
                if isinstance(exc, walk.FailClosed):
                    self._fail_closed(os.fsdecode(raw), exc.reason)
                channel.answer(notif_id, exc.errno or errno.EIO)
            return
        try:
            # Each answer that leaves the call to the kernel reasons on found.parent, a
            # path in safedel's mount namespace. It holds only when that is the very
            # directory the call acts in; otherwise the call is judged like any other.
            # (A call straight inside an exempt root was let through by net/quick.py.)
            parent = os.fstat(found.parent_fd)
            left = self._places.left_to_kernel(found, tid, parent, deleting=True)
            if left and not found.acts_here(parent):
                left = found.judged = None
            if left and found.judged is None:
                if channel.still_valid(notif_id):
                    channel.answer(notif_id, self._perform(tid, found))
                return

            def may_delete(parent_st, st):
                return callerperm.denies(tid, parent_st, st)

            try:
                found.inspect(may_delete)
            except OSError as exc:
                channel.answer(notif_id, exc.errno or errno.EIO)
                return
            refusal = self._places.state_refusal(found.path, tid, (found.parent_fd, found.name))
            if refusal:
                if channel.still_valid(notif_id):
                    self._fail_closed(found.path, refusal)
                    channel.answer(notif_id, errno.EPERM)
                return
            if not left and self._places.git_can_restore(found, tid):
                if not found.acts_here(parent):
                    found.judged = None
                elif found.judged is None:  # an emptied directory git prunes
                    if channel.still_valid(notif_id):
                        channel.answer(notif_id, self._perform(tid, found))
                    return
            if not channel.still_valid(notif_id):
                return  # the caller is gone; what we read may belong to another process
            self._places.note_change(found.path)
            done = (
                None
                if found.judged is None
                else gitunlink.answer(found, self._fail_closed, may_delete)
            )
            channel.answer(notif_id, self._judge(found) if done is None else done)
        finally:
            found.close()

    def _perform(self, tid, found):
        """Delete found for thread tid, as the kernel would (net/perform)."""
        from . import perform

        return perform.unlink(tid, found.parent_fd, found.name, found.removes_dir, found.trailing)

    def _markers(self):
        """The markers module, routed to the command's stderr and judging for its run."""
        from ..core.report import markers

        if self._marker_fd is not None:
            markers.route(self._marker_fd)  # this thread's markers: the command's stderr
        host.judge_for(self._environ)
        return markers

    def _fail_closed(self, path, reason):
        markers = self._markers()
        markers.emit(markers.FAIL_CLOSED, {"path": path, "reason": reason})

    def _judge(self, found):
        """0 once trashed, or the errno the caller gets."""
        # Imported at the first judgement: `safedel run -- true` never pays for them.
        from ..core import deletion
        from ..core.trash import move
        from . import dirmodes, farpath

        markers = self._markers()
        if found.removes_dir and not dirmodes.is_empty(found.parent_fd, found.name, found.st):
            return errno.ENOTEMPTY
        item, reason = farpath.item_of(found)
        if reason:
            markers.emit(markers.FAIL_CLOSED, {"path": found.path, "reason": reason})
            return errno.EPERM
        if item is found.path and not found.same_file_here():
            # The caller lives in another mount namespace (or the file was swapped):
            # the name we would trash is not the file it meant. Fail closed. (An item
            # past PATH_MAX is moved by the caller's own descriptor: it is that file.)
            markers.emit(markers.FAIL_CLOSED, {"path": found.path, "reason": "not visible"})
            return errno.EPERM
        conf = settings.load(self._environ) if self._turn_file else self._settings
        try:
            deletion.authorize(conf, RUNTIME, [item])
            dirmodes.trash_lending(conf, RUNTIME, found, item)
        except deletion.Refused:
            return errno.EPERM
        except move.TrashFailure as exc:
            return exc.errno or errno.EIO
        except OSError as exc:
            return exc.errno or errno.EIO
        return 0
