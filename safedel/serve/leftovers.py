"""The runs a server started, kept on disk so the next server can end what a dead one
(kill -9) left running.

Each server appends to a journal of its own in <private dir>/procs/, opened once when
it starts: `+ <run id>` before the spawn (a server killed between the spawn and the
moment it learns the pid still leaves the run on record), `= <run id> <pid> <start
time>` once the pid is known (the start time, so a reused pid is never killed), and
`- <run id>` when the run has ended. A line appended to an open file costs no inode,
which a file per run did on the critical path of every run (a few hundred
microseconds each on some file systems). The journal starts over when no run is left
and it has grown past COMPACT_BYTES, or is rewritten with the runs still going once it
passes REWRITE_BYTES (a new file renamed over it: a server killed meanwhile leaves one
or the other whole).

The next server reads every journal whose server is gone (a journal of a live server,
sharing the directory through another socket, is that server's business) and kills
the process group of every listed root still running, and every process whose
environment names a listed run: the command's root and descendants carry the run id
(SAFEDEL_RUN_ID, or SAFEDEL_SERVE_RUN for an unprotected run), which covers the spawn
window and the descendants of a root that already ended. A file in procs/ that is not
a journal is one run's record of the layout before the journal: its name is the run
id, its content the pid and start time, if known.
"""

import os
import signal
import threading

PROCS = "procs"
JOURNAL = "journal-"  # + <server pid>-<its start time>
MARKS = (b"SAFEDEL_RUN_ID=", b"SAFEDEL_SERVE_RUN=")
COMPACT_BYTES = 64 * 1024
REWRITE_BYTES = 1024 * 1024
_FLAGS = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND | os.O_CLOEXEC


class Records:
    def __init__(self, private):
        self.dir = os.path.join(private, PROCS)
        os.makedirs(self.dir, mode=0o700, exist_ok=True)
        self._lock = threading.Lock()
        self._fd = None
        self._path = os.path.join(self.dir, f"{JOURNAL}{os.getpid()}-{start_time(os.getpid())}")
        self._live = {}  # run id -> its latest line

    def _open(self):
        if self._fd is None:
            self._fd = os.open(self._path, _FLAGS, 0o600)

    def _write(self, line):
        self._open()
        os.write(self._fd, line.encode("ascii"))  # one write: a whole line or nothing

    def expect(self, run_id):
        """Before the spawn: the run exists, its pid not known yet."""
        with self._lock:
            self._live[run_id] = f"+ {run_id}\n"
            self._write(self._live[run_id])

    def track(self, run_id, pid, key=None):
        """The root's pid and start time; key: `<pid>-<start time>` read already."""
        started = key.rpartition("-")[2] if key else start_time(pid)
        line = f"= {run_id} {pid} {started}\n"
        with self._lock:
            if run_id in self._live:
                self._live[run_id] = line
            self._write(line)

    def untrack(self, run_id):
        with self._lock:
            if run_id not in self._live:
                return
            del self._live[run_id]
            try:
                self._write(f"- {run_id}\n")
                size = os.fstat(self._fd).st_size
                if not self._live and size > COMPACT_BYTES:
                    os.ftruncate(self._fd, 0)  # O_APPEND: the next line goes first
                elif size > REWRITE_BYTES:
                    self._rewrite()
            except OSError:
                pass

    def _rewrite(self):
        """The journal as the live runs' lines alone."""
        new = self._path + ".new"  # a journal too, of the same server (_server_gone)
        fd = os.open(new, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_APPEND | os.O_CLOEXEC, 0o600)
        try:
            os.write(fd, "".join(self._live.values()).encode("ascii"))
            os.replace(new, self._path)
        except OSError:
            os.close(fd)
            raise
        os.close(self._fd)
        self._fd = fd

    def end_leftovers(self):
        """Kill what the runs of a dead server left running; forget their records.
        Then open this server's journal, so that its first run creates no file.
        Whether a dead server's journal or record was found (its net may have died
        mid-move: executor/killedruns.py sweeps the trash then)."""
        listed, done = {}, []
        for name in os.listdir(self.dir):
            path = os.path.join(self.dir, name)
            try:
                with open(path, encoding="ascii") as handle:
                    text = handle.read()
            except (OSError, ValueError):
                continue
            if not name.startswith(JOURNAL):
                listed[name] = text.split()
            elif _server_gone(name[len(JOURNAL) :]):
                listed.update(_replay(text))
            else:
                continue
            done.append(path)
        if listed:
            _end(listed)
        for path in done:
            try:
                os.unlink(path)
            except OSError:
                pass
        with self._lock:
            self._open()
        return bool(done)


def _replay(text):
    """{run id: [pid, start time] or []} of the runs a journal leaves unended."""
    runs = {}
    for line in text.splitlines():
        fields = line.split()
        if len(fields) == 2 and fields[0] == "+":
            runs[fields[1]] = []
        elif len(fields) == 4 and fields[0] == "=":
            runs[fields[1]] = fields[2:]
        elif len(fields) == 2 and fields[0] == "-":
            runs.pop(fields[1], None)
    return runs


def _server_gone(key):
    """Whether the server `<pid>-<start time>` has ended (a zombie has)."""
    pid, _, started = key.partition(".")[0].partition("-")
    if not pid.isdigit():
        return True
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            fields = handle.read().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return True
    return fields[0] in ("Z", "X") or fields[19] != started


def _end(listed):
    """Kill the process groups of the listed roots still running, and every process
    that names a listed run; forget the roots' run pointers."""
    roots = []  # `<pid>-<start time>` of each recorded root: its run pointer's name
    for fields in listed.values():
        if len(fields) == 2 and fields[1] != "?":
            roots.append("-".join(fields))
            try:
                pid = int(fields[0])
                if start_time(pid) == fields[1]:  # a root is its process group's leader
                    os.killpg(pid, signal.SIGKILL)
            except (OSError, ValueError):
                pass
    _kill_marked({mark + name.encode() + b"\0" for mark in MARKS for name in listed})
    from ..core.contract.stalepointers import forget

    forget(roots)  # harmless once the root is gone, but not left to pile up


def _kill_marked(marks):
    """Kill every process (and its process group) whose environment holds a mark."""
    own = os.getpid(), os.getpgrp()
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == own[0]:
            continue
        try:
            with open(f"/proc/{entry}/environ", "rb") as handle:
                environ = b"\0" + handle.read()
        except OSError:
            continue  # gone, or not ours to read
        if not any(b"\0" + mark in environ for mark in marks):
            continue
        pid = int(entry)
        try:
            group = os.getpgid(pid)
            if group != own[1]:
                os.killpg(group, signal.SIGKILL)
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def start_time(pid):
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii") as handle:
            return handle.read().rsplit(")", 1)[1].split()[19]
    except (OSError, IndexError):
        return "?"


def raise_fd_limit():
    """The soft limit on open files up to the hard one: each run holds several
    descriptors (pipes, pidfd, output files, the net's listener), and hundreds of
    runs pass the usual soft limit of 1024."""
    try:
        import resource

        soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
        if soft != hard:
            resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))
    except (ImportError, OSError, ValueError):
        pass  # the server still works, with fewer runs at once
