"""The filter program, built by hand: a dozen classic-BPF instructions.

Only the native architecture passes; x32 and any other ABI (i386 via int 0x80) is
killed rather than allowed, because its syscall numbers would slip past the checks.

It also answers one call nobody makes, `ioctl(-1, CANARY_REQUEST)`, with CANARY_ERRNO
instead of the kernel's EBADF. Every process under the net inherits the filter for good
(across pid namespaces, setsid, double forks and a scrubbed environment), so that answer
is how safedel's own commands know they run inside a run (safedel/net/canary.py).
"""

import struct

# seccomp return values (linux/seccomp.h)
RET_KILL_PROCESS = 0x80000000
RET_ERRNO = 0x00050000
RET_USER_NOTIF = 0x7FC00000
RET_ALLOW = 0x7FFF0000
ENOSYS = 38
CANARY_REQUEST = 0x5AFEDE15  # no driver's request: ioctl(2) on fd -1 never reaches one
CANARY_ERRNO = 133  # EHWPOISON: nothing the kernel says for an ioctl on a bad fd

_LD_W_ABS = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ_K = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JSET_K = 0x45  # BPF_JMP | BPF_JSET | BPF_K
_RET_K = 0x06  # BPF_RET | BPF_K
_NR, _ARCH = 0, 4  # offsets in struct seccomp_data
_ARG0, _ARG1 = 16, 24  # low 32 bits (little-endian) of args[0], args[1]
_ALL_ONES = 0xFFFFFFFF  # fd -1 as the kernel reads an int argument
X32_BIT = 0x40000000

# machine: (AUDIT_ARCH, seccomp syscall number, {watched syscalls}, io_uring_setup, x32).
# Watched: the deleting calls, and the renames (net/moves.py: a rename that carries
# workspace data to where deletions are left to the kernel).
ARCHES = {
    "x86_64": (
        0xC000003E,
        317,
        {
            "unlink": 87,
            "rmdir": 84,
            "unlinkat": 263,
            "rename": 82,
            "renameat": 264,
            "renameat2": 316,
        },
        425,
        True,
    ),
    "aarch64": (
        0xC00000B7,
        277,
        {"unlinkat": 35, "renameat": 38, "renameat2": 276},
        425,
        False,
    ),
}
IOCTL = {"x86_64": 16, "aarch64": 29}


def _insn(code, k, jt=0, jf=0):
    return struct.pack("HBBI", code, jt, jf, k)


def program(machine):
    """The filter for machine, as bytes of struct sock_filter, and its length."""
    audit_arch, _, deleting, io_uring_setup, x32 = ARCHES[machine]
    numbers = sorted(deleting.values())
    body = [(_LD_W_ABS, _ARCH, 0, 0), ("jarch", audit_arch), (_LD_W_ABS, _NR, 0, 0)]
    if x32:
        body.append(("jx32", X32_BIT))
    body += [("jnotif", n) for n in numbers]
    body.append(("jenosys", io_uring_setup))
    # The canary: anything that is not exactly ioctl(-1, CANARY_REQUEST) is allowed.
    body += [("jcanary", IOCTL[machine]), (_LD_W_ABS, _ARG0), ("jcanary", _ALL_ONES)]
    body += [(_LD_W_ABS, _ARG1), ("jsing", CANARY_REQUEST)]
    tail = {"allow": RET_ALLOW, "notif": RET_USER_NOTIF, "enosys": RET_ERRNO | ENOSYS}
    tail["kill"] = RET_KILL_PROCESS
    tail["canary"] = RET_ERRNO | CANARY_ERRNO
    order = list(tail)
    first_ret = len(body)

    def jump_to(index, label):
        return first_ret + order.index(label) - index - 1

    insns = []
    for index, insn in enumerate(body):
        if insn[0] == "jarch":  # wrong ABI: kill; right one: go on
            insns.append(_insn(_JEQ_K, insn[1], 0, jump_to(index, "kill")))
        elif insn[0] == "jx32":
            insns.append(_insn(_JSET_K, insn[1], jump_to(index, "kill"), 0))
        elif insn[0] == "jnotif":
            insns.append(_insn(_JEQ_K, insn[1], jump_to(index, "notif"), 0))
        elif insn[0] == "jenosys":
            insns.append(_insn(_JEQ_K, insn[1], jump_to(index, "enosys"), 0))
        elif insn[0] == "jcanary":  # not this part of the canary: allow
            insns.append(_insn(_JEQ_K, insn[1], 0, jump_to(index, "allow")))
        elif insn[0] == "jsing":
            insns.append(_insn(_JEQ_K, insn[1], jump_to(index, "canary"), jump_to(index, "allow")))
        else:
            insns.append(_insn(*insn[:2]))
    insns += [_insn(_RET_K, tail[label]) for label in order]
    return b"".join(insns), len(insns)
