"""`safedel run`: run a command with the shims injected, then summarise what happened.

This module is the fast path: it imports neither typer nor rich, so wrapping a
command costs little more than starting Python.
"""

import os
import sys
import time

try:  # the C module: `signal` itself imports enum, a tenth of `safedel run`'s cost
    import _signal as signal
except ImportError:
    import signal

from . import childenv, runstate, shimhome

VALUE_OPTIONS = {
    "--session": "session",
    "--turn": "turn",
    "--tool-call": "tool_call",
    "--threshold": "threshold",
    "--report": "report",
    "--trash-dir": "trash_dir",
    "--result": "result",
    "--shell": "shell",
    "--state-dir": "state_dir",
    "--timeout": "timeout",
    "--max-output": "max_output",
    "--kill-grace": "kill_grace",
    "--stdout-file": "stdout_file",
    "--stderr-file": "stderr_file",
    "--workspace": "workspace",
    "--outside-workspace": "outside_workspace",
    "--net": "net",
    "--approval-token-file": "approval_token_file",
}
REPEATABLE = {"workspace"}
FLAG_OPTIONS = {
    "--no-exempt": "no_exempt",
    "--quiet": "quiet",
    "-q": "quiet",
    "--capture": "capture",
    "--json": "json",
    "--keep-background": "keep_background",
    "--keep-turn-file": "keep_turn_file",
}
# Any of these asks for capture mode: output to files, a bounded view, tree kill.
CAPTURE_OPTIONS = (
    "capture",
    "json",
    "keep_background",
    "timeout",
    "max_output",
    "kill_grace",
    "stdout_file",
    "stderr_file",
)
FORWARDED = ("SIGTERM", "SIGHUP", "SIGINT", "SIGQUIT", "SIGUSR1", "SIGUSR2", "SIGWINCH")


class UsageError(Exception):
    pass


def parse(argv):
    """(options dict, command list) from `[OPTIONS] [--] CMD ARGS...`."""
    options = {}
    index = 0
    while index < len(argv):
        arg = argv[index]
        if arg == "--":
            index += 1
            break
        name, has_value, value = arg.partition("=")
        if name in VALUE_OPTIONS:
            if not has_value:
                index += 1
                if index >= len(argv):
                    raise UsageError(f"option {name} needs a value")
                value = argv[index]
            key = VALUE_OPTIONS[name]
            if key in REPEATABLE:
                options.setdefault(key, []).append(value)
            else:
                options[key] = value
        elif arg in FLAG_OPTIONS:
            options[FLAG_OPTIONS[arg]] = True
        elif arg.startswith("-"):
            raise UsageError(f"no such option: {arg}")
        else:
            break
        index += 1
    command = argv[index:]
    if not command:
        raise UsageError("missing command: safedel run [OPTIONS] -- CMD [ARGS]...")
    if "threshold" in options:
        options["threshold"] = _threshold(options["threshold"])
    validate(options)
    return options, command


def validate(options):
    """Check --shell and the capture options; add the capture plan to options."""
    if options.get("outside_workspace", "allow") not in ("allow", "confirm"):
        raise UsageError("--outside-workspace must be allow or confirm")
    if options.get("net", "on") not in ("on", "off"):
        raise UsageError("--net must be on or off")
    if "shell" in options:
        from ..shells import SHELLS

        if options["shell"] not in SHELLS:
            raise UsageError(f"--shell must be one of {', '.join(SHELLS)}")
    if any(name in options for name in CAPTURE_OPTIONS):
        from . import captured, limits

        try:
            options["plan"] = captured.Plan(options)
        except limits.LimitError as exc:
            raise UsageError(str(exc)) from None


def _threshold(raw):
    try:
        value = int(raw)
    except ValueError:
        value = 0
    if not 1 <= value <= 99999:
        raise UsageError(f"--threshold must be a whole number in 1..99999, not {raw!r}")
    return value


def main(argv):
    try:
        options, command = parse(argv)
    except UsageError as exc:
        sys.stderr.write(f"safedel run: {exc}\n")
        return 2
    return execute(options, command)


def wrap_command(options, command):
    """A hook for wrappers such as `--shell powershell`; plain commands pass unchanged."""
    shell = options.get("shell")
    if not shell:
        return command
    from ..shells import wrap_for_shell

    return wrap_for_shell(shell, command)


def execute(options, command):
    from . import environ

    try:
        home = shimhome.materialize()
    except OSError as exc:  # a shim home someone else could have written: never run it
        sys.stderr.write(f"safedel run: {exc.strerror or exc}: {exc.filename or ''}\n")
        return 1
    run_options = childenv.RunOptions(decide_roots=True, **options)
    run_id = "r-" + os.urandom(6).hex()
    # The environment safedel was given, not the one its interpreter coerced.
    env = childenv.child_environment(environ.original(), home, run_options)
    # Every report event carries the run id, so a result lists its own events only,
    # however many runs of the same turn write to the report at once.
    env["SAFEDEL_RUN_ID"] = run_id
    if options.get("turn") and not options.get("keep_turn_file"):
        # An explicit --turn is the turn of the whole tree; an inherited turn file
        # (read in preference to SAFEDEL_TURN) would silently move it elsewhere.
        env.pop("SAFEDEL_TURN_FILE", None)
    plan = options.get("plan")
    if plan is not None:
        env["SAFEDEL_PROMPT"] = "0"  # no terminal to ask on: the harness asks
    if plan is not None or options.get("result") or options.get("json"):
        env["SAFEDEL_HARNESS"] = "1"  # refusals then tell the model to ask, not what to run
    try:
        runstate.record(options, env, run_id)
    except OSError as exc:
        sys.stderr.write(f"safedel run: {exc.strerror or exc}: {exc.filename or ''}\n")
        return 1  # the state dir's fault, not the command line's: 2 means usage
    offset = runstate.report_size(env)
    from ..trash import retention

    kept = retention.configured(env)  # before the command can rewrite the config file
    views = outputs = None
    net = _net(options.get("net"), env)  # the seccomp net (Linux), or None
    try:
        if plan is None:
            started = time.monotonic()
            exit_code, signum = _spawn(wrap_command(options, command), env, net)
            outcome = _plain_outcome(exit_code, signum, started)
        else:
            from . import captured

            outcome, views, outputs = captured.run(
                plan, wrap_command(options, command), env, run_id, net and net.spawn
            )
    finally:
        if net:
            net.close()
    runstate.finish(options, env, run_id, offset, outcome, views, outputs)
    # After the command and its summary: never delays them.
    retention.maybe_start(env["SAFEDEL_STATE_DIR"], env, kept)
    return outcome.shell_code


def _plain_outcome(exit_code, signum, started):
    from .process import Outcome

    outcome = Outcome()
    outcome.duration_ms = int((time.monotonic() - started) * 1000)
    outcome.shell_code = exit_code
    outcome.signal = signum
    outcome.exit_code = None if signum else exit_code
    return outcome


def _net(value, env):
    if not sys.platform.startswith("linux"):
        return None
    from ..net.session import prepare

    return prepare(value, env)


def _spawn(command, env, net=None):
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
    program = _which(command[0], env.get("PATH", os.defpath))
    reset = {s for s, h in previous.items() if h is not signal.SIG_IGN}
    reset |= {getattr(signal, n) for n in ("SIGPIPE", "SIGXFSZ") if hasattr(signal, n)}
    spawn = net.spawn if net else os.posix_spawn
    return spawn(program, command, env, setsigdef=reset)


def _which(name, path):
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
