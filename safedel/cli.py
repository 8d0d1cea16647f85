"""The root Typer app: registration only. Each command lives in safedel/commands/."""

import typer

from .commands import (
    bootstrap,
    config,
    doctor,
    env,
    guard,
    markers,
    purge,
    report,
    restore,
    run,
    serve,
    shims,
    undo,
    workspace,
)
from .commands import list as list_cmd
from .commands import rm as rm_cmd
from .commands import trash as trash_cmd

app = typer.Typer(
    name="safedel",
    help="Make deletion recoverable: deletions go to the trash, with a per-turn bulk guard.",
    no_args_is_help=True,
    add_completion=False,  # completions/ holds static scripts; see docs/shells.md
    pretty_exceptions_enable=False,
)
app.command(context_settings={"allow_interspersed_args": False, "ignore_unknown_options": True})(
    run.run
)
app.command()(env.env)
app.command()(serve.serve)
app.command()(shims.shims)
app.command(name="list")(list_cmd.list_)
app.command()(restore.restore)
app.command()(undo.undo)
app.command()(purge.purge)
app.command()(report.report)
app.command()(doctor.doctor)
app.command()(markers.markers)
app.add_typer(guard.app, name="guard")
app.add_typer(workspace.app, name="workspace")
app.add_typer(config.app, name="config")
app.command()(bootstrap.bootstrap)
app.command(name="trash", hidden=True)(trash_cmd.trash)
app.command(name="rm", context_settings=rm_cmd.RAW_ARGS)(rm_cmd.rm)
