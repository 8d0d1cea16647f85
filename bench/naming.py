"""Naming a trash entry whose name is taken: the 3,000th `conftest.c` in one trash
against the first item of a new name, in the same run (issue 31, cases 3 and 12).

Both sides are the engine's own move (info file with O_EXCL, rename into files/), in
process, in one trash directory per round. Each round trashes SAME - 1 `conftest.c`
files untimed, then times BATCH more of them (the SAME-th on) and BATCH first-of-their-
name items, and the ratio row pairs the two medians of one round.
"""

import os
import statistics
import time

from safedel.core.trash import move

from . import rows
from .harness import Sandbox, WorkloadError

SAME = 3_000
BATCH = 20
WORKLOAD = f"trash naming, {SAME:,} items of one name"
FIRST = "naming the first item of a name (info file, rename)"
NTH = f"naming the {SAME:,}th conftest.c (info file, rename)"
RATIO = f"{SAME:,}th / first, round by round"


def row_list():
    return [
        rows.Row(WORKLOAD, FIRST, "per item", anchor_of=NTH),
        rows.Row(WORKLOAD, NTH, "per item", rows.times(FIRST, 2)),
        rows.Row(WORKLOAD, RATIO, rows.RATIO, rows.round_by_round(2)),
    ]


def _timed_trash(path, trash_dir):
    with open(path, "w") as handle:
        handle.write("x")
    start = time.perf_counter()
    move.trash(path, trash_dir)
    return time.perf_counter() - start


def one_round(sandbox, index):
    """(median seconds for a first-of-its-name, median for the SAME-th conftest.c)."""
    trash_dir = os.path.join(sandbox.root, f"trash-{index}")
    os.makedirs(trash_dir, mode=0o700)
    work = os.path.join(sandbox.work, f"round-{index}")
    os.mkdir(work)
    same = os.path.join(work, "conftest.c")
    for _ in range(SAME - 1):
        _timed_trash(same, trash_dir)
    nth = [_timed_trash(same, trash_dir) for _ in range(BATCH)]
    first = [_timed_trash(os.path.join(work, f"new-{n}"), trash_dir) for n in range(BATCH)]
    if len(os.listdir(os.path.join(trash_dir, "files"))) != SAME - 1 + 2 * BATCH:
        raise WorkloadError("the trash does not hold every item trashed")
    return statistics.median(first), statistics.median(nth)


def run(profile, root, shim_home):
    table = row_list()
    sandbox = Sandbox(root, "naming", shim_home)
    results = {FIRST: [], NTH: []}
    try:
        for index in range(max(2, profile.loop_rounds)):
            first, nth = one_round(sandbox, index)
            results[FIRST].append(first)
            results[NTH].append(nth)
        results[RATIO] = rows.paired(results[NTH], results[FIRST])
    except (OSError, WorkloadError) as exc:
        error = exc if isinstance(exc, WorkloadError) else WorkloadError(str(exc))
        results = dict.fromkeys((FIRST, NTH, RATIO), error)
    finally:
        sandbox.close()
    return rows.fill(table, results, {})
