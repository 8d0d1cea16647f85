"""The wheel carries everything `safedel shims` materialises, dotfiles included."""

import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_wheel_ships_shims_templates_and_zsh_dotfiles(tmp_path):
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--no-build-isolation"]
        + ["-w", str(tmp_path), str(REPO)],
        check=True,
        capture_output=True,
    )
    (wheel,) = tmp_path.glob("safedel-*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    expected = {
        "safedel/shims/bin/rm",
        "safedel/shims/bin/find",
        "safedel/shims/python/sitecustomize.py",
        "safedel/shims/node/safedel.cjs",
        "safedel/shells/posix/env.sh",
        "safedel/shells/zsh/zdotdir/.zshenv",
        "safedel/shells/zsh/zdotdir/.zshrc",
        "safedel/shells/powershell/prelude.ps1",
        "safedel/shells/bash/bootstrap.bash",
        "safedel/shells/fish/bootstrap.fish",
        "safedel/core/trash.py",
    }
    assert expected <= names, sorted(expected - names)
    shipped_node = {n for n in names if n.startswith("safedel/shims/node/")}
    in_tree = {f"safedel/shims/node/{p.name}" for p in (REPO / "shims" / "node").iterdir()}
    assert shipped_node == in_tree
