"""The `safedel` console script. `run`, `rm`, `bootstrap` and the common forms of `list`
and `restore` take fast paths without typer."""

import errno
import os
import sys

from . import caller_active


def main(argv=None):
    try:
        _dispatch(argv)
    except OSError as exc:
        # What the system refused (a report path that is a directory, a state dir we
        # cannot write): one line saying so, never a traceback. Bugs still show theirs.
        sys.exit(_os_failure(exc))


def _os_failure(exc):
    if exc.errno == errno.EPIPE:
        # The reader went away (`safedel list | head`): nothing left to tell anyone.
        try:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        except (OSError, ValueError):
            pass
        return 1
    from .core.printable import printable

    where = exc.filename if isinstance(exc.filename, (str, bytes)) else None
    reason = exc.strerror or str(exc)
    if where is None and exc.errno == errno.ENOENT and not _cwd_exists():
        reason = "the current directory no longer exists"  # os.getcwd() names no path
    try:
        sys.stderr.write(
            f"safedel: {printable(where)}: {reason}\n" if where else f"safedel: {reason}\n"
        )
    except (OSError, ValueError):
        pass
    return 1


def _cwd_exists():
    try:
        os.getcwd()
    except OSError:
        return False
    return True


def _dispatch(argv):
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
        from .executor.runner import main as run_main

        sys.exit(run_main(argv[1:]))
    if argv[:1] == ["bootstrap"] and len(argv) <= 2 and not any(a[:1] == "-" for a in argv[1:]):
        # Every new interactive shell runs this, so it skips typer too.
        from .shells.bootstrap import main as bootstrap_main

        sys.exit(bootstrap_main(argv[1:]))
    if argv[:1] in (["list"], ["restore"]):
        # A large trash: the common forms skip typer and rich (quick.py).
        from .trash.quick import run as quick_run

        code = quick_run(argv)
        if code is not None:
            sys.exit(code)
    if argv[:1] == ["rm"]:
        # Straight to rm, so that its options (and a leading `--`) arrive as typed.
        from .commands.rm import main as rm_main

        sys.exit(rm_main(argv[1:]))
    from .cli import app

    app(args=argv, prog_name="safedel")


def _options_part(args):
    """The arguments before the wrapped command, where --help belongs to safedel."""
    return args[: args.index("--")] if "--" in args else args[:1]
