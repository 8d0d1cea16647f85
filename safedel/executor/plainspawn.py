"""A plain `safedel run` (no capture mode): the command started as a shell would start it,
signals passed on to it, and its exit status, with the orphans it leaves reaped.
"""

import os
import sys

try:  # the C module: `signal` itself imports enum, a tenth of `safedel run`'s cost
    import _signal as signal
except ImportError:
    import signal

FORWARDED = ("SIGTERM", "SIGHUP", "SIGINT", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGWINCH")


def spawn(command, env, net=None):
    """Run command; return (exit code, signal name or None), like a shell would."""
    child = {}
    # Without the net, a run is found from inside by the parent chain (approval.py):
    # as a child subreaper, orphans of the command (a double fork, a parent that quit)
    # stay our descendants while the command runs, instead of going to init. With the
    # net, the filter's canary says so, and the supervisor's own children (git) must
    # not have their exit status taken by a wait for any child.
    reaper = net is None and _become_subreaper()
    previous = _forward_signals(child)  # before the child exists: no signal slips by
    try:
        try:
            child["pid"] = _start(command, env, previous, net)
        except FileNotFoundError:
            sys.stderr.write(f"safedel: {command[0]}: command not found\n")
            return 127, None
        except OSError as exc:
            sys.stderr.write(f"safedel: {command[0]}: {exc.strerror or exc}\n")
            return 126, None
        status = _wait(child["pid"], reaper)
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if status < 0:
        return 128 - status, _signal_name(-status)
    return status, None


def _signal_name(number):
    names = [n for n in dir(signal) if n.startswith("SIG") and not n.startswith("SIG_")]
    return next((n for n in sorted(names) if getattr(signal, n) == number), str(number))


def _start(command, env, previous, net=None):
    """posix_spawn with the child's own PATH (subprocess would cost more to import
    than the rest of `safedel run`). The child gets default handlers for what safedel
    handles itself, and for SIGPIPE/SIGXFSZ that Python ignores, as subprocess does."""
    if not hasattr(os, "posix_spawn"):
        import subprocess

        return subprocess.Popen(command, env=env)
    program = which(command[0], env.get("PATH", os.defpath))
    reset = {s for s, h in previous.items() if h is not signal.SIG_IGN}
    reset |= {getattr(signal, n) for n in ("SIGPIPE", "SIGXFSZ") if hasattr(signal, n)}
    spawn = net.spawn if net else os.posix_spawn
    return spawn(program, command, env, setsigdef=reset)


def which(name, path):
    """The program a spawn runs for name: as given with a slash, else PATH's first."""
    if os.sep in name:
        return name
    for directory in path.split(os.pathsep):
        candidate = os.path.join(directory or ".", name)
        if os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return candidate
    raise FileNotFoundError(name)


def _become_subreaper():
    if not sys.platform.startswith("linux"):
        return False
    from .tree import become_subreaper

    return become_subreaper()


def _wait(pid, reaper=False):
    """The child's exit status; a subreaper also reaps the orphans that died meanwhile."""
    if not isinstance(pid, int):  # a Popen, where posix_spawn is missing
        return pid.wait()
    while True:
        try:
            done, status = os.waitpid(-1 if reaper else pid, 0)
            if done != pid:
                continue  # an orphan of the command, reaped so it leaves no zombie
            return os.waitstatus_to_exitcode(status)
        except KeyboardInterrupt:
            continue
        except ChildProcessError:
            return 0


def _forward_signals(child):
    """Pass signals on to the child. A terminal's Ctrl-C already reaches the child's
    process group, so SIGINT/SIGQUIT are only forwarded when not from a terminal."""
    interactive = sys.stdin.isatty() and _in_foreground()
    previous = {}
    for name in FORWARDED:
        signum = getattr(signal, name, None)
        if signum is None:
            continue
        if interactive and name in ("SIGINT", "SIGQUIT"):
            handler = signal.SIG_IGN
        else:

            def handler(num, _frame):
                pid = child.get("pid")
                if pid is None:
                    return
                try:
                    os.kill(pid if isinstance(pid, int) else pid.pid, num)
                except OSError:
                    pass

        previous[signum] = signal.signal(signum, handler)
    return previous


def _in_foreground():
    try:
        return os.tcgetpgrp(sys.stdin.fileno()) == os.getpgrp()
    except OSError:
        return False
