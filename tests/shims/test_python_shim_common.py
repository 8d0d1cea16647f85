"""What the Python shim tests share: the real interpreters and a script runner.

Every test drives a real CPython with the environment `safedel run` gives a child:
Debian's /usr/bin/python3 (where safedel is not installed) and each minor version from
3.9 to 3.13 this machine has. A missing one skips on a laptop and fails under CI=true.
"""

import glob
import os
import shutil
import subprocess
import textwrap

import pytest
from conftest import require

SYSTEM_PYTHON = "/usr/bin/python3"
MINORS = ("3.9", "3.10", "3.11", "3.12", "3.13")


def find_python(minor):
    """python3.X from pyenv or PATH; a name require() reports when there is none."""
    found = sorted(glob.glob(f"/root/.pyenv/versions/{minor}.*/bin/python3"))
    return found[-1] if found else shutil.which(f"python{minor}") or f"python{minor}"


PYTHONS = [SYSTEM_PYTHON] + [find_python(minor) for minor in MINORS]
PYTHON_IDS = ["debian"] + [f"py{minor}" for minor in MINORS]
ALL_PYTHONS = pytest.mark.parametrize("python", PYTHONS, ids=PYTHON_IDS)


def run_script(sandbox, python, source, *flags, env=None, args=(), name="probe.py", **shim):
    """Write source into the work tree and run it there under python (shimmed)."""
    script = sandbox.work / name
    script.write_text(textwrap.dedent(source))
    return subprocess.run(
        [require(python), *flags, str(script), *map(str, args)],
        cwd=sandbox.work,
        env=sandbox.shim_env(**shim) if env is None else env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def assert_ok(done):
    assert done.returncode == 0, f"exit {done.returncode}\n{done.stdout}\n{done.stderr}"
    return done


def trash_events(sandbox):
    return [e for e in sandbox.report() if e["operation"] == "trash"]


def trashed_paths(sandbox):
    """Absolute original path -> report event, for every python trash event."""
    events = trash_events(sandbox)
    assert all(e["runtime"] == "python" for e in events), events
    return {e["path"]: e for e in events}


def in_trash(sandbox, event):
    return os.path.lexists(event["trashPath"]) and os.path.isfile(event["infoPath"])
