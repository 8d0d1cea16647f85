"""Regenerate completions/ from the Typer app:  python -m safedel.completions [DIR]

The app's command tree (commands, nested commands, options, which options take a value)
becomes a table inside each shell's completion template, so TAB needs no process.
tests/shells/test_completions.py fails when the committed files are stale.
"""

import os
import sys

from .shells import QUOTERS, render

FILES = {
    "bash": ("completion.bash", "safedel.bash"),
    "zsh": ("completion.zsh", "_safedel"),
    "fish": ("completion.fish", "safedel.fish"),
    "powershell": ("completion.ps1", "safedel.ps1"),
}
HELP = ("--help", "Show help and exit.", False)


def _first_line(text):
    return (text or "").strip().splitlines()[0].strip() if (text or "").strip() else ""


def tree():
    """{chain: (commands [(name, help)], options [(name, help, takes_value)])}, where a
    chain is the commands typed so far ('' for the root, 'guard status' for a leaf)."""
    import typer.main

    from .cli import app

    found = {}

    def visit(command, chain):
        options = [HELP]
        for param in command.params:
            if getattr(param, "param_type_name", "") != "option" or param.hidden:
                continue
            takes_value = not param.is_flag and not param.count
            options += [(name, _first_line(param.help), takes_value) for name in param.opts]
        subcommands = []
        for name, sub in sorted(getattr(command, "commands", {}).items()):
            if sub.hidden:
                continue
            subcommands.append((name, sub.get_short_help_str(limit=70)))
            visit(sub, f"{chain} {name}".strip())
        found[chain] = (subcommands, options)

    visit(typer.main.get_command(app), "")
    return found


def _bash_table(table, quote):
    lines = []
    for chain, (commands, options) in table.items():
        words = quote(" ".join(name for name, _ in commands))
        opts = quote(" ".join(name for name, _, _ in options))
        values = quote(" ".join(name for name, _, takes in options if takes))
        lines.append(f"    {quote(chain)}) commands={words} options={opts} values={values} ;;")
    return "\n".join(lines)


def _zsh_table(table, quote):
    def described(pairs):
        return " ".join(quote(name.replace(":", "\\:") + ":" + text) for name, text in pairs)

    lines = []
    for chain, (commands, options) in table.items():
        opts = described((name, text) for name, text, _ in options)
        values = " ".join(quote(name) for name, _, takes in options if takes)
        lines.append(
            f"    {quote(chain)}) commands=({described(commands)}) options=({opts})"
            f" values=({values}) ;;"
        )
    return "\n".join(lines)


def _fish_table(table, quote):
    lines = []
    for chain, (commands, options) in table.items():
        at = quote(f"__safedel_at {quote(chain)}")
        for name, text in commands:
            lines.append(f"complete -c safedel -n {at} -f -a {quote(name)} -d {quote(text)}")
        for name, text, takes in options:
            flag = f"-l {quote(name[2:])}" if name.startswith("--") else f"-s {quote(name[1:])}"
            value = " -r" if takes else ""
            lines.append(f"complete -c safedel -n {at} {flag}{value} -d {quote(text)}")
    return "\n".join(lines)


def _powershell_table(table, quote):
    lines = []
    for chain, (commands, options) in table.items():
        entries = [f"{n}|ParameterValue|{t or n}" for n, t in commands]
        entries += [f"{n}|ParameterName|{t or n}" for n, t, _ in options]
        lines.append(f"        {quote(chain)} = @({', '.join(quote(e) for e in entries)})")
    return "\n".join(lines)


TABLES = {
    "bash": _bash_table,
    "zsh": _zsh_table,
    "fish": _fish_table,
    "powershell": _powershell_table,
}


def script(shell, table=None):
    table = tree() if table is None else table
    raw = {"TABLE": TABLES[shell](table, QUOTERS[shell])}
    if shell == "fish":
        raw["CHAINS"] = " ".join(QUOTERS["fish"](chain) for chain in table if chain)
    return render(shell, {}, raw, name=FILES[shell][0])


def write_all(directory):
    table = tree()
    os.makedirs(directory, exist_ok=True)
    for shell, (_, name) in FILES.items():
        encoding = "utf-8-sig" if shell == "powershell" else "utf-8"
        with open(os.path.join(directory, name), "w", encoding=encoding, newline="\n") as out:
            out.write(script(shell, table))


if __name__ == "__main__":
    write_all(sys.argv[1] if len(sys.argv) > 1 else "completions")
