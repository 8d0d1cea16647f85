"""The `safedel` console script. `run`, `rm` and `bootstrap` take fast paths without typer."""

import os
import sys

# Whether the shell or harness that started this process had the shims on; `doctor`
# reports it, since this process itself switches them off (see main).
caller_active = os.environ.get("SAFEDEL_ACTIVE") == "1"


def main(argv=None):
    # First of all: safedel never shims itself. In a shell with the bootstrap loaded,
    # this interpreter got the Python shim too, and restore's info files, a guard
    # reset's ledger or an exempt real delete would otherwise be "deleted" into the
    # trash (and the report) as if the user had done it. The shim reads
    # SAFEDEL_ACTIVE at every call; what safedel runs for the user (`safedel run`,
    # doctor's probes) gets an environment that sets it again.
    if caller_active:
        os.environ["SAFEDEL_ACTIVE"] = "0"
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
