"""`safedel run`: run a command with the shims injected, then summarise what happened.

This module is the fast path: it imports neither typer nor rich, so wrapping a
command costs little more than starting Python. Its command line is runargs.py's; a
plain run (no capture mode) is plainspawn.py's, a captured one captured.py's.
"""

import os
import sys
import time

from . import childenv, runstate, shimhome
from .plainspawn import spawn
from .runargs import UsageError, parse


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
    # Inside another run: that run's harness asks, and that run's net judges what this
    # one deletes for itself, so its housekeeping waits for a run at the top.
    enclosing = runstate.enclosing_run()
    try:
        fixed, pointed = runstate.record(options, env, run_id, nested=enclosing is not None)
        keeper = runstate.keep(fixed, env, plan is None, pointed)
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
            exit_code, signum = spawn(wrap_command(options, command), env, net)
            outcome = _plain_outcome(exit_code, signum, started)
        else:
            from . import captured

            outcome, views, outputs = captured.run(
                plan, wrap_command(options, command), env, run_id, net and net.spawn
            )
    finally:
        if net:
            net.close()
        if keeper:
            keeper.stop()
    runstate.finish(options, env, run_id, offset, outcome, views, outputs, enclosing)
    if enclosing is None:  # after the command and its summary: never delays them
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
    from ..net import wanted

    if not wanted(value, env):
        return None
    from ..net.canary import under_net

    if under_net():
        # Inside another run's net, which already judges all of this run's command (the
        # kernel takes no second listener). Preparing one would make this process not
        # dumpable, and the enclosing net, which must read the calls of its own
        # bookkeeping, could then only refuse them.
        return None
    from .. import loaded_ns
    from ..net.session import prepare

    return prepare(value, env, begun=loaded_ns)  # this process is the run
