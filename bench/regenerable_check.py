"""What a refused batch costs when it turns out to be regenerable: 1,000 files in one
git-ignored directory, put to git once (`git check-ignore --stdin -z`, plus the
`ls-files` that makes sure the directory holds nothing tracked before it is
remembered). Each round is a fresh process, so nothing is cached. The issue's budget:
at most 50 ms in total for the git check of such a batch.
"""

import os
import subprocess

from . import rows
from .harness import PYTHON, Sandbox, WorkloadError, interleave, run_json, script

WORKLOAD = "regenerable check, a refused batch of 1,000 files in one ignored directory"
SUBJECT = "git check of the whole batch, in process"
FILES = 1000


def row_list():
    return [rows.Row(WORKLOAD, SUBJECT, "per batch", rows.absolute(50e-3))]


def _repo(work):
    repo = os.path.join(work, "app")
    dist = os.path.join(repo, "dist")
    os.makedirs(dist)
    subprocess.run(["git", "init", "-q", repo], check=True)
    with open(os.path.join(repo, ".gitignore"), "w", encoding="utf-8") as handle:
        handle.write("dist/\n")
    for number in range(FILES):
        with open(os.path.join(dist, f"{number}.js"), "w", encoding="utf-8") as handle:
            handle.write("x")
    return dist


def run(profile, root, shim_home):
    table = row_list()
    sandbox = Sandbox(root, "regenerable", shim_home)
    try:
        dist = _repo(sandbox.work)
        env = sandbox.base_env()

        def once():
            done = run_json([PYTHON, script("regenerable_worker.py"), dist], env)
            if done["ignored"] != FILES:
                raise WorkloadError(f"git ignored {done['ignored']} of {FILES} files")
            return done["seconds"]

        results = interleave({SUBJECT: once}, max(3, profile.guard_rounds * 3), profile.warmup)
        table[0].measured(results[SUBJECT])
        return rows.settle(table)
    finally:
        sandbox.close()
