"""Real pip for the real-work tests: pip releases from the package registry, tiny
projects generated and built into wheels here, and venvs inside the workspace.

The pip wheels come from the registry once per test session (`pip download`), so the
tests run the very pip a person gets: 26.3, the first that blocks imports once an
install starts, and the newest. With no registry, a laptop skips and CI fails.
"""

import os
import subprocess
import sys

import pytest
from conftest import IN_CI

FIRST_GUARDED_PIP = "26.3"  # the first pip that blocks imports after an install starts
OLDER_PIP = "26.2.1"  # an upgrade of pip itself starts from here


def run(argv, **options):
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600, **options)
    assert done.returncode == 0, f"{argv}\n{done.stdout}\n{done.stderr}"
    return done


def download(directory, requirement):
    """The wheel of requirement, from the package registry, into directory."""
    argv = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:"]
    argv += ["--disable-pip-version-check", "-q", "-d", directory, requirement]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        message = f"{requirement} is not to be had from the registry: {done.stderr[-500:]}"
        if IN_CI:
            pytest.fail(message)
        pytest.skip(message)
    (name,) = os.listdir(directory)
    return os.path.join(directory, name)


def download_pips(directory):
    """{key: wheel path}: pip 26.3, the older pip and the newest pip."""
    wanted = {FIRST_GUARDED_PIP: f"pip=={FIRST_GUARDED_PIP}", OLDER_PIP: f"pip=={OLDER_PIP}"}
    wanted["newest"] = "pip"
    return {key: download(os.path.join(directory, key), r) for key, r in wanted.items()}


def version_of(wheel):
    return os.path.basename(wheel).split("-")[1]


def make_project(directory, name, version, extra_files=None):
    """A tiny setuptools project: one package whose __version__ is version."""
    root = os.path.join(directory, f"{name}-{version}")
    os.makedirs(os.path.join(root, name), exist_ok=True)
    with open(os.path.join(root, "pyproject.toml"), "w") as handle:
        handle.write(
            f'[project]\nname = "{name}"\nversion = "{version}"\n'
            '[build-system]\nrequires = ["setuptools"]\n'
            'build-backend = "setuptools.build_meta"\n'
        )
    with open(os.path.join(root, name, "__init__.py"), "w") as handle:
        handle.write(f"__version__ = {version!r}\n")
    for relative, text in (extra_files or {}).items():
        with open(os.path.join(root, name, relative), "w") as handle:
            handle.write(text)
    return root


def build_wheels(directory, name, versions):
    """`pip wheel` of a generated project at each version, into directory/wheels."""
    wheels = os.path.join(directory, "wheels")
    os.makedirs(wheels, exist_ok=True)
    for version in versions:
        project = make_project(os.path.join(directory, "src"), name, version)
        pip = [sys.executable, "-m", "pip", "--disable-pip-version-check"]
        run([*pip, "wheel", "-q", "--no-deps", "--no-build-isolation", "-w", wheels, project])
    return wheels


def make_venv(where, pip_wheel, env):
    """A venv at where with the pip of pip_wheel, installed by that pip itself."""
    run([sys.executable, "-m", "venv", "--without-pip", where], env=env)
    python = os.path.join(where, "bin", "python")
    pip = os.path.join(pip_wheel, "pip")  # a wheel runs as a zip application
    run(
        [python, pip, "install", "-q", "--no-index", "--disable-pip-version-check", pip_wheel],
        env=env,
    )
    return python


PIP = ("-m", "pip", "--disable-pip-version-check", "--no-input")


def installed_version(python, module):
    return run([python, "-c", f"import {module}; print({module}.__version__)"]).stdout.strip()


def troubles(done, report):
    """What a real-work run must not show: refusals, tracebacks, blocked imports."""
    text = done.stdout + done.stderr
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    found = [line for line in text.splitlines() if "SAFE_DELETE_" in line]
    found += [line for line in text.splitlines() if "Traceback" in line or "Blocked import" in line]
    found += [f"refuse event: {e.get('path')}" for e in report if e.get("operation") == "refuse"]
    return found
