"""Child script: time regenerable.ignored() over every file of one directory, once, in a
fresh process. Prints {"seconds": ..., "ignored": N} as its last line."""

import json
import os
import sys
import time

from safedel.core.guard import regenerable


def main(directory):
    paths = [os.path.join(directory, name) for name in os.listdir(directory)]
    start = time.perf_counter()
    # The rules were written before this batch, as a turn's would be before it began.
    found = regenerable.ignored(paths, since=time.time())
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "ignored": len(found)}))


if __name__ == "__main__":
    main(sys.argv[1])
