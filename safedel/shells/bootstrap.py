"""The bootstrap scripts: the environment contract rendered into each shell's template.

Typer-free, so `safedel bootstrap SHELL` (run by every new interactive shell) can skip
the CLI's imports; commands/bootstrap.py is its face for --help and completions.
"""

import os
import sys

from .. import __version__
from ..core.private import open_under
from ..executor import childenv, shimhome
from . import SHELLS, export_lines, powershell_prelude, promptgit, render, shell_for_process


def detect_shell(environ):
    """The parent process's shell (we run inside its $(...)), else $SHELL's."""
    try:
        import psutil

        parent = psutil.Process(os.getppid())
        candidates = [parent.name(), *parent.cmdline()[:1]]
    except Exception:  # noqa: BLE001 - no psutil answer just means: ask $SHELL
        candidates = []
    for name in [*candidates, environ.get("SHELL")]:
        shell = shell_for_process(name)
        if shell:
            return shell
    return None


def script(shell, base, home):
    """The rendered bootstrap for shell, given the caller's environment and shim home."""
    values = childenv.contract(base, home, childenv.RunOptions(interactive=True))
    # An interactive shell gets a new turn for each command line, never a fixed one,
    # and is asked about its own host by each command.
    for name in ("SAFEDEL_TURN", "SAFEDEL_TURN_START", "SAFEDEL_HOST"):
        del values[name]
    prefix = childenv.new_turn_id()
    # The template decides on the session: only the shell knows whether the one it
    # inherited is its own (the bootstrap loaded again) or a parent shell's.
    del values["SAFEDEL_SESSION"]
    if shell == "powershell":
        python = os.path.realpath(sys.executable)
        return powershell_prelude(python, values, prefix, __version__, new_session())
    placeholders = {"TURN_PREFIX": prefix, "SAFEDEL_HOME": home, "NEW_SESSION": new_session()}
    if shell == "bash":
        placeholders["TURN_BASE"] = str(numeric_turn_base())
    if shell == "sh":
        placeholders["TURN_FILE"] = turn_file(values["SAFEDEL_STATE_DIR"], prefix)
    if shell == "fish":  # a stamp, not a turn file: fish exports SAFEDEL_TURN itself
        placeholders["TURN_STAMP"] = turn_file(values["SAFEDEL_STATE_DIR"], prefix)
    if shell == "fish":
        prompt_dir, git = promptgit.prompt_git(base, home, values["SAFEDEL_STATE_DIR"])
        placeholders.update(PROMPT_GIT_DIR=prompt_dir, REAL_GIT=git)
    if shell == "zsh":
        # The running zsh keeps its own ZDOTDIR; the hooks hand ours to child processes.
        placeholders["ZDOTDIR"] = values.pop("ZDOTDIR")
    raw = {"ENVIRONMENT": export_lines(shell, values)}
    if shell != "fish":
        export = "\\command export" if shell == "sh" else "\\builtin export"
        raw["SESSION"] = render("sh", {}, {"EXPORT": export}, name="session.sh")
    return render(shell, placeholders, raw)


def new_session():
    return "shell-" + os.urandom(6).hex()


def numeric_turn_base():
    """A random twelve-digit prefix times a million: bash raises it by one a command line
    with prompt arithmetic, which can only count, and it stays unique across shells."""
    return (10**11 + int.from_bytes(os.urandom(6), "big") % (9 * 10**11)) * 10**6


def turn_file(state_dir, prefix):
    """A private file holding the sh session's current turn, which its prompt rotates."""
    parts = ["shell-turns", prefix]
    fd = open_under(state_dir, parts, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    with os.fdopen(fd, "w", encoding="utf-8") as handle:
        handle.write(f"{prefix}-0\n")
    return os.path.join(state_dir, *parts)


def main(argv):
    """`safedel bootstrap [SHELL]` without typer; returns the exit status."""
    shell = argv[0] if argv else detect_shell(os.environ)
    if shell not in SHELLS:
        wanted = ", ".join(SHELLS)
        problem = f"unknown shell {shell!r}" if argv else "cannot tell which shell is calling"
        sys.stderr.write(f"safedel bootstrap: {problem}; name one of: {wanted}\n")
        return 2
    try:
        home = shimhome.materialize()
    except OSError as exc:  # a shim home someone else could have written: never use it
        sys.stderr.write(f"safedel bootstrap: {exc.strerror or exc}: {exc.filename or ''}\n")
        return 1
    sys.stdout.write(script(shell, os.environ, home))
    sys.stdout.flush()
    return 0
