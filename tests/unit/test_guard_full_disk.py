"""A full disk cuts a ledger write short: that take fails closed, later takes still work.

The state dir is a tiny tmpfs in a private mount namespace (`unshare -m`, as root), so
the disk really is full and the kernel really returns a short write.
"""

import json
import os
import subprocess
import sys

import pytest
from conftest import IN_CI, REPO, require

SCRIPT = r"""
import errno, json, os, subprocess, sys
sys.path.insert(0, sys.argv[2])
from safedel.core.contract import settings
from safedel.core.guard import ledger as guard
from safedel.core.guard import turn as guardturn

state, node = sys.argv[1], sys.argv[3]
env = {"SAFEDEL_STATE_DIR": state, "SAFEDEL_SESSION": "s", "SAFEDEL_TURN": "t",
       "SAFEDEL_THRESHOLD": "5", "SAFEDEL_CONFIG": "/nonexistent", "HOME": "/root"}
conf = settings.load(env)
facts = {"first": guard.take(conf, 1).verdict}
ledger = os.path.join(state, *guard.ledger_parts("s", "t"))
page = os.sysconf("SC_PAGE_SIZE")
size = os.path.getsize(ledger)
pad = page - size - 40  # the next record will cross into a page the disk does not have
with open(ledger, "ab") as handle:
    handle.write(b'{"op":"note","pad":"' + b"x" * (pad - 22) + b'"}\n')
with open(os.path.join(state, "filler"), "wb", buffering=0) as filler:
    try:
        while True:
            filler.write(b"\0" * page)
    except OSError as exc:
        assert exc.errno == errno.ENOSPC
facts["full"] = []
for _ in range(3):
    try:
        facts["full"].append(guard.take(conf, 1).verdict)
    except guard.GuardError as exc:
        facts["full"].append("GuardError")
with open(ledger, "rb") as handle:
    facts["torn"] = not handle.read().endswith(b"\n")
os.unlink(os.path.join(state, "filler"))
facts["after"] = [guard.take(conf, 1).verdict for _ in range(3)]
js = ("const l = require(process.argv[1]);"
      "const r = l.take({stateDir: process.argv[2], session: 's', turn: 't', threshold: 5}, 1);"
      "process.stdout.write(r.verdict)")
facts["node"] = subprocess.run([node, "-e", js, sys.argv[4], state], capture_output=True,
                               text=True, check=True).stdout
facts["last"] = guard.take(conf, 1).verdict
status = guardturn.status(state, "s", "t")
facts["granted"] = status.granted
print(json.dumps(facts))
"""


def test_a_short_ledger_write_fails_that_take_closed_and_never_wedges_the_turn(tmp_path):
    if os.geteuid() != 0:
        if IN_CI:
            pytest.fail("the full-disk test needs root under CI=true")
        pytest.skip("mounting a tmpfs needs root")
    unshare, node = require("unshare"), require("node")
    state = tmp_path / "state"
    state.mkdir()
    script = tmp_path / "full.py"
    script.write_text(SCRIPT)
    ledger_cjs = os.path.join(REPO, "shims", "node", "ledger.cjs")
    mount = f"mount -t tmpfs -o size=64k safedel-test {state}"
    command = [sys.executable, str(script), str(state), REPO, node, ledger_cjs]
    done = subprocess.run(
        [unshare, "-m", "sh", "-c", f'{mount} && exec "$@"', "sh", *command],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    facts = json.loads(done.stdout)
    assert facts["first"] == "allow"
    # The write was cut short (a fragment is left), and every take while full failed
    # closed; none of them counted.
    assert facts["full"] == ["GuardError"] * 3 and facts["torn"]
    # Once there is room again, the turn goes on exactly: 1 + 3 + node's 1 = 5.
    assert facts["after"] == ["allow"] * 3 and facts["node"] == "allow"
    assert facts["last"] == "confirmRequired" and facts["granted"] == 5
