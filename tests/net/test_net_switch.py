"""Switching the net on and off, and `safedel doctor` telling which it is."""

import json
import subprocess
import sys

from conftest import confirm_config
from netkit import make_tree, require_net


def _doctor_net(env):
    done = subprocess.run(
        [sys.executable, "-m", "safedel", "doctor", "--json"], env=env, capture_output=True
    )
    rows = {row["check"]: row for row in json.loads(done.stdout)}
    return rows["net (safedel run)"]["detail"]


def test_doctor_says_the_net_is_active(sandbox):
    require_net()
    assert _doctor_net(sandbox.base_env()).startswith("active")


def test_config_net_false_switches_it_off(sandbox):
    require_net()
    config = sandbox.root / "config.toml"
    config.write_text("net = false\n")
    env = sandbox.base_env(SAFEDEL_CONFIG=config)
    # Nobody confirmed the file (a command could have written it): the net stays on.
    assert _doctor_net(env).startswith("active")
    tree = make_tree(sandbox.work)
    done = sandbox.run("dash", "-c", "/bin/rm -r d", env=env)
    caught = sandbox.trashed_names()
    assert done.returncode == 0 and not tree.exists() and "top.txt" in caught
    assert b"not applying net = false" in done.stderr
    confirm_config(sandbox.state, config)
    assert _doctor_net(env).startswith("not active: switched off")
    tree = make_tree(sandbox.work)
    assert sandbox.run("dash", "-c", "/bin/rm -r d", env=env).returncode == 0
    assert not tree.exists() and sandbox.trashed_names() == caught
    # --net on wins over the config file
    tree = make_tree(sandbox.work)
    done = sandbox.run("dash", "-c", "/bin/rm -r d", env=env, run_options=["--net", "on"])
    assert done.returncode == 0 and len(sandbox.trashed_names()) > len(caught)


# Installs a filter that refuses seccomp() itself with EPERM, as a container's profile
# may, then execs the rest of argv: a stand-in for such a container.
NO_NESTED_FILTERS = r"""
import ctypes, os, struct, sys
from safedel.net import bpf
audit_arch, seccomp_nr = bpf.ARCHES[os.uname().machine][:2]
def insn(code, k, jt=0, jf=0):
    return struct.pack("HBBI", code, jt, jf, k)
code = b"".join([
    insn(0x20, 4), insn(0x15, audit_arch, 1, 0), insn(0x06, bpf.RET_ALLOW),
    insn(0x20, 0), insn(0x15, seccomp_nr, 0, 1), insn(0x06, bpf.RET_ERRNO | 1),
    insn(0x06, bpf.RET_ALLOW),
])
buffer = ctypes.create_string_buffer(code, len(code))
prog = ctypes.create_string_buffer(struct.pack("HxxxxxxQ", 7, ctypes.addressof(buffer)), 16)
libc = ctypes.CDLL(None, use_errno=True)
assert libc.prctl(38, 1, 0, 0, 0) == 0
assert libc.syscall(seccomp_nr, 1, 0, prog) == 0, ctypes.get_errno()
os.execv(sys.argv[1], sys.argv[1:])
"""


def test_where_filters_are_forbidden_it_warns_once_and_keeps_the_shims(sandbox):
    require_net()
    make_tree(sandbox.work, "gap")
    shimmed = make_tree(sandbox.work, "shimmed")
    run = [sys.executable, "-m", "safedel", "run", "--session", sandbox.session]
    script = "/bin/rm -r gap; rm -r shimmed"
    done = subprocess.run(
        [sys.executable, "-c", NO_NESTED_FILTERS, *run, "--", "dash", "-c", script],
        cwd=sandbox.work,
        env=sandbox.base_env(),
        capture_output=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    warnings = [line for line in done.stderr.splitlines() if b"net is not available" in line]
    assert len(warnings) == 1, done.stderr
    assert b"Operation not permitted" in warnings[0]
    assert not (sandbox.work / "gap").exists()  # the gap is open again, as documented
    assert not shimmed.exists() and sandbox.trashed_names() == ["shimmed"]
