"""The bootstrap in real interactive shells (bash, zsh, dash, busybox sh, fish) on a pty.

Each shell's rc file evaluates the bootstrap twice under strict mode, then the test types
command lines. The shim cache lives under a directory whose name has spaces, quotes and
a `$`, so every quoting path is exercised.
"""

import collections
import os
import shlex
import sys

import pytest
from conftest import last_markers, require
from ptyshell import Terminal

ODD_DIR = 'cache it\'s "odd" $HOME'
BOOTSTRAP = f"{shlex.quote(sys.executable)} -m safedel bootstrap"


class Shell:
    """How to start one shell interactively, and how to ask it things."""

    def __init__(self, name, argv, rc, status="$?"):
        self.name, self.argv, self.rc, self.status = name, argv, rc, status


def _posix_rc(shell, strict):
    line = f'eval "$({BOOTSTRAP} {shell})"\n'
    return f"set {strict}\n{line}{line}set +{strict[1:]}\n"


SHELLS = {
    "bash": Shell("bash", ["bash", "-i"], (".bashrc", _posix_rc("bash", "-euo pipefail"))),
    "zsh": Shell("zsh", ["zsh", "-i"], (".zshrc", _posix_rc("zsh", "-euo pipefail"))),
    "dash": Shell("sh", ["dash", "-i"], (".shrc", _posix_rc("sh", "-eu"))),
    "busybox": Shell("sh", ["busybox", "sh", "-i"], (".shrc", _posix_rc("sh", "-eu"))),
    "fish": Shell(
        "fish",
        ["fish", "-i"],
        (
            os.path.join(".config", "fish", "config.fish"),
            "set -g fish_greeting\n" + f"{BOOTSTRAP} fish | source\n" * 2,
        ),
        status="$status",
    ),
}


def start(sandbox, key, cache=ODD_DIR, **extra):
    """A terminal running the shell `key` with its rc; cache is the shim cache's dir."""
    shell = SHELLS[key]
    require(shell.argv[0])
    rc_name, rc_text = shell.rc
    rc_path = sandbox.home / rc_name
    rc_path.parent.mkdir(parents=True, exist_ok=True)
    rc_path.write_text(rc_text)
    env = sandbox.base_env(
        SAFEDEL_THRESHOLD="50",
        ENV=str(sandbox.home / ".shrc"),
        XDG_CACHE_HOME=str(sandbox.root / cache),
        TERM="dumb",
        PS1="$ ",
        **extra,
    )
    terminal = Terminal(shell.argv, env, str(sandbox.work), status=shell.status)
    status, shown = terminal.run("true")
    assert status == 0, shown
    return terminal


def make_files(sandbox, prefix, count):
    for index in range(count):
        (sandbox.work / f"{prefix}{index:02d}").write_text(prefix)


@pytest.mark.parametrize("key", list(SHELLS))
def test_each_command_line_is_its_own_turn(sandbox, key):
    require(os.path.join(sandbox.shim_home, "bin", "rm"))
    for prefix, count in (("a", 30), ("b", 30), ("c", 60)):
        make_files(sandbox, prefix, count)
    terminal = start(sandbox, key)
    try:
        first = terminal.run("rm a*")
        second = terminal.run("rm b*")
        refused = terminal.run("rm c*")
    finally:
        terminal.close()
    assert first[0] == 0, first[1]
    assert second[0] == 0, second[1]
    assert refused[0] == 1, refused[1]
    # A prompt drawn late can share the marker's screen line; the marker itself is whole.
    screen = refused[1].replace("[safe-delete]", "\n[safe-delete]")
    marker = last_markers(screen).get("SAFE_DELETE_BULK_CONFIRM_REQUIRED")
    assert marker, refused[1]
    assert marker["targetCount"] == 60 and marker["threshold"] == 50
    assert sorted(p.name for p in sandbox.work.iterdir()) == [f"c{i:02d}" for i in range(60)]
    assert len(sandbox.trashed_names()) == 60
    events = sandbox.report()
    turns = collections.Counter(e["turn"] for e in events if e["operation"] == "trash")
    assert sorted(turns.values()) == [30, 30], turns
    refused_turns = {e["turn"] for e in events if e["operation"] == "refuse"}
    assert len(refused_turns) == 1 and not refused_turns & set(turns)


HOOK_COUNT = {
    # PS0 from bash 4.4 on; PS1 before it (run by hand against an old bash).
    "bash": 'echo "${PS0-}$PS1" | grep -o __safedel_turn_step | wc -l',
    "zsh": "print -l $preexec_functions | grep -c __safedel_preexec",
    "dash": 'echo "$PS1" | grep -o __safedel_rotate_turn | wc -l',
    "busybox": 'echo "$PS1" | grep -o __safedel_rotate_turn | wc -l',
    "fish": "functions --handlers-type generic | grep -c __safedel_preexec",
}


@pytest.mark.parametrize("key", list(SHELLS))
def test_sourcing_twice_leaves_one_hook_and_one_path_entry(sandbox, key):
    terminal = start(sandbox, key)
    try:
        _, hooks = terminal.run(HOOK_COUNT[key] + " > hooks.txt")
        _, path = terminal.run("printenv PATH > path.txt")
        _, turns = terminal.run("printenv SAFEDEL_HOME > home.txt")
    finally:
        terminal.close()
    assert (sandbox.work / "hooks.txt").read_text().split() == ["1"], hooks
    home = (sandbox.work / "home.txt").read_text().strip()
    assert ODD_DIR in home
    entries = (sandbox.work / "path.txt").read_text().strip().split(os.pathsep)
    assert entries[0] == os.path.join(home, "bin")
    assert entries.count(entries[0]) == 1


@pytest.mark.parametrize("key", list(SHELLS))
def test_the_turn_changes_with_each_line_and_status_is_kept(sandbox, key):
    terminal = start(sandbox, key)
    turn = 'cat "$SAFEDEL_TURN_FILE"' if SHELLS[key].name == "sh" else "printenv SAFEDEL_TURN"
    if key == "fish":
        turn = "printenv SAFEDEL_TURN"
    try:
        terminal.run(f"{turn} > one.txt")
        terminal.run(f"{turn} > two.txt")
        status, shown = terminal.run("false", own_line=True)
    finally:
        terminal.close()
    one = (sandbox.work / "one.txt").read_text().strip()
    two = (sandbox.work / "two.txt").read_text().strip()
    assert one and two and one != two
    assert status == 1, shown


def test_zsh_keeps_its_own_zdotdir_and_hands_safedels_to_children(sandbox):
    terminal = start(sandbox, "zsh")
    try:
        # A later precmd hook sees what the shell itself uses between command lines.
        terminal.run("__t() { print -r -- ${ZDOTDIR-unset} > own.txt }; precmd_functions+=(__t)")
        terminal.run("zsh -c 'whence -w /bin/rm' > child.txt")
    finally:
        terminal.close()
    assert (sandbox.work / "own.txt").read_text() == "unset\n"
    assert (sandbox.work / "child.txt").read_text() == "/bin/rm: function\n"


@pytest.mark.parametrize("key", ["bash", "zsh"])
def test_bin_rm_typed_in_bash_and_zsh_goes_to_the_trash(sandbox, key):
    require(os.path.join(sandbox.shim_home, "bin", "rm"))
    (sandbox.work / "victim").write_text("keep me")
    terminal = start(sandbox, key)
    try:
        status, shown = terminal.run("/bin/rm victim")
    finally:
        terminal.close()
    assert status == 0, shown
    assert sandbox.trashed_names() == ["victim"]


@pytest.mark.parametrize("key", ["dash", "busybox"])
def test_a_child_sh_started_under_the_bootstrap_rotates_turns_too(sandbox, key):
    """The child reads $ENV (safedel's env.sh), which installs the same prompt hook."""
    terminal = start(sandbox, key)
    turn = 'cat "$SAFEDEL_TURN_FILE"'
    try:
        # Without the user's own $ENV to chain to, only env.sh can set up the child.
        terminal.run("unset SAFEDEL_USER_ENV")
        terminal.send(" ".join(SHELLS[key].argv) + "\n")
        terminal.run(f"{turn} > one.txt; echo $$ > child.txt")
        terminal.run(f"{turn} > two.txt")
        terminal.send("exit\n")
        terminal.run("echo $$ > parent.txt")
    finally:
        terminal.close()
    one = (sandbox.work / "one.txt").read_text().strip()
    two = (sandbox.work / "two.txt").read_text().strip()
    assert one and two and one != two
    child = (sandbox.work / "child.txt").read_text()
    assert child != (sandbox.work / "parent.txt").read_text()


@pytest.mark.parametrize("key", list(SHELLS))
def test_each_interactive_shell_is_its_own_session(sandbox, key):
    """A nested shell gets a session of its own; loading the bootstrap again keeps the
    shell's; one chosen by `safedel run --session` is kept."""
    terminal = start(sandbox, key)
    argv = " ".join(SHELLS[key].argv)
    rc = "~/" + SHELLS[key].rc[0]
    try:
        terminal.run("printenv SAFEDEL_SESSION > outer.txt")
        terminal.send(argv + "\n")
        terminal.run("printenv SAFEDEL_SESSION > inner.txt")
        terminal.send("exit\n")
        terminal.run(f"source {rc} || . {rc}" if key == "fish" else f". {rc}")
        terminal.run("printenv SAFEDEL_SESSION > reloaded.txt")
        terminal.send(f"{BOOTSTRAP.rsplit(' ', 1)[0]} run --session mine -- {argv}\n")
        terminal.run("printenv SAFEDEL_SESSION > chosen.txt")
    finally:
        terminal.close()
    outer, inner, reloaded, chosen = (
        (sandbox.work / f"{name}.txt").read_text().strip()
        for name in ("outer", "inner", "reloaded", "chosen")
    )
    assert outer.startswith("shell-") and inner.startswith("shell-")
    assert inner != outer and reloaded == outer
    assert chosen == "mine"
