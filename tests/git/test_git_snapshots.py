"""reset --hard, checkout, restore, switch, stash drop/clear and branch -D under
safedel: what they discard is saved first, and `safedel restore --turn` brings it back."""

import json
import os
import subprocess
import sys

import pytest
from gitrepo import git, git_env, real_git, write


def repo_with_work(sandbox):
    env = git_env(sandbox)
    repo = sandbox.work / "repo"
    repo.mkdir()
    git(repo, "init", "-q", "-b", "main", env=env)
    for name in ("a.txt", "b.txt", "c.txt"):
        write(repo / name, name.encode() + b" committed\n")
    git(repo, "add", "-A", env=env)
    git(repo, "commit", "-qm", "init", env=env)
    git(repo, "branch", "other", env=env)
    write(repo / "a.txt", b"a staged\n")
    write(repo / "added.txt", b"a new staged file\n")
    git(repo, "add", "a.txt", "added.txt", env=env)
    write(repo / "a.txt", b"a staged\na unstaged on top\n")
    write(repo / "b.txt", b"b unstaged\n")
    return repo, env


def state(repo, env):
    """Everything a user would call their uncommitted work, byte for byte."""
    files = {
        name: (repo / name).read_bytes() for name in sorted(os.listdir(repo)) if name != ".git"
    }
    staged = git(repo, "diff", "--cached", "--binary", env=env).stdout
    unstaged = git(repo, "diff", "--binary", env=env).stdout
    head = git(repo, "rev-parse", "HEAD", env=env).stdout
    return files, staged, unstaged, head


def shim_git(sandbox, repo, env, *args, turn):
    shim = sandbox.shim_env(turn=turn)
    shim.update({k: env[k] for k in env if k.startswith("GIT_")})
    return subprocess.run(["git", *args], cwd=repo, env=shim, capture_output=True)


def restore_turn(sandbox, turn, cwd):
    return subprocess.run(
        [sys.executable, "-m", "safedel", "restore", "--turn", turn, "--session", sandbox.session],
        cwd=cwd,
        env=sandbox.base_env(),
        capture_output=True,
    )


DISCARDING = [
    ["reset", "--hard"],
    ["checkout", "--", "."],
    ["checkout", "-f"],
    ["restore", "."],
    ["restore", "--staged", "--worktree", "."],
    ["switch", "-f", "other"],
]


@pytest.mark.parametrize("command", DISCARDING, ids=" ".join)
def test_discarded_changes_come_back_exactly(sandbox, command):
    repo, env = repo_with_work(sandbox)
    before = state(repo, env)
    if command[0] == "switch":
        git(repo, "switch", "-q", "main", env=env, check=False)
    done = shim_git(sandbox, repo, env, *command, turn="t-git")
    real = subprocess.run([real_git(), "--version"], capture_output=True)
    assert real.returncode == 0 and done.returncode == 0, done.stderr
    assert state(repo, env) != before, "the command discarded nothing"
    snapshots = [e for e in sandbox.report() if e["operation"] == "snapshot"]
    assert [s["kind"] for s in snapshots] == ["worktree"]
    assert snapshots[0]["ref"].startswith("refs/safedel/test-session/t-git/")
    if command[0] == "switch":
        git(repo, "switch", "-q", "main", env=env)
    git(repo, "gc", "-q", "--prune=now", env=env)
    restored = restore_turn(sandbox, "t-git", repo)
    assert restored.returncode == 0, restored.stderr
    assert state(repo, env) == before
    assert git(repo, "fsck", "--no-progress", env=env).returncode == 0


def test_a_clean_tree_saves_nothing(sandbox):
    repo, env = repo_with_work(sandbox)
    git(repo, "stash", "-q", env=env)
    git(repo, "stash", "drop", "-q", env=env)
    done = shim_git(sandbox, repo, env, "reset", "--hard", turn="t-clean")
    assert done.returncode == 0
    assert sandbox.report() == []
    assert git(repo, "for-each-ref", "refs/safedel", env=env).stdout == b""


def stash_list(repo, env):
    return git(repo, "log", "-g", "--format=%H %gs", "refs/stash", env=env, check=False).stdout


def test_stash_drop_and_clear_come_back(sandbox):
    repo, env = repo_with_work(sandbox)
    git(repo, "stash", "-q", env=env)
    write(repo / "c.txt", b"c second stash\n")
    git(repo, "stash", "push", "-q", "-m", "second", env=env)
    write(repo / "b.txt", b"b third stash\n")
    git(repo, "stash", "push", "-q", "-m", "third", env=env)
    before = stash_list(repo, env)
    assert len(before.splitlines()) == 3
    assert shim_git(sandbox, repo, env, "stash", "drop", "stash@{1}", turn="t-drop").returncode == 0
    assert len(stash_list(repo, env).splitlines()) == 2
    assert shim_git(sandbox, repo, env, "stash", "clear", turn="t-clear").returncode == 0
    assert stash_list(repo, env) == b""
    git(repo, "gc", "-q", "--prune=now", env=env)
    assert restore_turn(sandbox, "t-clear", repo).returncode == 0
    assert len(stash_list(repo, env).splitlines()) == 2
    assert restore_turn(sandbox, "t-drop", repo).returncode == 0
    assert sorted(stash_list(repo, env).splitlines()) == sorted(before.splitlines())


def test_branch_delete_comes_back(sandbox):
    repo, env = repo_with_work(sandbox)
    git(repo, "commit", "-qm", "work on main", env=env)
    git(repo, "switch", "-q", "-c", "feature", env=env)
    write(repo / "c.txt", b"feature only\n")
    git(repo, "commit", "-qam", "feature", env=env)
    tip = git(repo, "rev-parse", "feature", env=env).stdout.strip()
    git(repo, "switch", "-q", "main", env=env)
    done = shim_git(sandbox, repo, env, "branch", "-D", "feature", turn="t-branch")
    assert done.returncode == 0 and b"Deleted branch feature" in done.stdout
    git(repo, "reflog", "expire", "--expire=now", "--all", env=env)
    git(repo, "gc", "-q", "--prune=now", env=env)
    assert restore_turn(sandbox, "t-branch", repo).returncode == 0
    assert git(repo, "rev-parse", "feature", env=env).stdout.strip() == tip
    assert git(repo, "fsck", "--no-progress", env=env).returncode == 0


def test_pass_through_is_the_real_git(sandbox):
    repo, env = repo_with_work(sandbox)
    shim = sandbox.shim_env()
    shim.update({k: env[k] for k in env if k.startswith("GIT_")})
    for args in (["--version"], ["status", "--short"], ["log", "--oneline"], ["nosuchcmd"]):
        ours = subprocess.run(["git", *args], cwd=repo, env=shim, capture_output=True)
        real = subprocess.run([real_git(), *args], cwd=repo, env=env, capture_output=True)
        assert (ours.returncode, ours.stdout, ours.stderr) == (
            real.returncode,
            real.stdout,
            real.stderr,
        )
    assert sandbox.report() == []


def test_undo_refuses_to_overwrite_newer_edits(sandbox):
    repo, env = repo_with_work(sandbox)
    assert shim_git(sandbox, repo, env, "reset", "--hard", turn="t-again").returncode == 0
    write(repo / "a.txt", b"edited after the reset\n")
    after = state(repo, env)
    restored = restore_turn(sandbox, "t-again", repo)
    assert restored.returncode == 1
    assert b"a.txt changed again" in restored.stderr
    assert state(repo, env) == after


def test_list_git_shows_the_snapshots(sandbox):
    repo, env = repo_with_work(sandbox)
    assert shim_git(sandbox, repo, env, "reset", "--hard", turn="t-list").returncode == 0
    listed = subprocess.run(
        [sys.executable, "-m", "safedel", "list", "--git", "--json"],
        env=sandbox.base_env(),
        capture_output=True,
    )
    assert listed.returncode == 0, listed.stderr
    rows = json.loads(listed.stdout)
    assert [(r["kind"], r["turn"], r["kept"]) for r in rows] == [("worktree", "t-list", True)]
    assert rows[0]["command"] == ["git", "reset", "--hard"]
