"""pip upgrades under `safedel run`, net on and `--net off` (issue 31, case 2).

pip 26.3 blocks every import once `pip install` starts replacing files. The Python
shim loaded parts of its engine at the first deletion, which comes after that point
(the uninstall of the old version), so every upgrade exited 1 with "Blocked import of
'_safedel_core.guardturn'" and left the venv half-upgraded. Each test here upgrades
for real, from wheels built here, with pip 26.3 and with the newest pip.
"""

import os

import pytest
from pipkit import (
    FIRST_GUARDED_PIP,
    OLDER_PIP,
    PIP,
    build_wheels,
    download_pips,
    installed_version,
    make_venv,
    run,
    troubles,
    version_of,
)

MODES = pytest.mark.parametrize("net", [(), ("--net", "off")], ids=["net", "net-off"])
PIPS = pytest.mark.parametrize("pip", [FIRST_GUARDED_PIP, "newest"])


@pytest.fixture(scope="module")
def pips(tmp_path_factory):
    return download_pips(str(tmp_path_factory.mktemp("pips")))


@pytest.fixture(scope="module")
def wheels(tmp_path_factory):
    return build_wheels(str(tmp_path_factory.mktemp("sdup")), "sdup", ["1.0", "2.0"])


def text(done):
    return (done.stdout + done.stderr).decode("utf-8", "replace")


def upgrade(sandbox, python, net, *args):
    return sandbox.run(python, *PIP, "install", "--no-index", *args, run_options=net, timeout=600)


@PIPS
@MODES
def test_pip_upgrades_an_installed_package(sandbox, pips, wheels, pip, net):
    # The venv is the project's own, in the workspace: the old version goes to the trash.
    python = make_venv(str(sandbox.work / "venv"), pips[pip], sandbox.base_env())
    run([python, *PIP, "install", "-q", "--no-index", "--find-links", wheels, "sdup==1.0"])
    done = upgrade(sandbox, python, net, "--find-links", wheels, "--upgrade", "sdup")
    assert done.returncode == 0, text(done)
    assert troubles(done, sandbox.report()) == []
    assert installed_version(python, "sdup") == "2.0"
    assert run([python, *PIP, "check"]).returncode == 0
    trashed = [e["path"] for e in sandbox.report() if e["operation"] == "trash"]
    # The old version is recoverable (under the net, under pip's stash name: ~dup).
    assert any(os.path.basename(path) in ("sdup", "~dup") for path in trashed), trashed


@PIPS
@MODES
def test_pip_upgrades_itself(sandbox, pips, pip, net):
    # From an older pip to this one, then this one reinstalling itself: the running pip
    # is the guarded one while its own files are replaced.
    target = pips[pip]
    python = make_venv(str(sandbox.work / "venv"), pips[OLDER_PIP], sandbox.base_env())
    links = os.path.dirname(target)
    done = upgrade(sandbox, python, net, "--find-links", links, "--upgrade", "pip")
    assert done.returncode == 0, text(done)
    assert installed_version(python, "pip") == version_of(target)
    again = upgrade(sandbox, python, net, "--force-reinstall", target)
    assert again.returncode == 0, text(again)
    assert troubles(done, []) + troubles(again, sandbox.report()) == []
    assert installed_version(python, "pip") == version_of(target)
