"""Switching the net on and off, and `safedel doctor` telling which it is."""

import json
import subprocess
import sys

from netkit import make_tree, require_net


def _doctor_net(env):
    done = subprocess.run(
        [sys.executable, "-m", "safedel", "doctor", "--json"], env=env, capture_output=True
    )
    rows = {row["check"]: row for row in json.loads(done.stdout)}
    return rows["net (safedel run)"]["detail"]


def test_doctor_says_the_net_is_active(sandbox):
    require_net()
    assert _doctor_net(sandbox.base_env()).startswith("active")


def test_config_net_false_switches_it_off(sandbox):
    require_net()
    config = sandbox.root / "config.toml"
    config.write_text("net = false\n")
    env = sandbox.base_env(SAFEDEL_CONFIG=config)
    assert _doctor_net(env).startswith("not active: switched off")
    tree = make_tree(sandbox.work)
    assert sandbox.run("dash", "-c", "/bin/rm -r d", env=env).returncode == 0
    assert not tree.exists() and sandbox.trashed_names() == []
    # --net on wins over the config file
    tree = make_tree(sandbox.work)
    done = sandbox.run("dash", "-c", "/bin/rm -r d", env=env, run_options=["--net", "on"])
    assert done.returncode == 0 and "d" in sandbox.trashed_names()
