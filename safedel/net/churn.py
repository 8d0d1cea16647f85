"""Short-lived churn under the net: what a command made during the run and deletes
within core/policy/churn.LIMIT seconds of its birth is left to the kernel, as the
shims delete it for real (core/policy/churn.py, shims/node/churn.cjs).

Birth is read at the caller's own parent descriptor (net/birth.py), so a rename keeps
it: `mv precious conftest.c; rm conftest.c` is precious, born before the run, and is
judged like any file. The kernel's rmdir removes only an empty directory, so an
rmdir of one born in the run is churn too. Never in safedel's own trash or state
(their real paths: trashes, state), nor in a git dir, where the net's own rules
(gitcaller) decide.
"""

import os

from ..core.policy.churn import limit
from . import birth


def short_lived(parent_fd, name, started, now_ns=None, environ=None):
    """Whether the entry name in the caller's directory parent_fd was born at or after
    started (birth.mark()) and is at most the churn limit old (the run's environ may
    lower it: core/policy/churn.limit)."""
    most_ns = int(limit(environ) * 10**9)
    if not started or most_ns <= 0:
        return False
    try:
        entry = birth.of(parent_fd, name)
    except OSError:
        return False
    if not birth.born_since(entry, started):
        return False
    now_ns = birth.clock_ns() if now_ns is None else now_ns
    return now_ns - entry.btime_ns <= most_ns


def pointer_places():
    """The real paths of the run pointers' folders (core/contract/runpointer.py)."""
    from ..core.policy.churn import pointer_places

    return pointer_places()


def excluded(path, kept):
    """Whether path (real str) lies in one of kept (real str roots) or in a git dir."""
    if os.sep + ".git" + os.sep in path + os.sep:
        return True
    return any(path == root or path.startswith(root.rstrip(os.sep) + os.sep) for root in kept)
