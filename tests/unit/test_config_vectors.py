"""tests/vectors/config.json, run against both engines on the same trees: the user config
as Python's settings.load applies it and as the Node shim's settings.cjs does (through
tests/vectors/run_config_vectors.cjs, on both Node majors)."""

import json
import os
import subprocess

import pytest
from conftest import REPO, require
from test_vectors import node_binaries

from safedel.commands import configview
from safedel.core.contract import caches, settings

VECTORS = os.path.join(REPO, "tests", "vectors")
with open(os.path.join(VECTORS, "config.json"), encoding="utf-8") as handle:
    CASES = json.load(handle)["cases"]


def build(base, case):
    """The case's tree under base: its folders, the config file, the confirmation."""
    for name in ("home", "tmp/sub", "wide", "t", "state"):
        os.makedirs(os.path.join(base, name), exist_ok=True)
    path = os.path.join(base, "config.toml")
    with open(path, "w", encoding="utf-8", newline="") as handle:
        text = case["text"] if case["text"] is not None else case["confirmed"]
        handle.write(text.replace("$ROOT", base))
    kept = case.get("confirmed")
    if kept is not None:
        # As `safedel config trust` records a person's yes to a version of the file.
        text = case["text"] if kept is True else kept
        state = os.path.join(base, "state")
        configview.record(
            state, path, text.replace("$ROOT", base), os.stat(path), environ(base, case)
        )
    if case["text"] is None:
        os.unlink(path)  # taken away once a person had confirmed it


def environ(base, case):
    env = {
        "HOME": os.path.join(base, "home"),
        "TMPDIR": os.path.join(base, "tmp"),
        "SAFEDEL_CONFIG": os.path.join(base, "config.toml"),
        "SAFEDEL_STATE_DIR": os.path.join(base, "state"),
    }
    env.update(case.get("env", {}))
    return env


@pytest.fixture
def trees(tmp_path):
    root = os.path.realpath(tmp_path / "trees")
    for index, case in enumerate(CASES):
        build(os.path.join(root, str(index)), case)
    return root


@pytest.mark.parametrize("index", range(len(CASES)), ids=[c["name"] for c in CASES])
def test_python_applies_the_config(trees, index):
    case, base = CASES[index], os.path.join(trees, str(index))
    found = settings.load(environ(base, case))
    trash = found.trash_dir
    assert {
        "threshold": found.threshold,
        "outside": found.outside_workspace,
        # The kernel's IPC dir joins every list (core/contract/caches.py): not the config's.
        "exempt": [
            os.path.relpath(os.path.realpath(p), base)
            for p in found.exempt
            if p not in caches.kernel_ipc()
        ],
        "trashDir": None if trash is None else os.path.relpath(trash, base),
    } == case["expect"]


@pytest.mark.parametrize("node", node_binaries(), ids=["node-system", "node-24"])
def test_js_engine_applies_it_the_same(trees, node):
    node = require(node)
    runner = os.path.join(VECTORS, "run_config_vectors.cjs")
    shim_dir = os.path.join(REPO, "shims", "node")
    proc = subprocess.run([node, runner, shim_dir, trees], capture_output=True, text=True)
    summary = json.loads(proc.stdout)
    assert summary["failures"] == [], summary["failures"]
    assert summary["passed"] == len(CASES)
