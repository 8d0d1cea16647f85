"""What the config-widening tests share (issue #30, case 2): the command's own writes
into `.safedel/config.local.toml` and the user config, a victim outside the workspace,
and the front ends that try to delete it."""

import json
import sys

from conftest import last_markers, require

PRECIOUS = b"precious \x00\xff bytes\n"
# What the command runs to widen its workspace to everything.
LOCAL = "mkdir -p .safedel && printf 'workspace = [\"/\"]\\n' > .safedel/config.local.toml"


def user_config(sandbox):
    return sandbox.home / ".config" / "safedel" / "config.toml"


def widen_user_config(sandbox):
    """The shell command that appends every widening setting to the user config."""
    lines = [
        "threshold = 99999",
        'outside_workspace = "allow"',
        "net = false",
        f'exempt = "{sandbox.work}"',
        'max_size = "1"',
        "prompt = 1",
    ]
    path = user_config(sandbox)
    quoted = " ".join("'" + line.replace("'", "'\\''") + "'" for line in lines)
    return f"mkdir -p {path.parent} && printf '%s\\n' {quoted} >> {path}"


def project_with_victim(sandbox, files=0):
    """(a git project in the work tree holding files f00.., a victim file outside it)."""
    project = sandbox.work / "proj"
    (project / ".git").mkdir(parents=True)
    for index in range(files):
        (project / f"f{index:02d}").write_bytes(PRECIOUS)
    outside = sandbox.root / "outside"
    outside.mkdir(exist_ok=True)
    victim = outside / "hostname"
    victim.write_bytes(PRECIOUS)
    return project, victim


def node_unlink(path):
    return [require("node"), "-e", f"require('fs').unlinkSync({json.dumps(str(path))})"]


def python_remove(path):
    return [sys.executable, "-c", f"import os; os.remove({str(path)!r})"]


def refused_outside(done, victim):
    """A finished `safedel run` refused deleting victim as outside the workspace."""
    assert done.returncode != 0, done.stderr
    assert victim.read_bytes() == PRECIOUS
    assert "SAFE_DELETE_OUTSIDE_WORKSPACE" in last_markers(done.stderr), done.stderr
