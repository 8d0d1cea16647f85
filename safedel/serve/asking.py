"""Guard questions at the moment of refusal, while the run is still going.

A refusal inside a served run leaves its signal file under the run's key (a shim or
the net writes it, then renames it into place). The server watches each session's
signal directory with inotify, so the run whose file appeared takes it at once and
the harness gets its GuardRequest before the command goes on (a script that deletes
one file per step can be answered before its next step). Where inotify is missing,
the signal is still taken when the run ends, before its ProcessExit.
"""

import ctypes
import ctypes.util
import os
import struct
import sys
import threading
import traceback

from ..core.guard.signals import run_key, signal_parts
from ..core.private import open_dir

_IN_MOVED_TO = 0x00000080
_IN_CLOEXEC = 0o2000000
_EVENT = struct.Struct("iIII")  # wd, mask, cookie, len; then the name, NUL-padded


def _inotify():
    """(fd, add_watch) of a new inotify instance, or None off Linux or on failure."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or None, use_errno=True)
        fd = libc.inotify_init1(_IN_CLOEXEC)
    except (OSError, AttributeError):
        return None
    if fd < 0:
        return None

    def add_watch(path, mask):
        wd = libc.inotify_add_watch(fd, os.fsencode(path), ctypes.c_uint32(mask))
        if wd < 0:
            err = ctypes.get_errno()
            raise OSError(err, os.strerror(err), path)
        return wd

    return fd, add_watch


class Watch:
    """One inotify instance for the server: (directory watch, file name) -> run."""

    def __init__(self):
        found = _inotify()
        self._fd, self._add = found if found else (None, None)
        self._runs = {}  # (watch descriptor, signal file name) -> run
        self._lock = threading.Lock()
        if self._fd is not None:
            threading.Thread(target=self._loop, daemon=True, name="guard-watch").start()

    def add(self, run, state_dir, session):
        """Watch for run's signal file; call before the run can write it. Never raises:
        without a watch the signal is taken at the run's end."""
        if self._fd is None:
            return
        parts = signal_parts(session, run_key(run.run_id))
        name = parts.pop()
        try:
            with self._lock, open_dir(state_dir, parts) as directory:
                # By descriptor: the directory checked by open_dir is the one watched. At
                # every run: DeleteSession and pruning remove the directory, and the new
                # one may reuse its inode number; inotify knows the directory itself, and
                # answers the same wd while it is the one already watched.
                wd = self._add(f"/proc/self/fd/{directory.fd}", _IN_MOVED_TO)
                self._runs[(wd, name)] = run
                run.watched = (wd, name)
        except OSError:
            pass

    def remove(self, run):
        with self._lock:
            self._runs.pop(getattr(run, "watched", None), None)

    def _loop(self):
        while True:
            try:
                data = os.read(self._fd, 65536)
            except InterruptedError:
                continue
            except OSError:
                return
            for run in self._parse(data):
                try:
                    run.take_signal()
                except Exception:  # one run's failure must not end the watch for all
                    traceback.print_exc()

    def _parse(self, data):
        offset, found = 0, []
        while offset + _EVENT.size <= len(data):
            wd, _mask, _cookie, length = _EVENT.unpack_from(data, offset)
            start = offset + _EVENT.size
            name = data[start : start + length].rstrip(b"\0").decode("ascii", "replace")
            offset = start + length
            with self._lock:
                run = self._runs.get((wd, name))
            if run is not None and run not in found:
                found.append(run)
        return found
