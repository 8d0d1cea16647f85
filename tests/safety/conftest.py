"""Fixtures for the safety tests: a place another user (uid 65534) can reach."""

import os
import shutil
import subprocess
import sys
import tempfile

import pytest
import trashlisting
from conftest import IN_CI, require

NOBODY = 65534
HERE = os.path.dirname(os.path.abspath(__file__))


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "trash_list_hangs: the test plants an info file trash-list would block on"
    )


@pytest.fixture(autouse=True)
def trash_list_agrees(request):
    """After each test here that used a sandbox, trash-cli's trash-list and `safedel
    list` show the same items, with the same dates, from its home trash."""
    hangs = request.node.get_closest_marker("trash_list_hangs")
    sandbox = None
    if "sandbox" in request.fixturenames and not hangs:
        sandbox = request.getfixturevalue("sandbox")
    yield
    if sandbox is not None and (sandbox.trash / "info").is_dir():
        require("trash-list")
        trashlisting.agreeing(trashlisting.listings(str(sandbox.root), env=sandbox.base_env()))


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
