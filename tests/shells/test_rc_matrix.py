"""Every rc option a careless hook trips on, times every load order, times nesting.

One long-lived bootstrapped bash and one zsh each start every cell's shell inside
themselves (bash in bash, zsh in bash, bash in zsh, zsh in zsh), from an rc file that
sets the cell's options and loads the cell's prompt code before or after the bootstrap.
Each cell checks: nothing printed, `$?` and PIPESTATUS/pipestatus as the user's prompt
code sees them, Ctrl-C and `false && x` survived, one turn a line, /bin/rm trashed.
"""

import os
import re

import pytest
from conftest import require
from ptyshell import ANSI
from rcshell import bootstrap, interrupt, noise, open_shell

# The user's prompt code: records what it sees before drawing the prompt.
BASH_RECORDER = """\
__cell_pc() { __cell_seen="$? ${PIPESTATUS[*]}"; }
PROMPT_COMMAND='__cell_pc'
PS1='> '
"""
# bash-preexec's shape (a stand-in: it is not packaged by Debian, npm or PyPI): its
# own PROMPT_COMMAND entries around the user's, newline-separated, a DEBUG trap, and
# precmd_functions called with $? set back and PIPESTATUS kept in BP_PIPESTATUS.
BASH_PREEXEC = """\
__bp_set_ret_value() { return ${1:-0}; }
__bp_precmd_invoke_cmd() {
  __bp_last_ret_value=$? BP_PIPESTATUS=("${PIPESTATUS[@]}")
  local f
  for f in "${precmd_functions[@]}"; do
    __bp_set_ret_value "$__bp_last_ret_value"
    "$f"
  done
  __bp_preexec_interactive_mode=
}
__bp_interactive_mode() { __bp_preexec_interactive_mode=on; }
__bp_preexec_invoke_exec() {
  [ -n "${__bp_preexec_interactive_mode-}" ] || return 0
  __bp_preexec_interactive_mode=
  printf '%s\\n' "$BASH_COMMAND" >> preexec.log
}
precmd_functions=()
PROMPT_COMMAND="__bp_precmd_invoke_cmd"$'\\n'"${PROMPT_COMMAND:-}"$'\\n'"__bp_interactive_mode"
trap '__bp_preexec_invoke_exec "$_"' DEBUG
__cell_precmd() { __cell_seen="$? ${BP_PIPESTATUS[*]}"; }
precmd_functions+=(__cell_precmd)
"""
# The classic DEBUG-trap preexec recipe, which skips what PROMPT_COMMAND runs by
# comparing the strings.
BASH_DEBUG = (
    BASH_RECORDER
    + """\
__cell_debug() {
  [ "$BASH_COMMAND" = "$PROMPT_COMMAND" ] && return 0
  printf '%s\\n' "$BASH_COMMAND" >> preexec.log
}
trap '__cell_debug' DEBUG
"""
)
ZSH_RECORDER = """\
__cell_precmd() { __cell_seen="$? ${pipestatus[*]}" }
precmd_functions+=(__cell_precmd)
PS1='> '
"""
BASH_CELLS = [
    (options, code, order)
    for options in ("", "set -euo pipefail")
    for code in ("prompt", "bash-preexec", "debug-trap")
    for order in ("before", "after")
    # bash-preexec hands $? back with `return`, which closes a `set -e` shell by itself.
    if not (options and code == "bash-preexec")
]
ZSH_CELLS = [
    (options, "prompt", order)
    for options in ("", "ERR_EXIT", "NO_UNSET", "KSH_ARRAYS", "SH_WORD_SPLIT")
    for order in ("before", "after")
]
CODE = {"prompt": BASH_RECORDER, "bash-preexec": BASH_PREEXEC, "debug-trap": BASH_DEBUG}


def cell_rc(shell, options, code, order, where):
    if shell == "bash":
        head, user = "PS1='$ '\n" + (options + "\n" if options else ""), CODE[code]
    else:
        head = "unsetopt PROMPT_SP\nPS1='$ '\n" + (f"setopt {options}\n" if options else "")
        user = ZSH_RECORDER
    body = user + bootstrap(shell) if order == "before" else bootstrap(shell) + user
    return head + body + f"cd {where}\n"


def run_cell(terminal, sandbox, shell, cell, index):
    """Start the cell's shell inside the terminal's; return a list of what went wrong."""
    options, code, order = cell
    where = sandbox.work / f"cell{index}"
    where.mkdir()
    (where / "victim").write_text("keep me")
    rc = sandbox.home / f"cell{index}.rc"
    if shell == "bash":
        rc.write_text(cell_rc(shell, options, code, order, where))
        start = f"bash --rcfile {rc} -i"
    else:
        rc.mkdir()
        (rc / ".zshrc").write_text(cell_rc(shell, options, code, order, where))
        start = f"ZDOTDIR={rc} zsh -i"
    problems = []
    began = len(terminal.output)
    terminal.send(start + "\n")
    terminal.run("true")
    terminal.send("! false | true\n")
    terminal.run('echo "$__cell_seen" > seen')
    negated_ok = "1 0"
    strict = bool(options) and shell == "bash"
    status, _ = terminal.run("false && x", own_line=True)
    if status != 1:
        problems.append(f"$? after `false && x` is {status}")
    if not options:
        status, _ = terminal.run("(exit 3)", own_line=True)
        if status != 3:
            problems.append(f"$? after `(exit 3)` is {status}")
    interrupt(terminal)
    for turn in ("turn1", "turn2"):
        terminal.run(f"printenv SAFEDEL_TURN > {turn}")
    status, shown = terminal.run("/bin/rm victim")
    if status != 0:
        problems.append(f"/bin/rm: {shown}")
    typed = (start, "true", "! false | true", "false && x", "(exit 3)", "/bin/rm victim")
    printed = noise(ANSI.sub(b"", terminal.output[began:]).decode("utf-8", "replace"), typed)
    if printed:
        problems.append(f"printed {printed}")
    terminal.send("exit\n")
    status, _ = terminal.run("true")
    seen = (where / "seen").read_text().split()
    # `! false | true` ends with status 1 (0 under pipefail) and PIPESTATUS (1 0).
    expected = ["0" if strict else "1", *negated_ok.split()]
    if seen != expected:
        problems.append(f"prompt code saw $? and PIPESTATUS {seen}, not {expected}")
    turns = [(where / name).read_text().strip() for name in ("turn1", "turn2")]
    numbers = [int(re.split("-", turn)[-1]) for turn in turns]
    if numbers[1] - numbers[0] != 1:
        problems.append(f"turns {turns} are not one a line")
    if (where / "victim").exists():
        problems.append("/bin/rm deleted nothing")
    log = where / "preexec.log"
    if log.exists() and "__safedel" in log.read_text():
        problems.append(f"the preexec recipe saw the hook: {log.read_text()!r}")
    return problems


@pytest.mark.parametrize("outer", ["bash", "zsh"])
def test_rc_option_load_order_and_nesting_matrix(sandbox, outer):
    require("bash")
    require("zsh")
    require(os.path.join(sandbox.shim_home, "bin", "rm"))
    files = {
        ".bashrc": "PS1='$ '\n" + bootstrap("bash"),
        ".zshrc": "unsetopt PROMPT_SP\nPS1='$ '\n" + bootstrap("zsh"),
    }
    terminal = open_shell(sandbox, [outer, "-i"], files)
    cells = [("bash", cell) for cell in BASH_CELLS] + [("zsh", cell) for cell in ZSH_CELLS]
    failures = {}
    try:
        for index, (shell, cell) in enumerate(cells):
            problems = run_cell(terminal, sandbox, shell, cell, index)
            if problems:
                failures[f"{shell} in {outer}: {cell}"] = problems
    finally:
        terminal.close()
    assert failures == {}
    trashed = sandbox.trashed_names()
    assert len(trashed) == len(cells), trashed
