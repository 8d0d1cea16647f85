"""What the suite runners share to run a test under `safedel run --net on`.

A test run under the net must be run by `safedel run` itself, as its user, not by a
stand-in: the filter, the supervisor thread and the workspace roots are all its own.
Another user (uid 65534) cannot read this checkout's editable install, so the package
is installed, without dependencies (`safedel run` needs none), into a directory of the
runner's scratch space first.
"""

import json
import os
import subprocess
import sys

SYSTEM_PYTHON = "/usr/bin/python3"
# Every run under the net checks, from inside the test's own shell, that the filter is
# there; without it the run stops with this status and says so, never passes unnetted.
NO_FILTER = 98
CHECK_FILTER = (
    "grep -q '^Seccomp:[[:space:]]*2' /proc/self/status"
    f" || {{ echo 'no seccomp filter: the net is not active' >&2; exit {NO_FILTER}; }}"
)
# The shell hooks `safedel run` adds, which the suites leave out: they test the
# launchers or the preload they name, and perl -T refuses to run while ENV is set.
SHELL_HOOKS = ("BASH_ENV", "ENV", "ZDOTDIR")


def install_package(target):
    """Install this checkout's safedel into target (readable by all); return target."""
    checkout = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    subprocess.run(
        [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-build-isolation"]
        + ["--target", target, checkout],
        check=True,
        stdout=subprocess.DEVNULL,
    )
    subprocess.run(["chmod", "-R", "a+rX", target], check=True)
    return target


def run_argv(package, session, turn, threshold=99999, net="on", extra=(), python=SYSTEM_PYTHON):
    """`safedel run --net NET` from the installed package, as an argv prefix."""
    argv = ["env", f"PYTHONPATH={package}", python, "-m", "safedel", "run", "-q"]
    argv += ["--net", net, "--threshold", str(threshold), "--session", session, "--turn", turn]
    return [*argv, *extra, "--"]


def inner_script(path, unset, then):
    """sh code run first inside `safedel run`: check the filter, unset the variables the
    suite leaves out, set PATH (an sh expression: "$PATH" is the one `safedel run` gave),
    then run `then` (more sh code; "$@" is the command)."""
    names = f"unset {' '.join(unset)}; " if unset else ""
    return f'{CHECK_FILTER}; {names}PATH="{path}"; export PATH; {then}'


def report_counts(report, runtime="net"):
    """(trash events, of which made by runtime) in a JSON-lines report."""
    trashed = by_runtime = 0
    try:
        with open(report, "rb") as handle:
            lines = handle.readlines()
    except OSError:
        return 0, 0
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if event.get("operation") == "trash":
            trashed += 1
            by_runtime += event.get("runtime") == runtime
    return trashed, by_runtime
