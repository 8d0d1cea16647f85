"""Another user swaps a folder for a symlink to our data while an exempt (real) delete
empties their directory in the shared temp dir: nothing of ours may go, in any trial.
The real delete walks by descriptor, so what it meets is unlinked, never followed."""

import os
import subprocess
import sys

import pytest

from safedel.core import resolve
from safedel.core.trash import realdelete

from .conftest import attacker

TRIALS = 20
FRONT_ENDS = ["rm", "find", "rmtree"]


def victim_data(shared):
    victim = os.path.join(shared, "victim")
    os.makedirs(victim)
    for i in range(20):
        with open(os.path.join(victim, f"v{i}"), "w") as handle:
            handle.write(f"mine {i}")
    return victim


def intact(victim):
    return sorted(os.listdir(victim)) == sorted(f"v{i}" for i in range(20)) and all(
        open(os.path.join(victim, f"v{i}")).read() == f"mine {i}" for i in range(20)
    )


def delete(sandbox, env, front_end, theirdir):
    argv = {
        "rm": ["rm", "-rf", theirdir],
        "find": ["find", theirdir, "-delete"],
        "rmtree": [sys.executable, "-c", f"import shutil; shutil.rmtree({theirdir!r}, True)"],
    }[front_end]
    return subprocess.run(argv, env=env, capture_output=True, timeout=120)


def race(shared, trial, delete_theirdir):
    """One trial: the attacker fills and swaps, we delete their directory for real."""
    tmp = os.path.join(shared, "tmp")
    os.mkdir(tmp)
    os.chmod(tmp, 0o1777)
    victim = victim_data(shared)
    theirdir = os.path.join(tmp, "theirdir")
    stopfile = os.path.join(shared, "stop")
    delay_us = [0, 10, 50, 200, 1000][trial % 5]
    swapper = attacker(
        "swap", theirdir, victim, "4000", str(delay_us), stopfile, stdout=subprocess.PIPE
    )
    try:
        assert swapper.stdout.readline().strip() == b"ready"
        delete_theirdir(tmp, theirdir)
    finally:
        open(stopfile, "w").close()
        swapper.wait(timeout=60)
    assert intact(victim), sorted(os.listdir(victim))


@pytest.mark.parametrize("trial", range(TRIALS))
def test_the_real_delete_never_follows_a_swapped_folder(shared, trial):
    def remove(_tmp, theirdir):
        try:
            realdelete.remove(resolve.resolve(theirdir))
        except realdelete.RemovalError:
            pass  # a folder that changed under us is reported, never followed

    race(shared, trial, remove)


@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_no_front_end_follows_a_swapped_folder(sandbox, shared, front_end):
    def remove(tmp, theirdir):
        env = sandbox.shim_env(TMPDIR=tmp, SAFEDEL_EXEMPT=tmp)
        delete(sandbox, env, front_end, theirdir)

    race(shared, 4, remove)  # the longest symlink phase
    assert sandbox.trashed_names() == []  # exempt: nothing went to the trash either
