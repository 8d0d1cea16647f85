"""pip's isolated build runs under the Python shim with `--net off` (issue 31, case 15).

pip builds a project's wheel in a subprocess inside a build environment that rewrites
PYTHONPATH (pip 26.x's venv build environment empties it), so the shim never loaded in
setuptools and its clean-up of `build/bdist.*` in the work tree was a real delete unless
the net was on. Now the shim's directory is kept in front, and that clean-up is judged
(here: trashed) with the net on and off alike.
"""

import os

import pytest
from pipkit import (
    FIRST_GUARDED_PIP,
    PIP,
    download,
    download_pips,
    make_project,
    make_venv,
    troubles,
)

MODES = pytest.mark.parametrize("net", [(), ("--net", "off")], ids=["net", "net-off"])


@pytest.fixture(scope="module")
def links(tmp_path_factory):
    """A find-links directory with pip 26.3, the newest pip and setuptools."""
    where = tmp_path_factory.mktemp("links")
    pips = download_pips(str(where / "pips"))
    setuptools = download(str(where / "setuptools"), "setuptools")
    return pips, os.path.dirname(setuptools)


@pytest.mark.parametrize("pip", [FIRST_GUARDED_PIP, "newest"])
@MODES
def test_pip_build_subprocess_deletions_are_judged(sandbox, links, pip, net):
    pips, setuptools = links
    python = make_venv(str(sandbox.work / "venv"), pips[pip], sandbox.base_env())
    project = make_project(str(sandbox.work), "sdbuild", "1.0")
    done = sandbox.run(
        python, *PIP, "install", "--no-index", "--find-links", setuptools, project,
        run_options=net, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, (done.stdout + done.stderr).decode("utf-8", "replace")
    assert troubles(done, sandbox.report()) == []
    bdist = os.path.join(os.path.realpath(project), "build", "bdist.")
    judged = [e for e in sandbox.report() if e.get("path", "").startswith(bdist)]
    assert judged, [e.get("path") for e in sandbox.report()]
    assert {e["operation"] for e in judged} == {"trash"}
    for event in judged:  # each is in the trash, recoverable
        assert os.path.lexists(event["trashPath"]), event
