"""completions/: current with the CLI, and completing for real in bash, zsh and fish."""

import os
import re
import subprocess

import pytest
from conftest import REPO, require
from ptyshell import Terminal

from safedel import completions

DIR = os.path.join(REPO, "completions")
REGENERATE = "python -m safedel.completions completions"


@pytest.fixture(scope="module")
def table():
    return completions.tree()


@pytest.mark.parametrize("shell", list(completions.FILES))
def test_committed_completions_are_current(table, shell):
    path = os.path.join(DIR, completions.FILES[shell][1])
    with open(path, encoding="utf-8-sig") as handle:
        committed = handle.read()
    assert committed == completions.script(shell, table), f"stale: run `{REGENERATE}`"


def test_the_table_follows_the_app(table):
    commands = {name for name, _ in table[""][0]}
    assert {"run", "bootstrap", "env", "shims"} <= commands
    assert "trash" not in commands  # hidden: only the PowerShell prelude calls it
    run_options = {name: takes for name, _, takes in table["run"][1]}
    assert run_options["--turn"] is True and run_options["--no-exempt"] is False


BASH_CASES = [
    ("safedel bo", "bootstrap"),
    ("safedel run --tu", "--turn"),
    ("safedel run --turn ", ""),
    ("safedel run -- rm --he", ""),
]


@pytest.mark.parametrize(("line", "expected"), BASH_CASES)
def test_bash_completes_commands_and_options(line, expected):
    require("bash")
    words = line.split(" ")
    script = (
        f"source {DIR}/safedel.bash\n"
        f"COMP_WORDS=({' '.join(repr(w) for w in words)}); COMP_CWORD={len(words) - 1}\n"
        '__safedel_complete; echo "${COMPREPLY[*]}"\n'
    )
    done = subprocess.run(["bash", "--norc", "-c", script], capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (0, "")
    assert done.stdout.strip() == expected


@pytest.mark.parametrize(
    ("line", "expected"),
    [("safedel boo", "bootstrap"), ("safedel run --tu", "--turn")],
)
def test_fish_completes_commands_and_options(line, expected):
    require("fish")
    script = f"source {DIR}/safedel.fish; complete -C '{line}'"
    done = subprocess.run(["fish", "--no-config", "-c", script], capture_output=True, text=True)
    assert (done.returncode, done.stderr) == (0, "")
    offered = [row.split("\t")[0] for row in done.stdout.splitlines()]
    assert offered == [expected]


def test_fish_completes_nested_commands():
    require("fish")
    script = f"source {DIR}/safedel.fish; complete -C 'safedel guard '"
    done = subprocess.run(["fish", "--no-config", "-c", script], capture_output=True, text=True)
    offered = {row.split("\t")[0] for row in done.stdout.splitlines()}
    assert {"status", "approve", "reject", "reset", "signal"} <= offered
    assert "bootstrap" not in offered


def test_zsh_completes_on_tab(sandbox):
    require("zsh")
    (sandbox.home / ".zshrc").write_text(
        f"fpath=({DIR} $fpath)\nautoload -Uz compinit\ncompinit -u\n"
    )
    env = sandbox.base_env(TERM="xterm", PS1="$ ")
    terminal = Terminal(["zsh", "-i"], env, str(sandbox.work))
    try:
        terminal.run("true")
        terminal.send("safedel guard sta\t")
        terminal.expect(re.compile(rb"safedel guard status"), 60)
        terminal.send("\x15")  # clear the line again
        status, _ = terminal.run("true")
    finally:
        terminal.close()
    assert status == 0


def test_powershell_completion_parses():
    ts = pytest.importorskip("tree_sitter")
    tsp = pytest.importorskip("tree_sitter_powershell")
    with open(os.path.join(DIR, "safedel.ps1"), "rb") as handle:
        data = handle.read()
    assert data.startswith(b"\xef\xbb\xbf")
    root = ts.Parser(ts.Language(tsp.language())).parse(data[3:]).root_node
    stack, broken = [root], []
    while stack:
        node = stack.pop()
        broken += [node] if node.type == "ERROR" or node.is_missing else []
        stack += node.children
    assert broken == []
    assert b"'guard status' = @(" in data and b"Register-ArgumentCompleter -Native" in data
