"""A workspace whose path is not ASCII: Node compares the kernel's bytes with the
environment's and its start directory as bytes too, so a project in `café/` is the
workspace (trashed), whether or not it lies under the temp dir."""

import subprocess

import pytest
from conftest import require


@pytest.mark.parametrize("under_tmp", [True, False], ids=["under-tmpdir", "elsewhere"])
@pytest.mark.parametrize("net", ["on", "off"])
def test_a_project_in_a_non_ascii_dir_is_the_workspace(sandbox, under_tmp, net):
    base = sandbox.tmpdir if under_tmp else sandbox.work
    project = base / "café ñ" / "proj"
    project.mkdir(parents=True)
    subprocess.run([require("git"), "init", "-q", str(project)], check=True)
    (project / "a.txt").write_text("mine")
    script = "require('fs').unlinkSync('a.txt'); console.log('done')"
    done = sandbox.run(require("node"), "-e", script, run_options=("--net", net), cwd=project)
    assert done.returncode == 0 and done.stdout == b"done\n", done.stderr
    trashed = [e["path"] for e in sandbox.report() if e["operation"] == "trash"]
    assert trashed == [str(project / "a.txt")]
    assert (sandbox.trash / "files" / "a.txt").read_text() == "mine"
