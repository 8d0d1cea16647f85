"""tests/vectors/resolve.json, run against both engines in the same tree: Python's
core.resolve and core.policy, and the Node shim's resolve.cjs and settings.cjs (through
tests/vectors/run_resolve_vectors.cjs, on both Node majors)."""

import json
import os
import subprocess

import pytest
from conftest import REPO, require
from test_vectors import node_binaries

from safedel.core import resolve
from safedel.core.policy import targets

VECTORS = os.path.join(REPO, "tests", "vectors")
with open(os.path.join(VECTORS, "resolve.json"), encoding="utf-8") as handle:
    RESOLVE = json.load(handle)


@pytest.fixture
def tree(tmp_path):
    root = os.path.realpath(tmp_path / "root")
    os.mkdir(root)
    for kind, name, *target in RESOLVE["tree"]:
        path = os.path.join(root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if kind == "dir":
            os.makedirs(path, exist_ok=True)
        elif kind == "file":
            with open(path, "w") as handle:
                handle.write(name)
        else:
            os.symlink(target[0], path)
    return root


def python_class(target, root):
    env = {"HOME": os.path.join(root, RESOLVE["home"])}
    if targets.target_protected(target, env):
        return "protected"
    exempt = tuple(os.path.join(root, name) for name in RESOLVE["exempt"])
    return "exempt" if targets.target_exempt(target, exempt) else "other"


@pytest.mark.parametrize("case", RESOLVE["cases"], ids=[c["name"] for c in RESOLVE["cases"]])
def test_python_engine(tree, case, monkeypatch):
    monkeypatch.chdir(os.path.join(tree, case.get("cwd", "")))
    target = resolve.resolve(case["operand"])
    assert os.path.relpath(os.fsdecode(target.path), tree) == case["path"]
    if case.get("dots"):
        assert target.dots
    else:
        assert target.via_link == case["via_link"]
        assert python_class(target, tree) == case["class"]


@pytest.mark.parametrize("node", node_binaries(), ids=["node-system", "node-24"])
def test_js_engine(tree, node):
    runner = os.path.join(VECTORS, "run_resolve_vectors.cjs")
    shim_dir = os.path.join(REPO, "shims", "node")
    proc = subprocess.run([require(node), runner, shim_dir, tree], capture_output=True, text=True)
    summary = json.loads(proc.stdout)
    assert summary["failures"] == [], summary["failures"]
    assert summary["passed"] == len(RESOLVE["cases"]) and proc.returncode == 0
