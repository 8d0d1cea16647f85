"""`safedel workspace`: the folders deletions may happen in without a question."""

import json
import os
from typing import Annotated, Optional

import typer

from ..core.contract import confirmed, settings
from ..core.contract.userconfig import held_message
from ..core.policy import workspace, workspacefiles

app = typer.Typer(
    name="workspace",
    help="Workspace roots: list them, add a folder, remove one.",
    no_args_is_help=True,
)
Text = Optional[str]  # noqa: UP045 - typer reads the annotation at run time
Session = Annotated[Text, typer.Option(help="Session id (default: $SAFEDEL_SESSION).")]
StateDir = Annotated[Text, typer.Option(help="State directory (default: $SAFEDEL_STATE_DIR).")]
Scope = Annotated[
    str, typer.Option(help="session, local (.safedel/config.local.toml), project or user.")
]


class Place:
    """Where each scope is written down, for the directory the command runs in."""

    def __init__(self, session, state_dir):
        conf = settings.load(os.environ)
        self.session = session or workspace.session_for(os.environ, os.getcwd())
        self.state_dir = os.path.abspath(state_dir or conf.state_dir)
        self.project = workspace.project_dir(os.getcwd())

    def file_for(self, scope):
        if scope == "local":
            return os.path.join(self.project, workspace.LOCAL_FILE)
        if scope == "project":
            return os.path.join(self.project, workspace.PROJECT_FILE)
        return settings.config_path(os.environ)

    def read(self, scope):
        if scope == "session":
            return workspacefiles.read_session(self.state_dir, self.session)
        return workspacefiles.read_list(self.file_for(scope))

    def write(self, scope, entries):
        if scope == "session":
            workspacefiles.write_session(self.state_dir, self.session, entries)
        else:
            workspacefiles.write_list(self.file_for(scope), entries)

    def confirmed(self, scope):
        """Whether the scope's file is as a person confirmed it, or absent."""
        path = self.file_for(scope)
        text = confirmed.read_text(path)
        return text is None or text == confirmed.kept_text(path, self.state_dir)

    def reconfirm(self, scope, was_confirmed, adding):
        """Confirm the file as this command left it, when it was confirmed before and a
        person typed the command at a terminal: the one change is theirs. Otherwise
        the change waits for `safedel config trust` (a narrowing applies at once)."""
        from .configview import record, why_no_person

        path = self.file_for(scope)
        text, info = confirmed.read(path)
        if text is not None and was_confirmed and why_no_person() is None:
            try:
                record(self.state_dir, path, text, info)
                return
            except OSError as exc:
                typer.echo(f"safedel workspace: cannot record the confirmation: {exc}", err=True)
        if adding:
            waits = held_message(path, "the root added", "not yet applying")
            typer.echo(f"safedel: {waits}", err=True)

    def stored_form(self, scope, real):
        """The entry to store: a real path, relative for a committed project file so
        that it holds in every clone."""
        if scope != "project":
            return real
        if not workspace.inside(real, self.project):
            _fail(f"a project's config may only name folders inside {self.project}")
        return os.path.relpath(real, self.project)

    def resolve(self, scope, entry):
        base = self.project if scope in ("local", "project") else os.getcwd()
        return os.path.realpath(os.path.join(base, os.path.expanduser(entry)))


def _fail(message):
    typer.echo(f"safedel workspace: {message}", err=True)
    raise typer.Exit(1)


def _check_scope(scope):
    if scope not in workspace.SCOPES:
        raise typer.BadParameter(
            f"choose one of {', '.join(workspace.SCOPES)}", param_hint="--scope"
        )


@app.command(name="list")
def list_(
    session: Session = None,
    state_dir: StateDir = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print a JSON object.")] = False,
) -> None:
    """Show each workspace root with its scope and where it comes from."""
    place = Place(session, state_dir)
    roots, warnings = workspace.collect(
        os.environ, os.getcwd(), state_dir=place.state_dir, session=place.session
    )
    if as_json:
        result = {"roots": [r.as_dict() for r in roots], "warnings": warnings}
        typer.echo(json.dumps(result, indent=2))
        return
    for warning in warnings:
        typer.echo(f"safedel: warning: {warning}", err=True)
    for root in roots:
        typer.echo(f"{root.path}\t{root.scope}\t{root.source}")


def _edit(scope, directory, session, state_dir, change, adding=False):
    """Load SCOPE's entries, let change(place, real, entries) return the new list (or
    None for nothing to do), save it, and return the resolved folder."""
    _check_scope(scope)
    from ..executor.approval import refuse_inside

    why = refuse_inside("changing the workspace")
    if why is not None:
        _fail(why)
    place = Place(session, state_dir)
    real = place.resolve(scope, directory)
    entries = place.read(scope)
    was_confirmed = scope == "session" or place.confirmed(scope)
    new = change(place, real, entries)
    if new is not None:
        try:
            place.write(scope, new)
        except OSError as exc:
            _fail(f"cannot save the {scope} workspace: {exc.strerror or exc}")
        if scope != "session":
            place.reconfirm(scope, was_confirmed, adding)
    return real, new is not None


@app.command()
def add(
    directory: Annotated[str, typer.Argument(help="The folder to add.")],
    scope: Scope = "session",
    session: Session = None,
    state_dir: StateDir = None,
) -> None:
    """Add DIRECTORY to the workspace in SCOPE (stored as a real path)."""

    def change(place, real, entries):
        if not os.path.isdir(real):
            _fail(f"not a directory: {directory}")
        if any(place.resolve(scope, e) == real for e in entries):
            return None
        return [*entries, place.stored_form(scope, real)]

    real, changed = _edit(scope, directory, session, state_dir, change, adding=True)
    if changed:
        typer.echo(f"added {real} ({scope})")
    else:
        typer.echo(f"{real} is already a {scope} workspace root")


@app.command()
def remove(
    directory: Annotated[str, typer.Argument(help="The folder to remove.")],
    scope: Scope = "session",
    session: Session = None,
    state_dir: StateDir = None,
) -> None:
    """Remove DIRECTORY from the workspace in SCOPE."""

    def change(place, real, entries):
        kept = [e for e in entries if place.resolve(scope, e) != real]
        if len(kept) == len(entries):
            _fail(f"{real} is not a {scope} workspace root")
        return kept

    real, _ = _edit(scope, directory, session, state_dir, change)
    typer.echo(f"removed {real} ({scope})")
