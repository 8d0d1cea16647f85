"""`safedel doctor` checks every piece on this machine, with the real tools."""

import json
import subprocess
import sys


def test_doctor_passes_on_a_working_install(sandbox):
    result = subprocess.run(
        [sys.executable, "-m", "safedel", "doctor", "--json"],
        env=sandbox.base_env(),
        capture_output=True,
    )
    rows = json.loads(result.stdout)
    failed = [row for row in rows if not row["ok"]]
    assert failed == [] and result.returncode == 0, failed
    names = [row["check"] for row in rows]
    assert names[:4] == ["shim directory", "home trash", "state directory", "rm launcher"]
    assert any(name.startswith("python shim (/usr/bin/python3") for name in names)


def test_doctor_fails_when_the_trash_cannot_be_made(sandbox):
    blocker = sandbox.root / "not-a-dir"
    blocker.write_text("x")
    env = sandbox.base_env(XDG_DATA_HOME=str(blocker))
    result = subprocess.run(
        [sys.executable, "-m", "safedel", "doctor", "--json"], env=env, capture_output=True
    )
    rows = {row["check"]: row for row in json.loads(result.stdout)}
    assert result.returncode == 1
    assert rows["home trash"]["ok"] is False
