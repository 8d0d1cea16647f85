"""Issue #29, case 2: a project bind-mounted over the temp dir before the first deletion.

As root the command can `mount --bind ~/project "$TMPDIR"`: the name then leads to the
project, whose files the old name-based rule deleted for real. The temp dir is the
directory that was there when the run started, so what the mount shows is judged like
any other path. Each test runs `safedel run` in a private mount namespace
(tests/mountns.py); the command mounts, then deletes through each front end, with the
net and without, and also races a mount and unmount loop against the deletions. The
project is still there or in a trash, byte for byte; the temp dir's own files, deleted
before the mount, went for real.
"""

import shlex

import pytest
from mountns import run_in_namespace

from .exemptcase import (
    FRONT_ENDS,
    Case,
    contents,
    deletion,
    gone_for_real,
    lost,
    racing_deleter,
    racing_layout,
    require_net,
    require_tools,
)

NETS = ("off", "on")


def _options(net):
    return ("--net", net, "--outside-workspace", "allow", "--threshold", "99999")


@pytest.mark.parametrize("net", NETS)
@pytest.mark.parametrize("front_end", FRONT_ENDS)
def test_a_project_mounted_over_the_temp_dir_is_kept(sandbox, front_end, net):
    if front_end == "native" and net == "off":
        pytest.skip("no shim in a native program: only the net sees it (docs/coverage.md)")
    require_net(net)
    require_tools(front_end)
    case = Case(sandbox.root, "bind")
    written = case.make()
    empty = deletion(front_end, ['"$TMPDIR"'], sandbox.root)
    script = f'{empty}; mount --bind {case.project} "$TMPDIR" && {empty}; true'
    setup = f"export TMPDIR={shlex.quote(str(case.root))}"
    done = run_in_namespace(sandbox, setup, script, run_options=_options(net))
    found = contents(sandbox.root)
    assert lost(case.mine(written), found) == {}, done.stderr.decode()[-3000:]
    assert gone_for_real(case.temp(written), found) == {}, done.stderr.decode()[-3000:]


@pytest.mark.parametrize("net", NETS)
@pytest.mark.parametrize("front_end", ["rm", "python", "node"])
def test_a_mount_racing_the_deletions_loses_nothing(sandbox, front_end, net):
    """The command mounts the project over the temp dir and takes it off again, over
    and over, while it deletes the same names from the temp dir."""
    require_net(net)
    require_tools(front_end)
    base = sandbox.root / "race"
    written = racing_layout(base, 30)
    flip = (
        f"while [ ! -e {base}/stop ]; do mount --bind {base}/proj {base}/t;"
        f" umount -l {base}/t; done"
    )
    delete = racing_deleter(front_end, f"{base}/t", 12 if front_end == "rm" else 40)
    script = f"({flip}) & {delete}; touch {base}/stop; wait"
    setup = f"export TMPDIR={shlex.quote(str(base / 't'))}"
    done = run_in_namespace(sandbox, setup, script, run_options=_options(net))
    assert b"deleted" in done.stdout, done.stderr.decode()[-3000:]
    mine = {d: w for d, w in written.items() if d.startswith(b"mine ")}
    assert lost(mine, contents(sandbox.root)) == {}, done.stderr.decode()[-3000:]
