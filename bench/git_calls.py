"""git under safedel: what the launcher costs the commands that pass straight through,
and `git clean` of 1,000 untracked files through the trash against the real one."""

import os
import subprocess

from . import rows
from .harness import Sandbox, WorkloadError, interleave, timed_spawn, tool

PASS = "git launcher pass-through"
VERSION, VERSION_SHIM = "git --version", "git --version, through the launcher"
STATUS = "git status, 1,000-file repository"
STATUS_SHIM = "git status, 1,000-file repository, through the launcher"
CLEAN = "git clean -f of 1,000 untracked files"
CLEAN_REAL, CLEAN_SHIM = "real git clean -f", "git clean -f through safedel (trashed)"
FILES = 1000


def row_list():
    return [
        rows.Row(PASS, VERSION_SHIM, "per call", rows.plus(VERSION, 0.002)),
        rows.Row(PASS, VERSION, "per call", anchor_of=VERSION_SHIM),
        rows.Row(PASS, STATUS_SHIM, "per call", rows.plus(STATUS, 0.002)),
        rows.Row(PASS, STATUS, "per call", anchor_of=STATUS_SHIM),
        rows.Row(CLEAN, CLEAN_SHIM, "per clean", anchor_of=CLEAN_REAL),
        rows.Row(CLEAN, CLEAN_REAL, "per clean", anchor_of=CLEAN_SHIM),
    ]


def _repo(path, env, files):
    os.makedirs(path)
    subprocess.run(["git", "init", "-q", path], env=env, check=True)
    for i in range(files):
        with open(os.path.join(path, f"f{i:05d}"), "wb") as handle:
            handle.write(b"x\n")
    return path


class Cleaner:
    """Fills a repository with untracked files (untimed), then times one git clean."""

    def __init__(self, sandbox, name, argv, env, files):
        self.repo = _repo(os.path.join(sandbox.work, name), env, 0)
        self.argv, self.env, self.files = argv, env, files
        self.errors = os.path.join(sandbox.root, f"{name}.stderr")

    def __call__(self):
        for i in range(self.files):
            with open(os.path.join(self.repo, f"u{i:05d}"), "wb") as handle:
                handle.write(b"x\n")
        seconds = timed_spawn([*self.argv, "-C", self.repo, "clean", "-fq"], self.env, self.errors)
        if len(os.listdir(self.repo)) != 1:
            raise WorkloadError("git clean left files behind")
        return seconds


def run(profile, root, shim_home):
    table = row_list()
    sandbox = Sandbox(root, "git", shim_home)
    try:
        git = tool("git")
        launcher = os.path.join(shim_home, "bin", "git")
        missing = {}
        if git is None:
            missing = {row.subject: "git is not installed" for row in table}
            return rows.fill(table, {}, missing)
        if not os.access(launcher, os.X_OK):
            for subject in (VERSION_SHIM, STATUS_SHIM, CLEAN_SHIM):
                missing[subject] = "the git launcher is not built (no bin/git in the shim home)"
        base, shim = sandbox.base_env(), sandbox.shim_env()
        repo = _repo(os.path.join(sandbox.work, "status"), base, FILES)
        subprocess.run([git, "-C", repo, "add", "-A"], env=base, check=True)
        errors = os.path.join(sandbox.root, "stderr")

        def spawn(argv, env):
            return lambda: timed_spawn(argv, env, errors)

        timers = {
            VERSION: spawn([git, "--version"], base),
            VERSION_SHIM: spawn([launcher, "--version"], shim),
            STATUS: spawn([git, "-C", repo, "status", "--porcelain"], base),
            STATUS_SHIM: spawn([launcher, "-C", repo, "status", "--porcelain"], shim),
            CLEAN_REAL: Cleaner(sandbox, "clean-real", [git], base, FILES),
            CLEAN_SHIM: Cleaner(sandbox, "clean-shim", [launcher], shim, FILES),
        }
        timers = {name: timer for name, timer in timers.items() if name not in missing}
        rounds = max(3, profile.startup_rounds)
        results = interleave(timers, rounds, profile.warmup)
        return rows.fill(table, results, missing)
    finally:
        sandbox.close()
