"""Interactive shells started from rc files a test writes, the way users write them.

The bootstrap line is the one docs/shells.md gives, run by this interpreter. The shim cache
lives under a directory whose name has spaces, quotes and a `$`, so every quoting path is
exercised.
"""

import os
import re
import select
import shlex
import sys

from conftest import require
from ptyshell import ANSI, Terminal

ODD_DIR = 'cache it\'s "odd" $HOME'
SAFEDEL = f"{shlex.quote(sys.executable)} -m safedel"
STATUS = {"fish": "$status"}
PROMPTS = ("$ ", "% ", "# ", "> ")


def bootstrap(shell):
    """The rc line that loads safedel into shell."""
    if shell == "fish":
        return f"{SAFEDEL} bootstrap fish | source\n"
    return f'eval "$({SAFEDEL} bootstrap {shell})"\n'


def environment(sandbox, **extra):
    return sandbox.base_env(
        SAFEDEL_THRESHOLD="50",
        XDG_CACHE_HOME=str(sandbox.root / ODD_DIR),
        TERM="dumb",
        PS1="$ ",
        **extra,
    )


def write(sandbox, files):
    """files: {path under HOME: text}."""
    for name, text in files.items():
        path = sandbox.home / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def open_shell(sandbox, argv, files=None, env=None, **extra):
    """A shell on a pty in the work tree, once its first prompt answers."""
    require(argv[0])
    write(sandbox, files or {})
    name = os.path.basename(argv[0])
    terminal = Terminal(
        argv,
        env or environment(sandbox, **extra),
        str(sandbox.work),
        status=STATUS.get(name, "$?"),
    )
    status, shown = terminal.run("true")
    assert status == 0, shown
    return terminal


def enter(terminal, command):
    """Start a shell inside the terminal's shell; True once it answers."""
    terminal.send(command + "\n")
    status, shown = terminal.run("true")
    assert status == 0, shown


def interrupt(terminal, timeout=30):
    """Ctrl-C at an empty prompt, sent once the prompt is drawn (not while the hooks
    before it run). True once the shell draws a new one. Rarely the ^C lands before the
    line editor reads the terminal; the kernel then discards it with no new prompt, and
    the shell goes on as if it had not come (False)."""
    since = terminal.output.rfind(b"__sd_mark_")
    wait_for_prompt(terminal, max(since, 0), timeout)
    start = len(terminal.output)
    terminal.send("\x03")
    try:
        wait_for_prompt(terminal, start, 3)
    except TimeoutError:
        # Keys typed now could still be thrown away: an empty line (which keeps $?)
        # brings a prompt that proves the shell reads again.
        start = len(terminal.output)
        terminal.send("\n")
        wait_for_prompt(terminal, start, timeout)
        return False
    return True


def wait_for_prompt(terminal, start, timeout):
    prompt = re.compile(rb"(\$|%|#|>) $")
    while not prompt.search(ANSI.sub(b"", terminal.output[start:])):
        if not select.select([terminal.fd], [], [], timeout)[0]:
            raise TimeoutError(f"no prompt:\n{terminal.text()}")
        try:
            chunk = os.read(terminal.fd, 65536)
        except OSError:
            chunk = b""
        if not chunk:
            raise EOFError(f"the shell ended:\n{terminal.text()}")
        terminal.output += chunk


def noise(shown, typed=()):
    """What the terminal showed besides prompts, typed text and the status marks."""
    left = []
    for line in shown.replace("\x07", "").split("\n"):
        text = line
        while text.startswith(PROMPTS):
            text = text[2:]
        text = text.strip()
        if not text or text == "^C" or "__sd_" in text or text in typed:
            continue
        left.append(line)
    return left


def read(sandbox, name):
    return (sandbox.work / name).read_text().strip()


def survives_errexit(sandbox, argv, files):
    """An interactive shell whose rc file turned errexit on (files: bash_rc's or
    zsh_rc's) is interrupted at its prompt, then runs a `!` line and a failing `&&`
    list: nothing of it closes the shell, and $? after the interrupt is 130."""
    terminal = open_shell(sandbox, argv, files)
    try:
        redrawn = interrupt(terminal)
        status, shown = terminal.run("echo $? > interrupted.txt")
        negated, _ = terminal.run("! true", own_line=True)
        anded, _ = terminal.run("false && x", own_line=True)
        alive, _ = terminal.run("true")
    finally:
        terminal.close()
    assert (status, negated, anded, alive) == (0, 1, 1, 0), shown
    if redrawn:
        assert read(sandbox, "interrupted.txt") == "130"
