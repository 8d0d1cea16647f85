"""Issue #29, case 1: the temp dir swapped for a project during a run.

`mv "$TMPDIR" "$TMPDIR.old"; mv ~/project "$TMPDIR"; rm -rf "$TMPDIR"/*` used to destroy
the project: every front end but the rm launcher judged the temp dir by its name. The
temp dir is the directory that was there when the run started (its device and inode,
in the run's record), checked at the directory each deletion really acts in. Each test
is the attack as the command itself runs it, in every front end, with the net and
without; uid 65534 does it in a shared directory; and both race it. Every file of the
project must still be there or in the trash, restorable byte for byte; the temp dir's
own files, deleted before the swap, must be gone for real (so nothing passes by
exempting nothing).
"""

import os
import pathlib
import shlex
import subprocess
import sys

import pytest
import sampling

from .conftest import NOBODY, need_root
from .exemptcase import (
    NETS,
    Case,
    attacked_then_emptied,
    cells,
    contents,
    deletion,
    lost,
    require_net,
    require_tools,
    run,
)
from .exemptrace import RACING, race, racing_layout


@sampling.matrix("front_end, net", cells(), "exempt-swap")
def test_a_project_moved_in_for_the_temp_dir_is_kept(sandbox, front_end, net):
    require_net(net)
    require_tools(front_end)
    case = Case(sandbox.root, "swap")
    swap = f'mv "$TMPDIR" {case.away} && mv {case.project} "$TMPDIR"'
    attacked_then_emptied(sandbox, case, front_end, net, swap)


def test_what_the_swap_trashed_is_restored_byte_for_byte(sandbox):
    case = Case(sandbox.root, "restore")
    written = case.make()
    script = f'mv "$TMPDIR" {case.away} && mv {case.project} "$TMPDIR" && rm -rf "$TMPDIR"/*'
    done = run(sandbox, script, "off", env=sandbox.base_env(TMPDIR=case.root))
    assert done.returncode == 0, done.stderr
    assert sorted(os.listdir(case.root)) == []
    assert sorted(sandbox.trashed_names()) == ["keep.txt", "sub"]
    restore = [sys.executable, "-m", "safedel", "restore", "--session", sandbox.session]
    restored = subprocess.run(
        [*restore, "--turn", sandbox.turn], env=sandbox.base_env(), capture_output=True
    )
    assert restored.returncode == 0, restored.stderr
    for data, where in case.mine(written).items():
        moved = case.root / os.path.relpath(where, case.project)
        assert moved.read_bytes() == data


def test_under_confirm_the_swapped_in_project_is_refused_untouched(sandbox):
    case = Case(sandbox.root, "confirm")
    written = case.make()
    script = f'mv "$TMPDIR" {case.away} && mv {case.project} "$TMPDIR" && rm -rf "$TMPDIR"/*'
    argv = [sys.executable, "-m", "safedel", "run", "--session", sandbox.session]
    argv += ["--turn", sandbox.turn, "--net", "off", "--", "sh", "-c", script]
    env = sandbox.base_env(TMPDIR=case.root)
    done = subprocess.run(argv, cwd=sandbox.work, env=env, capture_output=True, timeout=120)
    assert done.returncode == 1
    assert b"SAFE_DELETE_OUTSIDE_WORKSPACE" in done.stderr
    for data, where in case.mine(written).items():
        assert (case.root / os.path.relpath(where, case.project)).read_bytes() == data
    assert sandbox.trashed_names() == []


@sampling.matrix("front_end, net", cells(["rm", "python", "node", "native"]), "exempt-missing")
def test_a_temp_dir_missing_at_the_start_is_exempt_for_nothing(sandbox, front_end, net):
    require_net(net)
    require_tools(front_end)
    case = Case(sandbox.root, "missing")
    written = case.make(root_exists=False)
    empty = deletion(front_end, [case.root], sandbox.root)
    script = f"mv {case.project} {case.root}; {empty}; true"
    done = run(sandbox, script, net, env=_env(sandbox, case))
    assert lost(case.mine(written), contents(sandbox.root)) == {}, done.stderr.decode()[-3000:]
    trashed = {e["path"] for e in sandbox.report() if e["operation"] == "trash"}
    assert str(case.root / "keep.txt") in trashed, done.stderr


def _env(sandbox, case):
    return sandbox.base_env(TMPDIR=case.root)


# Swaps the directory at ROOT with the one at OTHER until STOP exists: renames only, so
# at every moment one of the two is at ROOT. Run inside the run (the same user).
FLIP = """
import os, sys
root, other, stop = sys.argv[1:]
away = root + ".flip"
print("ready", flush=True)
while not os.path.exists(stop):
    for a, b in ((root, away), (other, root), (root, other), (away, root)):
        try:
            os.rename(a, b)
        except OSError:
            pass
"""
# uid 65534's side: ROOT renamed aside and a symlink to VICTIM put there, and back,
# until STOP exists.
LINK_FLIP = """
import os, sys
root, victim, stop = sys.argv[1:]
away = root + ".flip"
print("ready", flush=True)
while not os.path.exists(stop):
    try:
        os.rename(root, away)
        os.symlink(victim, root)
        os.unlink(root)
        os.rename(away, root)
    except OSError:
        pass
"""


def _flipper(base, program, as_nobody=False):
    """The racing changer: program (FLIP or LINK_FLIP) on {base}/t and {base}/proj."""
    prefix = f"setpriv --reuid={NOBODY} --regid={NOBODY} --clear-groups " if as_nobody else ""
    return f"{prefix}python3 -I -c {shlex.quote(program)} {base}/t {base}/proj {base}/stop"


@sampling.matrix("front_end, net", cells(sorted(RACING)), "exempt-swap-race")
def test_a_swap_racing_the_deletions_loses_nothing(sandbox, front_end, net):
    """The command swaps the temp dir and the project back and forth while it deletes
    the same names from the temp dir, round after round."""
    require_net(net)
    require_tools(front_end)
    base = sandbox.root / "race"
    written = racing_layout(base, 30)
    race(sandbox, base, written, _flipper(base, FLIP), front_end, net)


@pytest.fixture
def shared_pub(shared):
    """A directory in the shared one that anyone may write, without the sticky bit:
    uid 65534 may rename what lies in it, our temp dir included."""
    pub = os.path.join(shared, "pub")
    os.mkdir(pub)
    os.chmod(pub, 0o777)
    return pathlib.Path(pub)


@pytest.mark.parametrize("net", NETS)
@pytest.mark.parametrize("front_end", ["rm", "python", "node"])
def test_another_user_swaps_our_temp_dir_for_a_link_to_our_project(
    sandbox, shared_pub, front_end, net
):
    """Our temp dir lies in a directory anyone may write: uid 65534 renames it away and
    leaves a symlink to our project in its place before we delete in it."""
    need_root()
    require_net(net)
    require_tools(front_end)
    case = Case(shared_pub, "ours")
    written = case.make()
    os.chmod(case.base, 0o777)
    swap = f"mv {case.root} {case.away} && ln -s {case.project} {case.root}"
    nobody = f"setpriv --reuid={NOBODY} --regid={NOBODY} --clear-groups sh -c '{swap}'"
    empty = deletion(front_end, [case.root], sandbox.root)
    done = run(sandbox, f"{nobody} && {empty}; true", net, env=_env(sandbox, case))
    assert os.path.islink(case.root), done.stderr
    found = contents(sandbox.root)
    found.update(contents(shared_pub))
    assert lost(case.mine(written), found) == {}, done.stderr.decode()[-3000:]


@pytest.mark.parametrize("front_end", ["rm", "python", "node"])
def test_another_user_racing_a_link_swap_of_our_temp_dir_loses_nothing(
    sandbox, shared_pub, front_end
):
    """uid 65534 keeps swapping our temp dir (in a directory anyone may write) with a
    symlink to our project while our program deletes the same names from it."""
    need_root()
    require_tools(front_end)
    base = shared_pub / "race"
    written = racing_layout(base, 30)
    os.chmod(base, 0o777)
    flipper = _flipper(base, LINK_FLIP, as_nobody=True)
    race(sandbox, base, written, flipper, front_end, "off", elsewhere=[shared_pub])


@pytest.mark.parametrize("net", NETS)
def test_data_moved_into_the_temp_dir_itself_is_temp_data_to_the_shims(sandbox, net):
    """What is exempt is the directory, so a project moved *into* it is temp data to
    the shims (docs/coverage.md names it): without the net it is deleted for real;
    the net answers the move EXDEV, mv copies and deletes, and the original is trashed."""
    require_net(net)
    case = Case(sandbox.root, "moved-in")
    written = case.make()
    script = f'mv {case.project} "$TMPDIR"/proj && rm -rf "$TMPDIR"/proj'
    done = run(sandbox, script, net, env=_env(sandbox, case))
    assert done.returncode == 0, done.stderr
    missing = lost(case.mine(written), contents(sandbox.root))
    if net == "off":
        assert sorted(missing) == sorted(case.mine(written).values()), done.stderr
    else:
        assert missing == {}, done.stderr.decode()[-3000:]
