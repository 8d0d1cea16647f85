"""A directory of 100,000 files: safedel against trash-put against rm -rf.

Trashing a directory is one rename whatever its size, so after each trashing candidate
the tree is renamed back out of the trash (untimed) and reused; only rm -rf needs a new
tree each time.
"""

import os

from . import rows
from .harness import (
    BARE_PYTHON,
    PYTHON,
    Sandbox,
    WorkloadError,
    interleave,
    make_tree,
    run_json,
    script,
    timed_spawn,
    tool,
)

WORKLOAD = "a directory of 100,000 files"
SHIM = "safedel rm -rf (rm shim), whole command"
INPROC = "safedel's part, in process (guard, info file, rename, report)"
FLOOR = "python -I -S -c pass"
TRASH_PUT = "trash-put"
RM_RF = "rm -rf"
PRECHECK = "rm launcher's permission pre-check (whole tree walked), in process"
FILES_PER_DIR = 1000


def row_list(files):
    workload = WORKLOAD.replace("100,000", f"{files:,}")
    whole = rows.Budget(f"≤ 1.5 × {FLOOR} + 20 ms", FLOOR, factor=1.5, extra=0.020)
    return [
        rows.Row(workload, INPROC, "per directory", rows.absolute(0.020, " (one rename)")),
        rows.Row(workload, SHIM, "per directory", whole),
        rows.Row(workload, PRECHECK, "per directory", rows.times(RM_RF, 0.1)),
        rows.Row(workload, FLOOR, "per call", anchor_of=SHIM),
        rows.Row(workload, TRASH_PUT, "per directory", anchor_of=SHIM),
        rows.Row(workload, RM_RF, "per directory", anchor_of=SHIM),
    ]


class Tree:
    """The one tree every candidate deletes, made again only when rm -rf destroyed it."""

    def __init__(self, sandbox, files):
        self.sandbox = sandbox
        self.path = os.path.join(sandbox.work, "big")
        self.dirs = max(1, files // FILES_PER_DIR)
        self.per_dir = min(files, FILES_PER_DIR)

    def ensure(self):
        if not os.path.isdir(self.path):
            make_tree(self.path, self.dirs, self.per_dir)

    def reclaim(self, who):
        """Rename the trashed tree back into place and drop its info file."""
        names = self.sandbox.trashed()
        if len(names) != 1:
            raise WorkloadError(f"{who} left {len(names)} entries in the trash, not 1")
        trash = self.sandbox.trash
        os.rename(os.path.join(trash, "files", names[0]), self.path)
        os.unlink(os.path.join(trash, "info", names[0] + ".trashinfo"))


def candidates(sandbox, tree, shim_rm):
    base = sandbox.base_env()
    errors = os.path.join(sandbox.root, "stderr")

    def spawned(argv, env, trashes):
        def measure():
            tree.ensure()
            seconds = timed_spawn(argv, env, errors)
            if os.path.lexists(tree.path):
                raise WorkloadError(f"{os.path.basename(argv[0])} left the directory in place")
            if trashes:
                tree.reclaim(os.path.basename(argv[0]))
            return seconds

        return measure

    def in_process():
        tree.ensure()
        env = sandbox.shim_env(fresh_turn=True)
        seconds = run_json([PYTHON, script("trash_once.py"), tree.path], env)["seconds"]
        tree.reclaim("trash_one")
        return seconds

    def precheck():
        tree.ensure()
        result = run_json([PYTHON, script("precheck_once.py"), tree.path], sandbox.base_env())
        if not result["whole"]:
            raise WorkloadError("the pre-check found the tree not removable whole")
        return result["seconds"]

    found = {
        INPROC: in_process,
        PRECHECK: precheck,
        FLOOR: lambda: timed_spawn([BARE_PYTHON, "-I", "-S", "-c", "pass"], base, errors),
    }
    if os.access(shim_rm, os.X_OK):
        found[SHIM] = spawned([shim_rm, "-rf", tree.path], sandbox.shim_env(), True)
    if tool("trash-put"):
        found[TRASH_PUT] = spawned([tool("trash-put"), tree.path], base, True)
    found[RM_RF] = spawned([tool("rm"), "-rf", tree.path], base, False)
    return found


def run(profile, root, shim_home):
    table = row_list(profile.bigdir_files)
    sandbox = Sandbox(root, "bigdir", shim_home)
    try:
        tree = Tree(sandbox, profile.bigdir_files)
        # Made up front so no candidate's first sample pays for creating the trash.
        for part in ("files", "info"):
            os.makedirs(os.path.join(sandbox.trash, part), mode=0o700)
        shim_rm = os.path.join(shim_home, "bin", "rm")
        timers = candidates(sandbox, tree, shim_rm)
        # rm -rf goes last in each round, so each round makes at most one new tree. No
        # warm-up round: it would cost a tree of its own, and the trash dirs exist already.
        results = interleave(timers, profile.bigdir_rounds, warmup=0, rotate=False)
        for row in table:
            if row.subject in results:
                row.measured(results[row.subject])
            elif row.subject == SHIM:
                row.unavailable("the rm launcher is not built yet (no bin/rm in the shim home)")
            else:
                row.unavailable(f"{row.subject.split()[0]} is not installed")
        return rows.settle(table)
    finally:
        sandbox.close()
