"""What keeps a served command away from the server's own channel (Linux).

A command the server runs is a process of the server's user. The kernel lets such a
process open the server's descriptors through /proc/<pid>/fd (a pipe opened there can
be written, whichever end the server holds), take them with pidfd_getfd, or attach
with ptrace, unless the server is not dumpable and the process lacks CAP_SYS_PTRACE.
Through the server's stdin it would answer its own guard question; through its stdout
it would put questions of its own to the harness. So:

- the server makes itself not dumpable before it reads a line (the fork server and
  the net's supervisor are not dumpable either): a process without CAP_SYS_PTRACE
  can no longer open, take or read anything of it;
- as root, every run starts without CAP_SYS_PTRACE (forkserver.drop_ptrace, in the
  child before its exec: out of its bounding, inheritable and ambient sets), so that
  check holds for a root command too. A root server that could not take it away
  (no CAP_SETPCAP) does not start (check_root);
- every descriptor the server was given past stderr is made close-on-exec, so a
  harness that leaves its end of a pipe inheritable does not hand it on to the runs;
- with --stdio the protocol leaves fds 0 and 1 (stdio_fds): nothing the server
  starts can be given the harness's pipes by mistake.

A pid namespace of its own per run would hide the server's pid, but not the server:
a root command with CAP_SYS_PTRACE connects to any socket of the server and gets the
server's pidfd with SO_PEERPIDFD, then its descriptors with pidfd_getfd. Without
CAP_SYS_PTRACE that fails whether the server's pid is visible or not.
"""

import os
import struct
import sys

PR_SET_DUMPABLE = 4
PR_CAPBSET_READ = 23
CAP_SETPCAP = 8
CAP_SYS_PTRACE = 19
_CAP_V3 = 0x20080522


def seal():
    """Make this process not dumpable and its inherited descriptors close-on-exec."""
    if sys.platform.startswith("linux"):
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_DUMPABLE, 0, 0, 0, 0)
    for fd in _open_fds():
        if fd > 2:
            try:
                os.set_inheritable(fd, False)
            except OSError:
                pass  # closed meanwhile (the listing's own descriptor)


def _open_fds():
    for where in ("/proc/self/fd", "/dev/fd"):
        try:
            return [int(name) for name in os.listdir(where)]
        except OSError:
            continue
    return []


def stdio_fds():
    """(read fd, write fd) of the protocol, both close-on-exec; fd 0 then reads
    /dev/null and fd 1 writes to stderr, so that nothing else prints to the harness."""
    rfd, wfd = os.dup(0), os.dup(1)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    os.dup2(2, 1)
    return rfd, wfd


def check_root():
    """None, or why a root server cannot start: its runs must lose CAP_SYS_PTRACE,
    and this process cannot take it out of their bounding set (no CAP_SETPCAP)."""
    if not sys.platform.startswith("linux") or os.geteuid() != 0:
        return None
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_CAPBSET_READ, CAP_SYS_PTRACE, 0, 0, 0) != 1:
        return None  # nothing to take away: no process of the run can gain it
    header = ctypes.create_string_buffer(struct.pack("Ii", _CAP_V3, 0), 8)
    data = ctypes.create_string_buffer(24)
    if libc.capget(header, data) != 0:
        return "cannot read this process's capabilities"
    effective = struct.unpack_from("I", data.raw)[0]
    if effective & (1 << CAP_SETPCAP):
        return None
    return (
        "as root it takes CAP_SYS_PTRACE from the commands it runs (else a command could "
        "open the server's own descriptors and answer its own guard question), which "
        "needs CAP_SETPCAP; this process has CAP_SYS_PTRACE in its bounding set but not "
        "CAP_SETPCAP"
    )
