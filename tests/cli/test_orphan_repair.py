"""`safedel doctor --repair` on info files without their item, planted as each kind of
leftover: a mover killed mid-move (read-only, its lock free; written or not yet), a
move still under way (its lock held by a live process), one that may be (young, as
the Node shim leaves it), an old one, an empty one, and a file of the user's that is
only named like one.
"""

import os
import subprocess
import sys
import time

INFO = b"[Trash Info]\nPath=/nowhere/%s\nDeletionDate=2026-01-01T00:00:00\n"
HOLD = (
    "import fcntl, os, sys; fd = os.open(sys.argv[1], os.O_RDONLY);"
    " fcntl.flock(fd, fcntl.LOCK_EX); print('held', flush=True); sys.stdin.read()"
)


def doctor(sandbox, *args):
    return subprocess.run(
        [sys.executable, "-m", "safedel", "doctor", *args],
        cwd=sandbox.work,
        env=sandbox.base_env(),
        capture_output=True,
        timeout=120,
    )


def plant(sandbox):
    info, files = sandbox.trash / "info", sandbox.trash / "files"
    for folder in (info, files):
        folder.mkdir(mode=0o700, parents=True)
    old = time.time() - 3600
    for name, mode, content, aged in (
        ("abandoned", 0o400, INFO % b"abandoned", False),
        ("never-written", 0o400, b"", False),
        ("in-flight", 0o400, INFO % b"in-flight", False),
        ("young", 0o600, INFO % b"young", False),
        ("old", 0o600, INFO % b"old", True),
        ("empty", 0o600, b"", True),
        ("notes", 0o600, b"my notes, named like an info file\n", True),
        ("whole", 0o600, INFO % b"whole", True),
    ):
        path = info / f"{name}.trashinfo"
        path.write_bytes(content)
        os.chmod(path, mode)
        if aged:
            os.utime(path, (old, old))
    (files / "whole").write_text("an item")
    (files / "lonely").write_text("an item without its info file")
    return info


def test_doctor_repair_removes_what_no_mover_will_finish_and_nothing_else(sandbox):
    info = plant(sandbox)
    holder = subprocess.Popen(
        [sys.executable, "-c", HOLD, str(info / "in-flight.trashinfo")],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
    )
    try:
        assert holder.stdout.readline() == b"held\n"
        checked = doctor(sandbox)
        assert b"4 info files without their item" in checked.stdout, checked.stdout
        done = doctor(sandbox, "--repair")
        assert done.returncode == 0, done.stderr
        left = sorted(os.listdir(info))
        kept = ["in-flight", "notes", "whole", "young"]
        assert left == [f"{n}.trashinfo" for n in kept], done.stdout
        for name in ("abandoned", "never-written", "old", "empty"):
            assert f"{name}.trashinfo (its item was gone)".encode() in done.stdout
        assert b"--orphan lonely" in done.stdout
        assert (info / "notes.trashinfo").read_bytes().startswith(b"my notes")
    finally:
        holder.stdin.close()
        holder.wait()
    # Its holder gone, the move it stood for is over for good: the next repair takes it.
    again = doctor(sandbox, "--repair")
    assert b"in-flight.trashinfo (its item was gone)" in again.stdout, again.stdout
    assert sorted(os.listdir(info)) == ["notes.trashinfo", "whole.trashinfo", "young.trashinfo"]
