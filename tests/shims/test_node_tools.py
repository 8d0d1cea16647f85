"""Real build tools under the shim: `npx rimraf dist` (rimraf from the npm registry) and a
Vite-style "empty the outDir" loop over 2,000 files. Outside the temp dir everything
lands in the trash; under $TMPDIR it is really deleted, uncounted, and never trips the
guard."""

import os
import subprocess

import pytest
from conftest import last_markers, require
from test_node_common import NODES, SYSTEM_NODE, json_out, node_events, run_script

FILES = 2000


@pytest.fixture(scope="module")
def rimraf_project(tmp_path_factory):
    """A throwaway npm project with rimraf installed from the registry (no shim active)."""
    npm = require("npm")
    project = tmp_path_factory.mktemp("rimraf-project")
    env = {k: v for k, v in os.environ.items() if not k.startswith("SAFEDEL_")}
    env.pop("NODE_OPTIONS", None)
    env["npm_config_cache"] = str(project / ".npm-cache")
    done = subprocess.run(
        [npm, "install", "--no-audit", "--no-fund", "--silent", "rimraf"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    if done.returncode != 0:
        pytest.fail(f"npm install rimraf failed: {done.stderr[-2000:]}")
    return project


def make_tree(root, files=20):
    (root / "assets").mkdir(parents=True)
    for index in range(files):
        (root / "assets" / f"chunk-{index}.js").write_text("x")
    (root / "index.html").write_text("<html>")


def npx_rimraf(sandbox, project, target, threshold):
    env = sandbox.shim_env(threshold=threshold)
    env["PATH"] = os.path.dirname(require(SYSTEM_NODE)) + os.pathsep + env["PATH"]
    env["npm_config_cache"] = str(project / ".npm-cache")
    env["npm_config_update_notifier"] = "false"
    return subprocess.run(
        [require("npx"), "--no-install", "rimraf", str(target)],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_npx_rimraf_trashes_dist(sandbox, rimraf_project):
    dist = sandbox.work / "dist"
    make_tree(dist)
    proc = npx_rimraf(sandbox, rimraf_project, dist, threshold=99999)
    assert proc.returncode == 0, proc.stderr
    assert not dist.exists()
    trashed = sandbox.trash / "files"
    found = sorted(p.name for p in trashed.rglob("chunk-*.js"))
    assert len(found) == 20 and list(trashed.rglob("index.html"))
    events = node_events(sandbox)
    assert events and all(e["path"].startswith(str(dist)) for e in events)


def test_npx_rimraf_under_tmpdir_is_really_deleted_uncounted(sandbox, rimraf_project):
    dist = sandbox.tmpdir / "dist"
    make_tree(dist)
    proc = npx_rimraf(sandbox, rimraf_project, dist, threshold=1)
    assert proc.returncode == 0, proc.stderr
    assert not dist.exists()
    assert not any(str(dist) in e.get("path", "") for e in sandbox.report())
    assert not last_markers(proc.stderr)
    assert not list((sandbox.trash / "files").rglob("chunk-*")) if sandbox.trash.exists() else True


EMPTY_OUT_DIR = r"""
const fs = require('fs');
const path = require('path');
const outDir = process.argv[2];
const count = Number(process.argv[3]);
fs.mkdirSync(path.join(outDir, 'assets'), { recursive: true });
for (let i = 0; i < count - 1; i++) fs.writeFileSync(path.join(outDir, `f${i}.js`), 'x');
let refused = 0;
// What Vite's emptyDir does: every entry of outDir, one rmSync each.
for (const entry of fs.readdirSync(outDir)) {
  try { fs.rmSync(path.join(outDir, entry), { recursive: true, force: true }); }
  catch (e) { refused += 1; }
}
console.log(JSON.stringify({ refused, left: fs.readdirSync(outDir).length }));
"""


@NODES
def test_empty_out_dir_loop_trashes_2000_files(sandbox, node):
    out_dir = sandbox.work / "dist"
    proc = run_script(
        sandbox, node, EMPTY_OUT_DIR, args=[str(out_dir), str(FILES)], threshold=99999
    )
    assert json_out(proc) == {"refused": 0, "left": 0}
    assert len(sandbox.trashed_names()) == FILES
    assert len(node_events(sandbox)) == FILES


@NODES
def test_empty_out_dir_loop_under_tmpdir_never_trips_the_guard(sandbox, node):
    out_dir = sandbox.tmpdir / "dist"
    proc = run_script(sandbox, node, EMPTY_OUT_DIR, args=[str(out_dir), str(FILES)], threshold=1)
    assert json_out(proc) == {"refused": 0, "left": 0}
    assert sandbox.trashed_names() == [] and sandbox.report() == []
    assert not last_markers(proc.stderr)
