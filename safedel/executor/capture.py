"""Where a captured command's output goes: files, never pipes.

A pipe stays open as long as any process holds its write end, so a background
grandchild that keeps stdout would hold the run open for ever; a file does not. Each
run gets <state>/runs/<run id>/stdout and stderr (0600, in 0700 directories opened
without following symlinks), unless the harness names its own files. Runs older than
RETENTION_SECONDS are pruned at start-up, at most once every PRUNE_EVERY_SECONDS (a
stamp file's mtime says when it last happened).
"""

import os
import time

from ..core.private import open_dir

RUNS = "runs"
STAMP = ".pruned"
RETENTION_SECONDS = 7 * 86400
PRUNE_EVERY_SECONDS = 3600
_CREATE = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
_TRUNCATE = os.O_WRONLY | os.O_CREAT | os.O_TRUNC | getattr(os, "O_CLOEXEC", 0)


def new_run_id():
    return "r-" + os.urandom(6).hex()


class Outputs:
    """The two output files of one run: paths for people, descriptors for the child."""

    def __init__(self, state_dir, run_id, stdout_file=None, stderr_file=None):
        self.paths = {}
        self.fds = {}
        try:
            if stdout_file is None or stderr_file is None:
                with open_dir(state_dir, [RUNS, run_id]) as directory:
                    for stream in ("stdout", "stderr"):
                        self.fds[stream] = directory.open(stream, _CREATE)
                        self.paths[stream] = os.path.join(directory.path, stream)
            for stream, given in (("stdout", stdout_file), ("stderr", stderr_file)):
                if given is not None:
                    if stream in self.fds:
                        os.close(self.fds.pop(stream))
                        os.unlink(self.paths[stream])
                    self.fds[stream] = os.open(given, _TRUNCATE, 0o600)
                    self.paths[stream] = os.path.abspath(given)
        except OSError:
            self.close()
            raise

    @classmethod
    def opened(cls, fds, paths):
        """Outputs on files already made and open ({stream: fd}, {stream: path})."""
        outputs = cls.__new__(cls)
        outputs.fds, outputs.paths = fds, paths
        return outputs

    def close(self):
        for fd in self.fds.values():
            os.close(fd)
        self.fds = {}


def prune(state_dir, now=None):
    """Remove run directories untouched for RETENTION_SECONDS; never raises."""
    now = time.time() if now is None else now
    try:
        with open_dir(state_dir, [RUNS]) as runs:
            try:
                if now - runs.lstat(STAMP).st_mtime < PRUNE_EVERY_SECONDS:
                    return
            except FileNotFoundError:
                pass
            stamp = runs.open(STAMP, os.O_WRONLY | os.O_CREAT | os.O_TRUNC)
            try:
                os.write(stamp, b"\n")  # a write always moves the mtime on
            finally:
                os.close(stamp)
            for name in runs.listdir():
                if name.startswith("r-") and now - runs.lstat(name).st_mtime > RETENTION_SECONDS:
                    _remove_run(runs, name)
    except OSError:
        pass  # pruning is housekeeping: a run never fails because of it


def _remove_run(runs, name):
    try:
        with runs.subdir(name) as run:
            for entry in run.listdir():
                run.unlink(entry)
        runs.rmdir(name)
    except OSError:
        pass
