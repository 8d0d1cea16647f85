"""A long report: 1,000,000 events of history, then what a user does with a recent turn.

`safedel restore --turn` of one of the newest turns and `safedel report` for its
default range (the last 7 days) find their lines without parsing the history; the
anchor is `safedel report --all`, which parses every event, as both did before.
"""

import os
import time

from . import rows
from .harness import Sandbox, WorkloadError, interleave, timed_spawn
from .startup import safedel_command

WORKLOAD = "a report of {n:,} events"
RESTORE = "safedel restore --turn (one of the newest turns, 3 items)"
RECENT = "safedel report (default range: the last 7 days)"
FULL = "safedel report --all (parses every event)"
EVENTS = 1_000_000
LINE = (
    '{{"v":1,"operation":"trash","path":"/home/u/proj/build/out/file-{i}.o",'
    '"trashPath":"/home/u/.local/share/Trash/files/file-{i}.o",'
    '"infoPath":"/home/u/.local/share/Trash/info/file-{i}.o.trashinfo","kind":"file",'
    '"runtime":"rm","timestamp":{t},"session":"agent-{s}","turn":"t-{turn}","toolCall":"",'
    '"pid":4242,"host":"terminal"}}\n'
)


def row_list(events=EVENTS):
    workload = WORKLOAD.format(n=events)
    return [
        rows.Row(workload, RESTORE, "per call", rows.absolute(1.0, " (well under a second)")),
        rows.Row(workload, RECENT, "per call", rows.absolute(1.0, " (well under a second)")),
        rows.Row(workload, FULL, "per call", anchor_of=RESTORE),
    ]


def write_history(path, events):
    """events lines spread over the last 120 days, oldest first, 100 per turn."""
    now = int(time.time() * 1000)
    span = 120 * 86400 * 1000
    with open(path, "w") as handle:
        chunk = []
        for i in range(events):
            stamp = now - span + span * i // events
            chunk.append(LINE.format(i=i, t=stamp, s=i // 50_000, turn=i // 100))
            if len(chunk) == 10_000:
                handle.write("".join(chunk))
                chunk = []
        handle.write("".join(chunk))


class Restorer:
    """Trashes three files in a fresh newest turn (untimed), then times its restore."""

    def __init__(self, sandbox, env):
        self.sandbox, self.env, self.rounds = sandbox, env, 0
        self.errors = os.path.join(sandbox.root, "restore.stderr")

    def __call__(self):
        self.rounds += 1
        turn = f"t-bench-{self.rounds}"
        names = [os.path.join(self.sandbox.work, f"r{self.rounds}-{k}") for k in range(3)]
        for name in names:
            with open(name, "w") as handle:
                handle.write("x")
        argv = [*safedel_command(), "run", "--session", "bench", "--turn", turn]
        argv += ["--workspace", self.sandbox.work, "--"]  # the bench starts elsewhere
        timed_spawn([*argv, "rm", *names], self.env, self.errors)
        seconds = timed_spawn(
            [*safedel_command(), "restore", "--turn", turn, "--session", "bench"],
            self.env,
            self.errors,
        )
        if not all(os.path.exists(name) for name in names):
            raise WorkloadError("restore --turn did not bring the items back")
        return seconds


def run(profile, root, shim_home):
    events = profile.report_events
    table = row_list(events)
    sandbox = Sandbox(root, "report-history", shim_home)
    try:
        write_history(sandbox.report, events)
        env = sandbox.base_env()
        errors = os.path.join(sandbox.root, "stderr")
        timers = {
            RESTORE: Restorer(sandbox, env),
            RECENT: lambda: timed_spawn([*safedel_command(), "report"], env, errors),
            FULL: lambda: timed_spawn([*safedel_command(), "report", "--all"], env, errors),
        }
        results = interleave(timers, max(2, profile.bigdir_rounds), 0)
        return rows.fill(table, results, {})
    finally:
        sandbox.close()
