"""What a run leaves for others and tells afterwards: the run record before the command
starts; its report events, guard signal, result object, view and summary after it ends.
"""

import os
import sys

from ..core.report import segments, write


def enclosing_run():
    """The id of the run this `safedel run` was started in (by a command of another run,
    or of a served run), or None at the top. The run found from the process tree
    (core/contract/runpointer.py): the one whose record binds this run's values, never
    a SAFEDEL_RUN_ID that a stale or forged environment names."""
    from ..core.contract import runpointer

    found = runpointer.enclosing()
    run = found.get("run") if found is not None else None
    return run if isinstance(run, str) else None


def record(options, env, run_id, nested=False):
    """Fix the run's session, turn, tool call, threshold and deletion policy where the
    shims under it read them (core/contract/runrecord.py), and set up the harness's approval
    token. A nested run prunes no old runs: that housekeeping deletes in the state
    directory, which the enclosing run's net refuses to a command. Returns the run's
    settings and its pointer's values (the record and its run id)."""
    from ..core.contract import runpointer, runrecord
    from ..core.contract import settings as core_settings
    from . import capture

    state_dir = env["SAFEDEL_STATE_DIR"]
    if not nested:
        capture.prune(state_dir)
    fixed = core_settings.load(env)
    if nested:
        # The enclosing run's session, turn, ledger and report bind this one (its record
        # is found first): the command's environment, the result and the summary say so,
        # and the guard signal is looked for where the shims leave it.
        env.update(SAFEDEL_SESSION=fixed.session, SAFEDEL_TURN=fixed.turn)
        env.update(SAFEDEL_STATE_DIR=fixed.state_dir, SAFEDEL_REPORT=fixed.report)
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
    # state dir, HOME or XDG_STATE_HOME (core/contract/runpointer.py); its keeper holds
    # the same, which the command cannot rewrite (core/contract/keptrecord.py).
    pointed = dict(values, run=run_id)
    runpointer.warn_unplaced(runpointer.point(pointed))
    if runpointer.enclosing() is None:  # inside a run, its net would judge the sweep
        from . import killedruns

        try:
            killedruns.sweep()  # a run killed mid-move left an info file without its item
        except OSError:
            pass
    if options.get("approval_token_file"):
        from . import approval

        if approval.inside_a_run(state_dir, os.environ):
            return fixed, pointed  # a command's nested run does not rebind the session
        token = approval.ensure_token(options["approval_token_file"])
        approval.record(state_dir, fixed.session, token)
    return fixed, pointed


def keep(fixed, env, plain, pointed):
    """The run's guard keeper (executor/keeper.py), started before the command, keeping
    its turn and holding its record (pointed: its pointer's values); None off Linux, or
    inside a run whose keeper already keeps it."""
    if not sys.platform.startswith("linux"):
        return None
    from ..core.guard import keeperpost, prompt
    from ..core.guard.ledger import GuardError

    if keeperpost.keeper_pid() is not None:
        return None  # a run inside another: the outermost keeper is the one asked
    from .keeper import Keeper

    keeper = Keeper.start()
    if keeper is None:
        sys.stderr.write(
            "safedel run: warning: no guard keeper here (it needs Linux 5.1 or later), so "
            "every deletion the guard counts will fail closed\n"
        )
        return None
    can_ask = plain and prompt.can_prompt(fixed, env)
    from ..core.contract import runpointer

    keeper.hold_record(pointed["run"], pointed, runpointer.pid_key(os.getpid()))
    try:
        keeper.watch(fixed, can_ask)
    except GuardError as exc:  # its takes fail closed, saying the same
        sys.stderr.write(f"safedel run: warning: {exc}\n")
    return keeper


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
        # Decided with the rest: a `prompt = 1` the command writes into the config
        # file, or SAFEDEL_PROMPT it sets, brings no question to a terminal it can answer.
        "prompt": bool(fixed.prompt),
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
    # The git the guard may ask what is ignored: found before the command exists, so a
    # `git` it puts on PATH, or writes over this one, is not asked (core/git/inert). A
    # run inside another keeps the enclosing run's.
    if fixed.git is None:
        from ..core.git import inert

        values["git"] = inert.pinned(env)
    else:
        values["git"] = list(fixed.git) if fixed.git else None
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


def finish(options, env, run_id, offset, outcome, views, outputs, enclosing=None):
    """Collect what the run caused, then write the result, the views and the summary.
    enclosing: the id of the run this one is nested in, which gets its guard signal."""
    from ..core.contract import runpointer

    runpointer.unpoint()
    events = [e for e in write.read_after(env["SAFEDEL_REPORT"], offset) if e.get("run") == run_id]
    # Only what this run's own processes left: a straggler of an earlier run with the
    # same tool call leaves its signal under its own run, for `safedel guard signal`.
    guard_signal = take_signal(env["SAFEDEL_STATE_DIR"], env["SAFEDEL_SESSION"], run_id, enclosing)
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
        _summarise(trashed, refused, env["SAFEDEL_TURN"], _approval(refused, env))


def _write(fd, text):
    data = text.encode("utf-8", "surrogateescape")
    while data:
        try:
            data = data[os.write(fd, data) :]
        except BrokenPipeError:
            return


def _approval(refused, env):
    """How a person approves what the guard refused in this run, or "": nothing the
    guard can lift was refused, or a model reads this (a harness, an agent host:
    core/guard/remedy.py), which is told to ask its user instead."""
    reasons = [str(e.get("reason") or "") for e in refused]
    outside = any(r.startswith("outside the workspace") for r in reasons)
    bulk = any(r.startswith("bulk guard:") and "rejected" not in r for r in reasons)
    if not (outside or bulk):
        return ""
    from types import SimpleNamespace

    from ..core.guard import remedy

    if env.get("SAFEDEL_HARNESS") == "1" or remedy.read_by_a_model():
        return ""
    run = SimpleNamespace(session=env["SAFEDEL_SESSION"], turn=env["SAFEDEL_TURN"], bound=True)
    return remedy.outside(run) if outside else remedy.bulk(run)


def _summarise(trashed, refused, turn, approval=""):
    parts = []
    if trashed:
        noun = "item" if len(trashed) == 1 else "items"
        parts.append(f"moved {len(trashed)} {noun} to the trash")
    if refused:
        parts.append(f"refused {len(refused)}")
    if parts:
        undo = f" (safedel restore --turn {turn} to undo)" if trashed else ""
        sys.stderr.write(f"safedel: {', '.join(parts)}{undo}\n")
    if approval:
        sys.stderr.write(f"safedel: {approval}\n")


def take_signal(state_dir, session, run_id, enclosing=None):
    """Read and remove the pending guard signal this run left, once. Nested in the run
    enclosing (its id), hand it to that run instead: the question is its harness's."""
    if not os.path.isdir(os.path.join(state_dir, "signals")):
        return None  # nothing was ever refused here; skip importing the guard
    from ..core.guard import signals

    if enclosing is not None:
        return signals.hand_over(
            state_dir, session, signals.run_key(run_id), signals.run_key(enclosing)
        )
    return signals.take_signal(state_dir, session, signals.run_key(run_id))
