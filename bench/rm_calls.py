"""rm, one file per call: safedel's rm launcher against the tools people would use instead.

Each call deletes one freshly made file, so every sample is a whole process: start-up,
the guard, the info file and the rename. The launcher runs as under `safedel run`: this
process leaves the run's record and pointer first, with the code `safedel run` uses, so
the launcher finds its run from the process tree and reads the run's values from it.
The floor is an interpreter that does nothing.
"""

import os

from . import rows
from .harness import BARE_PYTHON, PYTHON, Sandbox, WorkloadError, interleave, timed_spawn, tool

WORKLOAD = "rm, one file per call"
SHIM = "safedel rm shim"
SHIM_VS_TRASH_PUT = "safedel rm shim, against trash-put"
FLOOR = "python -I -S -c pass"
TRASH_PUT = "trash-put"
SEND2TRASH = "send2trash one-liner"
GIO = "gio trash"
RM = "/usr/bin/rm"
SEND2TRASH_CODE = "import sys; from send2trash import send2trash; send2trash(sys.argv[1])"


def row_list():
    return [
        rows.Row(WORKLOAD, SHIM, "per call", rows.times(FLOOR, 1.5)),
        rows.Row(WORKLOAD, SHIM_VS_TRASH_PUT, "per call", rows.faster(TRASH_PUT, 4)),
        rows.Row(WORKLOAD, FLOOR, "per call", anchor_of=SHIM),
        rows.Row(WORKLOAD, RM, "per call", anchor_of=SHIM),
        rows.Row(WORKLOAD, TRASH_PUT, "per call", anchor_of=SHIM),
        rows.Row(WORKLOAD, SEND2TRASH, "per call", anchor_of=SHIM),
        rows.Row(WORKLOAD, GIO, "per call", anchor_of=SHIM),
    ]


class Caller:
    """Makes a new file, then times one command that should delete it."""

    def __init__(self, sandbox, tag, argv, env, trashes=True):
        self.sandbox = sandbox
        self.tag = tag
        self.argv = argv
        self.env = env
        self.trashes = trashes
        self.calls = 0
        self.errors = os.path.join(sandbox.root, f"{tag}.stderr")

    def __call__(self):
        self.calls += 1
        path = os.path.join(self.sandbox.work, f"{self.tag}-{self.calls}")
        if self.argv[-1:] == ["{}"]:
            if not os.path.exists(path):  # the shim's were made before its turn
                with open(path, "wb") as handle:
                    handle.write(b"bench\n")
            argv = self.argv[:-1] + [path]
        else:
            argv = self.argv
        seconds = timed_spawn(argv, self.env, self.errors)
        if os.path.lexists(path):
            raise WorkloadError(f"{self.tag} left its file in place")
        return seconds

    def check_trash(self, trashed):
        """A deleter that should trash but did not would be timing something else."""
        if not self.trashes:
            return None
        found = sum(1 for name in trashed if name.startswith(self.tag + "-"))
        if found != self.calls:
            return WorkloadError(f"only {found} of {self.calls} files reached the trash")
        return None


def unavailable_tools(shim_rm):
    missing = {}
    if not os.access(shim_rm, os.X_OK):
        missing[SHIM] = "the rm launcher is not built yet (no bin/rm in the shim home)"
    for name, path in ((TRASH_PUT, tool("trash-put")), (GIO, tool("gio")), (RM, tool(RM))):
        if path is None:
            missing[name] = f"{name.split()[0]} is not installed"
    return missing


def run(profile, root, shim_home):
    table = row_list()
    sandbox = Sandbox(root, "rm-calls", shim_home)
    try:
        shim_rm = os.path.join(shim_home, "bin", "rm")
        missing = unavailable_tools(shim_rm)
        base = sandbox.base_env()
        # The shim's files are made before its turn begins, and left as they are: one the
        # turn wrote and removed at once is churn, whose check (statx through ctypes) is
        # another path; this row times `rm FILE` of a file the turn found.
        for number in range(1, 2 * (profile.rm_calls + profile.warmup) + 10):
            with open(os.path.join(sandbox.work, f"shim-{number}"), "wb") as handle:
                handle.write(b"bench\n")
        plans = {
            SHIM: ("shim", [shim_rm, "{}"], sandbox.run_env(), True),
            FLOOR: ("floor", [BARE_PYTHON, "-I", "-S", "-c", "pass"], base, False),
            RM: ("rm", [RM, "{}"], base, False),
            TRASH_PUT: ("trashput", [tool("trash-put") or "", "{}"], base, True),
            SEND2TRASH: ("send2trash", [PYTHON, "-c", SEND2TRASH_CODE, "{}"], base, True),
            GIO: ("gio", [tool("gio") or "", "trash", "{}"], base, True),
        }
        callers = {
            name: Caller(sandbox, tag, argv, env, trashes)
            for name, (tag, argv, env, trashes) in plans.items()
            if name not in missing
        }
        results = interleave(callers, profile.rm_calls, profile.warmup)
        trashed = sandbox.trashed()
        for name, caller in callers.items():
            problem = caller.check_trash(trashed)
            if problem is not None and not isinstance(results[name], WorkloadError):
                results[name] = problem
        if SHIM in missing:
            missing[SHIM_VS_TRASH_PUT] = missing[SHIM]
        else:
            results[SHIM_VS_TRASH_PUT] = results[SHIM]
        return rows.fill(table, results, missing)
    finally:
        sandbox.close()
