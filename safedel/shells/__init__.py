"""Per-shell quoting and rendering. Templates live beside this file, one folder a shell."""

import os

SHELLS = ("bash", "zsh", "sh", "fish", "powershell")
HERE = os.path.dirname(os.path.abspath(__file__))


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
