"""What capture mode adds to `safedel run`: for `true`, and for a command writing 5 MB.

Capture mode puts the command's output in files and, when it ends, reads the two ends
of each to build the model's view. For `true` that is two empty files, a pidfd wait
and the subreaper call; for a 5 MB writer the view reads a few times the budget, not
the 5 MB. The writer runs captured and plain (its stdout going to a file) in the same
rounds; the budget is plain plus 1.5 x `cat` of the same bytes to a file.
"""

import os
import statistics
import time

from . import rows
from .harness import Sandbox, WorkloadError, interleave, tail, timed_spawn, tool
from .startup import safedel_command

CAPTURE_TRUE = "safedel run --capture -- true"
PLAIN_TRUE = "safedel run -- true"
CAT = "cat of the same 5 MB to a file"
CAPTURE_CAT = "safedel run --capture -- cat 5 MB"
PLAIN_CAT = "safedel run -- cat 5 MB, stdout to a file"
SIZE = 5 * 1024 * 1024


def row_list(cat_seconds=None):
    """The rows; the writer's budget is plain + 1.5 x cat, so it is set once cat's
    median of this run is known."""
    workload = "safedel run --capture"
    allowance = 1.5 * (cat_seconds or 0.0)
    text = f"≤ {PLAIN_CAT} + 1.5 × cat"
    if cat_seconds:
        text += f" ({rows.fmt(allowance)})"
    writer = rows.Budget(text, PLAIN_CAT, extra=allowance)
    return [
        rows.Row(workload, CAPTURE_TRUE, "per run", rows.plus(PLAIN_TRUE, 0.010)),
        rows.Row(workload, PLAIN_TRUE, "per run", anchor_of=CAPTURE_TRUE),
        rows.Row(workload, CAPTURE_CAT, "per run", writer),
        rows.Row(workload, PLAIN_CAT, "per run", anchor_of=CAPTURE_CAT),
        rows.Row(workload, CAT, "per run", anchor_of=CAPTURE_CAT),
    ]


def _spawn_to(argv, env, out, errors):
    """Wall time of argv with its stdout going to the file out."""
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, out, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
        (os.POSIX_SPAWN_OPEN, 2, errors, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
    ]
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, env, file_actions=actions)
    _, status = os.waitpid(pid, 0)
    elapsed = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise WorkloadError(f"{os.path.basename(argv[0])} failed: {tail(errors)}")
    return elapsed


def _writer_data(sandbox):
    """5 MB of coloured log lines with some invalid UTF-8, as a build might print."""
    path = os.path.join(sandbox.work, "five-mb.log")
    line = b"\x1b[32mINFO\x1b[0m compiling module %06d \xff done\n"
    with open(path, "wb") as handle:
        written, n = 0, 0
        while written < SIZE:
            chunk = line % n
            handle.write(chunk)
            written, n = written + len(chunk), n + 1
    return path


def run(profile, root, shim_home):
    sandbox = Sandbox(root, "capture", shim_home)
    try:
        true, cat = tool("true"), tool("cat")
        if not (true and cat):
            reason = "true or cat is not installed"
            return rows.fill(row_list(), {}, {row.subject: reason for row in row_list()})
        data = _writer_data(sandbox)
        env = sandbox.base_env()
        errors = os.path.join(sandbox.root, "stderr")
        out = os.path.join(sandbox.root, "stdout")
        command = safedel_command()

        def captured():
            seconds = _spawn_to([*command, "run", "--capture", "--", cat, data], env, out, errors)
            _drop_runs(sandbox.state)  # each leaves 5 MB in the state dir
            return seconds

        timers = {
            CAPTURE_TRUE: lambda: timed_spawn(
                [*command, "run", "--capture", "--", true], env, errors
            ),
            PLAIN_TRUE: lambda: timed_spawn([*command, "run", "--", true], env, errors),
            CAPTURE_CAT: captured,
            PLAIN_CAT: lambda: _spawn_to([*command, "run", "--", cat, data], env, out, errors),
            CAT: lambda: _spawn_to([cat, data], env, out, errors),
        }
        results = interleave(timers, profile.run_rounds, max(profile.warmup, 1))
        cat_samples = results.get(CAT)
        cat_median = statistics.median(cat_samples) if isinstance(cat_samples, list) else None
        return rows.fill(row_list(cat_median), results, {})
    finally:
        sandbox.close()


def _drop_runs(state):
    runs = os.path.join(state, "runs")
    for name in os.listdir(runs) if os.path.isdir(runs) else []:
        if name.startswith("r-"):
            run_dir = os.path.join(runs, name)
            for entry in os.listdir(run_dir):
                os.unlink(os.path.join(run_dir, entry))
            os.rmdir(run_dir)
