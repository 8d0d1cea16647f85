"""The Node shim inside programs that restrict or split themselves: the permission
model (`--permission`, Node 20's `--experimental-permission`) and Workers started with
an environment of their own."""

import os
import subprocess

from conftest import require
from test_node_common import NODES, SYSTEM_NODE, json_out, node_events, run_script

UNLINK = r"""
const fs = require('fs');
try { fs.unlinkSync(process.argv[2]); console.log('null'); }
catch (e) { console.log(JSON.stringify(e.code)); }
"""


def permission_flags(sandbox, node):
    """What docs/coverage.md says the preload needs: read of the one preload file, and read
    and write where it deletes, trashes and keeps its state and report (Node 20 wants
    the `dir/*` form for a directory)."""
    model = "--experimental-permission" if node == SYSTEM_NODE else "--permission"
    preload = os.path.join(sandbox.shim_home, "node", "safedel.cjs")
    return [model, f"--allow-fs-read={preload}", f"--allow-fs-read={sandbox.root}/*"] + [
        f"--allow-fs-write={sandbox.root}/*"
    ]


@NODES
def test_the_permission_model_loads_the_one_file_preload(sandbox, node):
    target = sandbox.work / "f"
    target.write_text("x")
    script = sandbox.work / "script.cjs"
    script.write_text(UNLINK)
    proc = subprocess.run(
        [require(node), *permission_flags(sandbox, node), str(script), str(target)],
        cwd=sandbox.work,
        env=sandbox.shim_env(),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "did not load" not in proc.stderr
    assert json_out(proc) is None, proc.stderr
    assert sandbox.trashed_names() == ["f"]
    assert [e["path"] for e in node_events(sandbox)] == [str(target)]


WORKER = r"""
const { Worker } = require('worker_threads');
const code = `
const fs = require('fs');
try { fs.unlinkSync(${JSON.stringify(process.argv[2])}); console.log('null'); }
catch (e) { console.log(JSON.stringify(e.code)); }`;
new Worker(code, { eval: true, env: {} });
"""


@NODES
def test_a_worker_with_an_empty_env_is_protected_by_the_parents_state(sandbox, node):
    target = sandbox.work / "f"
    target.write_text("x")
    assert json_out(run_script(sandbox, node, WORKER, args=[str(target)])) is None
    assert sandbox.trashed_names() == ["f"]
    (event,) = node_events(sandbox)
    assert event["path"] == str(target) and event["session"] == sandbox.session


ESM_WORKER = r"""
import { Worker } from 'node:worker_threads';
const code = `require('fs').unlinkSync(${JSON.stringify(process.argv[2])}); console.log('null');`;
new Worker(code, { eval: true, env: {} });
"""


@NODES
def test_gap_an_esm_only_worker_with_an_empty_env_deletes_for_real(sandbox, node):
    """The coverage table's gap row: nothing loads the preload into that Worker."""
    target = sandbox.work / "f"
    target.write_text("x")
    proc = run_script(sandbox, node, ESM_WORKER, name="script.mjs", args=[str(target)])
    assert json_out(proc) is None
    assert not target.exists() and sandbox.trashed_names() == []


@NODES
def test_gap_node_options_replaced_by_a_script_deletes_for_real(sandbox, node):
    target = sandbox.work / "f"
    target.write_text("x")
    env = sandbox.shim_env()
    env["NODE_OPTIONS"] = "--max-old-space-size=4096"
    assert json_out(run_script(sandbox, node, UNLINK, env=env, args=[str(target)])) is None
    assert not target.exists() and sandbox.trashed_names() == []
