"""Child processes keep the shim as long as they inherit the environment: node started
by spawn/exec/fork, and sh or rm started from node (through the PATH launchers)."""

import os

import pytest
from test_node_common import NODES, json_out, node_events, run_script

CHILDREN = r"""
const fs = require('fs');
const cp = require('child_process');
const del = "require('fs').unlinkSync(process.argv[1])";
for (const name of ['spawned', 'execed', 'forked']) fs.writeFileSync(name, 'x');
cp.spawnSync(process.execPath, ['-e', del, 'spawned'], { stdio: 'inherit' });
cp.execSync(`"${process.execPath}" -e "${del}" execed`, { stdio: 'inherit' });
fs.writeFileSync('child.cjs', "require('fs').unlinkSync(process.argv[2]);");
cp.fork('child.cjs', ['forked']).on('exit', (code) => {
  console.log(JSON.stringify({ code, pid: process.pid }));
});
"""


@NODES
def test_node_children_are_protected(sandbox, node):
    out = json_out(run_script(sandbox, node, CHILDREN))
    assert out["code"] == 0
    assert sorted(sandbox.trashed_names()) == ["execed", "forked", "spawned"]
    events = node_events(sandbox)
    assert len(events) == 3
    assert all(event["pid"] != out["pid"] for event in events)


SHELL_CHILDREN = r"""
const fs = require('fs');
const cp = require('child_process');
for (const name of ['via-sh', 'via-rm', 'via-exec']) fs.writeFileSync(name, 'x');
cp.spawnSync('sh', ['-c', 'rm via-sh'], { stdio: 'inherit' });
cp.spawnSync('rm', ['via-rm'], { stdio: 'inherit' });
cp.execSync('rm -f via-exec', { stdio: 'inherit' });
console.log(JSON.stringify({ left: ['via-sh', 'via-rm', 'via-exec'].filter(fs.existsSync) }));
"""


@NODES
def test_sh_and_rm_children_go_through_the_launchers(sandbox, node):
    if not os.path.exists(os.path.join(sandbox.shim_home, "bin", "rm")):
        pytest.skip("the rm launcher is not in the shim home yet")
    out = json_out(run_script(sandbox, node, SHELL_CHILDREN))
    assert out == {"left": []}
    assert sorted(sandbox.trashed_names()) == ["via-exec", "via-rm", "via-sh"]
    runtimes = {event["runtime"] for event in sandbox.report() if event["operation"] == "trash"}
    assert "node" not in runtimes and runtimes
