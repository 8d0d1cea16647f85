"""Where a bootstrapped shell hands over to another user or another PATH: `su` stays
quiet, and the two gaps in docs/coverage.md's table (`sudo rm`, `bash -l -c 'rm …'`)
really delete in an interactive shell, while `safedel run`'s net catches them."""

import os

import pytest
from conftest import IN_CI, require
from rcshell import bootstrap, open_shell, read

from safedel.net import kernel_supports

BASHRC = {".bashrc": "PS1='$ '\n" + bootstrap("bash")}


def root_only():
    if os.geteuid() != 0:
        pytest.skip("needs root, as CI has: the test switches to another user")


@pytest.mark.parametrize("shell", ["bash", "zsh", "dash"])
def test_su_to_another_user_is_quiet(sandbox, shell):
    """The other user cannot read the shim home (it is private, and so is root's home):
    the start-up files safedel chains are skipped without a word."""
    root_only()
    require("su")
    path = require(shell)
    terminal = open_shell(sandbox, ["bash", "-i"], BASHRC)
    try:
        su = f"su -s {path} nobody -c 'echo ok'"
        _, shown = terminal.run(f"(cd / && {su}) > out.txt 2> err.txt")
    finally:
        terminal.close()
    assert read(sandbox, "out.txt") == "ok", shown
    assert read(sandbox, "err.txt") == ""


@pytest.mark.parametrize(
    "command",
    ["sudo rm victim", "bash -l -c 'rm victim'"],
    ids=["sudo secure_path", "login bash resets PATH"],
)
def test_the_documented_gaps_really_delete(sandbox, command):
    """sudo's secure_path and Debian's /etc/profile both drop the shim directory from
    PATH; docs/coverage.md's table names both."""
    require(os.path.join(sandbox.shim_home, "bin", "rm"))
    if command.startswith("sudo"):
        root_only()
        require("sudo")
    (sandbox.work / "victim").write_text("gone for real")
    terminal = open_shell(sandbox, ["bash", "-i"], BASHRC)
    try:
        status, shown = terminal.run(command)
        terminal.run("printenv SAFEDEL_ACTIVE > active.txt")
    finally:
        terminal.close()
    assert status == 0, shown
    assert read(sandbox, "active.txt") == "1"
    assert not (sandbox.work / "victim").exists()
    assert sandbox.trashed_names() == []


def test_bin_rm_in_a_login_bash_is_still_covered(sandbox):
    """BASH_ENV is read after /etc/profile, so the /bin/rm function is defined there."""
    require(os.path.join(sandbox.shim_home, "bin", "rm"))
    (sandbox.work / "kept").write_text("keep me")
    terminal = open_shell(sandbox, ["bash", "-i"], BASHRC)
    try:
        status, shown = terminal.run("bash -l -c '/bin/rm kept'")
    finally:
        terminal.close()
    assert status == 0, shown
    assert sandbox.trashed_names() == ["kept"]


@pytest.mark.parametrize(
    "command",
    [["sudo", "rm", "victim"], ["bash", "-l", "-c", "rm victim"]],
    ids=["sudo secure_path", "login bash resets PATH"],
)
def test_under_safedel_run_the_net_catches_both_gaps(sandbox, command):
    """The interactive bootstrap has no net; `safedel run` has, below PATH."""
    ok, why = kernel_supports()
    if not ok:
        (pytest.fail if IN_CI else pytest.skip)(f"the net is required here: {why}")
    if command[0] == "sudo":
        root_only()
        require("sudo")
    (sandbox.work / "victim").write_text("keep me")
    done = sandbox.run(*command)
    assert done.returncode == 0, done.stderr
    assert sandbox.trashed_names() == ["victim"]
