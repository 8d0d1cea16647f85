"""The net applies the shims' rule in the temp dir: the nearest enclosing root decides.

A project cloned under the temp dir and used as the run's workspace is a workspace: its
files are trashed and counted, whoever deletes them (`/bin/rm`, busybox, a Python child
whose PYTHONPATH was replaced). A scratch file elsewhere in the temp dir is still
deleted for real, and a run started in the temp dir itself leaves it exempt.
"""

import subprocess

from conftest import require
from netkit import require_net

# os.remove in a child without the Python shim: only the net sees it.
PY_NO_SHIM = (
    "import os, subprocess, sys; env = dict(os.environ, PYTHONPATH='');"
    " subprocess.run([sys.executable, '-c', 'import os; os.remove(\"f3\")'], env=env, check=True)"
)


def _temp_project(sandbox):
    git = require("git")
    proj = sandbox.tmpdir / "clone"
    proj.mkdir()
    subprocess.run([git, "init", "-q", str(proj)], check=True, env=sandbox.base_env())
    for name in ("f1", "f2", "f3", "f4"):
        (proj / name).write_text(name)
    return proj


def test_a_project_in_the_temp_dir_is_a_workspace_for_the_net(sandbox):
    require_net()
    busybox = require("busybox")
    proj = _temp_project(sandbox)
    scratch = sandbox.tmpdir / "scratch.txt"
    scratch.write_text("scratch")
    script = (
        f'/usr/bin/rm f1 && {busybox} rm f2 && python3 -c "$CODE" && /usr/bin/rm {scratch}'
        "; /usr/bin/rm f4"
    )
    done = sandbox.run(
        "sh",
        "-c",
        script,
        cwd=proj,
        run_options=["--threshold", "3"],
        env=sandbox.base_env(CODE=PY_NO_SHIM),
    )
    # Three trashed, by the net; the scratch file deleted for real, uncounted; the
    # fourth deletion is one too many for the guard: counted, all of them.
    assert sandbox.trashed_names() == ["f1", "f2", "f3"], done.stderr
    trashed = [e for e in sandbox.report() if e["operation"] == "trash"]
    assert {e["runtime"] for e in trashed} == {"net"}, trashed
    assert all(e.get("counted", True) for e in trashed), trashed
    assert not scratch.exists()
    assert (proj / "f4").read_text() == "f4"
    assert done.returncode != 0, done.stderr


def test_the_shim_and_the_net_agree_in_a_temp_dir_workspace(sandbox):
    require_net()
    proj = _temp_project(sandbox)
    done = sandbox.run("sh", "-c", "rm f1 && /usr/bin/rm f2", cwd=proj)
    assert done.returncode == 0, done.stderr
    assert sandbox.trashed_names() == ["f1", "f2"], done.stderr
    runtimes = sorted(e["runtime"] for e in sandbox.report() if e["operation"] == "trash")
    assert runtimes[0] == "net" and len(runtimes) == 2, runtimes


def test_a_run_in_the_temp_dir_itself_leaves_it_exempt(sandbox):
    require_net()
    tmp = sandbox.tmpdir
    (tmp / "d").mkdir()
    (tmp / "d" / "a.o").write_text("obj")
    (tmp / "b.o").write_text("obj")
    done = sandbox.run("sh", "-c", "/usr/bin/rm d/a.o b.o && /usr/bin/rmdir d", cwd=tmp)
    assert done.returncode == 0, done.stderr
    assert list(tmp.iterdir()) == []
    assert sandbox.trashed_names() == []


def test_a_workspace_root_straight_in_the_temp_dir_is_not_a_temp_file(sandbox):
    # rmdir of the workspace root itself: its parent is the temp dir, the net's fast path.
    require_net()
    ws = sandbox.tmpdir / "ws"
    ws.mkdir()
    (sandbox.tmpdir / "c.o").write_text("obj")
    done = sandbox.run(
        "sh",
        "-c",
        f"/usr/bin/rm {sandbox.tmpdir}/c.o; /usr/bin/rmdir {ws}",
        run_options=["--workspace", str(ws)],
    )
    assert not (sandbox.tmpdir / "c.o").exists()
    assert not ws.exists()
    assert sandbox.trashed_names() == ["ws"], done.stderr  # as the rmdir shim would
