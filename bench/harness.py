"""Timing machinery: an isolated user per workload, timed spawns, A B A B rounds.

Every workload runs as its own user (HOME, trash, guard state, report) with a work tree
that is *not* under the exempt temp dir, so what is timed is the guarded, trashing path
and never the exemption.
"""

import json
import math
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

from safedel.executor import childenv

# The interpreter running the bench, as invoked: a venv's python keeps the venv's
# site-packages (and so the installed safedel) for the child scripts.
PYTHON = os.path.abspath(sys.executable)
# The binary behind it, which the launchers' #! line names: the floor rows' interpreter.
BARE_PYTHON = os.path.realpath(sys.executable)
HERE = os.path.dirname(os.path.abspath(__file__))
# Variables of an outer `safedel run` or bootstrap that must not leak into a workload.
HOOK_VARS = ("BASH_ENV", "ENV", "ZDOTDIR", "NODE_OPTIONS", "PYTHONPATH", "PYTHONSTARTUP")
# Dropped too: with it every Python child recompiles its imports on each start, which
# a usual machine does not do (it caches bytecode), so every Python row would be off.
NOT_PASSED = (*HOOK_VARS, "PYTHONDONTWRITEBYTECODE")
HIGH_THRESHOLD = 99999


class WorkloadError(Exception):
    """A candidate could not be measured; its row says why instead of showing numbers."""


def script(name):
    return os.path.join(HERE, name)


def tool(name):
    """The absolute path of a tool, or None: spawns below do no PATH search."""
    if os.path.isabs(name):
        return name if os.access(name, os.X_OK) else None
    return shutil.which(name)


class Sandbox:
    """One workload's private user, under the run's root directory."""

    def __init__(self, root, name, shim_home):
        self.root = os.path.join(root, name)
        self.home = os.path.join(self.root, "home")
        self.work = os.path.join(self.root, "work")
        self.tmpdir = os.path.join(self.root, "tmpdir")
        self.state = os.path.join(self.root, "state")
        self.report = os.path.join(self.root, "report.jsonl")
        self.shim_home = shim_home
        for path in (self.home, self.work, self.tmpdir, self.state):
            os.makedirs(path, mode=0o700, exist_ok=True)
        self.trash = os.path.join(self.home, ".local", "share", "Trash")
        self.turns = 0
        self.runs = []

    def base_env(self):
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith("SAFEDEL_") and key not in NOT_PASSED
        }
        share = os.path.join(self.home, ".local", "share")
        env.update(
            HOME=self.home,
            XDG_DATA_HOME=share,
            XDG_STATE_HOME=os.path.join(self.home, ".local", "state"),
            XDG_CONFIG_HOME=os.path.join(self.home, ".config"),
            XDG_CACHE_HOME=os.path.join(self.home, ".cache"),
            TMPDIR=self.tmpdir,
            SAFEDEL_STATE_DIR=self.state,
            SAFEDEL_REPORT=self.report,
            SAFEDEL_PROMPT="0",
        )
        return env

    def shim_env(self, threshold=HIGH_THRESHOLD, fresh_turn=False):
        """What `safedel run` gives a child; the exempt dir is this sandbox's TMPDIR."""
        if fresh_turn:
            self.turns += 1
        options = childenv.RunOptions(
            session="bench", turn=f"turn-{self.turns}", threshold=threshold
        )
        env = childenv.child_environment(self.base_env(), self.shim_home, options)
        # As `safedel run` started in the work tree would decide: that is the workspace.
        env.setdefault("SAFEDEL_WORKSPACE_ROOTS", os.path.realpath(self.work))
        return env

    def run_env(self, threshold=HIGH_THRESHOLD):
        """shim_env() inside a run of this process, set up by the code `safedel run`
        uses (runstate.record): the run record, the pointer its launchers find it by
        from the process tree, and SAFEDEL_RUN_ID. A launcher then reads its turn and
        ledger names from the record, as it does under `safedel run`."""
        from safedel.executor import runstate

        env = self.shim_env(threshold)
        run_id = "r-" + os.urandom(6).hex()
        env["SAFEDEL_RUN_ID"] = run_id
        fixed, pointed = runstate.record({}, env, run_id)
        keeper = _keeper()
        if keeper is not None:
            from safedel.core.contract import runpointer

            # As `safedel run` holds its record and keeps its turn (runstate.keep).
            keeper.hold_record(run_id, pointed, runpointer.pid_key(os.getpid()))
            keeper.watch(fixed)
        self.runs.append(env)
        return env

    def inactive_env(self):
        """The hooks in place (PYTHONPATH, NODE_OPTIONS) but SAFEDEL_ACTIVE unset."""
        env = self.shim_env()
        del env["SAFEDEL_ACTIVE"]
        return env

    def trashed(self):
        files = os.path.join(self.trash, "files")
        return sorted(os.listdir(files)) if os.path.isdir(files) else []

    def close(self):
        if self.runs:
            from safedel.core.contract import runpointer

            runpointer.unpoint()  # as `safedel run` does when its command ends
        shutil.rmtree(self.root, ignore_errors=True)


_keepers = []


def _keeper():
    """This process's guard keeper (executor/keeper.py), started once: launchers under
    run_env() find it among their ancestors, as under `safedel run`; None off Linux."""
    if not _keepers:
        from safedel.executor.keeper import Keeper

        _keepers.append(Keeper.start())
    return _keepers[0]


def timed_spawn(argv, env, errors):
    """Wall time of one run of argv, spawn to reap; stderr goes to the file errors."""
    return timed_spawn_with_cpu(argv, env, errors)[0]


def timed_spawn_with_cpu(argv, env, errors):
    """(wall, CPU) seconds of one run of argv, spawn to reap: the CPU of the process and
    of every process it waited for (the command and its children)."""
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
        (os.POSIX_SPAWN_OPEN, 2, errors, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600),
    ]
    start = time.perf_counter()
    pid = os.posix_spawn(argv[0], argv, env, file_actions=actions)
    _, status, usage = os.wait4(pid, 0)
    elapsed = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise WorkloadError(f"{os.path.basename(argv[0])} exited {code}: {tail(errors)}")
    return elapsed, usage.ru_utime + usage.ru_stime


def run_json(argv, env, timeout=600):
    """Run a measuring child script; it prints one JSON object on its last line."""
    done = subprocess.run(argv, env=env, capture_output=True, timeout=timeout)
    if done.returncode != 0:
        text = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise WorkloadError(f"exited {done.returncode}: {text[-1] if text else 'no message'}")
    lines = done.stdout.decode("utf-8", "replace").strip().splitlines()
    try:
        return json.loads(lines[-1])
    except (IndexError, ValueError):
        raise WorkloadError("printed no measurement") from None


def tail(path):
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            lines = handle.read().strip().splitlines()
    except OSError:
        return "no message"
    return lines[-1][:200] if lines else "no message"


def interleave(candidates, rounds, warmup=1, rotate=True):
    """Run each candidate once per round, A B A B ..., rotating who goes first.

    candidates maps a name to a callable returning seconds, or a list of per-call
    seconds; it does its own untimed set-up. rotate=False keeps their order, for
    set-ups that depend on it. Returns name -> list of samples, or name ->
    WorkloadError for a candidate that failed (it is dropped from later rounds; the
    others go on).
    """
    names = list(candidates)
    results = {name: [] for name in names}
    for index in range(warmup + rounds):
        shift = index % len(names) if rotate else 0
        for name in names[shift:] + names[:shift]:
            if isinstance(results[name], WorkloadError):
                continue
            try:
                seconds = candidates[name]()
            except WorkloadError as exc:
                results[name] = exc
                continue
            if index >= warmup:
                results[name].extend(seconds if isinstance(seconds, list) else [seconds])
    return results


class Stats:
    """Median, p99, min and max of a sample list, in seconds."""

    def __init__(self, samples):
        ordered = sorted(samples)
        self.n = len(ordered)
        self.median = statistics.median(ordered)
        self.p99 = ordered[min(self.n - 1, math.ceil(0.99 * self.n) - 1)]
        self.min = ordered[0]
        self.max = ordered[-1]


def make_tree(top, dirs, files_per_dir):
    """dirs x files_per_dir empty files under top (untimed set-up)."""
    os.mkdir(top)
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    for d in range(dirs):
        sub = os.path.join(top, f"d{d:04d}")
        os.mkdir(sub)
        for f in range(files_per_dir):
            os.close(os.open(os.path.join(sub, f"f{f:05d}"), flags, 0o644))


def default_parent():
    """The user's cache dir: a real home trash lives on the home's filesystem, which
    need not be the one under /tmp (often a tmpfs, with other costs)."""
    cache = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return cache


def new_root(parent=None):
    parent = parent or default_parent()
    os.makedirs(parent, mode=0o700, exist_ok=True)
    return tempfile.mkdtemp(prefix="safedel-bench-", dir=parent)
