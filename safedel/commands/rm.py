"""`safedel rm`: GNU rm's front end in this process; what it removes goes to the trash.

rm's own options are passed through untouched (`safedel rm -rf build`). The console
script sends `safedel rm ...` here before typer sees it, so a leading `--` reaches rm
as typed; through typer (which swallows a first `--`), ctx.args is the best it has.
"""

import typer

RAW_ARGS = {"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []}
RAW_ARGS["allow_interspersed_args"] = False


def main(args):
    """rm's exit status for args; the runtime in the report is "rm"."""
    from ..core.gnu import rm as gnu_rm

    return gnu_rm.run(list(args), runtime="rm", name="rm")


def rm(ctx: typer.Context) -> None:
    """Remove files like GNU rm, but move them to the trash (rm's options: -r, -f, -i ...)."""
    raise typer.Exit(main(ctx.args))
