"""A trash of 100,000 items: listing it, a prefix, and `restore --last`, against
trash-cli's trash-list on the same trash, in the same run.

The items are written the way the engine writes them (an info file, then the item),
directly, because trashing 100,000 files one command at a time would take hours.
"""

import os
import time

from . import rows
from .harness import Sandbox, WorkloadError, interleave, timed_spawn, tool
from .startup import safedel_command

WORKLOAD = "a trash of {n:,} items"
LIST = "safedel list --json (cache warm)"
PREFIX = "safedel list PREFIX --json (cache warm)"
LAST = "safedel restore --last"
COLD = "safedel list --json, cache removed first"
TRASH_LIST = "trash-list"


def row_list(items):
    workload = WORKLOAD.format(n=items)
    return [
        rows.Row(workload, LIST, "per call", rows.absolute(0.5)),
        rows.Row(workload, PREFIX, "per call", rows.absolute(0.5)),
        rows.Row(workload, LAST, "per call", rows.absolute(0.5)),
        rows.Row(workload, COLD, "per call", anchor_of=LIST),
        rows.Row(workload, TRASH_LIST, "per call", anchor_of=LIST),
    ]


def fill(trash_dir, work, count):
    info, files = os.path.join(trash_dir, "info"), os.path.join(trash_dir, "files")
    os.makedirs(info, mode=0o700, exist_ok=True)
    os.makedirs(files, mode=0o700, exist_ok=True)
    date = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(time.time() - 86400))
    for index in range(count):
        name = f"item{index:06d}"
        with open(os.path.join(info, name + ".trashinfo"), "w") as handle:
            handle.write(
                f"[Trash Info]\nPath={work}/d{index % 100:02d}/{name}\nDeletionDate={date}\n"
            )
        with open(os.path.join(files, name), "w") as handle:
            handle.write("x")


class LastRestorer:
    """Trashes one new file (untimed), then times `safedel restore --last` on it."""

    def __init__(self, sandbox, env):
        self.sandbox, self.env, self.calls = sandbox, env, 0
        self.errors = os.path.join(sandbox.root, "last.stderr")

    def __call__(self):
        self.calls += 1
        path = os.path.join(self.sandbox.work, f"last-{self.calls}")
        with open(path, "w") as handle:
            handle.write("x")
        timed_spawn([*safedel_command(), "trash", path], self.env, self.errors)
        seconds = timed_spawn([*safedel_command(), "restore", "--last"], self.env, self.errors)
        if not os.path.exists(path):
            raise WorkloadError("restore --last did not bring the newest item back")
        return seconds


def run(profile, root, shim_home):
    count = profile.trash_items
    table = row_list(count)
    sandbox = Sandbox(root, "bigtrash", shim_home)
    try:
        fill(sandbox.trash, sandbox.work, count)
        env = sandbox.base_env()
        env["SAFEDEL_WORKSPACE"] = sandbox.work  # restore --last's item is trashed here
        errors = os.path.join(sandbox.root, "stderr")
        safedel = safedel_command()  # the installed one, not the checkout's sources
        cache = os.path.join(sandbox.trash, "safedel-catalog.v1")

        def cold():
            if os.path.exists(cache):
                os.unlink(cache)
            return timed_spawn([*safedel, "list", "--json"], env, errors)

        timers = {
            LIST: lambda: timed_spawn([*safedel, "list", "--json"], env, errors),
            PREFIX: lambda: timed_spawn(
                [*safedel, "list", os.path.join(sandbox.work, "d07"), "--json"], env, errors
            ),
            LAST: LastRestorer(sandbox, env),
            COLD: cold,
        }
        missing = {}
        trash_list = tool("trash-list")
        if trash_list:
            timers[TRASH_LIST] = lambda: timed_spawn([trash_list], env, errors)
        else:
            missing[TRASH_LIST] = "trash-cli is not installed"
        results = interleave(timers, max(2, profile.bigdir_rounds), 1, rotate=False)
        return rows.fill(table, results, missing)
    finally:
        sandbox.close()
