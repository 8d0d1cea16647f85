"""Capture mode from start to finish: output files, the execution, and the views."""

import os

from . import capture, limits, process, view


class Plan:
    """What a captured run was asked for, checked: limits.LimitError if out of range."""

    def __init__(self, options, environ=None):
        if not hasattr(os, "posix_spawn"):  # Windows: no sessions, no subreaper
            raise limits.LimitError("capture mode needs a POSIX system (Linux or macOS)")
        self.timeout_ms = limits.timeout_ms(options.get("timeout"), environ)
        self.max_output = limits.max_output(options.get("max_output"), environ)
        self.grace_ms = limits.kill_grace_ms(options.get("kill_grace"))
        self.keep_background = bool(options.get("keep_background"))
        self.stdout_file = options.get("stdout_file")
        self.stderr_file = options.get("stderr_file")


def run(plan, command, env, run_id, spawn=None):
    """(outcome, views, outputs) for command; views maps stream -> (text, truncated).
    spawn replaces os.posix_spawn (the net installs its filter that way)."""
    state_dir = env["SAFEDEL_STATE_DIR"]
    outputs = capture.Outputs(state_dir, run_id, plan.stdout_file, plan.stderr_file)
    try:
        execution = process.Execution(
            command, env, outputs.fds, plan.timeout_ms, plan.grace_ms, plan.keep_background
        )
        execution.spawn = spawn or execution.spawn
        with process.stopping_on_signals(execution):
            try:
                execution.start()
            except OSError as exc:
                return not_started(command, exc, outputs), _views(plan, outputs), outputs
            outcome = execution.wait()
    finally:
        outputs.close()
    return outcome, _views(plan, outputs), outputs


def not_started(command, exc, outputs):
    """127 or 126 as a shell gives them, with the reason in the stderr file."""
    outcome = process.Outcome()
    if isinstance(exc, FileNotFoundError):
        outcome.exit_code, reason = 127, "command not found"
    else:
        outcome.exit_code, reason = 126, exc.strerror or str(exc)
    outcome.shell_code = outcome.exit_code
    os.write(outputs.fds["stderr"], f"safedel: {command[0]}: {reason}\n".encode())
    return outcome


def _views(plan, outputs):
    return {s: view.render(outputs.paths[s], plan.max_output) for s in ("stdout", "stderr")}
