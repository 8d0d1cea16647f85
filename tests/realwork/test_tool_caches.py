"""The user's tool caches are regenerable by their owner: real npm and pip under
`safedel run` delete in them for real, with no refusal and nothing counted, while a
directory merely named like a cache is judged like any other.

npm installs a tarball `npm pack` made here, with a fresh cache, so no registry is
needed.
"""

import json
import os
import subprocess

import pytest
from conftest import require

MODES = {"net": (), "net-off": ("--net", "off")}


def _refusals(sandbox):
    return [e for e in sandbox.report() if e.get("operation") == "refuse"]


def _package(root):
    """A tarball of a small package, made by `npm pack`."""
    source = root / "leftpad-src"
    source.mkdir()
    manifest = {"name": "leftpad-local", "version": "1.0.0", "main": "index.js"}
    (source / "package.json").write_text(json.dumps(manifest))
    (source / "index.js").write_text("module.exports = (s, n) => String(s).padStart(n);\n")
    done = subprocess.run(
        [require("npm"), "pack", "--pack-destination", str(root)],
        cwd=source,
        capture_output=True,
        text=True,
        env={**os.environ, "npm_config_cache": str(root / "pack-cache")},
        check=True,
    )
    return root / done.stdout.strip().splitlines()[-1]


def _project(sandbox):
    (sandbox.work / "package.json").write_text(json.dumps({"name": "app", "version": "0.0.0"}))


def _npm(sandbox, mode, *args):
    npm = require("npm")
    flags = ("--no-audit", "--no-fund", "--loglevel=error")
    return sandbox.run(npm, *args, *flags, run_options=MODES[mode], timeout=300)


@pytest.mark.parametrize("mode", sorted(MODES))
def test_npm_install_with_a_fresh_cache_is_not_refused(sandbox, mode, tmp_path):
    tarball = _package(tmp_path)
    _project(sandbox)
    (sandbox.home / ".npm").mkdir()  # fresh: empty when the run starts
    done = _npm(sandbox, mode, "install", str(tarball))
    assert done.returncode == 0, done.stderr.decode()
    assert (sandbox.work / "node_modules" / "leftpad-local" / "index.js").is_file()
    assert _refusals(sandbox) == []
    assert b"SAFE_DELETE" not in done.stderr
    # npm's temp files in its cache went for real: the trash holds none of them.
    assert not any(".npm" in e.get("path", "") for e in sandbox.report())


@pytest.mark.parametrize("mode", sorted(MODES))
def test_npm_log_rotation_deletes_older_logs_for_real(sandbox, mode, tmp_path):
    _project(sandbox)
    logs = sandbox.home / ".npm" / "_logs"
    logs.mkdir(parents=True)
    old = [logs / f"2020-01-01T00_00_{i:02d}_000Z-debug-0.log" for i in range(15)]
    for path in old:
        path.write_text("old log\n")
    done = _npm(sandbox, mode, "--logs-max=2", "pkg", "get", "name")
    assert done.returncode == 0, done.stderr.decode()
    assert _refusals(sandbox) == []
    assert sum(p.exists() for p in old) < len(old)  # npm rotated them away
    assert sandbox.trashed_names() == []


@pytest.mark.parametrize("mode", sorted(MODES))
def test_a_folder_named_like_a_cache_is_not_one(sandbox, mode):
    """~/.npm made a symlink to a folder of documents, or someone else's ~/.cache
    spelled through XDG_CACHE_HOME outside the home: what lies there is still asked
    about outside the workspace, and nothing is deleted for real."""
    documents = sandbox.root / "documents"
    documents.mkdir()
    (documents / "thesis.txt").write_text("years of work")
    (sandbox.home / ".npm").symlink_to(documents)
    env = sandbox.base_env(XDG_CACHE_HOME=str(documents))
    done = sandbox.run(
        "rm", str(sandbox.home / ".npm" / "thesis.txt"), run_options=MODES[mode], env=env
    )
    assert done.returncode == 1
    assert (documents / "thesis.txt").read_text() == "years of work"
    assert b"SAFE_DELETE_OUTSIDE_WORKSPACE" in done.stderr


@pytest.mark.parametrize("mode", sorted(MODES))
def test_pip_cache_purge_is_not_refused(sandbox, mode):
    cache = sandbox.home / ".cache" / "pip" / "http-v2"
    cache.mkdir(parents=True)
    for i in range(80):
        (cache / f"entry{i}").write_text("cached response")
    python = require("python3")
    script = "import shutil, sys; shutil.rmtree(sys.argv[1])"
    done = sandbox.run(python, "-c", script, str(cache), run_options=MODES[mode])
    assert done.returncode == 0, done.stderr.decode()
    assert not cache.exists()
    assert _refusals(sandbox) == [] and sandbox.trashed_names() == []


def test_the_caches_are_fixed_by_identity_in_the_run_record(sandbox):
    """The run record's exempt roots list the caches that were directories of the
    user's when the run started, each with its device and inode."""
    (sandbox.home / ".npm").mkdir()
    (sandbox.home / ".cache").mkdir()
    script = (
        "import json, os; from safedel.core.contract import settings; "
        "s = settings.load(); print(json.dumps([list(s.exempt), dict(s.exempt_ids or ())]))"
    )
    done = sandbox.run(require("python3"), "-c", script)
    exempt, ids = json.loads(done.stdout)
    npm = str(sandbox.home / ".npm")
    assert npm in exempt and str(sandbox.home / ".cache") in exempt
    st = os.stat(npm)
    assert ids[npm] == [st.st_dev, st.st_ino]


@pytest.mark.parametrize("under_run", [True, False])
def test_node_deletes_in_a_cache_for_real(sandbox, shim_home, under_run):
    """The Node shim applies the same class, under a run (its record) and in a process
    with only the environment (a bootstrapped shell's)."""
    cache = sandbox.home / ".cache" / "vite"
    cache.mkdir(parents=True)
    for i in range(60):
        (cache / f"dep{i}.js").write_text("x")
    script = "const fs=require('fs');for(const n of fs.readdirSync(process.argv[1]))"
    script += "fs.unlinkSync(process.argv[1]+'/'+n)"
    node = require("node")
    if under_run:
        done = sandbox.run(node, "-e", script, str(cache), run_options=MODES["net-off"])
    else:
        env = sandbox.shim_env(threshold=5)
        done = subprocess.run([node, "-e", script, str(cache)], env=env, capture_output=True)
    assert done.returncode == 0, done.stderr.decode()
    assert os.listdir(cache) == []
    assert _refusals(sandbox) == [] and sandbox.trashed_names() == []
