"""Exempt paths never count: a build-like Python script under the real Python shim."""

import json
import os
import subprocess
import sys

import pytest

from safedel.core.guard import turn as guardturn

BUILD_CLEAN = """
import json, os, sys
build, outside = sys.argv[1], sys.argv[2]
for name in sorted(os.listdir(build)):
    os.remove(os.path.join(build, name))
os.remove(outside)  # one deletion outside the temp dir: it proves the shim is active
print(json.dumps({"left": len(os.listdir(build))}))
"""


def test_a_script_removing_2000_files_under_tmpdir_does_not_trip_the_guard(sandbox):
    if not os.path.exists(os.path.join(sandbox.shim_home, "python", "sitecustomize.py")):
        pytest.skip("the Python shim has not landed yet (test_guard_engine drives the engine)")
    build = sandbox.tmpdir / "build"
    build.mkdir()
    for index in range(2000):
        (build / f"obj{index}.o").write_text("x")
    outside = sandbox.work / "outside.txt"
    outside.write_text("x")
    env = sandbox.shim_env(threshold=5)
    done = subprocess.run(
        [sys.executable, "-c", BUILD_CLEAN, str(build), str(outside)],
        env=env,
        capture_output=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"left": 0}
    assert b"[safe-delete]" not in done.stderr
    assert sandbox.trashed_names() == ["outside.txt"]
    assert [e["path"] for e in sandbox.report()] == [str(outside)]
    state = guardturn.status(str(sandbox.state), sandbox.session, sandbox.turn)
    assert (state.granted, state.refused) == (1, 0)
