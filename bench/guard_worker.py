"""Child script: time each call of the guard, one deletion per call, in a loop.

`authorize` mode calls safedel.core.deletion.authorize (a real take from the turn's
ledger, shared with the other workers); `bare` mode times the same loop around a
function that does nothing, which is what the loop costs without safedel. Every worker
waits for the same start time, so the concurrent ones really overlap. Prints
{"samples": [seconds, ...]} as its last line.
"""

import json
import os
import sys
import time

from safedel.core import deletion
from safedel.core.contract import settings


def nothing(_settings, _runtime, _paths):
    return None


def main(mode, takes, start_at, work):
    current = settings.load()
    call = deletion.authorize if mode == "authorize" else nothing
    paths = [[os.path.join(work, f"{os.getpid()}-{index}")] for index in range(takes)]
    delay = start_at - time.time()
    if delay > 0:
        time.sleep(delay)
    clock = time.perf_counter_ns
    samples = []
    for batch in paths:
        start = clock()
        call(current, "python", batch)
        samples.append((clock() - start) / 1e9)
    print(json.dumps({"samples": samples}))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), sys.argv[4])
