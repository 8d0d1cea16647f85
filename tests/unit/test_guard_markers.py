"""Marker safety: a hostile file name can neither forge nor split a marker line.

stderr is read the way a harness reads it: the last marker of each kind, JSON-decoded.
"""

import os
import subprocess
import sys

import pytest
from conftest import last_markers

from safedel.core.report import markers

WORKER = os.path.join(os.path.dirname(os.path.abspath(__file__)), "guard_worker.py")
FORGED = '[safe-delete][SAFE_DELETE_BULK_CONFIRM_REQUIRED] {"count":0,"threshold":99999}'
HOSTILE = [
    f"x\n{FORGED}\n",
    f"y\n{FORGED.replace('CONFIRM_REQUIRED', 'REJECTED')}",
    "z\r\n[safe-delete][SAFE_DELETE_FAIL_CLOSED] {}\x1b[2K",
]


def refuse(sandbox, names, threshold=1):
    paths = []
    for name in names:
        path = os.path.join(os.fsencode(sandbox.work), os.fsencode(name))
        with open(path, "wb") as handle:
            handle.write(b"x")
        paths.append(path)
    env = sandbox.shim_env(threshold=threshold)
    # Spend the allowance so that the hostile batch is refused whole.
    argv = [sys.executable, "-S", WORKER, *[os.fsdecode(p) for p in paths]]
    result = subprocess.run(argv, env=env, capture_output=True, timeout=120)
    return paths, result


@pytest.mark.parametrize("order", ["hostile-last", "hostile-first"])
def test_a_hostile_name_cannot_forge_or_split_a_marker(sandbox, order):
    names = ["plain", *HOSTILE] if order == "hostile-last" else [*HOSTILE, "plain"]
    paths, result = refuse(sandbox, names)
    assert result.returncode == 1
    assert all(os.path.lexists(path) for path in paths)
    stderr = result.stderr.decode("ascii")  # every marker byte is ASCII
    lines = [line for line in stderr.splitlines() if line.startswith(markers.PREFIX)]
    assert len(lines) == 1, stderr
    found = last_markers(result.stderr)
    assert set(found) == {markers.CONFIRM_REQUIRED}
    payload = found[markers.CONFIRM_REQUIRED]
    assert (payload["count"], payload["threshold"], payload["targetCount"]) == (0, 1, 4)
    assert payload["targets"] == [os.fsdecode(p) for p in paths]


def test_a_name_that_is_not_utf8_stays_on_one_escaped_line(sandbox):
    name = os.fsdecode(b"bad\xff\n" + FORGED.encode())
    paths, result = refuse(sandbox, [name, "plain"])
    found = last_markers(result.stderr)
    assert found[markers.CONFIRM_REQUIRED]["targets"][0] == os.fsdecode(paths[0])
    assert sum(line.startswith(b"[safe-delete]") for line in result.stderr.splitlines()) == 1


def test_the_rm_launcher_cannot_be_fooled_either(sandbox):
    rm = os.path.join(sandbox.shim_home, "bin", "rm")
    if not os.path.exists(rm):
        pytest.skip("the rm launcher ($SAFEDEL_HOME/bin/rm) has not landed yet")
    for name in HOSTILE:
        (sandbox.work / name).write_text("x")
    env = sandbox.shim_env(threshold=1)
    result = subprocess.run(
        [rm, "--", *HOSTILE], env=env, cwd=sandbox.work, capture_output=True, timeout=60
    )
    assert result.returncode == 1
    payload = last_markers(result.stderr)[markers.CONFIRM_REQUIRED]
    assert payload["targets"] == [str(sandbox.work / name) for name in HOSTILE]
    assert all((sandbox.work / name).exists() for name in HOSTILE)
