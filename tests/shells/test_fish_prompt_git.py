"""fish: a git prompt reaches the real git straight, while commands typed on the line
still meet the git launcher (and its protections)."""

import os
import subprocess

from conftest import require
from rcshell import bootstrap, open_shell

# The prompt notes which git it would run, then runs fish's own git prompt.
CONFIG = """\
set -g fish_greeting
set -g __fish_git_prompt_showdirtystate 1
set -g __fish_git_prompt_showuntrackedfiles 1
function fish_prompt
    command -s git > ~/prompt-git.txt
    fish_git_prompt > /dev/null
    echo '$ '
end
"""


def git_work_tree(sandbox):
    git = require("git")
    identity = ["-c", "user.name=t", "-c", "user.email=t@example.invalid"]
    (sandbox.work / "tracked").write_text("one\n")
    for args in (["init", "-q"], ["add", "tracked"], ["commit", "-qm", "one"]):
        subprocess.run([git, *identity, *args], cwd=sandbox.work, check=True)
    (sandbox.work / "untracked").write_text("keep me\n")
    return git


def is_launcher(path):
    """The git launcher of a shim home (the bootstrap makes its own under the cache)."""
    return os.path.isdir(os.path.join(os.path.dirname(path), "..", "lib", "safedel_core"))


def in_home(sandbox, name):
    return (sandbox.home / name).read_text().strip()


def start(sandbox):
    files = {".config/fish/config.fish": CONFIG + bootstrap("fish")}
    return open_shell(sandbox, ["fish", "-i"], files)


def test_the_prompt_runs_the_real_git_and_typed_git_clean_is_still_trashed(sandbox):
    git = git_work_tree(sandbox)
    require(os.path.join(sandbox.shim_home, "bin", "git"))
    terminal = start(sandbox)
    try:
        # Written to HOME: git clean would take them from the work tree.
        terminal.run("cp ~/prompt-git.txt ~/prompt.txt")
        terminal.run("command -s git > ~/typed.txt; printenv PATH > ~/path.txt")
        status, shown = terminal.run("git clean -f -q")
    finally:
        terminal.close()
    prompt = in_home(sandbox, "prompt.txt")
    assert os.path.basename(prompt) == "git" and not is_launcher(prompt)
    assert os.path.realpath(prompt) == os.path.realpath(git)
    assert is_launcher(in_home(sandbox, "typed.txt"))
    assert os.path.dirname(prompt) not in in_home(sandbox, "path.txt").split(os.pathsep)
    assert status == 0, shown
    assert not (sandbox.work / "untracked").exists()
    assert sandbox.trashed_names() == ["untracked"]


def test_a_path_whose_git_changed_keeps_the_launcher_at_the_prompt(sandbox):
    """The link is used only while it names the git the launcher would run."""
    git_work_tree(sandbox)
    require(os.path.join(sandbox.shim_home, "bin", "git"))
    other = sandbox.root / "other-bin"
    other.mkdir()
    (other / "git").write_text(f'#!/bin/sh\nexec {require("git")} "$@"\n')
    (other / "git").chmod(0o755)
    terminal = start(sandbox)
    try:
        # Behind the launchers, in front of the git the bootstrap found.
        terminal.run(f"set -gx PATH $PATH[1] {other} $PATH[2..]")
        terminal.run("cp ~/prompt-git.txt ~/prompt.txt")
    finally:
        terminal.close()
    assert is_launcher(in_home(sandbox, "prompt.txt"))
