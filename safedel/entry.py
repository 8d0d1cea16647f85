"""The `safedel` console script. `run` takes a fast path that never imports typer."""

import sys


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "run" and not {"--help", "-h"} & set(_options_part(argv[1:])):
        from .runner import main as run_main

        sys.exit(run_main(argv[1:]))
    from .cli import app

    app(args=argv, prog_name="safedel")


def _options_part(args):
    """The arguments before the wrapped command, where --help belongs to safedel."""
    return args[: args.index("--")] if "--" in args else args[:1]
