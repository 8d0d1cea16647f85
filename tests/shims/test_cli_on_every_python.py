"""safedel declares Python >= 3.9: its listing and restore work on every interpreter.

The fast forms (`list --json`, `list PREFIX --json`, `restore --last`) import neither
typer nor rich, so each interpreter the suite drives runs them from the checkout. The
whole package must also parse as 3.9 and use no call that only 3.10 accepts.
"""

import ast
import json
import pathlib
import subprocess
import sys

from conftest import REPO, require
from test_python_shim_common import ALL_PYTHONS

PACKAGE = pathlib.Path(REPO) / "safedel"
SOURCES = sorted(PACKAGE.rglob("*.py"))


def test_the_package_parses_as_python_39():
    for path in SOURCES:
        ast.parse(path.read_text(encoding="utf-8"), str(path), feature_version=(3, 9))


def test_no_zip_strict():
    """zip(strict=) is 3.10's: on 3.9 it raises TypeError at the call."""
    for path in SOURCES:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "zip":
                keywords = [keyword.arg for keyword in node.keywords]
                assert "strict" not in keywords, f"{path}:{node.lineno}"


def safedel(python, sandbox, *args):
    env = sandbox.base_env(PYTHONPATH=REPO)
    return subprocess.run(
        [python, "-m", "safedel", *args],
        cwd=sandbox.work,
        env=env,
        capture_output=True,
        timeout=60,
    )


@ALL_PYTHONS
def test_list_and_restore_last(sandbox, python):
    python = require(python)
    names = ("apple", "sub/apricot", "sub/banana")
    (sandbox.work / "sub").mkdir()
    for name in names:
        (sandbox.work / name).write_text(name)
    made = safedel(sys.executable, sandbox, "rm", *names)
    assert made.returncode == 0, made.stderr
    prefix = str(sandbox.work / "sub")
    expected = safedel(sys.executable, sandbox, "list", "--json")
    expected_prefix = safedel(sys.executable, sandbox, "list", prefix, "--json")
    assert expected.returncode == 0 and expected_prefix.returncode == 0, expected.stderr
    assert len(json.loads(expected.stdout)) == 3
    assert len(json.loads(expected_prefix.stdout)) == 2

    listed = safedel(python, sandbox, "list", "--json")
    assert (listed.returncode, listed.stdout) == (0, expected.stdout), listed.stderr
    prefixed = safedel(python, sandbox, "list", prefix, "--json")
    assert (prefixed.returncode, prefixed.stdout) == (0, expected_prefix.stdout), prefixed.stderr

    restored = safedel(python, sandbox, "restore", "--last")
    assert restored.returncode == 0, restored.stderr
    back = [name for name in names if (sandbox.work / name).exists()]
    assert len(back) == 1 and (sandbox.work / back[0]).read_text() == back[0]
    assert len(json.loads(safedel(python, sandbox, "list", "--json").stdout)) == 2
