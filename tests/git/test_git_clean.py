"""`git clean` under safedel: the same output, status and removals as the real git,
with everything it removes in the trash."""

import os
import subprocess

import pytest
from gitrepo import git, git_env, real_git, snapshot_tree, twins, write

COMBINATIONS = [
    ["-f"],
    ["-fd"],
    ["-fx"],
    ["-fX"],
    ["-fdX"],
    ["-fdx"],
    ["-ffdx"],
    ["-f", "-d", "-q"],
    ["--force", "-d", "--exclude=*.log"],
    ["-fd", "-e", "untracked"],
    ["-fdx", "--", "src", "untracked"],
    ["-fd", "src"],
    ["--for", "-dx", "--qu"],
]


def clean_both(sandbox, args, real, ours, global_args=(), cwd=None):
    env = git_env(sandbox)
    shim = sandbox.shim_env(threshold=99999)
    shim.update({k: env[k] for k in env if k.startswith("GIT_")})
    base = [*global_args, "clean", *args]
    real_run = subprocess.run([real_git(), *base], cwd=cwd or real, env=env, capture_output=True)
    ours_run = subprocess.run(["git", *base], cwd=cwd or ours, env=shim, capture_output=True)
    return real_run, ours_run


def trashed_tree(sandbox):
    """What the report says went to the trash, as paths relative to the work tree's
    twin, expanded to everything inside trashed directories."""
    found = set()
    for event in sandbox.report():
        if event["operation"] != "trash":
            continue
        source = os.fsencode(event["path"])
        found.add(source)
        for parent, dirs, files in os.walk(os.fsencode(event["trashPath"])):
            rel = os.path.relpath(parent, os.fsencode(event["trashPath"]))
            for name in dirs + files:
                found.add(os.path.normpath(os.path.join(source, rel, name)))
    return found


@pytest.mark.parametrize("args", COMBINATIONS, ids=" ".join)
def test_clean_matches_the_real_git_and_trashes_what_it_removes(sandbox, args):
    real, ours = twins(sandbox.work, git_env(sandbox))
    before = snapshot_tree(ours)
    real_run, ours_run = clean_both(sandbox, args, real, ours)
    assert (ours_run.returncode, ours_run.stdout, ours_run.stderr) == (
        real_run.returncode,
        real_run.stdout,
        real_run.stderr,
    )
    after_real, after_ours = snapshot_tree(real), snapshot_tree(ours)
    assert after_ours == after_real
    removed = {os.path.join(ours, rel) for rel in set(before) - set(after_ours)}
    assert removed, "the combination removed nothing, so it proves nothing"
    assert trashed_tree(sandbox) == removed
    for event in sandbox.report():
        assert event["runtime"] == "git"


def test_dry_run_and_missing_force_behave_as_git(sandbox):
    real, ours = twins(sandbox.work, git_env(sandbox))
    for args in (["-n", "-dx"], [], ["-d"]):
        real_run, ours_run = clean_both(sandbox, args, real, ours)
        assert (ours_run.returncode, ours_run.stdout, ours_run.stderr) == (
            real_run.returncode,
            real_run.stdout,
            real_run.stderr,
        )
    assert snapshot_tree(ours) == snapshot_tree(real)
    assert sandbox.report() == []


def test_require_force_off_still_trashes(sandbox):
    env = git_env(sandbox)
    real, ours = twins(sandbox.work, env)
    for repo in (real, ours):
        git(repo, "config", "clean.requireForce", "false", env=env)
    real_run, ours_run = clean_both(sandbox, ["-d"], real, ours)
    assert ours_run.stdout == real_run.stdout and ours_run.returncode == 0
    assert snapshot_tree(ours) == snapshot_tree(real)
    assert any(e["operation"] == "trash" for e in sandbox.report())


def test_interactive_clean_is_refused_and_says_how_to_run_it_unprotected(sandbox):
    _, ours = twins(sandbox.work, git_env(sandbox))
    before = snapshot_tree(ours)
    done = subprocess.run(
        ["git", "clean", "-i"], cwd=ours, env=sandbox.shim_env(), capture_output=True
    )
    assert done.returncode == 1
    assert b"clean -i" in done.stderr and b"unprotected on purpose" in done.stderr
    assert done.stderr.count(b"\n") == 1
    assert snapshot_tree(ours) == before


def test_alias_and_dash_c_reach_the_trash(sandbox):
    env = git_env(sandbox)
    real, ours = twins(sandbox.work, env)
    for repo in (real, ours):
        git(repo, "config", "alias.nuke", "clean -fdx", env=env)
    parent = os.path.dirname(ours)
    real_run, ours_run = clean_both(
        sandbox, [], real, ours, global_args=["-C", os.path.basename(real).decode()], cwd=parent
    )
    # `git -C real clean` vs `git -C ours clean`: not an alias yet, requireForce refuses.
    assert ours_run.returncode == real_run.returncode == 128
    shim = sandbox.shim_env(threshold=99999)
    shim.update({k: env[k] for k in env if k.startswith("GIT_")})
    real_run = subprocess.run(
        [real_git(), "-C", "real", "nuke"], cwd=parent, env=env, capture_output=True
    )
    ours_run = subprocess.run(
        ["git", "-C", "ours", "nuke"], cwd=parent, env=shim, capture_output=True
    )
    assert ours_run.stdout == real_run.stdout and ours_run.returncode == real_run.returncode == 0
    assert snapshot_tree(ours) == snapshot_tree(real)
    trashed = {os.fsencode(e["path"]) for e in sandbox.report() if e["operation"] == "trash"}
    assert os.path.join(ours, b"untracked") in trashed


def test_shell_alias_meets_the_rm_launcher(sandbox):
    env = git_env(sandbox)
    _, ours = twins(sandbox.work, env)
    git(ours, "config", "alias.zap", "!rm -f tracked.txt", env=env)
    shim = sandbox.shim_env()
    shim.update({k: env[k] for k in env if k.startswith("GIT_")})
    done = subprocess.run(["git", "zap"], cwd=ours, env=shim, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert [e["runtime"] for e in sandbox.report()] == ["rm"]


def test_the_bulk_guard_counts_clean_targets(sandbox):
    env = git_env(sandbox)
    _, ours = twins(sandbox.work, env)
    for i in range(8):
        write(os.path.join(ours, b"extra%d" % i))
    before = snapshot_tree(ours)
    shim = sandbox.shim_env(threshold=5)
    shim.update({k: env[k] for k in env if k.startswith("GIT_")})
    done = subprocess.run(["git", "clean", "-f"], cwd=ours, env=shim, capture_output=True)
    assert done.returncode == 1
    assert b"[safe-delete][SAFE_DELETE_BULK_CONFIRM_REQUIRED]" in done.stderr
    assert done.stdout == b""
    assert snapshot_tree(ours) == before
    assert {e["operation"] for e in sandbox.report()} == {"refuse"}


def test_a_clean_of_80_ignored_build_files_passes_the_guard(sandbox):
    env = git_env(sandbox)
    repo = sandbox.work / "proj"
    repo.mkdir()
    git(repo, "init", "-q", env=env)
    write(repo / ".gitignore", b"*.o\n")
    write(repo / "main.c", b"int main(void) { return 0; }\n")
    git(repo, "add", "-A", env=env)
    git(repo, "commit", "-qm", "init", env=env)
    for index in range(80):
        write(repo / f"obj{index:02d}.o", b"\x7fELF")
    done = sandbox.run("git", "clean", "-fX", cwd=repo, env=env)
    assert done.returncode == 0, done.stderr
    assert not any(name.endswith(".o") for name in os.listdir(repo))
    trashed = [e for e in sandbox.report() if e["operation"] == "trash"]
    assert len(trashed) == 80
    assert all(e.get("counted") is False and e.get("why") == "ignored" for e in trashed)
    assert [e for e in sandbox.report() if e["operation"] == "refuse"] == []
