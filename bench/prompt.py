"""What the interactive bootstrap adds to each command line, in bash, zsh and fish.

Each shell runs on a pseudo-terminal twice, from an rc file that loads the bootstrap and
from one that does not. A round types a batch of empty commands (`:`) ahead, then a
line that prints a mark; the time to the mark over the lines typed is the time a line
takes, prompt hooks included. The difference between the two is the bootstrap's cost.
Prompts are fixed strings, except in one more fish: fish's own git prompt in a git work
tree, whose git calls would each start the git launcher if they went through PATH's.
"""

import os
import pty
import select
import shlex
import signal
import subprocess
import time

from . import rows
from .harness import PYTHON, Sandbox, WorkloadError, interleave, tool

SHELLS = ("bash", "zsh", "fish", "fish-git")
LINES = 50
NAMES = {"fish-git": "fish command line with a git prompt"}


def subject(shell, loaded):
    name = NAMES.get(shell, f"{shell} command line")
    return f"{name}, bootstrap {'loaded' if loaded else 'not loaded'}"


def git_work_tree(path):
    """A work tree with a commit, a change and an untracked file, so that the git prompt
    asks git everything it asks in a real project."""
    os.makedirs(path, exist_ok=True)
    git = ["git", "-C", path, "-c", "user.name=bench", "-c", "user.email=bench@example.invalid"]
    with open(os.path.join(path, "tracked"), "w", encoding="utf-8") as handle:
        handle.write("one\n")
    for args in (["init", "-q"], ["add", "tracked"], ["commit", "-qm", "one"]):
        subprocess.run([*git, *args], check=True)
    with open(os.path.join(path, "tracked"), "a", encoding="utf-8") as handle:
        handle.write("two\n")
    with open(os.path.join(path, "untracked"), "w", encoding="utf-8") as handle:
        handle.write("new\n")


def row_list():
    workload = "Interactive prompt, per command line"
    table = []
    for shell in SHELLS:
        table.append(
            rows.Row(
                workload, subject(shell, True), "per line", rows.plus(subject(shell, False), 0.002)
            )
        )
        table.append(
            rows.Row(workload, subject(shell, False), "per line", anchor_of=subject(shell, True))
        )
    return table


def rc_files(sandbox, shell, loaded):
    """(argv, environment) for the shell with or without the bootstrap in its rc."""
    bootstrap = f"{shlex.quote(PYTHON)} -m safedel bootstrap {shell}"
    where = os.path.join(sandbox.home, f"{shell}-{'loaded' if loaded else 'plain'}")
    os.makedirs(where, exist_ok=True)
    env = dict(sandbox.base_env(), TERM="dumb", PS1="$ ")
    if shell.startswith("fish"):
        # fish's default prompt runs git; a fixed one keeps the row about the hooks.
        fixed = "set -g fish_greeting\nfunction fish_prompt; echo '$ '; end\n"
        if shell == "fish-git":
            fixed = (
                "set -g fish_greeting\nset -g __fish_git_prompt_showdirtystate 1\n"
                "set -g __fish_git_prompt_showuntrackedfiles 1\n"
                "function fish_prompt; fish_git_prompt; echo '$ '; end\n"
            )
        text = fixed + (f"{bootstrap} | source\n" if loaded else "")
        os.makedirs(os.path.join(where, "fish"), exist_ok=True)
        name = os.path.join(where, "fish", "config.fish")
        env["XDG_CONFIG_HOME"] = where
        argv = [tool("fish"), "-i"]
    else:
        text = "PS1='$ '\n" + (f'eval "$({bootstrap})"\n' if loaded else "")
        name = os.path.join(where, ".zshrc" if shell == "zsh" else "bashrc")
        if shell == "zsh":
            env["ZDOTDIR"] = where
            argv = [tool("zsh"), "-i"]
        else:
            argv = [tool("bash"), "--rcfile", name, "-i"]
    with open(name, "w", encoding="utf-8") as handle:
        handle.write(text)
    return argv, env


class Pty:
    """A shell on a pseudo-terminal, fed batches of typed-ahead lines."""

    def __init__(self, argv, env, cwd):
        pid, fd = pty.fork()
        if pid == 0:
            try:
                os.chdir(cwd)
                os.execve(argv[0], argv, env)
            finally:
                os._exit(127)
        self.pid, self.fd, self.marks = pid, fd, 0
        self.batch(1)

    def batch(self, lines):
        """Seconds per line for lines of `:` then a mark line."""
        self.marks += 1
        mark = f"bench-mark-{self.marks}"
        # Quoted apart, so the terminal's echo of the typed line never matches.
        typed = ":\n" * lines + f'echo bench-mark""-{self.marks}\n'
        seen = b""
        start = time.perf_counter()
        os.write(self.fd, typed.encode())
        while mark.encode() not in seen:
            if not select.select([self.fd], [], [], 60)[0]:
                raise WorkloadError(f"no answer from the shell: {seen[-200:]!r}")
            try:
                chunk = os.read(self.fd, 65536)
            except OSError:
                chunk = b""
            if not chunk:
                raise WorkloadError(f"the shell ended: {seen[-200:]!r}")
            seen += chunk
        return (time.perf_counter() - start) / (lines + 1)

    def close(self):
        os.kill(self.pid, signal.SIGHUP)
        os.waitpid(self.pid, 0)
        os.close(self.fd)


def run(profile, root, shim_home):
    sandbox = Sandbox(root, "prompt", shim_home)
    terminals = {}
    missing = {}
    try:
        for shell in SHELLS:
            for loaded in (True, False):
                name = subject(shell, loaded)
                program = shell.split("-")[0]
                if tool(program) is None:
                    missing[name] = f"{program} is not installed"
                    continue
                argv, env = rc_files(sandbox, shell, loaded)
                cwd = sandbox.work
                if shell == "fish-git":
                    cwd = os.path.join(sandbox.work, "repo")
                    if not os.path.isdir(cwd):
                        git_work_tree(cwd)
                terminals[name] = Pty(argv, env, cwd)
        timers = {
            name: (lambda terminal=terminal: terminal.batch(LINES))
            for name, terminal in terminals.items()
        }
        results = interleave(timers, profile.startup_rounds, profile.warmup)
        return rows.fill(row_list(), results, missing)
    finally:
        for terminal in terminals.values():
            terminal.close()
        sandbox.close()
