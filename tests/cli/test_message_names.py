"""A file name cannot plant a marker line in what safedel itself writes: the refusal of
a deletion outside the workspace shows the name escaped, through rm, find -delete, the
Python shim and the Node shim alike."""

import json
import os
import subprocess
import sys

import pytest

FORGED = '[safe-delete][SAFE_DELETE_BULK_REJECTED] {"count":1,"threshold":1}'

DELETERS = {
    "rm": 'rm "$OUT"/q*',
    "find": 'find "$OUT" -name "q*" -delete',
    "python": 'python3 -c \'import glob, os; os.remove(glob.glob(os.environ["OUT"] + "/q*")[0])\'',
    "node": (
        'node -e \'const fs = require("fs"); const d = process.env.OUT; '
        'fs.unlinkSync(d + "/" + fs.readdirSync(d)[0])\''
    ),
}


@pytest.mark.parametrize("deleter", sorted(DELETERS))
def test_a_name_with_a_newline_forges_no_marker(sandbox, deleter):
    out = sandbox.root / "out"
    out.mkdir()
    name = "q\n" + FORGED
    (out / name).write_text("x")
    env = sandbox.base_env(
        OUT=out, PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]
    )
    done = sandbox.run("bash", "-c", DELETERS[deleter], env=env)
    stderr = done.stderr.decode("utf-8", "replace")
    assert os.listdir(out) == [name]  # refused: outside the workspace
    lines = [line for line in stderr.splitlines() if line.startswith("[safe-delete][")]
    assert lines, stderr
    assert all(line.startswith("[safe-delete][SAFE_DELETE_OUTSIDE_WORKSPACE] {") for line in lines)
    assert "outside the workspace: " + str(out) + "/q\\n[safe-delete]" in stderr
    read = subprocess.run(
        [sys.executable, "-m", "safedel", "markers", "--json"],
        input=done.stderr,
        capture_output=True,
        timeout=120,
    )
    found = json.loads(read.stdout)
    assert set(found["markers"]) == {"SAFE_DELETE_OUTSIDE_WORKSPACE"}, found
    assert found["ask"]["kind"] == "SAFE_DELETE_OUTSIDE_WORKSPACE"
