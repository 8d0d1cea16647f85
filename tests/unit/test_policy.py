"""Exempt and protected paths are judged on where an item really is."""

import os
import subprocess

from safedel.core.policy import targets


def test_a_symlink_into_a_project_does_not_make_its_contents_exempt(tmp_path):
    tmp_root = tmp_path / "tmpdir"
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    tmp_root.mkdir()
    (tmp_root / "link").symlink_to(project)
    roots = (str(tmp_root),)
    assert not targets.is_exempt(str(tmp_root / "link" / "src"), roots)
    # The link itself does live in the temp dir: removing it is a real, harmless delete.
    assert targets.is_exempt(str(tmp_root / "link"), roots)
    assert targets.is_exempt(str(tmp_root / "scratch.o"), roots)


def test_a_real_path_inside_the_temp_dir_is_exempt_whatever_its_spelling(tmp_path):
    real = tmp_path / "real-tmp"
    (real / "build").mkdir(parents=True)
    alias = tmp_path / "alias"
    alias.symlink_to(real)
    assert targets.is_exempt(str(real / "build"), (str(alias),))
    assert targets.is_exempt(str(alias / "build"), (str(real),))
    assert not targets.is_exempt(str(real), (str(real),))


def test_rm_through_a_temp_dir_symlink_trashes_project_files(sandbox):
    project_file = sandbox.work / "src" / "main.c"
    project_file.parent.mkdir()
    project_file.write_text("int main;")
    (sandbox.tmpdir / "link").symlink_to(sandbox.work)
    done = subprocess.run(
        ["rm", "-rf", str(sandbox.tmpdir / "link" / "src")],
        env=sandbox.shim_env(),
        capture_output=True,
    )
    assert done.returncode == 0, done.stderr
    assert not project_file.parent.exists()
    assert "src" in sandbox.trashed_names()


def test_protected_paths(tmp_path):
    home = str(tmp_path / "home")
    os.mkdir(home)
    env = {"HOME": home}
    assert targets.protected_reason("/", env)
    assert targets.protected_reason(home, env)
    assert targets.protected_reason("/usr", env)
    assert targets.protected_reason(os.path.join(home, "project"), env) is None
