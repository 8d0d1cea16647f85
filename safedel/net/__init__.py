"""The net: a seccomp user-notification filter that sends every native unlink, unlinkat
and rmdir of a `safedel run` process tree to a supervisor thread (Linux only).

The shims stay the fast, faithful path; the net catches what they cannot see: absolute
`/usr/bin/rm` in dash, static binaries, interpreters started with a clean environment.

session    : the runner's entry point: start a command under the net
spawn      : fork, install the filter in the child, exec
install    : the child's half: no_new_privs, the filter, the listener
bpf        : the filter program
canary     : am I under the net? the filter answers
supervisor : the thread that answers each deleting call
afterlife  : what answers the listener once `safedel run` has ended
notify     : the listener: receive, answer, read the caller's memory
quick      : a deletion straight inside an exempt root, told apart cheaply
target     : where a call points, resolved by descriptor
walk       : the caller's walk to the parent, redone as the kernel does it
farpath    : the path, or past PATH_MAX a descriptor, for the pipeline
callerperm : whether the caller itself may delete what it names
dirmodes   : a directory's own mode where it stops the net, not the kernel
places     : which resolved paths are left to the kernel or to git
exempt     : the exempt roots (the temp dir), by the shims' rule
mounts     : whether a directory lies on the mount of its root
statefiles : what may go in safedel's state directory
moves      : renames that carry judged data where deletions are real
ignored    : whether a directory lies in an ignored build tree
rulefiles  : every file behind git's ignore verdict, and its age
gitcaller  : which processes are the real git, and what in their git dir is theirs
birth      : an entry's identity and birth time, at a descriptor
gitunlink  : deleting for git the very entry judged, by its identity
gitobjects : whether git deleting an object loses content (pack indexes)
gitverify  : whether an object file or a pack is what its name says
gitblobs   : whether HEAD holds a file's exact content
gitstore   : whether a store the command cannot drop holds a blob

May import: core (never pyshim). Its standard-library half (bpf, install, notify,
target, walk) ships as lib/safedel_net for find -delete.
"""

import os
import sys

from .bpf import ARCHES


def kernel_supports():
    """(True, why) when this kernel and machine can run the net, else (False, why)."""
    if not sys.platform.startswith("linux"):
        return False, "the net needs Linux (shims only here)"
    if os.uname().machine not in ARCHES:
        return False, f"no filter for {os.uname().machine} (shims only)"
    try:
        with open("/proc/sys/kernel/seccomp/actions_avail", encoding="ascii") as handle:
            actions = handle.read().split()
    except OSError:
        return False, "this kernel has no seccomp"
    if "user_notif" not in actions:
        return False, "this kernel has no seccomp user notification"
    return True, "seccomp user notification available"


def wanted(value, environ):
    """Whether `--net on|off` (value, or None) or config `net = ...` asks for the net
    (`net = false` only from a config file a person confirmed: core/contract/userconfig.py)."""
    if value is None:
        from ..core.contract import settings

        value = settings.user_config(environ).get("net", "on")
    return str(value).strip().lower() not in ("0", "off", "false", "no")


def status(environ):
    """(active, detail) for `safedel doctor`: really start `true` under the net."""
    if not wanted(None, environ):
        return False, "switched off (net = false in the config file)"
    ok, why = kernel_supports()
    if not ok:
        return False, why
    from . import install, spawn

    machine = os.uname().machine
    child = spawn.spawn(install.Installer(machine), "/bin/true", ["true"], dict(environ))
    os.waitpid(child.pid, 0)
    if child.listener is None:
        return False, f"cannot install the filter here ({os.strerror(child.install_errno)})"
    os.close(child.listener)
    return True, "active: seccomp user notification catches unlink, unlinkat and rmdir"
