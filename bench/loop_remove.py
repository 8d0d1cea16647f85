"""Child script: os.remove over `count` fresh files, timed in process.

Run with and without the Python shim. Making the files is timed apart: a trash pays
for making one file (its info file) per deletion, so this is the filesystem's floor.
Prints {"seconds": ..., "create_seconds": ...} (whole loops) as its last line.
"""

import json
import os
import sys
import time


def main(directory, count):
    os.mkdir(directory)
    # Names unique across rounds: same-named items would make the trash pick suffixes.
    stem = os.path.basename(directory)
    paths = [os.path.join(directory, f"{stem}-{index:05d}") for index in range(count)]
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    start = time.perf_counter()
    for path in paths:
        fd = os.open(path, flags, 0o644)
        os.write(fd, b"bench\n")
        os.close(fd)
    made = time.perf_counter()
    for path in paths:
        os.remove(path)
    end = time.perf_counter()
    print(json.dumps({"seconds": end - made, "create_seconds": made - start}))


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
