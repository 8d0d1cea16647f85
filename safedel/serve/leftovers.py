"""The runs a server started, kept on disk so the next server can end what a dead one
(kill -9) left running.

Each run has a record in <private dir>/procs/ named by its run id, written before the
spawn: a server killed between the spawn and the moment it learns the pid still leaves
a record. Once the pid is known, it is added with the process's start time (so a
reused pid is never killed). The next server kills the process group of every recorded
root still running, and every process whose environment names a recorded run: the
command's root and descendants carry the run id (SAFEDEL_RUN_ID, or
SAFEDEL_SERVE_RUN for an unprotected run), which covers the spawn window and the
descendants of a root that already ended.
"""

import os
import signal

PROCS = "procs"
MARKS = (b"SAFEDEL_RUN_ID=", b"SAFEDEL_SERVE_RUN=")


class Records:
    def __init__(self, private):
        self.dir = os.path.join(private, PROCS)
        os.makedirs(self.dir, mode=0o700, exist_ok=True)

    def expect(self, run_id):
        """Before the spawn: the run exists, its pid not known yet."""
        with open(os.path.join(self.dir, run_id), "w", encoding="ascii"):
            pass

    def track(self, run_id, pid):
        with open(os.path.join(self.dir, run_id), "w", encoding="ascii") as handle:
            handle.write(f"{pid} {start_time(pid)}\n")

    def untrack(self, run_id):
        try:
            os.unlink(os.path.join(self.dir, run_id))
        except OSError:
            pass

    def end_leftovers(self):
        """Kill what the runs of a dead server left running; forget their records."""
        names = os.listdir(self.dir)
        if not names:
            return
        roots = []  # `<pid>-<start time>` of each recorded root: its run pointer's name
        for name in names:
            path = os.path.join(self.dir, name)
            try:
                with open(path, encoding="ascii") as handle:
                    fields = handle.read().split()
                if len(fields) == 2 and fields[1] != "?":
                    roots.append("-".join(fields))
                    pid = int(fields[0])
                    if start_time(pid) == fields[1]:  # a root is its process group's leader
                        os.killpg(pid, signal.SIGKILL)
            except (OSError, ValueError):
                pass
        _kill_marked({mark + name.encode() + b"\0" for mark in MARKS for name in names})
        from .pointers import forget

        forget(roots)  # harmless once the root is gone, but not left to pile up
        for name in names:
            self.untrack(name)


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
