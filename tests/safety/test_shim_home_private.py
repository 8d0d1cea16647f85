"""A shim home someone else could have written is never used.

Every run executes its shim home's launchers as the user running safedel. Where the
cache dir lies in a place anyone can create entries in (HOME=/tmp in a container gives
/tmp/.cache), another user can make a home with the right name first, bin/rm included.
safedel then refuses to start rather than run it.
"""

import os
import stat
import subprocess
import sys

import pytest

from safedel import __version__
from safedel.executor import shimhome

pytestmark = pytest.mark.skipif(os.geteuid() != 0, reason="needs root to plant as uid 65534")

NOBODY = 65534


def planted_cache(tmp_path):
    """A sticky, world-writable folder of root's (a /tmp) in which uid 65534 made the
    cache dir first, with a complete shim home of the name safedel would use, whose
    launchers leave a mark instead of removing anything."""
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    cache = shared / "cache"
    name = f"{__version__}-{shimhome.content_hash(list(shimhome._sources()))}"
    home = cache / "safedel" / "shims" / name
    (home / "bin").mkdir(parents=True)
    mark = tmp_path / "planted-code-ran"
    for tool in ("rm", "rmdir", "unlink", "find"):
        launcher = home / "bin" / tool
        launcher.write_text(f"#!/bin/sh\ntouch {mark}\n")
        launcher.chmod(0o755)
    (home / ".complete").write_text(__version__ + "\n")
    for path in [cache, *cache.rglob("*")]:
        os.lchown(path, NOBODY, NOBODY)
    return cache, mark


def test_run_refuses_a_shim_home_planted_by_another_user(sandbox, tmp_path):
    cache, mark = planted_cache(tmp_path)
    victim = sandbox.work / "victim"
    victim.write_text("keep")
    done = sandbox.run("rm", "victim", env=sandbox.base_env(XDG_CACHE_HOME=cache))
    assert done.returncode == 1
    assert b"not private (owned by uid 65534)" in done.stderr, done.stderr
    assert str(cache).encode() in done.stderr
    assert not mark.exists()  # the planted launcher never ran
    assert victim.read_text() == "keep"


def test_bootstrap_and_serve_refuse_it_too(sandbox, tmp_path):
    cache, mark = planted_cache(tmp_path)
    env = sandbox.base_env(XDG_CACHE_HOME=cache)
    boot = subprocess.run(
        [sys.executable, "-m", "safedel", "bootstrap", "bash"], env=env, capture_output=True
    )
    assert boot.returncode == 1 and boot.stdout == b""
    assert b"not private" in boot.stderr
    socket = tmp_path / "sock" / "serve.sock"
    served = subprocess.run(
        [sys.executable, "-m", "safedel", "serve", "--socket", str(socket)],
        env=env,
        capture_output=True,
        timeout=60,
    )
    assert served.returncode == 1 and b"not private" in served.stderr
    assert not socket.exists()  # no socket left for a client to find
    assert not mark.exists()


def test_a_folder_above_that_others_may_write_is_refused(sandbox, tmp_path):
    # World-writable without the sticky bit: anyone may rename our cache away and put
    # theirs in its place, so it is not private even though the cache is ours.
    open_dir = tmp_path / "open"
    open_dir.mkdir()
    open_dir.chmod(0o777)
    victim = sandbox.work / "victim"
    victim.write_text("keep")
    done = sandbox.run("rm", "victim", env=sandbox.base_env(XDG_CACHE_HOME=open_dir / "c"))
    assert done.returncode == 1
    assert b"writable by others, mode 0777" in done.stderr, done.stderr
    assert not (open_dir / "c").exists()  # nothing made inside before the check
    assert victim.read_text() == "keep"


def test_a_private_cache_under_a_sticky_tmp_is_used(sandbox, tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)
    (sandbox.work / "victim").write_text("x")
    env = sandbox.base_env(XDG_CACHE_HOME=shared / "cache")
    done = sandbox.run("rm", "victim", env=env)
    assert done.returncode == 0, done.stderr
    assert sandbox.trashed_names() == ["victim"]
    made = shared / "cache" / "safedel" / "shims"
    assert made.stat().st_uid == os.getuid()
    assert stat.S_IMODE(made.stat().st_mode) & 0o022 == 0
