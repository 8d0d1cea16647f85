"""`safedel run` killed while its net moves an item into the trash.

The net trashes in `safedel run`'s own process: info file first, then the rename. A
kill -9 between the two (held there by strace, see midmove) leaves an info file
without its item. Nothing of the user's is lost (the item never left its place), and
the next `safedel run` sweeps that info file away before its command starts, while
every whole entry stays.
"""

import os
import signal
import subprocess
import sys

import midmove
from netkit import require_net


def test_a_run_killed_mid_move_leaves_no_info_file_without_its_item(sandbox):
    require_net()
    made = midmove.tree(sandbox.work / "big")
    for sub in ("files", "info"):
        (sandbox.trash / sub).mkdir(mode=0o700, parents=True)
    argv = [sys.executable, "-m", "safedel", "run", "--session", sandbox.session]
    argv += ["--turn", sandbox.turn, "--threshold", "99999", "--", "dash", "-c", "/bin/rm -rf big"]
    proc = subprocess.Popen(
        midmove.held(sandbox.trash / "files") + argv,
        cwd=sandbox.work,
        env=sandbox.base_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        orphans = midmove.wait_for_an_orphan(sandbox.trash, proc)
        assert len(orphans) == 1, orphans
        run = midmove.child_of(proc.pid)
        os.kill(run, signal.SIGKILL)  # safedel run, mid-move
    finally:
        midmove.end(proc)
    midmove.wait_gone(run)
    [orphan] = midmove.infos_without_item(sandbox.trash)
    # The kill came between the two steps: the item is still where it was.
    assert os.path.isfile(midmove.original_path(sandbox.trash, orphan))
    assert midmove.where_each_file_is(sandbox.trash, made) == made
    done = sandbox.run("true")
    assert done.returncode == 0, done.stderr
    assert midmove.infos_without_item(sandbox.trash) == []
    assert midmove.where_each_file_is(sandbox.trash, made) == made
