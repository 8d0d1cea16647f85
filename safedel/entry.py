"""The `safedel` console script. `run`, `rm` and `bootstrap` take fast paths without typer."""

import sys


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "run" and not {"--help", "-h"} & set(_options_part(argv[1:])):
        from .runner import main as run_main

        sys.exit(run_main(argv[1:]))
    if argv[:1] == ["bootstrap"] and len(argv) <= 2 and not any(a[:1] == "-" for a in argv[1:]):
        # Every new interactive shell runs this, so it skips typer too.
        from .shells.bootstrap import main as bootstrap_main

        sys.exit(bootstrap_main(argv[1:]))
    if argv[:1] == ["rm"]:
        # Straight to rm, so that its options (and a leading `--`) arrive as typed.
        from .commands.rm import main as rm_main

        sys.exit(rm_main(argv[1:]))
    from .cli import app

    app(args=argv, prog_name="safedel")


def _options_part(args):
    """The arguments before the wrapped command, where --help belongs to safedel."""
    return args[: args.index("--")] if "--" in args else args[:1]
