"""`safedel run` inside a private mount namespace, for tests that bind-mount a project.

As root (CI runs as root), `unshare -m` gives the command its own mount table: the
mounts a test makes live and die with it, and safedel sees them as its command does.
Where a mount cannot be made, a test skips on a laptop and fails under CI=true.
"""

import subprocess
import sys

import pytest
from conftest import IN_CI, require


def require_root_mounts():
    unshare = require("unshare")
    require("mount")
    done = subprocess.run([unshare, "-m", "mount", "--bind", "/", "/mnt"], capture_output=True)
    if done.returncode != 0:
        message = f"cannot bind mount here: {done.stderr.decode().strip()}"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    return unshare


def run_in_namespace(sandbox, setup, script, run_options=(), cwd=None, env=None):
    """`safedel run [run_options] -- sh -c script` in a fresh mount namespace, after
    `sh -c setup` there; env: the run's environment (the sandbox's by default)."""
    unshare = require_root_mounts()
    argv = [sys.executable, "-m", "safedel", "run", "--session", sandbox.session]
    argv += ["--turn", sandbox.turn, *run_options, "--", "sh", "-c", script]
    wrapper = f'{setup}\nexec "$@"'
    return subprocess.run(
        [unshare, "-m", "sh", "-c", wrapper, "sh", *argv],
        cwd=cwd or sandbox.work,
        env=env or sandbox.base_env(),
        capture_output=True,
        timeout=120,
    )
