"""GNU rm (coreutils 9.x), except that what it removes goes to the trash.

Options, prompts, messages and exit status follow GNU rm. rmwalk decides, the way
GNU's traversal would, what gets removed and which messages appear; rmtrash then
guards the whole batch once and trashes it.
"""

import os

from . import options, rmtrash, rmwalk
from .options import quote

NEVER, SOMETIMES, ALWAYS = rmwalk.NEVER, rmwalk.SOMETIMES, rmwalk.ALWAYS
SHORT = {"d": "dir", "f": "force", "i": "-i", "I": "-I", "r": "recursive", "R": "recursive"}
SHORT["v"] = "verbose"
LONG = {
    "dir": options.NO_ARG,
    "force": options.NO_ARG,
    "interactive": options.OPTIONAL_ARG,
    "one-file-system": options.NO_ARG,
    "no-preserve-root": options.NO_ARG,
    "preserve-root": options.OPTIONAL_ARG,
    "-presume-input-tty": options.NO_ARG,
    "recursive": options.NO_ARG,
    "verbose": options.NO_ARG,
    "help": options.NO_ARG,
    "version": options.NO_ARG,
}
WHEN = {"never": NEVER, "no": NEVER, "none": NEVER, "once": "once"}
WHEN.update({"always": ALWAYS, "yes": ALWAYS})

HELP = """\
Usage: {0} [OPTION]... [FILE]...
Remove (unlink) the FILE(s); with safedel, they are moved to the trash.

  -f, --force           ignore nonexistent files and arguments, never prompt
  -i                    prompt before every removal
  -I                    prompt once before removing more than three files, or
                          when removing recursively; less intrusive than -i,
                          while still giving protection against most mistakes
      --interactive[=WHEN]  prompt according to WHEN: never, once (-I), or
                          always (-i); without WHEN, prompt always
      --one-file-system  when removing a hierarchy recursively, skip any
                          directory that is on a file system different from
                          that of the corresponding command line argument
      --no-preserve-root  do not treat '/' specially
      --preserve-root[=all]  do not remove '/' (default);
                              with 'all', reject any command line argument
                              on a separate device from its parent
  -r, -R, --recursive   remove directories and their contents recursively
  -d, --dir             remove empty directories
  -v, --verbose         explain what is being done
      --help        display this help and exit
      --version     output version information and exit

To remove a file whose name starts with a '-', for example '-foo',
use one of these commands:
  {0} -- -foo

  {0} ./-foo

safedel moves what rm removes to the trash; `safedel restore` brings it back.
"""


def version_text(name):
    return f"{name} (safedel) GNU-compatible front end; removed files go to the trash\n"


class Options(rmwalk.Options):
    def __init__(self):
        super().__init__()
        self.prompt_once = False
        self.preserve_root = True

    def handle(self, tool, argv, option, value):
        if option == "force":
            self.interactive, self.ignore_missing, self.prompt_once = NEVER, True, False
        elif option in ("-i", "-I", "interactive"):
            when = "once" if option == "-I" else ALWAYS
            if value is not None:
                from .ask import argmatch

                when = argmatch(tool, "--interactive", value, WHEN)
            self.prompt_once = when == "once"
            self.interactive = SOMETIMES if when == "once" else when
            if when != NEVER:
                self.ignore_missing = False
        elif option == "no-preserve-root":
            if "--no-preserve-root" not in argv:
                tool.err(b"you may not abbreviate the --no-preserve-root option")
                raise options.Exit(1)
            self.preserve_root = False
        elif option == "preserve-root":
            if value is not None and os.fsencode(value) != b"all":
                tool.err(b"unrecognized --preserve-root argument: " + quote(value))
                raise options.Exit(1)
            self.preserve_root, self.preserve_all_root = True, value is not None
        elif option == "-presume-input-tty":
            self.stdin_tty = True
        elif option == "help":
            tool.write_out(HELP.format(tool.name).encode())
            raise options.Exit(0)
        elif option == "version":
            tool.write_out(version_text(tool.name).encode())
            raise options.Exit(0)
        else:  # the plain switches: dir, recursive, verbose, one-file-system
            setattr(self, {"dir": "remove_empty_dirs"}.get(option, option.replace("-", "_")), True)


def leading_hyphen_hint(tool, argv):
    """GNU's hint when an operand that looks like an option names an existing file."""
    for arg in argv:
        raw = os.fsencode(arg)
        if raw[:1] == b"-" and len(raw) > 1 and os.path.lexists(raw):
            tool.say(
                b"Try '"
                + tool.prog
                + b" ./"
                + quote(raw, always=False)
                + b"' to remove the file "
                + quote(raw)
                + b".\n"
            )
            return


def run(argv, runtime="rm", name="rm"):
    """rm's whole life: parse, prompt, plan, trash. Returns the exit status."""
    tool = options.Tool(name)
    return tool.run(lambda: _rm(tool, argv, runtime))


def _rm(tool, argv, runtime):
    opts = Options()
    try:
        files = options.parse(tool, argv, SHORT, LONG, lambda o, v: opts.handle(tool, argv, o, v))
    except options.UsageError as exc:
        tool.err(exc.message)
        leading_hyphen_hint(tool, argv)
        tool.usage_error()
    if not files:
        if opts.ignore_missing:
            return 0
        tool.usage_error(b"missing operand")
    if opts.recursive and opts.preserve_root:
        opts.root = os.lstat("/")
    if opts.prompt_once and (opts.recursive or len(files) > 3):
        count = len(files)
        plural = b"" if count == 1 else b"s"
        how = b" recursively" if opts.recursive else b""
        tool.say(b"%s: remove %d argument%s%s? " % (tool.prog, count, plural, how))
        from .ask import yesno

        if not yesno():
            return 0
        # Still "sometimes", as in GNU: write-protected files are asked about next.
    plan = rmwalk.Walker(tool, opts).plan([os.fsencode(f) for f in files])
    rmtrash.apply(tool, runtime, plan, opts)
    return None
