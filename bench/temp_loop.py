"""A compiler-style loop: create, write and unlink N temp files in the directory given.

Run under `safedel run` with the net on and off: every unlink reaches the net, which
finds the temp dir exempt and deletes the file itself (net/perform).
"""

import os
import sys

directory, count = sys.argv[1], int(sys.argv[2])
block = b"\x7fELF" + b"\0" * 4092  # an object file's worth of bytes
flags = os.O_WRONLY | os.O_CREAT | os.O_TRUNC
for index in range(count):
    path = os.path.join(directory, f"cc{index}.o")
    fd = os.open(path, flags, 0o600)
    os.write(fd, block)
    os.close(fd)
    os.unlink(path)
