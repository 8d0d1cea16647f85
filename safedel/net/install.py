"""The child's half: no_new_privs, then the filter with a new listener, before exec.

Everything that allocates or loads (ctypes, the program bytes) is done in the parent
before fork, so the child only makes two calls and hands the listener over.
"""

import ctypes
import os
import struct

from . import bpf

PR_SET_NO_NEW_PRIVS = 38
PR_SET_DUMPABLE = 4
SECCOMP_SET_MODE_FILTER = 1
FLAG_NEW_LISTENER = 1 << 3
# Once a notification is received, only a fatal signal may interrupt the wait. Without
# it, a signal restarts the call after the supervisor trashed the item, and the
# program then sees ENOENT for a deletion that happened (kernel 5.19 and later).
FLAG_WAIT_KILLABLE_RECV = 1 << 5


class Installer:
    """The prepared filter; install() runs in the forked child and returns the fd."""

    def __init__(self, machine):
        code, length = bpf.program(machine)
        self._code = ctypes.create_string_buffer(code, len(code))
        self._fprog = ctypes.create_string_buffer(
            struct.pack("HxxxxxxQ", length, ctypes.addressof(self._code)), 16
        )
        self._seccomp_nr = bpf.ARCHES[machine][1]
        libc = ctypes.CDLL(None, use_errno=True)
        self._prctl = libc.prctl
        self._syscall = libc.syscall
        self._syscall.restype = ctypes.c_long
        self._root = os.geteuid() == 0
        # The supervising process is the tree's way out: it deletes for real and runs
        # unfiltered. Not dumpable, no process of the user without CAP_SYS_PTRACE may
        # attach to it, read or write its /proc/PID/mem, or take its descriptors with
        # pidfd_getfd. Its children are dumpable again from their exec on.
        self._prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)

    def install(self):
        """The listener fd, or -errno. Root keeps setuid programs working: no nnp."""
        if not self._root and self._prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0:
            return -ctypes.get_errno()
        flags = FLAG_NEW_LISTENER | FLAG_WAIT_KILLABLE_RECV
        fd = self._call(flags)
        if fd < 0 and -fd == 22:  # EINVAL: a kernel older than the killable wait
            fd = self._call(FLAG_NEW_LISTENER)
        return fd

    def _call(self, flags):
        fd = self._syscall(
            ctypes.c_long(self._seccomp_nr),
            ctypes.c_long(SECCOMP_SET_MODE_FILTER),
            ctypes.c_long(flags),
            self._fprog,
        )
        return fd if fd >= 0 else -ctypes.get_errno()
