"""What a served run (runs.ServedRun) is set up with: its command, its environment, its
run record, its channels (pipes or a pty) and its net.
"""

import os
import sys

from ..core.contract import runrecord
from ..core.contract import settings as core_settings
from ..executor import approval, capture, childenv, runstate
from . import pointers, terminal

# cd first, then exec: posix_spawn has no working-directory action.
_CD = 'cd -- "$1" || exit 126; shift; exec "$@"'


def command(spec):
    """The argv to spawn: the spec's own, after a cd to its cwd when it names one."""
    argv = spec["argv"]
    if spec["cwd"]:
        argv = ["/bin/sh", "-c", _CD, "sh", spec["cwd"], *argv]
    return argv


def environment(run):
    spec, session = run.spec, run.session
    merged = dict(run.server.base_env)
    # The client's SAFEDEL_* variables are ignored: the contract is the server's.
    merged.update({k: v for k, v in spec["env"].items() if not k.startswith("SAFEDEL_")})
    if spec["unprotected"]:
        merged["SAFEDEL_SERVE_RUN"] = run.run_id  # found by the next server (leftovers.py)
        return merged
    options = childenv.RunOptions(
        decide_roots=True,
        cwd=spec["cwd"],
        session=session.id,
        turn=spec["turn"],
        tool_call=spec["toolCall"],
        threshold=session.threshold,
        report=session.report,
        workspace=session.roots,
    )
    merged.pop("SAFEDEL_TURN_FILE", None)
    env = childenv.child_environment(merged, run.server.home, options)
    env.update(SAFEDEL_PROMPT="0", SAFEDEL_HARNESS="1")
    return env


def record(run):
    """What runstate.record does for `safedel run`, at the cost a resident server
    can afford per run: the run record each time; the session's approval token and
    the pruning of old runs once (they hold until the server ends). Returns the run's
    pointer, or None."""
    state_dir = run.env["SAFEDEL_STATE_DIR"]
    fixed = run.fixed = core_settings.load(run.env)
    values = {"session": fixed.session, "turn": fixed.turn, "toolCall": fixed.tool_call}
    values.update(threshold=fixed.threshold, turnStart=fixed.turn_start, pid=os.getpid())
    values[runrecord.LEDGER] = runrecord.ledger_names(fixed.session, fixed.turn)
    # The run's ledger and report, whatever state dir the command names for itself.
    values.update({runrecord.STATE_DIR: fixed.state_dir, runrecord.REPORT: fixed.report})
    values.update(runstate.fixed_policy(fixed, run.env))
    # Found from the process tree by a command that drops SAFEDEL_RUN_ID or moves the
    # state dir, HOME or XDG_STATE_HOME (pointers.py); opened before the record is
    # written, so a run that could leave no pointer leaves nothing.
    pointer = None
    run.pointed = dict(values, run=run.run_id)  # also what the server's keeper holds
    if sys.platform.startswith("linux"):
        pointer = pointers.Pointer(run.pointed, run.server.folders)
    try:
        run.spare.write_record(values)  # runrecord.write, into a file made ahead
    except BaseException:
        if pointer is not None:
            pointer.close()
        raise
    session = run.session
    with session.lock:
        if session.token_state_dir != state_dir:
            token = os.path.join(run.server.private, "approval-" + session.digest)
            approval.record(state_dir, session.id, approval.ensure_token(token))
            capture.prune(state_dir)
            session.token_state_dir = state_dir
    return pointer


def channels(spec):
    """The run's channels, pipes or a pty (stream "pty"): (fds for the executor, the
    child's file actions from the executor's, the child's ends to close here, {read
    end: stream}, the write end of the child's stdin, the pty or None)."""
    if spec["usePty"]:
        master, slave_path = terminal.open_pty(spec["cols"], spec["rows"])
        readers = {master: "pty"}
        stdin = os.dup(master)
        fds = {"stdout": master, "stderr": master}  # replaced by the pty's actions
        return fds, lambda _given: terminal.child_actions(slave_path), [], readers, stdin, master
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    in_r, stdin = os.pipe()
    readers = {out_r: "stdout", err_r: "stderr"}

    def actions(given):
        return [(os.POSIX_SPAWN_DUP2, in_r, 0), *given]

    fds = {"stdout": out_w, "stderr": err_w}
    return fds, actions, [out_w, err_w, in_r], readers, stdin, None


def net(spec, env):
    """The seccomp net, as `safedel run` has it (config `net`, Linux), on pipes and
    on a pty alike (its spawn opens the pty's slave in the child, after setsid)."""
    if spec["unprotected"]:
        return None
    if not sys.platform.startswith("linux"):
        return None
    from ..net.session import prepare

    return prepare(None, env)
