"""zsh rc files as users write them: nested shells, ZDOTDIR in ~/.zshenv, `source
~/.zshrc` at the prompt, and options that make a careless hook fail (NO_UNSET, ERR_EXIT)."""

import os
import shlex

import pytest
from conftest import require
from rcshell import SAFEDEL, bootstrap, enter, noise, open_shell, read, survives_errexit

ZSHRC = "unsetopt PROMPT_SP\nPS1='$ '\n"


def zsh_rc(before=""):
    return {".zshrc": ZSHRC + before + bootstrap("zsh")}


def make(sandbox, *names):
    for name in names:
        (sandbox.work / name).write_text(name)


@pytest.mark.parametrize(
    ("outer", "inner"),
    [("zsh", "zsh -i"), ("zsh", "exec zsh"), ("bash", "zsh -i"), ("fish", "zsh -i")],
)
def test_a_zsh_inside_a_bootstrapped_shell_keeps_bin_rm_covered(sandbox, outer, inner):
    """The user's .zshenv is read, and `/bin/rm`, typed or in `zsh -c`, trashes."""
    require(os.path.join(sandbox.shim_home, "bin", "rm"))
    files = zsh_rc("setopt NO_UNSET\n")
    files[".zshenv"] = "zshenv_read=yes\n"
    files[".bashrc"] = "PS1='$ '\n" + bootstrap("bash")
    files[".config/fish/config.fish"] = "set -g fish_greeting\n" + bootstrap("fish")
    make(sandbox, "typed", "by-c")
    terminal = open_shell(sandbox, [outer, "-i"], files)
    try:
        enter(terminal, inner)
        _, shown = terminal.run("print -r -- ${zshenv_read-no} > zshenv.txt")
        _, typed = terminal.run("/bin/rm typed")
        _, child = terminal.run("zsh -c '/bin/rm by-c'")
    finally:
        terminal.close()
    assert read(sandbox, "zshenv.txt") == "yes", shown
    assert sorted(sandbox.trashed_names()) == ["by-c", "typed"], typed + child
    assert "parameter not set" not in terminal.text()


def test_chained_dotfiles_leave_the_bootstraps_globals_alone(sandbox):
    """Under NO_UNSET a missing global would print an error at every line."""
    files = zsh_rc("setopt NO_UNSET\n")
    terminal = open_shell(sandbox, ["zsh", "-i"], files)
    try:
        enter(terminal, "zsh -i")
        _, first = terminal.run("true")
        _, second = terminal.run("zsh -c true")
    finally:
        terminal.close()
    assert noise(first + second, ("true", "zsh -c true")) == []


def test_source_zshrc_at_the_prompt_keeps_history_and_zcompdump_at_home(sandbox):
    before = (
        'HISTFILE="${ZDOTDIR:-$HOME}/.zsh_history"\n'
        "autoload -Uz compinit && compinit -u\n"
        'print -r -- "$HISTFILE" >> ~/histfile.txt\n'
    )
    terminal = open_shell(sandbox, ["zsh", "-i"], zsh_rc(before))
    try:
        terminal.run("source ~/.zshrc")
        terminal.run(". ~/.zshrc")
        terminal.run("print -r -- $HISTFILE > histfile-now.txt")
    finally:
        terminal.close()
    home = str(sandbox.home)
    histfiles = (sandbox.home / "histfile.txt").read_text().split("\n")[:-1]
    assert histfiles == [f"{home}/.zsh_history"] * 3
    assert read(sandbox, "histfile-now.txt") == f"{home}/.zsh_history"
    assert (sandbox.home / ".zcompdump").exists()
    cache = sandbox.root / 'cache it\'s "odd" $HOME'
    strays = [p for p in cache.rglob("*") if p.name.startswith((".zcompdump", ".zsh_history"))]
    assert strays == []


def test_a_zdotdir_set_in_zshenv_reaches_child_shells(sandbox):
    files = {
        ".zshenv": 'ZDOTDIR="$HOME/.config/zsh"\n',
        ".config/zsh/.zshrc": ZSHRC + "alias mine='print -r -- aliased'\n" + bootstrap("zsh"),
        ".zshrc": ZSHRC + "print -r -- wrong file > wrong.txt\n",
    }
    terminal = open_shell(sandbox, ["zsh", "-i"], files)
    try:
        enter(terminal, "zsh -i")
        terminal.run("mine > alias.txt")
        terminal.run("printenv SAFEDEL_USER_ZDOTDIR > user-zdotdir.txt")
    finally:
        terminal.close()
    assert read(sandbox, "alias.txt") == "aliased"
    assert read(sandbox, "user-zdotdir.txt") == f"{sandbox.home}/.config/zsh"
    assert not (sandbox.work / "wrong.txt").exists()


@pytest.mark.parametrize("option", ["ERR_EXIT", "ERR_RETURN"])
def test_errexit_in_zshrc_never_closes_the_shell(sandbox, option):
    survives_errexit(sandbox, ["zsh", "-i"], zsh_rc(f"setopt {option}\n"))


def test_the_user_shell_is_told_where_the_bootstrap_ran(sandbox):
    """`safedel env` cannot see a non-exported ZDOTDIR; the bootstrap can and passes it."""
    files = {
        ".zshenv": 'ZDOTDIR="$HOME/zdot"\n',
        "zdot/.zshrc": ZSHRC + bootstrap("zsh"),
    }
    terminal = open_shell(sandbox, ["zsh", "-i"], files)
    try:
        terminal.run(f"{SAFEDEL} env --json > env.json")
    finally:
        terminal.close()
    assert f'"SAFEDEL_USER_ZDOTDIR": "{sandbox.home}/zdot"' in read(sandbox, "env.json")


@pytest.mark.parametrize(
    "option", ["KSH_ARRAYS", "SH_WORD_SPLIT", "NO_UNSET", "WARN_CREATE_GLOBAL"]
)
def test_loading_twice_leaves_one_hook_whatever_the_options(sandbox, option):
    files = {".zshrc": ZSHRC + f"setopt {option}\n" + bootstrap("zsh") * 2}
    terminal = open_shell(sandbox, ["zsh", "-i"], files)
    try:
        for index in range(3):
            terminal.run(f"printenv SAFEDEL_TURN > turn{index}.txt")
        terminal.run("print -rl -- ${preexec_functions[@]} ${precmd_functions[@]} > hooks")
    finally:
        terminal.close()
    assert noise(terminal.text(), ("exit",)) == []
    numbers = [int(read(sandbox, f"turn{index}.txt").rsplit("-", 1)[-1]) for index in range(3)]
    assert [numbers[1] - numbers[0], numbers[2] - numbers[1]] == [1, 1], numbers
    assert sorted(read(sandbox, "hooks").split()) == ["__safedel_precmd", "__safedel_preexec"]


def test_a_zsh_in_a_tmux_pane_started_from_a_bootstrapped_zsh_keeps_bin_rm_covered(sandbox):
    """The tmux server keeps the environment of the command line that started it."""
    require("tmux")
    require(os.path.join(sandbox.shim_home, "bin", "rm"))
    make(sandbox, "in-pane")
    socket = f"safedel-test-{os.getpid()}"
    tmux = f"tmux -L {socket} -f /dev/null"
    # Typed at the pane's own prompt, as a user would, so the pane's hooks run.
    typed = f"zsh -c '/bin/rm in-pane'; tmux -L {socket} wait-for -S done"
    start = f"{tmux} new-session -d -x 200 -y 20 zsh -i"
    keys = f"{tmux} send-keys -t 0 {shlex.quote(typed)} Enter"
    terminal = open_shell(sandbox, ["zsh", "-i"], zsh_rc())
    try:
        status, shown = terminal.run(f"{start} && {keys} && {tmux} wait-for done")
    finally:
        terminal.run(f"tmux -L {socket} kill-server 2>/dev/null; true")
        terminal.close()
    assert status == 0, shown
    assert sandbox.trashed_names() == ["in-pane"]
