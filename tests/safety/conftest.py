"""Fixtures for the safety tests: a place another user (uid 65534) can reach."""

import os
import shutil
import subprocess
import sys
import tempfile

import pytest
from conftest import IN_CI, require

NOBODY = 65534
HERE = os.path.dirname(os.path.abspath(__file__))


def need_root():
    if os.geteuid() != 0:
        if IN_CI:
            pytest.fail("these tests need root under CI=true")
        pytest.skip("needs root to act as uid 65534")
    require("setpriv")


@pytest.fixture
def shared():
    """A fresh directory every user can reach (0755), under /var/tmp: pytest's own
    tmp_path is private to root."""
    need_root()
    base = tempfile.mkdtemp(prefix="safedel-shared-", dir="/var/tmp")
    os.chmod(base, 0o755)
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def as_nobody(argv, **kwargs):
    """argv run as uid/gid 65534 with no supplementary groups."""
    prefix = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    return subprocess.Popen(prefix + argv, **kwargs)


def attacker(*args, **kwargs):
    # -I: the attacker's interpreter must not load anything of ours from the environment.
    script = os.path.join(HERE, "attacker.py")
    return as_nobody([sys.executable, "-I", script, *args], **kwargs)
