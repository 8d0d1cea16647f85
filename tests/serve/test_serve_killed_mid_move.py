"""`safedel serve` killed while the net of one of its runs moves an item into the trash.

A served run's net trashes in the server's own process: info file first, then the
rename. A kill -9 of the server between the two (held there by strace, see midmove)
leaves an info file without its item. Nothing of the user's is lost (the item never
left its place), and the next server on the same path, which ends what the dead one
left running, sweeps that info file away too, while every whole entry stays.
"""

import os
import signal
import subprocess
import sys

import midmove
from conftest import require
from servekit import Raw, Served, wait_for

from safedel.net import kernel_supports


def test_a_server_killed_mid_move_leaves_no_info_file_without_its_item(sandbox):
    if not kernel_supports()[0]:
        require("a kernel with seccomp user notification")
    made = midmove.tree(sandbox.work / "big")
    for sub in ("files", "info"):
        (sandbox.trash / sub).mkdir(mode=0o700, parents=True)
    path = sandbox.root / "serve" / "serve.sock"
    argv = [sys.executable, "-m", "safedel", "serve", "--socket", str(path)]
    proc = subprocess.Popen(
        midmove.held(sandbox.trash / "files") + argv,
        env=sandbox.base_env(),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        assert wait_for(lambda: _accepts(path)), "the server did not start"
        raw = Raw(str(path))
        raw.ok("o", "OpenSession", {"workspaceRoots": [str(sandbox.work)], "threshold": 99999})
        data = {"argv": ["dash", "-c", "/bin/rm -rf big"], "cwd": str(sandbox.work), "turn": "T"}
        raw.ok("r", "RunExecutable", data)
        orphans = midmove.wait_for_an_orphan(sandbox.trash, proc)
        assert len(orphans) == 1, orphans
        server = midmove.child_of(proc.pid)
        os.kill(server, signal.SIGKILL)  # mid-move
    finally:
        midmove.end(proc)
    midmove.wait_gone(server)
    [orphan] = midmove.infos_without_item(sandbox.trash)
    assert os.path.isfile(midmove.original_path(sandbox.trash, orphan))
    assert midmove.where_each_file_is(sandbox.trash, made) == made
    # The dead server's fork server may still hold the old socket for a moment (it
    # was held by strace too): the successor's own is the one to wait for.
    os.unlink(path)
    successor = Served(sandbox, path)
    try:
        Raw(str(path)).ok("p", "Ping")  # answered once the start's sweep is over
        assert midmove.infos_without_item(sandbox.trash) == []
        assert midmove.where_each_file_is(sandbox.trash, made) == made
    finally:
        assert successor.stop() == 0


def _accepts(path):
    try:
        Raw(str(path)).close()
    except OSError:
        return False
    return True
