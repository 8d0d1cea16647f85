"""Per-shell quoting and rendering. Templates live beside this file, one folder a shell.

A template holds @NAME@ placeholders. Rendering replaces each with its value quoted for
that template's language, so a path with spaces, quotes or `$` stays one literal word.
"""

import os
import sys

from .. import __version__

SHELLS = ("bash", "zsh", "sh", "fish", "powershell")
HERE = os.path.dirname(os.path.abspath(__file__))
TEMPLATES = {
    "bash": ("bash", "bootstrap.bash"),
    "zsh": ("zsh", "bootstrap.zsh"),
    "sh": ("sh", "bootstrap.sh"),
    "fish": ("fish", "bootstrap.fish"),
    "powershell": ("powershell", "prelude.ps1"),
}
# Process names (as psutil reports them) of the shells a bootstrap exists for.
PROCESS_NAMES = {
    "bash": "bash",
    "zsh": "zsh",
    "fish": "fish",
    "sh": "sh",
    "dash": "sh",
    "ash": "sh",
    "busybox": "sh",
    "pwsh": "powershell",
    "powershell": "powershell",
}


def quote_sh(value):
    return "'" + value.replace("'", "'\\''") + "'"


def quote_fish(value):
    return "'" + value.replace("\\", "\\\\").replace("'", "\\'") + "'"


def quote_powershell(value):
    # Inside single quotes PowerShell treats the curly quotes as quotes too.
    for quote in ("'", "\u2018", "\u2019", "\u201a", "\u201b"):
        value = value.replace(quote, quote + quote)
    return "'" + value + "'"


QUOTERS = {
    "bash": quote_sh,
    "zsh": quote_sh,
    "sh": quote_sh,
    "fish": quote_fish,
    "powershell": quote_powershell,
}


def export_lines(shell, env):
    """Lines that set each variable of env in shell."""
    quote = QUOTERS[shell]
    if shell == "fish":
        return "".join(f"set -gx {k} {quote(v)}\n" for k, v in env.items())
    if shell == "powershell":
        return "".join(f"$env:{k} = {quote(v)}\n" for k, v in env.items())
    return "".join(f"export {k}={quote(v)}\n" for k, v in env.items())


def shell_for_process(name):
    """The bootstrap shell for a process or $SHELL name (`-bash`, `/bin/dash`), or None."""
    base = os.path.basename(name or "").lstrip("-").lower()
    if base.endswith(".exe"):
        base = base[: -len(".exe")]
    return PROCESS_NAMES.get(base)


def template(shell, name=None):
    """A template's text: the shell's bootstrap, or the file name in its folder."""
    folder, default = TEMPLATES[shell]
    # utf-8-sig: the PowerShell files are stored with a BOM, which is no part of the text.
    with open(os.path.join(HERE, folder, name or default), encoding="utf-8-sig") as handle:
        return handle.read()


def render(shell, values, raw=None, name=None):
    """A template with @NAME@ replaced: values quoted for shell, raw ones as they are
    (pre-rendered snippets such as export lines, or language literals like $true)."""
    text = template(shell, name)
    quote = QUOTERS[shell]
    for key, value in (raw or {}).items():
        text = text.replace(f"@{key}@", value)
    for key, value in values.items():
        text = text.replace(f"@{key}@", quote(value))
    return text


def powershell_prelude(python, environment=None, turn_prefix=None, version="", session=""):
    """The prelude; with an environment and turn prefix it is an interactive bootstrap
    that also exports the environment, gives the shell a session of its own and starts a
    new turn at each prompt."""
    values = {
        "PYTHON": python,
        "VERSION": version,
        "TURN_PREFIX": turn_prefix or "",
        "NEW_SESSION": session,
    }
    raw = {
        "ENVIRONMENT": export_lines("powershell", environment or {}),
        "ROTATE_TURNS": "$true" if turn_prefix else "$false",
    }
    return render("powershell", values, raw)


def powershell_executable():
    """pwsh (PowerShell 7) where installed, else Windows PowerShell 5.1."""
    import shutil  # here, not at the top: `safedel run` imports this package

    return shutil.which("pwsh") or shutil.which("powershell") or "pwsh"


def wrap_for_shell(shell, command):
    """The argv that runs the command text through shell (`safedel run --shell`).

    For PowerShell the prelude comes first, so Remove-Item and its aliases trash. The
    environment is already the child's (runner sets it), so the prelude exports nothing.
    """
    text = " ".join(command)
    if shell == "powershell":
        prelude = powershell_prelude(os.path.realpath(sys.executable), version=__version__)
        shell_argv = [powershell_executable(), "-NoProfile", "-NonInteractive", "-Command"]
        return [*shell_argv, prelude + text]
    if shell in ("bash", "zsh", "sh", "fish"):
        return [shell, "-c", text]
    raise ValueError(f"unknown shell {shell!r}; choose one of {', '.join(SHELLS)}")
