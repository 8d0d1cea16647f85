"""`safedel run`: the typer face of executor/runner.py, for --help and completions."""

from typing import Annotated, Optional

import typer

from ..executor import runargs, runner

Text = Optional[str]  # noqa: UP045 - typer reads the annotation at run time


def run(
    command: Annotated[list[str], typer.Argument(help="The command and its arguments.")],
    session: Annotated[Text, typer.Option(help="Session id (default: $SAFEDEL_SESSION).")] = None,
    turn: Annotated[Text, typer.Option(help="Turn id (default: a new one per run).")] = None,
    tool_call: Annotated[Text, typer.Option(help="Tool-call id, for the signal file.")] = None,
    threshold: Annotated[
        Optional[int],  # noqa: UP045
        typer.Option(min=1, max=99999, help="Bulk-guard threshold (default 50)."),
    ] = None,
    report: Annotated[Text, typer.Option(help="JSON-lines report file.")] = None,
    trash_dir: Annotated[Text, typer.Option(help="Put everything in this trash dir.")] = None,
    no_exempt: Annotated[bool, typer.Option(help="Trash temp-dir paths too.")] = False,
    result: Annotated[Text, typer.Option(help="Write a JSON result here.")] = None,
    shell: Annotated[Text, typer.Option(help="Run COMMAND through this shell's prelude.")] = None,
    state_dir: Annotated[Text, typer.Option(help="Bulk-guard state directory.")] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="No summary line.")] = False,
    capture: Annotated[
        bool, typer.Option("--capture", help="Output to files, a bounded view, timeout, tree kill.")
    ] = False,
    timeout: Annotated[
        Text, typer.Option(help="90s, 2m, 120000ms (default 120s; 0 = none).")
    ] = None,
    kill_grace: Annotated[Text, typer.Option(help="SIGTERM to SIGKILL delay (2s).")] = None,
    max_output: Annotated[Text, typer.Option(help="Characters shown per stream (30000).")] = None,
    stdout_file: Annotated[Text, typer.Option(help="Write the raw stdout here.")] = None,
    stderr_file: Annotated[Text, typer.Option(help="Write the raw stderr here.")] = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print the result object instead of the output.")
    ] = False,
    approval_token_file: Annotated[
        Text, typer.Option(help="Create (or reuse) this approval token for the session.")
    ] = None,
    keep_turn_file: Annotated[
        bool,
        typer.Option("--keep-turn-file", help="Keep an inherited SAFEDEL_TURN_FILE with --turn."),
    ] = False,
    keep_background: Annotated[
        bool, typer.Option("--keep-background", help="Leave background processes running.")
    ] = False,
    workspace: Annotated[
        Optional[list[str]],  # noqa: UP045
        typer.Option(help="A workspace root for this session (repeatable)."),
    ] = None,
    outside_workspace: Annotated[
        Text, typer.Option(help="Deletions outside the workspace: confirm (default) or allow.")
    ] = None,
    net: Annotated[
        Text, typer.Option(help="The seccomp net under the shims: on (default on Linux) or off.")
    ] = None,
) -> None:
    """Run COMMAND so that every deletion it makes goes to the trash."""
    options = {
        key: value
        for key, value in {
            "session": session,
            "turn": turn,
            "tool_call": tool_call,
            "threshold": threshold,
            "report": report,
            "trash_dir": trash_dir,
            "no_exempt": no_exempt,
            "result": result,
            "shell": shell,
            "state_dir": state_dir,
            "quiet": quiet,
            "capture": capture,
            "timeout": timeout,
            "kill_grace": kill_grace,
            "max_output": max_output,
            "stdout_file": stdout_file,
            "stderr_file": stderr_file,
            "json": as_json,
            "keep_background": keep_background,
            "keep_turn_file": keep_turn_file,
            "approval_token_file": approval_token_file,
            "workspace": workspace,
            "outside_workspace": outside_workspace,
            "net": net,
        }.items()
        if value not in (None, False, [])
    }
    try:
        runargs.validate(options)
    except runargs.UsageError as exc:
        raise typer.BadParameter(str(exc)) from None
    raise typer.Exit(runner.execute(options, command))
