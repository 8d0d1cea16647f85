"""The bulk guard counts the net's deletions exactly, alongside the shims' own."""

import sys

from netkit import require_net

PROCESSES = 16
ROUNDS = 20
THRESHOLD = 200  # of 320 attempts: exactly 200 must go, 120 must stay

# Even workers delete with posix.unlink, which goes around the Python shim and reaches
# the net; odd workers use os.remove, which the shim trashes itself.
WORKER = """
import os, posix, sys
index = int(sys.argv[1])
remove = posix.unlink if index % 2 == 0 else os.remove
failed = 0
for round_ in range(int(sys.argv[2])):
    try:
        remove(f"w{index}/f{round_}")
    except PermissionError:
        failed += 1
os.write(1, b"%d\\n" % failed)  # one write: sixteen workers share the pipe
"""


def test_sixteen_mixed_processes_stop_exactly_at_the_threshold(sandbox):
    require_net()
    for index in range(PROCESSES):
        folder = sandbox.work / f"w{index}"
        folder.mkdir()
        for round_ in range(ROUNDS):
            (folder / f"f{round_}").write_text("x")
    (sandbox.work / "worker.py").write_text(WORKER)
    script = " ".join(f'"$0" worker.py {i} {ROUNDS} &' for i in range(PROCESSES)) + " wait"
    result = sandbox.run(
        "sh", "-c", script, sys.executable, run_options=["--threshold", str(THRESHOLD)]
    )
    assert result.returncode == 0, result.stderr
    refused = sum(int(line) for line in result.stdout.split())
    assert refused == PROCESSES * ROUNDS - THRESHOLD, (result.stdout, result.stderr[-2000:])
    remaining = sum(len(list((sandbox.work / f"w{i}").iterdir())) for i in range(PROCESSES))
    assert remaining == refused
    trashed = [e for e in sandbox.report() if e["operation"] == "trash"]
    assert len(trashed) == THRESHOLD
    runtimes = {e["runtime"] for e in trashed}
    assert runtimes == {"net", "python"}, runtimes
