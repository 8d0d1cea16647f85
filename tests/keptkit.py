"""A sandbox whose HOME, and with it the home trash and safedel's state, lies inside the
temp dir (HOME=/tmp for arbitrary uids in containers): shared by the kept-root tests of
the shims and of the net."""

import os


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
