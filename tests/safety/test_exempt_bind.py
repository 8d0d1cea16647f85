"""Issue #29, case 2: a project bind-mounted over the temp dir before the first deletion.

As root the command can `mount --bind ~/project "$TMPDIR"`: the name then leads to the
project, whose files the old name-based rule deleted for real. The temp dir is the
directory that was there when the run started, so what the mount shows is judged like
any other path. Each test runs `safedel run` in a private mount namespace
(tests/mountns.py); the command mounts, then deletes through each front end, with the
net and without, and also races a mount and unmount loop against the deletions. The
project is still there or in a trash, byte for byte; the temp dir's own files, deleted
before the mount, went for real.

Both are matrices (sampling.py): each run takes every front end and net mode.
"""

import sampling

from .exemptcase import Case, attacked_then_emptied, cells, require_net, require_tools
from .exemptrace import race, racing_layout


@sampling.matrix("front_end, net", cells(), "exempt-bind")
def test_a_project_mounted_over_the_temp_dir_is_kept(sandbox, front_end, net):
    require_net(net)
    require_tools(front_end)
    case = Case(sandbox.root, "bind")
    mount = f'mount --bind {case.project} "$TMPDIR"'
    attacked_then_emptied(sandbox, case, front_end, net, mount, mounts=True)


@sampling.matrix("front_end, net", cells(["rm", "python", "node"]), "exempt-bind-race")
def test_a_mount_racing_the_deletions_loses_nothing(sandbox, front_end, net):
    """The command mounts the project over the temp dir and takes it off again, over
    and over, while it deletes the same names from the temp dir."""
    require_net(net)
    require_tools(front_end)
    base = sandbox.root / "race"
    written = racing_layout(base, 30)
    flip = f"mount --bind {base}/proj {base}/t; umount -l {base}/t"
    changer = f"(echo started; while [ ! -e {base}/stop ]; do {flip}; done)"
    race(sandbox, base, written, changer, front_end, net, mounts=True)
