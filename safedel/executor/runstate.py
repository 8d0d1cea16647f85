"""What a run leaves for others and tells afterwards: the run record before the command
starts; its report events, guard signal, result object, view and summary after it ends.
"""

import os
import sys

from ..core.report import segments, write


def record(options, env, run_id):
    """Fix the run's session, turn, tool call, threshold and deletion policy where the
    shims under it read them (core/contract/runrecord.py), and set up the harness's approval
    token."""
    from ..core.contract import runpointer, runrecord
    from ..core.contract import settings as core_settings
    from . import capture

    state_dir = env["SAFEDEL_STATE_DIR"]
    capture.prune(state_dir)
    fixed = core_settings.load(env)
    values = {
        "session": fixed.session,
        "turn": fixed.turn,
        "toolCall": fixed.tool_call,
        "threshold": fixed.threshold,
        "turnStart": fixed.turn_start,
        "pid": os.getpid(),
        runrecord.LEDGER: runrecord.ledger_names(fixed.session, fixed.turn),
        # The run's (or, nested, its enclosing run's) ledger and report, whatever state
        # dir the command names for itself.
        runrecord.STATE_DIR: fixed.state_dir,
        runrecord.REPORT: fixed.report,
    }
    values.update(fixed_policy(fixed, env))
    runrecord.write(state_dir, run_id, values)
    # Found from the process tree by a command that drops SAFEDEL_RUN_ID or moves the
    # state dir, HOME or XDG_STATE_HOME (core/contract/runpointer.py).
    runpointer.warn_unplaced(runpointer.point(dict(values, run=run_id)))
    if options.get("approval_token_file"):
        from . import approval

        if approval.inside_a_run(state_dir, os.environ):
            return  # a command's nested run does not rebind the harness's session
        token = approval.ensure_token(options["approval_token_file"])
        approval.record(state_dir, fixed.session, token)


def fixed_policy(fixed, env):
    """The record's policy values from the run's settings (fixed): what the run decided,
    or, for a run inside another, what the enclosing run fixed (settings.load found its
    record), so a nested `safedel run --workspace /` cannot widen it. The child's
    SAFEDEL_* variables are set to say the same."""
    from ..core.contract import exemptids
    from ..core.policy import workspace

    roots = fixed.workspace_roots
    values = {
        "workspaceRoots": list(workspace.root_paths(handed=roots)) if roots is not None else None,
        "exempt": list(fixed.exempt),
        "outsideWorkspace": fixed.outside_workspace,
        "trashDir": os.path.abspath(fixed.trash_dir) if fixed.trash_dir else None,
    }
    if fixed.home_trash or os.name == "posix":  # Windows has a recycle bin, no home trash
        from ..core.trash import dirs

        home = fixed.home_trash or os.fsdecode(dirs.home_trash(env))
        values["homeTrash"] = os.path.abspath(home)
    if values["workspaceRoots"] is None:
        del values["workspaceRoots"]  # nothing decided them: each process collects its own
    else:
        env[workspace.ROOTS_VARIABLE] = os.pathsep.join(values["workspaceRoots"])
    env["SAFEDEL_EXEMPT"] = os.pathsep.join(values["exempt"])
    # Each root as the directory it is now, or as the enclosing run or the shell found
    # it: what lies under its name later is judged by that directory, not the name.
    ids = exemptids.snapshot(fixed.exempt, dict(fixed.exempt_ids or ()))
    values[exemptids.RECORD_KEY] = exemptids.encode(ids)
    env[exemptids.VARIABLE] = exemptids.variable(ids)
    env["SAFEDEL_OUTSIDE_WORKSPACE"] = values["outsideWorkspace"]
    if values["trashDir"]:
        env["SAFEDEL_TRASH_DIR"] = values["trashDir"]
    else:
        env.pop("SAFEDEL_TRASH_DIR", None)
    return values


def report_size(env):
    """Where the report ends before the command runs: reportfiles.position()."""
    return segments.position(env["SAFEDEL_REPORT"])


def finish(options, env, run_id, offset, outcome, views, outputs):
    """Collect what the run caused, then write the result, the views and the summary."""
    from ..core.contract import runpointer

    runpointer.unpoint()
    events = [e for e in write.read_after(env["SAFEDEL_REPORT"], offset) if e.get("run") == run_id]
    # Only what this run's own processes left: a straggler of an earlier run with the
    # same tool call leaves its signal under its own run, for `safedel guard signal`.
    guard_signal = take_signal(env["SAFEDEL_STATE_DIR"], env["SAFEDEL_SESSION"], run_id)
    if options.get("result") or options.get("json"):
        from . import result

        built = result.build(outcome, env, events, guard_signal, run_id, views, outputs)
        if options.get("result"):
            result.write(built, options["result"])
    if views is not None:
        if options.get("json"):
            _write(1, result.write(built))
        else:
            _write(1, views["stdout"][0])
            _write(2, views["stderr"][0])
    if not options.get("quiet"):
        trashed = [e for e in events if e.get("operation") == "trash"]
        refused = [e for e in events if e.get("operation") == "refuse"]
        _summarise(trashed, refused, env["SAFEDEL_TURN"])


def _write(fd, text):
    data = text.encode("utf-8", "surrogateescape")
    while data:
        try:
            data = data[os.write(fd, data) :]
        except BrokenPipeError:
            return


def _summarise(trashed, refused, turn):
    parts = []
    if trashed:
        noun = "item" if len(trashed) == 1 else "items"
        parts.append(f"moved {len(trashed)} {noun} to the trash")
    if refused:
        parts.append(f"refused {len(refused)}")
    if parts:
        undo = f" (safedel restore --turn {turn} to undo)" if trashed else ""
        sys.stderr.write(f"safedel: {', '.join(parts)}{undo}\n")


def take_signal(state_dir, session, run_id):
    """Read and remove the pending guard signal this run left, once."""
    if not os.path.isdir(os.path.join(state_dir, "signals")):
        return None  # nothing was ever refused here; skip importing the guard
    from ..core.guard.signals import run_key
    from ..core.guard.signals import take_signal as take

    return take(state_dir, session, run_key(run_id))
