"""A small in-process deleter for the guard tests, run as its own process.

It does what every front end does with the shared engine: split off the exempt paths
(deleted for real), authorize the rest as one batch, trash each granted path.

    python guard_worker.py [--each] [--go] PATH...

--each makes every path its own batch (like `rm f` run once per file); --go waits
for the end of stdin, so that many workers start deleting at the moment their parent
closes their stdin pipes. It prints
{"trashed": N, "refused": M, "exempt": K} and exits 1 if anything was refused.
"""

import json
import os
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))

from safedel.core import deletion
from safedel.core.contract import settings  # noqa: E402


def main(argv):
    each = "--each" in argv
    argv = [arg for arg in argv if arg != "--each"]
    if argv[:1] == ["--go"]:
        argv = argv[1:]
        sys.stdin.buffer.read()
    current = settings.load()
    counts = {"trashed": 0, "refused": 0, "exempt": 0}
    for batch in [[path] for path in argv] if each else [argv]:
        exempt, guarded = deletion.split_exempt(current, batch)
        for path in exempt:
            (shutil.rmtree if os.path.isdir(path) else os.remove)(path)
            counts["exempt"] += 1
        try:
            deletion.authorize(current, "python", guarded)
        except deletion.Refused:
            counts["refused"] += len(guarded)
            continue
        for path in guarded:
            deletion.trash_one(current, "python", path)
            counts["trashed"] += 1
    print(json.dumps(counts), flush=True)
    return 1 if counts["refused"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
