"""Am I under the net? Ask the filter: it answers ioctl(-1, CANARY_REQUEST) itself.

Outside the net the kernel says EBADF. Under it, the filter every process of the tree
inherited says CANARY_ERRNO, whatever the process did since: a new pid namespace, a new
session, a double fork, an emptied environment. Nothing a process can do removes a
seccomp filter, so a yes cannot be undone from inside; a process outside the net cannot
be made to see a yes either, except by running under a filter of its own making, which
only makes safedel refuse more.
"""

import sys

from .bpf import CANARY_ERRNO, CANARY_REQUEST


def under_net():
    """True when this process runs under a safedel net (Linux); False anywhere else."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        ioctl = libc.ioctl
        ioctl.argtypes = (ctypes.c_int, ctypes.c_ulong)
        ioctl.restype = ctypes.c_int
        ctypes.set_errno(0)
        if ioctl(-1, CANARY_REQUEST) != -1:
            return False
        return ctypes.get_errno() == CANARY_ERRNO
    except (OSError, AttributeError):
        return False
