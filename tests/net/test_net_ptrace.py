"""The supervising process is out of the command's reach: a command under the net may
not attach to `safedel run` (which deletes for real and runs unfiltered), nor read or
write its memory, to make it delete on the command's behalf.

As root, CAP_SYS_PTRACE passes every such check (docs/net.md says so), so the command runs
as uid 65534 here.
"""

import os

import pytest
from netkit import as_nobody, nobody_package, nobody_scratch, require_net

# Walks up from itself to the first ancestor without a seccomp filter (safedel run),
# then tries each way in; prints one "name=errno" per way.
PROBE = r"""
import ctypes, errno, os
def status(pid, key):
    for line in open(f"/proc/{pid}/status"):
        if line.startswith(key + ":"):
            return line.split()[1]
pid = os.getpid()
while status(pid, "Seccomp") != "0":
    pid = int(status(pid, "PPid"))
libc = ctypes.CDLL(None, use_errno=True)
results = {"comm": open(f"/proc/{pid}/comm").read().strip()}
for name, request in (("attach", 16), ("seize", 0x4206)):
    code = libc.ptrace(ctypes.c_long(request), ctypes.c_long(pid), None, None)
    results[name] = 0 if code == 0 else errno.errorcode[ctypes.get_errno()]
    if code == 0:  # let it go on, or the run would stay stopped
        libc.ptrace(ctypes.c_long(17), ctypes.c_long(pid), None, None)
try:
    os.close(os.open(f"/proc/{pid}/mem", os.O_RDWR))
    results["mem"] = 0
except OSError as exc:
    results["mem"] = errno.errorcode[exc.errno]
print(" ".join(f"{k}={v}" for k, v in results.items()))
"""


@pytest.fixture
def scratch():
    with nobody_scratch("safedel-net-ptrace-") as root:
        nobody_package(os.path.join(root, "package"))
        yield root


def test_a_command_cannot_attach_to_the_run_that_supervises_it(scratch):
    require_net()
    probe = os.path.join(scratch, "probe.py")
    with open(probe, "w") as handle:
        handle.write(PROBE)
    os.chmod(probe, 0o644)
    code, stderr = as_nobody(scratch, "w", f"/usr/bin/python3 -I {probe} > out", netted=True)
    assert code == 0, stderr
    with open(os.path.join(scratch, "w", "out")) as handle:
        out = handle.read()
    # The run's main thread carries its guard keeper's name (core/guard/keeperpost.py).
    assert "comm=python3" in out or "comm=safedel" in out or "comm=sdkeep " in out, out
    for way in ("attach=EPERM", "seize=EPERM", "mem=EACCES"):
        assert way in out, out
