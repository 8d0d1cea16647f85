"""multiprocessing under safedel run (issue 31, case 10): glibc's sem_open links and
unlinks `sem.*` names in /dev/shm, shm_unlink removes shared memory there, and the
resource tracker removes what a program leaked once it exits. The kernel's IPC
directory is an exempt root (core/contract/caches.py): these go through, for real,
with the net on and off, and nothing is left in /dev/shm or in a trash there."""

import os
import sys
import time

import pytest

MODES = {"net": (), "net-off": ("--net", "off")}
PROGRAM = """
import multiprocessing as mp, os, sys
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import shared_memory

def square(x):
    return x * x

if __name__ == "__main__":
    lock = mp.Lock()
    with lock:
        pass
    with mp.Pool(2) as pool:
        assert pool.map(square, range(5)) == [0, 1, 4, 9, 16]
    with ProcessPoolExecutor(2) as executor:
        assert list(executor.map(square, range(3))) == [0, 1, 4]
    shm = shared_memory.SharedMemory(create=True, size=64)
    shm.close()
    shm.unlink()
    leaked = shared_memory.SharedMemory(create=True, size=64)  # the tracker's to remove
    with open(sys.argv[1], "w") as names:
        names.write(shm.name + "\\n" + leaked.name + "\\n")
    leaked.close()
    print("done")
"""


def _tracker_alive(sandbox):
    """Whether a resource tracker started from this sandbox's work tree still runs."""
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                cmdline = handle.read()
            cwd = os.readlink(f"/proc/{pid}/cwd")
        except OSError:
            continue
        if b"resource_tracker" in cmdline and cwd == str(sandbox.work):
            return True
    return False


def _shm_names():
    return set(os.listdir("/dev/shm")) if os.path.isdir("/dev/shm") else set()


@pytest.mark.parametrize("mode", sorted(MODES))
def test_locks_pools_and_shared_memory_work_and_leave_nothing(sandbox, mode):
    assert os.path.isdir("/dev/shm"), "this test needs the kernel's /dev/shm"
    (sandbox.work / "mp.py").write_text(PROGRAM)
    names = sandbox.work / "names"
    before = _shm_names()
    done = sandbox.run(sys.executable, "mp.py", str(names), run_options=MODES[mode])
    stderr = done.stderr.decode()
    assert done.returncode == 0, stderr
    assert done.stdout.decode().strip() == "done"
    assert "PermissionError" not in stderr and "SAFE_DELETE" not in stderr
    assert not [e for e in sandbox.report() if e.get("operation") == "refuse"]
    assert sandbox.trashed_names() == []
    created = [n.lstrip("/") for n in names.read_text().split()]
    # The resource tracker may outlive the run by a moment: wait for it to exit.
    for _ in range(200):
        if not _tracker_alive(sandbox):
            break
        time.sleep(0.05)
    left = _shm_names() - before
    assert not [n for n in created if n in left], left
    assert not [n for n in left if n.startswith((".Trash", "sem.mp-"))], left
