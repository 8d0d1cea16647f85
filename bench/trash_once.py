"""Child script: time safedel's own part of deleting one path, in process.

That part is what every shim does per call once it is loaded: take the path from the
turn's allowance, write the info file, rename the path into the trash, append the
report line. Prints {"seconds": ...} as its last line.
"""

import json
import sys
import time

from safedel.core import deletion
from safedel.core.contract import settings


def main(path):
    current = settings.load()
    start = time.perf_counter()
    deletion.authorize(current, "python", [path])
    deletion.trash_one(current, "python", path)
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds}))


if __name__ == "__main__":
    main(sys.argv[1])
