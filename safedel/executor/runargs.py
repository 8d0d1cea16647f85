"""`safedel run`'s command line: its options, parsed without typer (the fast path,
runner.py) and checked (also for the typer face, commands/run.py).
"""

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
