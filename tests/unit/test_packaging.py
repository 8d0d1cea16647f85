"""The wheel carries everything `safedel shims` materialises, dotfiles included."""

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_wheel_ships_shims_templates_and_zsh_dotfiles(tmp_path):
    source = tmp_path / "source"  # a copy, so the build leaves nothing in the work tree
    source.mkdir()
    for name in ("pyproject.toml", "README.md", "safedel", "shims"):
        copy = shutil.copytree if (REPO / name).is_dir() else shutil.copy
        copy(REPO / name, source / name)
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
        + ["-w", str(tmp_path), str(source)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("safedel-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {
        "safedel/shims/bin/rm",
        "safedel/shims/bin/find",
        "safedel/shims/bin/git",
        "safedel/core/git/clean.py",
        "safedel/shims/python/sitecustomize.py",
        "safedel/shims/node/safedel.cjs",
        "safedel/shells/posix/env.sh",
        "safedel/shells/zsh/zdotdir/.zshenv",
        "safedel/shells/zsh/zdotdir/.zshrc",
        "safedel/shells/powershell/prelude.ps1",
        "safedel/shells/bash/bootstrap.bash",
        "safedel/shells/sh/session.sh",
        "safedel/shells/fish/bootstrap.fish",
        "safedel/core/trash/move.py",
    }
    assert expected <= names, sorted(expected - names)
    shipped_node = {n for n in names if n.startswith("safedel/shims/node/")}
    in_tree = {f"safedel/shims/node/{p.name}" for p in (REPO / "shims" / "node").iterdir()}
    assert shipped_node == in_tree
    # An editable install finds a package missing from pyproject's list; a wheel does not.
    in_package = {
        p.relative_to(REPO).as_posix()
        for p in (REPO / "safedel").rglob("*.py")
        if "__pycache__" not in p.parts
    }
    assert in_package - names == set()
