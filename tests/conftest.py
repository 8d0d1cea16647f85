"""Shared fixtures: an isolated user (HOME, trash, state, report) and the real tools.

Every test that deletes runs inside a Sandbox: its own HOME and XDG dirs, a work tree
that is *not* under the exempt temp dir (TMPDIR points elsewhere), and the shim home
materialised once per test session.
"""

import json
import os
import shutil
import subprocess
import sys
import time

import pytest
import sampling

from safedel.core.report import markers
from safedel.executor import childenv, shimhome

IN_CI = os.environ.get("CI") == "true"
# Short-lived churn off for what the tests start outside a Sandbox's base_env too (an
# environment copied from this one, uid 65534's runs): see Sandbox.churn.
os.environ.setdefault("SAFEDEL_CHURN_SECONDS", "0")
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "slow_matrix: a matrix of which each run takes a seeded sample (sampling.py)"
    )


def pytest_report_header(config):
    return sampling.header()


def pytest_sessionstart(session):
    # -q leaves the header out; the seed must show in every log (CI runs -q).
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if reporter is not None and session.config.get_verbosity() < 0:
        reporter.write_line(sampling.header())


def pytest_terminal_summary(terminalreporter):
    if sampling.TALLY:
        terminalreporter.write_line(sampling.summary())


def require(tool):
    """The tool's path; a missing tool skips on a laptop and fails under CI=true."""
    path = tool if os.path.isabs(tool) and os.access(tool, os.X_OK) else shutil.which(tool)
    if path:
        return path
    if IN_CI:
        pytest.fail(f"{tool} is required under CI=true but is not installed")
    pytest.skip(f"{tool} is not installed")


def confirm_config(state_dir, path, environ=None):
    """Record a person's yes to the config file at path as it is now, as `safedel config
    trust` does at a terminal: what the file widens applies only from then on."""
    from safedel.commands.configview import record
    from safedel.core.contract import confirmed

    text, info = confirmed.read(str(path))
    assert text is not None, path
    record(str(state_dir), str(path), text, info, environ)


@pytest.fixture(scope="session")
def shim_home(tmp_path_factory):
    return shimhome.materialize(str(tmp_path_factory.mktemp("shims")))


class Sandbox:
    def __init__(self, root, shim_home):
        self.root = root
        self.home = root / "home"
        self.work = root / "work"
        self.tmpdir = root / "tmpdir"
        self.state = root / "state"
        self.report_path = root / "report.jsonl"
        self.shim_home = shim_home
        for path in (self.home, self.work, self.tmpdir, self.state):
            path.mkdir(parents=True, exist_ok=True)
        self.trash = self.home / ".local" / "share" / "Trash"
        self.churn = "0"  # SAFEDEL_CHURN_SECONDS in base_env (see there)
        self.session = "test-session"
        self.turn = "turn-1"

    def base_env(self, **extra):
        env = {
            key: value
            for key, value in os.environ.items()
            if not key.startswith("SAFEDEL_")
            and key not in ("BASH_ENV", "ENV", "ZDOTDIR", "NODE_OPTIONS", "PYTHONPATH")
        }
        env.update(
            HOME=str(self.home),
            XDG_DATA_HOME=str(self.home / ".local" / "share"),
            XDG_STATE_HOME=str(self.home / ".local" / "state"),
            XDG_CONFIG_HOME=str(self.home / ".config"),
            TMPDIR=str(self.tmpdir),
            SAFEDEL_STATE_DIR=str(self.state),
            SAFEDEL_REPORT=str(self.report_path),
            SAFEDEL_PROMPT="0",
            # Short-lived churn off unless a test is about it (self.churn = "60"): most
            # tests make a file in the turn and look for it in the trash.
            SAFEDEL_CHURN_SECONDS=self.churn,
        )
        env.update({k: str(v) for k, v in extra.items()})
        return env

    def shim_env(self, threshold=None, turn=None, **extra):
        """The environment `safedel run` gives a child, for driving tools directly."""
        options = childenv.RunOptions(
            session=self.session, turn=turn or self.turn, threshold=threshold
        )
        env = childenv.child_environment(self.base_env(**extra), self.shim_home, options)
        # As `safedel run` started in the work tree would: that is the workspace.
        env.setdefault("SAFEDEL_WORKSPACE_ROOTS", os.path.realpath(self.work))
        if "SAFEDEL_TURN_START" not in extra:
            # The files a test makes count, wherever it makes them: a turn said to start
            # tomorrow made none of them. What a turn makes is tested through safedel run.
            env["SAFEDEL_TURN_START"] = f"{time.time() + 86400}:{turn or self.turn}"
        return env

    def run(self, *command, run_options=(), cwd=None, env=None, input=None, timeout=120):
        """`safedel run --session S --turn T [run_options] -- command` in the work tree."""
        argv = [sys.executable, "-m", "safedel", "run", "--session", self.session]
        argv += ["--turn", self.turn, *run_options, "--", *command]
        return subprocess.run(
            argv,
            cwd=cwd or self.work,
            env=env or self.base_env(),
            input=input,
            capture_output=True,
            timeout=timeout,
        )

    def trashed_names(self):
        files = self.trash / "files"
        return sorted(os.listdir(files)) if files.is_dir() else []

    def report(self):
        if not self.report_path.exists():
            return []
        with open(self.report_path, "rb") as handle:
            return [json.loads(line) for line in handle if line.strip()]


def as_a_person(argv, **kwargs):
    """subprocess.run(argv) with a terminal on stdin, as a person types it at theirs:
    `safedel guard approve` and `reset` refuse a stdin that is not one."""
    import pty

    leader, follower = pty.openpty()
    try:
        return subprocess.run(argv, stdin=follower, **kwargs)
    finally:
        os.close(follower)
        os.close(leader)


@pytest.fixture
def sandbox(tmp_path, shim_home):
    return Sandbox(tmp_path, shim_home)


def last_markers(stderr):
    """The markers a harness would read: the last of each kind, JSON-decoded."""
    if isinstance(stderr, bytes):
        stderr = stderr.decode("utf-8", "replace")
    return markers.parse_markers(stderr)


@pytest.fixture
def tmpfs(tmp_path):
    """mount(name, **options) mounts a fresh tmpfs at tmp_path/name (or at/name).

    Root can mount here and in CI; elsewhere the test skips (and fails under CI=true).
    Every mount is lazily unmounted at teardown, even if the test left it busy.
    """
    mounted = []

    def mount(name="mnt", size="16m", mode="0755", extra="", at=None):
        point = (at or tmp_path) / name
        point.mkdir(exist_ok=True)
        options = f"size={size},mode={mode}" + (f",{extra}" if extra else "")
        done = subprocess.run(
            ["mount", "-t", "tmpfs", "-o", options, "safedel-test", str(point)],
            capture_output=True,
            text=True,
        )
        if done.returncode != 0:
            message = f"cannot mount a tmpfs here: {done.stderr.strip()}"
            if IN_CI:
                pytest.fail(message)
            pytest.skip(message)
        mounted.append(point)
        return point

    yield mount
    for point in reversed(mounted):
        subprocess.run(["umount", "-l", str(point)], capture_output=True)
