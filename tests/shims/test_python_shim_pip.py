"""`pip uninstall` under the Python shim: each installed item is trashed once, under its
own name, and restoring the turn gives back a package that imports.

Each interpreter's own pip runs (they bundle different pips), offline: the wheel is
built here. One venv per interpreter serves every test (making one installs pip, which
costs seconds); each test starts from version 1.0 freshly installed, and says where its
workspace is, since that decides whether the venv is protected or out of bounds.
"""

import base64
import hashlib
import os
import shutil
import subprocess
import sys
import zipfile

import pytest
from conftest import require
from test_python_shim_common import ALL_PYTHONS

CHECK = "import sdpkg, sdmod; print(sdpkg.VERSION, sdmod.VERSION)"


def dist(version):
    return f"sdpkg-{version}.dist-info"


def build_wheel(directory, version="1.0"):
    """A small wheel, built here: a package directory, a top-level module, metadata."""
    files = {
        "sdpkg/__init__.py": f"VERSION = {version!r}\n",
        "sdpkg/data.txt": "payload\n",
        "sdmod.py": f"VERSION = {version!r}\n",
    }
    info = dist(version)
    files[f"{info}/METADATA"] = f"Metadata-Version: 2.1\nName: sdpkg\nVersion: {version}\n"
    files[f"{info}/WHEEL"] = (
        "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    files[f"{info}/top_level.txt"] = "sdmod\nsdpkg\n"
    record = []
    for name, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record.append(f"{name},sha256={digest.decode()},{len(text.encode())}")
    record.append(f"{info}/RECORD,,")
    files[f"{info}/RECORD"] = "\n".join(record) + "\n"
    wheel = os.path.join(directory, f"sdpkg-{version}-py3-none-any.whl")
    with zipfile.ZipFile(wheel, "w") as archive:
        for name, text in files.items():
            archive.writestr(name, text)
    return wheel


def run(argv, **options):
    done = subprocess.run(argv, capture_output=True, text=True, timeout=300, **options)
    assert done.returncode == 0, f"{argv}\n{done.stdout}\n{done.stderr}"
    return done


PIP = ("-m", "pip", "--disable-pip-version-check", "--no-input")


@pytest.fixture(scope="module")
def venvs():
    """Interpreter -> (venv python, its site-packages): made once for the module."""
    return {}


@pytest.fixture
def venv(venvs, python, sandbox, tmp_path_factory):
    """(venv python, its site-packages) with sdpkg 1.0 just installed, nothing stashed."""
    python = require(python)
    if python not in venvs:
        where = tmp_path_factory.mktemp("pip-project") / "venv"
        run([python, "-m", "venv", str(where)], env=sandbox.base_env())
        venv_python = str(where / "bin" / "python")
        site = run([venv_python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"])
        venvs[python] = venv_python, os.path.realpath(site.stdout.strip())
    venv_python, site = venvs[python]
    for name in ours(site):  # what a test that failed before this one left
        path = os.path.join(site, name)
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.remove(path)
    wheel = build_wheel(str(sandbox.root))
    install = ("install", "--no-index", "--no-compile", "--force-reinstall")  # whatever was left
    run([venv_python, *PIP, *install, wheel], env=sandbox.base_env())
    return venv_python, site


def pip_under_shim(sandbox, venv_python, *args, workspace):
    env = sandbox.shim_env(SAFEDEL_WORKSPACE_ROOTS=workspace)
    argv = [venv_python, *PIP, *args]
    return subprocess.run(
        argv, cwd=sandbox.work, env=env, capture_output=True, text=True, timeout=300
    )


def ours(site):
    """What sdpkg put in site-packages, and pip's stashes."""
    return sorted(n for n in os.listdir(site) if n.startswith(("~", "sdpkg", "sdmod")))


def trashed(sandbox):
    return [e["path"] for e in sandbox.report() if e["operation"] == "trash"]


@ALL_PYTHONS
def test_pip_uninstall_trashes_each_item_once_under_its_own_name(sandbox, venv):
    venv_python, site = venv
    project = os.path.dirname(os.path.dirname(venv_python))  # a project venv: in the workspace
    done = pip_under_shim(sandbox, venv_python, "uninstall", "-y", "sdpkg", workspace=project)
    assert done.returncode == 0, done.stderr
    paths = trashed(sandbox)
    assert not any(os.path.basename(path).startswith("~") for path in paths), paths
    assert len(paths) == len(set(paths)), paths  # each once
    expected = {os.path.join(site, name) for name in ("sdpkg", "sdmod.py", dist("1.0"))}
    assert expected <= set(paths), paths
    assert ours(site) == []
    # Restoring the turn brings back a package that works.
    restore = [sys.executable, "-m", "safedel", "restore", "--session", sandbox.session]
    run([*restore, "--turn", sandbox.turn], env=sandbox.base_env())
    assert run([venv_python, "-c", CHECK]).stdout == "1.0 1.0\n"
    assert "Version: 1.0" in run([venv_python, *PIP, "show", "sdpkg"]).stdout


@ALL_PYTHONS
def test_a_refused_pip_uninstall_leaves_the_package_whole(sandbox, venv):
    venv_python, site = venv  # outside the workspace: refused until approved
    done = pip_under_shim(sandbox, venv_python, "uninstall", "-y", "sdpkg", workspace=sandbox.work)
    assert done.returncode != 0 and "SAFE_DELETE_OUTSIDE_WORKSPACE" in done.stderr
    assert run([venv_python, "-c", CHECK]).stdout == "1.0 1.0\n"
    assert ours(site) == ["sdmod.py", "sdpkg", dist("1.0")]
    assert "Version: 1.0" in run([venv_python, *PIP, "show", "sdpkg"]).stdout
    assert trashed(sandbox) == []


@ALL_PYTHONS
def test_gap_an_upgrade_trashes_the_old_package_under_pips_stash_name(sandbox, venv):
    """The coverage table's row for `pip install -U`: an upgrade replaces the old version
    (like an overwrite) and pip's own commit deletes its stashes. The old dist-info,
    whose name the new version does not take, is trashed under its own name; the old
    package directory only under pip's `~name`; the old module file was stashed in the
    exempt temp dir and is deleted for real."""
    venv_python, site = venv
    project = os.path.dirname(os.path.dirname(venv_python))
    upgrade = ("install", "-U", "--no-index", "--no-compile")
    new = build_wheel(str(sandbox.root), "2.0")
    done = pip_under_shim(sandbox, venv_python, *upgrade, new, workspace=project)
    assert done.returncode == 0, done.stderr
    assert run([venv_python, "-c", CHECK]).stdout == "2.0 2.0\n"
    assert ours(site) == ["sdmod.py", "sdpkg", dist("2.0")]
    paths = trashed(sandbox)
    assert sorted(paths) == [os.path.join(site, name) for name in (dist("1.0"), "~dpkg")]
    # The old code is left only in the old package, under pip's name: the old sdmod.py
    # is nowhere (not in the trash, not in the temp dir), and the venv holds 2.0.
    old = [p for p in sandbox.root.rglob("*.py") if p.read_text() == "VERSION = '1.0'\n"]
    assert old == [sandbox.trash / "files" / "~dpkg" / "__init__.py"]
