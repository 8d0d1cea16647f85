"""A sandbox whose HOME, and with it the home trash and safedel's state, lies inside the
temp dir (HOME=/tmp for arbitrary uids in containers): shared by the kept-root tests of
the shims and of the net."""

import os
import subprocess

from conftest import require


def home_in_temp(sandbox, **extra):
    """(env, home): the sandbox's environment with HOME, the home trash and the state
    directory (its report too) inside the temp dir."""
    home = sandbox.tmpdir / "hh"
    home.mkdir(exist_ok=True)
    env = sandbox.base_env(
        HOME=home,
        XDG_DATA_HOME=home / ".local" / "share",
        XDG_STATE_HOME=home / ".local" / "state",
        **extra,
    )
    del env["SAFEDEL_STATE_DIR"], env["SAFEDEL_REPORT"]
    return env, home


def trash_files(home):
    files = home / ".local" / "share" / "Trash" / "files"
    return sorted(os.listdir(files)) if files.is_dir() else []


def tmpfs_project(sandbox, tmpfs):
    """(env, proj, trash): a temp dir on a tmpfs of its own, a project in it, and the
    trash at the mount's top where the project's items go."""
    tmp = tmpfs("tmpfs-temp")
    env = sandbox.base_env(TMPDIR=tmp)
    proj = tmp / "proj"
    proj.mkdir()
    subprocess.run([require("git"), "init", "-q", str(proj)], check=True, env=env)
    (proj / "f").write_text("keep")
    return env, proj, tmp / f".Trash-{os.getuid()}"
