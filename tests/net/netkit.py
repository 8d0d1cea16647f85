"""Shared pieces of the net's tests: a tree to delete, and running with and without."""

import contextlib
import os
import shutil
import subprocess
import sys
import tempfile

import pytest
from conftest import IN_CI, require

from safedel.net import kernel_supports

NOBODY = 65534
# git with no user or system config and a fixed identity, for commits made in tests.
GIT_ENV = {
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "t",
    "GIT_AUTHOR_EMAIL": "t@example.invalid",
    "GIT_COMMITTER_NAME": "t",
    "GIT_COMMITTER_EMAIL": "t@example.invalid",
}


def require_net():
    ok, why = kernel_supports()
    if ok:
        return
    if IN_CI:
        pytest.fail(f"the net is required under CI=true: {why}")
    pytest.skip(why)


def make_tree(root, name="d"):
    target = root / name
    (target / "sub").mkdir(parents=True)
    (target / "sub" / "f.txt").write_text("data")
    (target / "top.txt").write_text("top")
    return target


def snapshot(root):
    """{relative path: content or None for a directory}, to compare trees."""
    found = {}
    for here, dirs, files in os.walk(root):
        for name in dirs:
            found[os.path.relpath(os.path.join(here, name), root)] = None
        for name in files:
            with open(os.path.join(here, name), "rb") as handle:
                found[os.path.relpath(os.path.join(here, name), root)] = handle.read()
    return found


def without_safedel(sandbox, argv, cwd):
    """The command in a clean environment, for the baseline status and output."""
    return subprocess.run(argv, cwd=cwd, env=sandbox.base_env(), capture_output=True, timeout=120)


def summary_free(stderr):
    """stderr minus safedel run's own closing summary line."""
    lines = stderr.splitlines(keepends=True)
    return b"".join(line for line in lines if not line.startswith(b"safedel: moved"))


def restore_turn(sandbox):
    return subprocess.run(
        [sys.executable, "-m", "safedel", "restore", "--session", sandbox.session]
        + ["--turn", sandbox.turn],
        cwd=sandbox.work,
        env=sandbox.base_env(),
        capture_output=True,
        timeout=120,
    )


def static_binary(directory, body):
    """Build a static C program whose main() runs body; gcc is part of the test kit."""
    from conftest import require

    gcc = require("gcc")
    source = directory / "prog.c"
    source.write_text(
        "#include <stdio.h>\n#include <unistd.h>\n#include <errno.h>\n#include <string.h>\n"
        "int main(int argc, char **argv) {\n" + body + "\n}\n"
    )
    program = directory / "prog"
    subprocess.run([gcc, "-static", "-O1", "-o", str(program), str(source)], check=True)
    return str(program)


def nobody_package(dest):
    """A copy of safedel that uid 65534 can import (the checkout may be root's alone);
    `safedel run` needs nothing beyond the standard library."""
    import safedel
    from safedel.executor import shimhome

    # With its bytecode (still valid: copytree keeps the sources' times), which uid 65534
    # could not write there: else each of its processes compiles safedel anew.
    shutil.copytree(os.path.dirname(safedel.__file__), os.path.join(dest, "safedel"))
    shims = os.path.join(dest, "safedel", "shims")
    if not os.path.isfile(os.path.join(shims, "__init__.py")):
        shutil.copytree(shimhome.SHIMS_DIR, shims)
    return dest


def as_nobody(scratch, name, script, netted):
    """(exit status, stderr) of script run by dash as uid 65534 in scratch/name."""
    home, work = os.path.join(scratch, "home"), os.path.join(scratch, name)
    for path in (home, work, os.path.join(scratch, "tmp")):
        os.makedirs(path, exist_ok=True)
        os.chown(path, NOBODY, NOBODY)
    env = {
        "PATH": "/usr/bin:/bin",
        "SAFEDEL_CHURN_SECONDS": "0",
        "HOME": home,
        "TMPDIR": os.path.join(scratch, "tmp"),
    }
    argv = ["setpriv", f"--reuid={NOBODY}", f"--regid={NOBODY}", "--clear-groups"]
    if netted:
        env.update(SAFEDEL_PROMPT="0", PYTHONPATH=os.path.join(scratch, "package"))
        argv += [require("/usr/bin/python3"), "-m", "safedel", "run", "-q", "--net", "on", "--"]
    done = subprocess.run(
        [*argv, "/bin/dash", "-c", script], cwd=work, env=env, capture_output=True, timeout=120
    )
    return done.returncode, done.stderr


@contextlib.contextmanager
def nobody_scratch(prefix):
    """A scratch directory that uid 65534 can use, removed after. Root only: acting as
    another uid needs it (CI runs as root); elsewhere the test skips."""
    if os.geteuid() != 0:
        pytest.skip("needs root to act as uid 65534")
    require("setpriv")
    root = tempfile.mkdtemp(prefix=prefix)
    os.chmod(root, 0o755)
    try:
        yield root
    finally:
        subprocess.run(["chmod", "-R", "u+rwx", root], check=False)
        shutil.rmtree(root, ignore_errors=True)
