"""The git launcher's Python half: only destructive commands (and aliases) get here."""

import sys

from . import gitcmd


def main(argv):
    """argv: the real git's path, then git's arguments as the user gave them."""
    import _signal

    _signal.signal(_signal.SIGINT, _signal.SIG_DFL)
    _signal.signal(_signal.SIGPIPE, _signal.SIG_DFL)
    program, args = argv[0], list(argv[1:])
    global_options, subcommand, rest = gitcmd.split(args)
    git = gitcmd.Git(program, global_options)
    if subcommand is not None and subcommand not in gitcmd.DESTRUCTIVE:
        resolved = gitcmd.resolve_alias(git, subcommand, rest)
        if resolved is None:
            git.exec(args)  # a `!shell` alias: its rm, if any, meets the rm launcher
        global_options, subcommand, rest = resolved
        git = gitcmd.Git(program, global_options)
    if subcommand == "clean":
        from . import clean

        sys.exit(clean.run(git, rest, args))
    if subcommand in gitcmd.DESTRUCTIVE:
        from . import snapshot

        if not snapshot.before(git, subcommand, rest):
            sys.exit(1)
    git.exec(args)
