"""`safedel config`: which config files apply as they are, and a person's confirmation.

A config file is as much a command's to write as a person's, so what it widens applies
only once a person has read it here and said yes (core/contract/confirmed.py keeps the
record; core/contract/userconfig.py and core/policy/scopes.py apply it). `status` says
where each file stands; `trust` shows each file nobody confirmed as it is (what changed
since the version confirmed, or all of it), says what it widens, and asks at the
terminal. It asks a person only: inside a run, under an agent harness, in CI or without
a terminal it confirms nothing.
"""

import json
import os
from typing import Annotated, Optional

import typer

from ..core.contract import confirmed
from ..core.contract import settings as core_settings

app = typer.Typer(
    name="config",
    help="Config files: see which apply as they are, and confirm a changed one.",
    no_args_is_help=True,
)
Paths = Annotated[
    Optional[list[str]],  # noqa: UP045 - typer reads the annotation at run time
    typer.Argument(help="Config files (default: the user config and this project's two)."),
]
StateDir = Annotated[
    Optional[str],  # noqa: UP045
    typer.Option(help="State directory holding the confirmations (default: $SAFEDEL_STATE_DIR)."),
]


def _fail(message):
    typer.echo(f"safedel config: {message}", err=True)
    raise typer.Exit(1)


def _state_dir(state_dir):
    environ = os.environ
    found = state_dir or environ.get("SAFEDEL_STATE_DIR")
    return os.path.abspath(found or core_settings.default_state_dir(environ))


def _files(paths):
    if paths:
        return [os.path.abspath(p) for p in paths]
    from ..core.policy import workspace

    project = workspace.project_dir(os.getcwd())
    return [
        core_settings.config_path(os.environ),
        os.path.join(project, workspace.LOCAL_FILE),
        os.path.join(project, workspace.PROJECT_FILE),
    ]


@app.command()
def status(
    paths: Paths = None,
    state_dir: StateDir = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON object.")] = False,
) -> None:
    """Show each config file: confirmed, changed since, never confirmed, or absent, and
    what of it waits for a person."""
    from . import configview

    where = _state_dir(state_dir)
    found = [configview.describe(path, where) for path in _files(paths)]
    if as_json:
        typer.echo(json.dumps({"stateDir": where, "files": found}, indent=2))
        return
    for entry in found:
        held = "; waits for a person: " + ", ".join(entry["held"]) if entry["held"] else ""
        typer.echo(f"{configview.shown(entry['path'])}\t{entry['state']}{held}")


def _forget(path, where):
    """A confirmed file a person took away: ask whether the defaults may take its place."""
    from ..core.guard import prompt
    from . import configview

    question = (
        f"{configview.shown(path)} is gone since it was confirmed; what it narrowed still "
        "applies.\nForget it, so that the defaults apply in its place? [y/N] "
    )
    answer = prompt.ask(None, text=question)
    if answer is None:
        _fail("no terminal to ask on; nothing confirmed")
    if not answer:
        typer.echo(f"{configview.shown(path)}: kept; what it narrowed still applies")
        return
    try:
        confirmed.forget(where, path)
    except OSError as exc:
        _fail(f"cannot record it in {where}: {exc.strerror or exc}")
    typer.echo(f"{configview.shown(path)}: forgotten; the defaults apply in its place")


@app.command()
def trust(paths: Paths = None, state_dir: StateDir = None) -> None:
    """Show each config file that changed since a person confirmed it (or never was),
    and ask at the terminal whether it applies as it is now."""
    from . import configview

    why = configview.why_no_person()
    if why is not None:
        _fail(why)
    where = _state_dir(state_dir)
    asked = 0
    for path in _files(paths):
        text, info = confirmed.read(path)
        if text is None and info is None and confirmed.kept_text(path, where) is not None:
            asked += 1
            _forget(path, where)
            continue
        if text is None:
            if info is not None:
                typer.echo(f"{configview.shown(path)}: not a config file safedel reads; skipped")
            continue
        if text == confirmed.kept_text(path, where):
            typer.echo(f"{configview.shown(path)}: confirmed as it is")
            continue
        asked += 1
        answer = configview.ask(path, text, info, where)
        if answer is None:
            _fail("no terminal to ask on; nothing confirmed")
        if not answer:
            typer.echo(f"{configview.shown(path)}: not confirmed; what it widens waits")
            continue  # what it narrows applies anyway
        try:
            configview.record(where, path, text, info)
        except OSError as exc:
            _fail(f"cannot record the confirmation in {where}: {exc.strerror or exc}")
        typer.echo(f"{configview.shown(path)}: confirmed; it applies as it is from now on")
    if not asked:
        typer.echo("nothing to confirm")
