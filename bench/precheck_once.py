"""Child script: time rm's permission pre-check on a directory tree, in process.

Before trashing a directory as one rename, the rm launcher asks whether GNU rm could
remove all of it as this user (rmcheck.whole_tree). The root skips the walk, so this
script judges the tree as an unprivileged owner would: the full walk, every directory
listed. Prints {"seconds": ..., "whole": true|false} as its last line.
"""

import json
import os
import sys
import time

from safedel.core import removable


def main(path):
    st = os.lstat(path)
    user = removable.User()
    user.privileged, user.uid = False, st.st_uid  # the owner's view, even as root
    removable.mount_points()  # read once per process, as the launcher does
    start = time.perf_counter()
    whole = removable.whole_tree(path, st, user)
    seconds = time.perf_counter() - start
    print(json.dumps({"seconds": seconds, "whole": whole}))


if __name__ == "__main__":
    main(sys.argv[1])
