"""The net: a seccomp user-notification filter that sends every native unlink, unlinkat
and rmdir of a `safedel run` process tree to a supervisor thread (Linux only).

The shims stay the fast, faithful path; the net catches what they cannot see: absolute
`/usr/bin/rm` in dash, static binaries, interpreters started with a clean environment.
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
