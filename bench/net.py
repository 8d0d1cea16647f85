"""The seccomp net: what it adds to `safedel run`, to an exempt temp-file loop, and
how GNU rm -rf through the net compares with the rm shim.

Every unlink of the loop is a round trip to the supervisor thread, which finds the
temp dir exempt and unlinks the file itself (net/perform). `/bin/rm -rf` under dash
reaches the net entry by entry (each trashed on its own); plain `rm -rf` goes to the
shim, one rename.

Without the net, the loop costs what the filesystem charges for a create, a 4 KiB write
and an unlink, and on ext4 that swings with the allocator's state: within one run the
same 10,000 files took 3 s for a while, then 0.15 s (a new inode is found only past
recently freed ones). Rounds are interleaved, so both sides meet each state, and there
are at least LOOP_ROUNDS of them: with two, one round on each side of a swing decided
the ratio (anywhere from 0.8 to 9 ×).
"""

import os
import shutil

from . import rows
from .harness import (
    PYTHON,
    Sandbox,
    interleave,
    make_tree,
    script,
    timed_spawn,
    timed_spawn_with_cpu,
    tool,
)
from .startup import safedel_command

RUN_ON = "safedel run -- true, net on"
RUN_OFF = "safedel run --net off -- true"
LOOP_ON = "10,000 temp files created and unlinked, net on"
LOOP_OFF = "the same loop, --net off"
RM_NET = "/bin/rm -rf of 1,000 files under dash, through the net"
RM_SHIM = "rm -rf of 1,000 files, through the rm shim"
# The same runs, in CPU time (safedel run, its supervisor thread and every process it
# waited for): on a shared machine it moves far less than wall time does.
RUN_ON_CPU = "safedel run -- true, net on: CPU time"
RUN_OFF_CPU = "safedel run --net off -- true: CPU time"
LOOP_ON_CPU = "10,000 temp files, net on: CPU time"
LOOP_OFF_CPU = "10,000 temp files, --net off: CPU time"
CPU_OF = {RUN_ON: RUN_ON_CPU, RUN_OFF: RUN_OFF_CPU, LOOP_ON: LOOP_ON_CPU, LOOP_OFF: LOOP_OFF_CPU}
# The loop's ratio taken round by round: on ext4 the loop's own cost swings with the
# allocator, and a pair run back to back meets the same state far more often than two
# medians over the whole run do.
LOOP_PAIRED = "10,000 temp files, net on ÷ off"
LOOP_PAIRED_CPU = "10,000 temp files, net on ÷ off: CPU time"
LOOP_FILES = 10_000
LOOP_ROUNDS = 5
RM_DIRS, RM_FILES = 10, 100


def row_list():
    workload = "net"
    return [
        rows.Row(workload, RUN_ON, "per run", rows.plus(RUN_OFF, 0.010)),
        rows.Row(workload, RUN_OFF, "per run", anchor_of=RUN_ON),
        # The temp loop is reported, not budgeted: its cost is the supervisor's floor
        # per unlink (the notify round trip, the path read, the parent opened and the
        # unlink done by the supervisor itself), which real work meets rarely.
        rows.Row(workload, LOOP_ON, "per run", anchor_of=LOOP_OFF),
        rows.Row(workload, LOOP_OFF, "per run", anchor_of=LOOP_ON),
        rows.Row(workload, RUN_ON_CPU, "per run", rows.plus(RUN_OFF_CPU, 0.010)),
        rows.Row(workload, RUN_OFF_CPU, "per run", anchor_of=RUN_ON_CPU),
        rows.Row(workload, LOOP_ON_CPU, "per run", anchor_of=LOOP_OFF_CPU),
        rows.Row(workload, LOOP_OFF_CPU, "per run", anchor_of=LOOP_ON_CPU),
        rows.Row(workload, LOOP_PAIRED, rows.RATIO),
        rows.Row(workload, LOOP_PAIRED_CPU, rows.RATIO),
        rows.Row(workload, RM_NET, "per run", anchor_of=RM_SHIM),
        rows.Row(workload, RM_SHIM, "per run", anchor_of=RM_NET),
    ]


def run(profile, root, shim_home):
    sandbox = Sandbox(root, "net", shim_home)
    try:
        from safedel.net import kernel_supports

        supported, why = kernel_supports()
        dash, true = tool("dash"), tool("true")
        if not (supported and dash and true):
            reason = why if not supported else "dash or true is not installed"
            return rows.fill(row_list(), {}, {row.subject: reason for row in row_list()})
        env = sandbox.base_env()
        errors = os.path.join(sandbox.root, "stderr")
        run = [*safedel_command(), "run", "-q", "--threshold", "99999"]
        run += ["--workspace", sandbox.work]
        loop = [PYTHON, "-I", script("temp_loop.py"), sandbox.tmpdir, str(LOOP_FILES)]
        counter = iter(range(1_000_000))

        def rm_tree(argv_for):
            def timed():
                top = os.path.join(sandbox.work, f"t{next(counter)}")
                make_tree(top, RM_DIRS, RM_FILES)
                shutil.rmtree(sandbox.trash, ignore_errors=True)  # no collision suffixes
                seconds = timed_spawn(argv_for(top), env, errors)
                if os.path.lexists(top):
                    raise RuntimeError(f"{top} was not removed")
                return seconds

            return timed

        cpu = {name: [] for name in CPU_OF}

        def timed_cpu(name, argv):
            def timed():
                seconds, cpu_seconds = timed_spawn_with_cpu(argv, env, errors)
                cpu[name].append(cpu_seconds)
                return seconds

            return timed

        # `true` takes milliseconds: many rounds, and one untimed to warm the caches.
        starts = {
            RUN_ON: timed_cpu(RUN_ON, [*run, "--", true]),
            RUN_OFF: timed_cpu(RUN_OFF, [*run, "--net", "off", "--", true]),
        }
        results = interleave(starts, profile.startup_rounds, 1)
        loops = {
            LOOP_ON: timed_cpu(LOOP_ON, [*run, "--", *loop]),
            LOOP_OFF: timed_cpu(LOOP_OFF, [*run, "--net", "off", "--", *loop]),
        }
        rounds = max(profile.loop_rounds, LOOP_ROUNDS)
        results.update(interleave(loops, rounds, profile.warmup))
        trees = {
            RM_NET: rm_tree(lambda top: [*run, "--", dash, "-c", f"/bin/rm -rf '{top}'"]),
            RM_SHIM: rm_tree(lambda top: [*run, "--", dash, "-c", f"rm -rf '{top}'"]),
        }
        results.update(interleave(trees, profile.loop_rounds, profile.warmup))
        for name, samples in cpu.items():  # each ran its untimed rounds first
            untimed = 1 if name in starts else profile.warmup
            failed = results[name]
            results[CPU_OF[name]] = failed if isinstance(failed, Exception) else samples[untimed:]
        results[LOOP_PAIRED] = rows.paired(results[LOOP_ON], results[LOOP_OFF])
        results[LOOP_PAIRED_CPU] = rows.paired(results[LOOP_ON_CPU], results[LOOP_OFF_CPU])
        return rows.fill(row_list(), results, {})
    finally:
        sandbox.close()
