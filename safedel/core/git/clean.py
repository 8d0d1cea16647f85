"""`git clean` through the trash: git decides what goes, safedel moves it.

A dry run with the same options says exactly what the real command would remove, in
its order; those paths go through the same pipeline as rm's (protected paths, the bulk
guard as one batch, the report), and the lines git would print are printed as they go.
"""

import os
import sys

from . import cquote, gitcmd

LONG = ("force", "dry-run", "quiet", "interactive", "exclude")
LONG += tuple("no-" + name for name in LONG)
INTERACTIVE_REFUSAL = (
    "safedel: 'git clean -i' asks its questions after deciding, so safedel cannot make it"
    " recoverable; to run it unprotected on purpose: command {git} clean -i"
)


class Options:
    def __init__(self):
        self.force, self.dry_run, self.quiet, self.interactive = 0, False, False, False
        self.passed = []  # what the dry run gets: everything but -n, -q and -i


def _long(arg, options):
    """Handle --name[=value] (git takes unique abbreviations); True when the value is
    the next argument."""
    name, eq, _ = arg[2:].partition("=")
    matches = [full for full in LONG if full == name] or [f for f in LONG if f.startswith(name)]
    full = matches[0] if len(matches) == 1 else None
    if full in ("force", "no-force"):
        options.force = options.force + 1 if full == "force" else 0
    elif full in ("dry-run", "no-dry-run"):
        options.dry_run = full == "dry-run"
        return False
    elif full in ("quiet", "no-quiet"):
        options.quiet = full == "quiet"
        return False
    elif full in ("interactive", "no-interactive"):
        options.interactive = full == "interactive"
        return False
    options.passed.append(arg)
    return full == "exclude" and not eq


def _short(arg, options):
    """Handle a -xyz cluster; True when its last option takes the next argument."""
    kept = "-"
    for i, letter in enumerate(arg[1:], 1):
        if letter == "e":
            value = arg[i + 1 :]
            options.passed.append(kept + "e" + value)
            return not value
        if letter == "f":
            options.force += 1
        elif letter == "n":
            options.dry_run = True
            continue
        elif letter == "q":
            options.quiet = True
            continue
        elif letter == "i":
            options.interactive = True
            continue
        kept += letter
    if kept != "-":
        options.passed.append(kept)
    return False


def parse(rest):
    options, i = Options(), 0
    while i < len(rest):
        arg = rest[i]
        i += 1
        if arg == "--":
            options.passed += rest[i - 1 :]
            break
        if arg.startswith("--"):
            takes_value = _long(arg, options)
        elif arg.startswith("-") and arg != "-":
            takes_value = _short(arg, options)
        else:
            options.passed.append(arg)
            continue
        if takes_value and i < len(rest):
            options.passed.append(rest[i])
            i += 1
    return options


class GitTool:
    """What the rm pipeline needs from its front end, speaking as git clean does."""

    def __init__(self, before, shown):
        self.before = before  # path -> lines git prints before that item (skip notes)
        self.shown = shown  # path -> the name as git prints it
        self.failed = False

    def _flush(self, path):
        for line in self.before.pop(path, ()):
            self.out(line)

    def error(self, message):
        _err(b"error: " + message)
        self.failed = True

    def cannot(self, what, path, errnum):
        self._flush(path)
        reason = os.strerror(errnum).encode()
        _err(b"warning: " + what + b" " + self.shown.get(path, path) + b": " + reason)
        self.failed = True

    def out(self, line):
        sys.stdout.buffer.write(line + b"\n")


def _err(data):
    sys.stdout.flush()
    os.write(2, data + b"\n")


def run(git, rest, original_args):
    """git clean, with what it removes going to the trash. Returns the exit status."""
    options = parse(rest)
    if options.dry_run:
        git.exec(original_args)
    if options.interactive:
        _err(INTERACTIVE_REFUSAL.format(git=git.program).encode())
        return 1
    if not options.force and git.config_bool("clean.requireForce", True):
        git.exec(original_args)  # git refuses with its own message and status
    status, out, err = git.run(
        "clean", "-n", *options.passed, config=["core.quotePath=false"], env={"LC_ALL": "C"}
    )
    sys.stderr.buffer.write(err)
    sys.stderr.flush()
    if status:
        return status
    return _apply(git, _plan(out, options.quiet, git.config_bool("core.quotePath", True)))


WOULD_REMOVE, WOULD_SKIP = b"Would remove ", b"Would skip repository "


def _plan(dry_run_output, quiet, quote_path):
    """[(name or None for a skipped repository, name as shown, lines to print)], in
    git's order, from the dry run's lines."""
    plan = []
    for line in dry_run_output.split(b"\n"):
        for prefix, verb in ((WOULD_REMOVE, b"Removing "), (WOULD_SKIP, b"Skipping repository ")):
            if line.startswith(prefix):
                name = cquote.unquote(line[len(prefix) :])
                if name is None:
                    raise SystemExit(f"safedel: cannot read git's output: {line!r}")
                shown = cquote.quote(name, quote_path)
                lines = [] if quiet else [verb + shown]
                plan.append((name if prefix is WOULD_REMOVE else None, shown, lines))
    return plan


class _Opts:
    ignore_missing = True


def _apply(git, plan):
    from ..gnu import rmtrash
    from ..gnu.rmwalk import Item

    base = os.fsencode(gitcmd.base_dir(git.global_options))
    items, before, shown, pending = [], {}, {}, []
    for name, display, lines in plan:
        if name is None:
            pending += lines
            continue
        is_dir = name.endswith(b"/")
        path = os.path.join(base, name.rstrip(b"/") if is_dir else name)
        before[path], shown[path], pending = pending, display, []
        items.append(Item(path, is_dir, [*before[path], *lines]))
    tool = GitTool(before, shown)
    rmtrash.apply(tool, "git", items, _Opts(), what=b"failed to remove")
    for line in pending:
        tool.out(line)
    sys.stdout.flush()
    return 1 if tool.failed else 0
