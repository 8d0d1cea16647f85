"""bash and sh rc files as users write them: errexit, PIPESTATUS, DEBUG-trap recipes,
prompt code assigned after the bootstrap, loading twice, and ENV/BASH_ENV chaining."""

import os

import pytest
from conftest import require
from rcshell import (
    SAFEDEL,
    bootstrap,
    enter,
    environment,
    noise,
    open_shell,
    read,
    survives_errexit,
)

from safedel.executor import childenv as contract

BASHRC = "PS1='$ '\n"


def bash_rc(before="", after=""):
    return {".bashrc": BASHRC + before + bootstrap("bash") + after}


def turns(terminal, sandbox, lines=3):
    """SAFEDEL_TURN as each of several command lines saw it."""
    for index in range(lines):
        terminal.run(f"printenv SAFEDEL_TURN > turn{index}.txt")
    return [read(sandbox, f"turn{index}.txt") for index in range(lines)]


def assert_one_turn_a_line(seen):
    assert len(set(seen)) == len(seen), seen
    numbers = [int(turn.rsplit("-", 1)[-1]) for turn in seen]
    steps = [numbers[i + 1] - numbers[i] for i in range(len(numbers) - 1)]
    assert steps == [1] * (len(seen) - 1), seen


def test_errexit_in_bashrc_never_closes_the_shell(sandbox):
    survives_errexit(sandbox, ["bash", "-i"], bash_rc("set -euo pipefail\n"))


def test_prompt_code_loaded_before_sees_pipestatus(sandbox):
    before = "PROMPT_COMMAND='echo \"${PIPESTATUS[*]}\" > ~/pipestatus.txt'\n"
    terminal = open_shell(sandbox, ["bash", "-i"], bash_rc(before))
    try:
        # The prompt after the pipeline writes the file; the next line copies it.
        terminal.send("false | true\n")
        terminal.run("cp ~/pipestatus.txt seen.txt")
    finally:
        terminal.close()
    assert read(sandbox, "seen.txt") == "1 0"


# The classic preexec recipe: a DEBUG trap that skips what PROMPT_COMMAND runs by
# comparing the two strings, and logs the rest as the user's commands.
DEBUG_RECIPE = """\
__recipe() {
  [ -n "${COMP_LINE-}" ] && return
  [ "$BASH_COMMAND" = "$PROMPT_COMMAND" ] && return
  printf '%s\\n' "$BASH_COMMAND" >> ~/preexec.log
}
trap '__recipe' DEBUG
PROMPT_COMMAND='history -a'
"""


@pytest.mark.parametrize("order", ["recipe first", "bootstrap first"])
def test_the_debug_trap_recipe_never_sees_the_hook(sandbox, order):
    files = bash_rc(DEBUG_RECIPE) if order == "recipe first" else bash_rc(after=DEBUG_RECIPE)
    terminal = open_shell(sandbox, ["bash", "-i"], files)
    try:
        terminal.run("true")
        terminal.run(":")
    finally:
        terminal.close()
    logged = (sandbox.home / "preexec.log").read_text().splitlines()
    # From the first command line typed on: only what was typed, each once.
    typed = logged[logged.index("true") :]
    assert [line for line in typed if "__sd_" not in line] == ["true", "true", ":", "exit"], logged


@pytest.mark.parametrize(
    "after",
    ["PROMPT_COMMAND='true'\n", "PS1='> '\n", "PROMPT_COMMAND=(true)\n", "unset PROMPT_COMMAND\n"],
)
def test_prompt_code_assigned_after_the_bootstrap_keeps_turns_rotating(sandbox, after):
    terminal = open_shell(sandbox, ["bash", "-i"], bash_rc(after=after))
    try:
        seen = turns(terminal, sandbox)
    finally:
        terminal.close()
    assert_one_turn_a_line(seen)


# How bash-preexec installs itself: newline-separated PROMPT_COMMAND entries around the
# user's, and a DEBUG trap (a stand-in; bash-preexec is not packaged by Debian, npm or PyPI).
BASH_PREEXEC = """\
__bp_precmd_invoke_cmd() { :; }
__bp_interactive_mode() { :; }
__bp_preexec_invoke_exec() { :; }
PROMPT_COMMAND="__bp_precmd_invoke_cmd"$'\\n'"${PROMPT_COMMAND:-}"$'\\n'"__bp_interactive_mode"
trap '__bp_preexec_invoke_exec "$_"' DEBUG
"""


@pytest.mark.parametrize(
    "before",
    ["PROMPT_COMMAND=(true 'echo >/dev/null')\n", BASH_PREEXEC, "set -u\n"],
    ids=["array", "bash-preexec", "nounset"],
)
def test_loading_twice_leaves_one_hook(sandbox, before):
    files = bash_rc(before, after=bootstrap("bash"))
    terminal = open_shell(sandbox, ["bash", "-i"], files)
    try:
        seen = turns(terminal, sandbox)
        # PS0 from bash 4.4 on; PS1 before it (run by hand against an old bash).
        hooks = 'echo "${PS0-}$PS1" | grep -o __safedel_turn_step | wc -l > hooks'
        _, shown = terminal.run(hooks)
    finally:
        terminal.close()
    assert_one_turn_a_line(seen)
    assert read(sandbox, "hooks") == "1", shown


def test_without_prompt_expansion_a_prompt_command_entry_turns_instead(sandbox):
    """`shopt -u promptvars` (and bash before 4.4, which has no PS0): the fallback hook
    runs after the user's prompt code, so that code still sees PIPESTATUS."""
    before = "shopt -u promptvars\nPROMPT_COMMAND='echo \"${PIPESTATUS[*]}\" > ~/ps.txt'\n"
    terminal = open_shell(sandbox, ["bash", "-i"], bash_rc(before, after=bootstrap("bash")))
    try:
        seen = turns(terminal, sandbox)
        terminal.send("false | true\n")
        terminal.run("cp ~/ps.txt seen.txt")
        _, shown = terminal.run('echo "$PROMPT_COMMAND" | grep -c __safedel > hooks')
    finally:
        terminal.close()
    assert_one_turn_a_line(seen)
    assert read(sandbox, "seen.txt") == "1 0"
    assert read(sandbox, "hooks") == "1", shown


USER_ENV = {
    ".bash_env": "from_file=bash_env\nbash_env_fn() { echo bash_env_fn; }\n",
    ".shrc": "from_file=env\n",
}


@pytest.mark.parametrize("argv", [["bash", "--posix", "-i"], ["sh", "-i"]])
def test_posix_bash_reads_the_users_env_file_not_bash_env(sandbox, argv):
    """Started under safedel's environment, as a bootstrapped shell's children are."""
    if argv[0] == "sh":
        # bash run under the name sh.
        link = sandbox.root / "bin" / "sh"
        link.parent.mkdir()
        link.symlink_to(require("bash"))
        argv = [str(link), "-i"]
    base = environment(
        sandbox, BASH_ENV=str(sandbox.home / ".bash_env"), ENV=str(sandbox.home / ".shrc")
    )
    env = contract.child_environment(base, sandbox.shim_home, contract.RunOptions())
    terminal = open_shell(sandbox, argv, USER_ENV, env=env)
    try:
        terminal.run("echo $from_file > from.txt")
    finally:
        terminal.close()
    assert read(sandbox, "from.txt") == "env"


def test_a_literal_dollar_home_bash_env_is_expanded_as_bash_would(sandbox):
    terminal = open_shell(
        sandbox, ["bash", "-i"], {**bash_rc(), **USER_ENV}, BASH_ENV="$HOME/.bash_env"
    )
    try:
        _, shown = terminal.run("bash -c bash_env_fn > fn.txt 2> err.txt")
    finally:
        terminal.close()
    assert read(sandbox, "fn.txt") == "bash_env_fn", shown
    assert read(sandbox, "err.txt") == ""


def test_zsh_never_runs_the_sh_bootstrap_from_env(sandbox):
    """docs/shells.md puts the sh bootstrap in $ENV's file; zsh reads no $ENV."""
    files = {".shrc": "PS1='$ '\n" + bootstrap("sh")}
    terminal = open_shell(sandbox, ["dash", "-i"], files, ENV=str(sandbox.home / ".shrc"))
    try:
        loop = "i=0; while [ $i -lt 60 ]; do zsh -c true; i=$((i+1)); done"
        _, shown = terminal.run(f"{loop} > out.txt 2>&1")
    finally:
        terminal.close()
    assert read(sandbox, "out.txt") == "", shown
    assert len(os.listdir(sandbox.state / "shell-turns")) == 1


def test_errexit_in_an_sh_rc_and_the_bootstrap_stay_quiet(sandbox):
    files = {".shrc": "PS1='$ '\nset -eu\n" + bootstrap("sh")}
    terminal = open_shell(sandbox, ["dash", "-i"], files, ENV=str(sandbox.home / ".shrc"))
    try:
        anded, shown = terminal.run("false && x", own_line=True)
        enter(terminal, "dash -i")
        _, inner = terminal.run("true")
    finally:
        terminal.close()
    assert anded == 1, shown
    assert noise(inner, ("true",)) == []


@pytest.mark.parametrize("shell", ["dash", "busybox"])
def test_sh_bootstrap_in_profile_survives_ps1_set_in_the_env_file(sandbox, shell):
    """A login sh reads ~/.profile, then $ENV: safedel's env.sh runs the user's ENV
    file (which sets PS1) and then puts the turn hook back into PS1."""
    files = {".profile": bootstrap("sh"), ".shrc": "PS1='> '\n"}
    argv = ["dash", "-l", "-i"] if shell == "dash" else ["busybox", "sh", "-l", "-i"]
    terminal = open_shell(sandbox, argv, files, ENV=str(sandbox.home / ".shrc"))
    try:
        for index in range(3):
            terminal.run(f'cat "$SAFEDEL_TURN_FILE" > turn{index}.txt')
    finally:
        terminal.close()
    assert_one_turn_a_line([read(sandbox, f"turn{index}.txt") for index in range(3)])


def test_guard_status_says_when_both_old_bash_hooks_were_assigned_away(sandbox):
    """Without prompt expansion (as in bash before 4.4, whose PS1 hook a theme would
    replace too), PROMPT_COMMAND assigned after the line leaves no hook at all."""
    before = "shopt -u promptvars\n"
    files = bash_rc(before, after="PROMPT_COMMAND='true'\n")
    terminal = open_shell(sandbox, ["bash", "-i"], files)
    try:
        seen = turns(terminal, sandbox, lines=2)
        terminal.run(f"{SAFEDEL} guard status 2> warning.txt")
    finally:
        terminal.close()
    assert seen[0] == seen[1]
    assert read(sandbox, "warning.txt") == (
        "safedel guard: turns are not rotating in this shell: PROMPT_COMMAND and PS1 "
        "were replaced after the bootstrap; put the line last in your rc"
    )
