"""In-process deletion loops: os.remove x 2,000 under the Python shim, fs.unlinkSync x
2,000 under the Node preload, each against the same loop without safedel.

The figure is the loop's own time divided by the number of files, so start-up is out of
it. Making the files first is timed too: trashing a file means making its info file, so
that is the filesystem's floor under the shims' per-file figures. A shim that deleted
instead of trashing would be timing something else, so the run checks that every file
reached the trash.
"""

import os

from . import rows
from .harness import PYTHON, Sandbox, WorkloadError, interleave, run_json, script, tool

PY_SHIM = "os.remove, Python shim active"
PY_BARE = "os.remove, no shim"
NODE_SHIM = "fs.unlinkSync, Node preload active"
NODE_BARE = "fs.unlinkSync, no preload"
PY_CREATE = "making a file (O_EXCL create, write, close), os.open"
NODE_CREATE = "making a file (flag wx), fs.writeFileSync"


def python_rows(count):
    workload = f"Python os.remove × {count:,}, in process"
    return [
        rows.Row(workload, PY_SHIM, "per file", rows.absolute(250e-6, " per file")),
        rows.Row(workload, PY_BARE, "per file", anchor_of=PY_SHIM),
        rows.Row(workload, PY_CREATE, "per file", anchor_of=PY_SHIM),
    ]


def node_rows(count):
    workload = f"Node fs.unlinkSync × {count:,}, in process"
    return [
        rows.Row(workload, NODE_SHIM, "per file", rows.absolute(300e-6, " per file")),
        rows.Row(workload, NODE_BARE, "per file", anchor_of=NODE_SHIM),
        rows.Row(workload, NODE_CREATE, "per file", anchor_of=NODE_SHIM),
    ]


class Loop:
    """One round of a loop script in a fresh directory; returns seconds per file."""

    def __init__(self, sandbox, tag, argv, env_for_round, count, trashes):
        self.sandbox = sandbox
        self.tag = tag
        self.argv = argv
        self.env_for_round = env_for_round
        self.count = count
        self.trashes = trashes
        self.rounds = 0
        self.creates = []

    def __call__(self):
        self.rounds += 1
        directory = os.path.join(self.sandbox.work, f"{self.tag}{self.rounds}")
        before = len(self.sandbox.trashed())
        result = run_json([*self.argv, directory, str(self.count)], self.env_for_round())
        if os.listdir(directory):
            raise WorkloadError(f"{self.tag} left files in place")
        arrived = len(self.sandbox.trashed()) - before
        if self.trashes and arrived != self.count:
            raise WorkloadError(f"only {arrived} of {self.count} files reached the trash")
        self.creates.append(result["create_seconds"] / self.count)
        return result["seconds"] / self.count


def _run(table, loops, missing, profile, create_row):
    """Measure; create_row gets the file-making times of every loop's timed rounds."""
    timed = {name: loop for name, loop in loops.items() if name not in missing}
    results = interleave(timed, profile.loop_rounds, profile.warmup)
    results[create_row] = [s for loop in timed.values() for s in loop.creates[profile.warmup :]]
    return rows.fill(table, results, missing)


def run_python(profile, root, shim_home):
    sandbox = Sandbox(root, "python-loop", shim_home)
    try:
        count = profile.loop_files
        missing = {}
        if not os.path.isfile(os.path.join(shim_home, "python", "sitecustomize.py")):
            missing[PY_SHIM] = "the Python shim is not built yet (no python/sitecustomize.py)"
        argv = [PYTHON, script("loop_remove.py")]
        loops = {
            # A new turn each round: one turn of 2,000 deletions, as a build would do.
            PY_SHIM: Loop(
                sandbox, "pyshim", argv, lambda: sandbox.shim_env(fresh_turn=True), count, True
            ),
            PY_BARE: Loop(sandbox, "pybare", argv, sandbox.base_env, count, False),
        }
        return _run(python_rows(count), loops, missing, profile, PY_CREATE)
    finally:
        sandbox.close()


def run_node(profile, root, shim_home):
    sandbox = Sandbox(root, "node-loop", shim_home)
    try:
        count = profile.loop_files
        node = tool("node")
        missing = {}
        if node is None:
            missing = dict.fromkeys((NODE_SHIM, NODE_BARE), "node is not installed")
        elif not os.path.isfile(os.path.join(shim_home, "node", "safedel.cjs")):
            missing[NODE_SHIM] = "the Node shim is not built yet (no node/safedel.cjs)"
        argv = [node or "", script("loop_unlink.cjs")]
        loops = {
            NODE_SHIM: Loop(
                sandbox, "nodeshim", argv, lambda: sandbox.shim_env(fresh_turn=True), count, True
            ),
            NODE_BARE: Loop(sandbox, "nodebare", argv, sandbox.base_env, count, False),
        }
        return _run(node_rows(count), loops, missing, profile, NODE_CREATE)
    finally:
        sandbox.close()
