"""tests/vectors/workspace.json, run against both engines on the same trees: Python's
core.workspace and the Node shim's workspace.cjs (through
tests/vectors/run_workspace_vectors.cjs, on both Node majors)."""

import json
import os
import subprocess

import pytest
from conftest import REPO, require
from test_vectors import node_binaries

from safedel.commands import configview
from safedel.core.policy import workspace, workspacefiles

VECTORS = os.path.join(REPO, "tests", "vectors")
with open(os.path.join(VECTORS, "workspace.json"), encoding="utf-8") as handle:
    WORKSPACE = json.load(handle)
COLLECT = WORKSPACE["collect"]


def build(base, case):
    """The case's tree under base (a real path): directories, files, symlinks, and the
    roots stored for session 's'."""
    for name in case.get("dirs", []):
        os.makedirs(os.path.join(base, name), exist_ok=True)
    for name, text in case.get("files", {}).items():
        path = os.path.join(base, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8", newline="") as handle:
            handle.write(text.replace("$ROOT", base))
    for name, target in case.get("symlinks", {}).items():
        os.symlink(target, os.path.join(base, name))
    if case.get("session"):
        roots = [entry.replace("$ROOT", base) for entry in case["session"]]
        workspacefiles.write_session(os.path.join(base, "state"), "s", roots)
    environ = {
        "HOME": os.path.join(base, "home"),
        "SAFEDEL_CONFIG": os.path.join(base, "user.toml"),
    }
    for name, text in case.get("confirmed", {}).items():
        # As `safedel config trust` records a person's yes: the file as written, or
        # another text that was confirmed for it, with its roots as they were then.
        path = os.path.join(base, name)
        text = (case["files"][name] if text is True else text).replace("$ROOT", base)
        configview.record(os.path.join(base, "state"), path, text, os.stat(path), environ)
    for name, target in case.get("replaced_after", {}).items():
        # What a command does once the file is confirmed: a folder it names becomes
        # a symlink to somewhere wider.
        os.rmdir(os.path.join(base, name))
        os.symlink(target, os.path.join(base, name))


@pytest.fixture
def trees(tmp_path):
    root = os.path.realpath(tmp_path / "trees")
    for index, case in enumerate(COLLECT):
        base = os.path.join(root, str(index))
        os.makedirs(base)
        build(base, case)
    return root


@pytest.mark.parametrize("case", WORKSPACE["parse"], ids=[c["name"] for c in WORKSPACE["parse"]])
def test_python_parses_the_list(tmp_path, case):
    path = tmp_path / "config.toml"
    path.write_bytes(case["text"].encode("utf-8"))
    assert workspacefiles.read_list(str(path)) == case["list"]


@pytest.mark.parametrize("index", range(len(COLLECT)), ids=[c["name"] for c in COLLECT])
def test_python_collects_the_roots(trees, index, monkeypatch):
    case, base = COLLECT[index], os.path.join(trees, str(index))
    monkeypatch.setenv("HOME", os.path.join(base, "home"))  # what ~ means to expanduser
    environ = {
        "HOME": os.path.join(base, "home"),
        "SAFEDEL_CONFIG": os.path.join(base, "user.toml"),
    }
    environ.update({k: v.replace("$ROOT", base) for k, v in case.get("env", {}).items()})
    state = os.path.join(base, "state")
    found, warnings = workspace.collect(
        environ, os.path.join(base, case["start"]), state_dir=state, session="s"
    )
    roots = [[os.path.relpath(r.path, base), r.scope] for r in found]
    assert (roots, len(warnings)) == (case["roots"], case["warnings"])


@pytest.mark.parametrize("node", node_binaries(), ids=["node-system", "node-24"])
def test_js_engine_passes_the_same_vectors(trees, node):
    node = require(node)
    runner = os.path.join(VECTORS, "run_workspace_vectors.cjs")
    shim_dir = os.path.join(REPO, "shims", "node")
    proc = subprocess.run([node, runner, shim_dir, trees], capture_output=True, text=True)
    summary = json.loads(proc.stdout)
    assert summary["failures"] == [], summary["failures"]
    assert summary["passed"] == len(WORKSPACE["parse"]) + len(COLLECT)
    assert proc.returncode == 0
