"""The bulk guard's added cost per deletion, alone and with 16 processes in one turn.

Each worker times every call: `authorize` for one path (a real take from the turn's
shared ledger) against the same loop around a function that does nothing. The guard
has no budget of its own in DESIGN.md; it runs once per deletion inside the in-process
shims, so its added cost is held to the Python shim's whole per-file budget.
"""

import json
import subprocess
import time

from . import rows
from .harness import PYTHON, Sandbox, WorkloadError, interleave, script

WORKLOAD = "bulk guard, added cost per deletion (p50 = median)"


def names(procs):
    noun = "process" if procs == 1 else "concurrent processes"
    return f"authorize, {procs} {noun}", f"loop without authorize, {procs} {noun}"


def row_list(concurrency):
    table = []
    for procs in concurrency:
        guarded, bare = names(procs)
        budget = rows.plus(bare, 250e-6)
        budget.text += " (the Python shim's per-file budget)"
        table.append(rows.Row(WORKLOAD, guarded, "per deletion", budget))
        table.append(rows.Row(WORKLOAD, bare, "per deletion", anchor_of=guarded))
    return table


class Workers:
    """procs workers started together; returns every per-call sample of all of them."""

    def __init__(self, sandbox, mode, procs, takes):
        self.sandbox = sandbox
        self.mode = mode
        self.procs = procs
        self.takes = takes

    def __call__(self):
        env = self.sandbox.shim_env(fresh_turn=True)
        # Late enough for every worker to have started and loaded safedel.
        start_at = time.time() + 0.2 + 0.06 * self.procs
        argv = [PYTHON, script("guard_worker.py"), self.mode, str(self.takes), str(start_at)]
        argv.append(self.sandbox.work)
        children = [
            subprocess.Popen(argv, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
            for _ in range(self.procs)
        ]
        samples, failure = [], None
        for child in children:
            out, err = child.communicate(timeout=600)
            if child.returncode != 0:
                lines = err.decode("utf-8", "replace").strip().splitlines()
                failure = f"a worker exited {child.returncode}: {lines[-1] if lines else ''}"
                continue
            samples.extend(_samples(out))
        if failure:
            raise WorkloadError(failure)
        return samples


def _samples(out):
    try:
        return json.loads(out.decode("utf-8").strip().splitlines()[-1])["samples"]
    except (IndexError, ValueError, KeyError):
        raise WorkloadError("a worker printed no samples") from None


def run(profile, root, shim_home):
    concurrency = (1, 16)
    table = row_list(concurrency)
    sandbox = Sandbox(root, "guard", shim_home)
    try:
        timers = {}
        for procs in concurrency:
            guarded, bare = names(procs)
            timers[guarded] = Workers(sandbox, "authorize", procs, profile.guard_takes)
            timers[bare] = Workers(sandbox, "bare", procs, profile.guard_takes)
        results = interleave(timers, profile.guard_rounds, profile.warmup)
        for row in table:
            row.measured(results[row.subject])
        return rows.settle(table)
    finally:
        sandbox.close()
