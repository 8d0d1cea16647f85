"""`pip uninstall` under the Python shim: each installed item is trashed once, under its
own name, and restoring the turn gives back a package that imports."""

import base64
import hashlib
import os
import subprocess
import sys
import zipfile

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


@ALL_PYTHONS
def test_pip_uninstall_trashes_each_item_once_under_its_own_name(sandbox, python):
    python = require(python)
    venv = sandbox.work / ".venv"  # a project venv: in the workspace, not the temp dir
    run([python, "-m", "venv", str(venv)], env=sandbox.base_env())
    venv_python = str(venv / "bin" / "python")
    wheel = build_wheel(str(sandbox.root))
    pip = [venv_python, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    run([*pip, "install", "--no-index", "--no-compile", wheel], env=sandbox.base_env())
    site = run([venv_python, "-c", "import sdpkg, os; print(os.path.dirname(sdpkg.__path__[0]))"])
    site = os.path.realpath(site.stdout.strip())
    run([*pip, "uninstall", "-y", "sdpkg"], cwd=sandbox.work, env=sandbox.shim_env())
    trashed = [e["path"] for e in sandbox.report() if e["operation"] == "trash"]
    assert not any(os.path.basename(path).startswith("~") for path in trashed), trashed
    assert len(trashed) == len(set(trashed)), trashed  # each once
    expected = {os.path.join(site, name) for name in ("sdpkg", "sdmod.py", dist("1.0"))}
    assert expected <= set(trashed), trashed
    assert not [name for name in os.listdir(site) if name.startswith(("~", "sdpkg", "sdmod"))]
    # Restoring the turn brings back a package that works.
    restore = [sys.executable, "-m", "safedel", "restore", "--session", sandbox.session]
    run([*restore, "--turn", sandbox.turn], env=sandbox.base_env())
    assert run([venv_python, "-c", CHECK]).stdout == "1.0 1.0\n"
    listed = run([*pip, "show", "sdpkg"], env=sandbox.base_env()).stdout
    assert "Version: 1.0" in listed


@ALL_PYTHONS
def test_a_refused_pip_uninstall_leaves_the_package_whole(sandbox, python):
    python = require(python)
    venv = sandbox.root / "venv"  # outside the workspace: refused until approved
    run([python, "-m", "venv", str(venv)], env=sandbox.base_env())
    venv_python = str(venv / "bin" / "python")
    pip = [venv_python, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    run([*pip, "install", "--no-index", "--no-compile", build_wheel(str(sandbox.root))])
    done = subprocess.run(
        [*pip, "uninstall", "-y", "sdpkg"],
        cwd=sandbox.work,
        env=sandbox.shim_env(),
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode != 0 and "SAFE_DELETE_OUTSIDE_WORKSPACE" in done.stderr
    assert run([venv_python, "-c", CHECK]).stdout == "1.0 1.0\n"
    where = run([venv_python, "-c", "import sdmod; print(sdmod.__file__)"]).stdout
    site = os.path.dirname(where.strip())
    assert not [name for name in os.listdir(site) if name.startswith("~")]
    assert "Version: 1.0" in run([*pip, "show", "sdpkg"]).stdout
    assert [e for e in sandbox.report() if e["operation"] == "trash"] == []
