"""What the net leaves to the kernel is only what nobody loses: ignored build trees in
a workspace git does not ignore, the calling git's own git dir and HEAD's content, and
safedel's own bookkeeping. User data under other ignore rules, nested repositories,
staged-only files, the trash's contents and the report are judged."""

import os
import subprocess

from netkit import require_net
from test_net_safety import GIT_ENV


def _git(sandbox, *args, cwd=None):
    done = subprocess.run(
        ["git", *args],
        cwd=cwd or sandbox.work,
        env=sandbox.base_env(**GIT_ENV),
        capture_output=True,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _commit_all(sandbox, cwd=None):
    _git(sandbox, "add", "-A", cwd=cwd)
    _git(sandbox, "commit", "-q", "-m", "c", cwd=cwd)


def _trashed_paths(sandbox):
    return sorted(e["path"] for e in sandbox.report() if e["operation"] == "trash")


def test_user_data_under_an_ignore_rule_is_trashed_but_build_trees_are_not(sandbox):
    require_net()
    work = sandbox.work
    _git(sandbox, "init", "-q")
    (work / ".gitignore").write_text("data/\nbuild/\n")
    (work / "data").mkdir()
    (work / "data" / "results.csv").write_text("ds")
    (work / "build").mkdir()
    (work / "build" / "app.o").write_text("obj")
    _commit_all(sandbox)
    done = sandbox.run("sh", "-c", "/bin/rm -rf data build")
    assert done.returncode == 0, done.stderr
    assert not (work / "data").exists() and not (work / "build").exists()
    assert "results.csv" in sandbox.trashed_names()
    assert "app.o" not in sandbox.trashed_names()


def test_a_home_kept_in_git_ignoring_everything_leaves_nothing_to_the_kernel(sandbox):
    require_net()
    home = sandbox.home
    _git(sandbox, "init", "-q", cwd=home)
    (home / ".gitignore").write_text("*\n")
    _git(sandbox, "add", "-f", ".gitignore", cwd=home)
    _git(sandbox, "commit", "-q", "-m", "dotfiles", cwd=home)
    proj = home / "proj"
    (proj / "src").mkdir(parents=True)
    (proj / "src" / "main.c").write_text("int main;")
    (proj / "README").write_text("readme")
    (proj / "build").mkdir()
    (proj / "build" / "x.o").write_text("obj")
    script = "/bin/rm -rf src build; python3 -I -c 'import os; os.remove(\"README\")'"
    env = sandbox.base_env(SAFEDEL_WORKSPACE=str(proj))
    done = sandbox.run("sh", "-c", script, cwd=proj, env=env)
    assert done.returncode == 0, done.stderr
    assert sorted(os.listdir(proj)) == []
    names = sandbox.trashed_names()
    assert {"main.c", "README", "x.o"} <= set(names), names


def test_git_clean_trashes_a_nested_repository_and_its_git_dir(sandbox):
    require_net()
    work = sandbox.work
    _git(sandbox, "init", "-q")
    (work / "top.txt").write_text("top")
    _commit_all(sandbox)
    lib = work / "lib"
    lib.mkdir()
    _git(sandbox, "init", "-q", cwd=lib)
    (lib / "only.txt").write_text("only in lib")
    _commit_all(sandbox, cwd=lib)
    commit = _git(sandbox, "rev-parse", "HEAD", cwd=lib).decode().strip()
    done = sandbox.run("sh", "-c", "/usr/bin/git clean -ffdxq", env=sandbox.base_env(**GIT_ENV))
    trashed = _trashed_paths(sandbox)
    assert any(p.endswith("/lib/only.txt") for p in trashed), (trashed, done.stderr)
    assert any("/lib/.git/" in p for p in trashed), trashed
    # Whatever git managed to delete went to the trash: the commit can be brought back.
    restored = subprocess.run(
        ["python3", "-m", "safedel", "restore", "--session", sandbox.session]
        + ["--turn", sandbox.turn],
        cwd=work,
        env=sandbox.base_env(),
        capture_output=True,
    )
    assert restored.returncode == 0, restored.stderr
    assert _git(sandbox, "cat-file", "-t", commit, cwd=lib) == b"commit\n"


def test_a_staged_only_file_removed_by_reset_hard_is_trashed(sandbox):
    require_net()
    work = sandbox.work
    _git(sandbox, "init", "-q")
    (work / "kept.txt").write_text("kept")
    _commit_all(sandbox)
    (work / "new.txt").write_text("new work")
    _git(sandbox, "add", "new.txt")
    (work / "kept.txt").unlink()  # deleted in the work tree: reset brings it back
    env = sandbox.base_env(**GIT_ENV)
    done = sandbox.run("sh", "-c", "/usr/bin/git reset -q --hard", env=env)
    assert done.returncode == 0, done.stderr
    assert not (work / "new.txt").exists()
    assert sandbox.trashed_names() == ["new.txt"]


def test_the_trash_contents_and_the_report_are_judged(sandbox):
    require_net()
    work = sandbox.work
    for name in ("a.txt", "b.txt"):
        (work / name).write_text(name)
    done = sandbox.run("sh", "-c", "/bin/rm a.txt b.txt")
    assert done.returncode == 0, done.stderr
    assert sandbox.trashed_names() == ["a.txt", "b.txt"]
    files = sandbox.trash / "files"
    done = sandbox.run("sh", "-c", f"/bin/rm -rf {files}/*")
    left = sorted(os.listdir(files)) if files.is_dir() else []
    assert any(n.startswith("a") for n in left) and any(n.startswith("b") for n in left), (
        left,
        done.stderr,
    )
    state_report = sandbox.state / "report.jsonl"
    env = sandbox.base_env(SAFEDEL_REPORT=str(state_report))
    (work / "c.txt").write_text("c")
    assert sandbox.run("sh", "-c", "/bin/rm c.txt", env=env).returncode == 0
    segment = sandbox.state / "report.jsonl.0001700000000000000000-42"
    segment.write_text("{}\n")
    ledger = sandbox.state / "scratch-file"
    ledger.write_text("safedel's own")
    script = f"/bin/rm {state_report} {segment} {ledger}"
    done = sandbox.run("sh", "-c", script, env=env)
    # The rest of the state directory is safedel's own: refused, whoever asks.
    assert ledger.read_text() == "safedel's own", done.stderr
    assert done.stderr.count(b"SAFE_DELETE_FAIL_CLOSED") == 1, done.stderr
    # The report and its segment are judged: outside the workspace, refused and kept.
    assert b"c.txt" in state_report.read_bytes(), done.stderr
    assert segment.read_text() == "{}\n"
    assert done.stderr.count(b"SAFE_DELETE_OUTSIDE_WORKSPACE") == 2, done.stderr


def test_git_in_a_linked_worktree_keeps_its_own_files_out_of_the_trash(sandbox):
    """A worktree's `.git` is a file naming its git dir, which names a common dir: both
    are the caller's own, and HEAD there is the worktree's."""
    require_net()
    work = sandbox.work
    _git(sandbox, "init", "-q", "-b", "main")
    (work / "a").write_text("a\n")
    _commit_all(sandbox)
    _git(sandbox, "checkout", "-q", "-b", "wide")
    (work / "many").mkdir()
    for index in range(20):
        (work / "many" / f"f{index}").write_text(f"{index}\n")
    _commit_all(sandbox)
    _git(sandbox, "checkout", "-q", "main")
    linked = sandbox.root / "linked"
    _git(sandbox, "worktree", "add", "-q", str(linked), "wide")
    env = sandbox.base_env(**GIT_ENV)
    script = "/usr/bin/git checkout -q -b other main && /usr/bin/git gc -q --prune=now"
    done = sandbox.run("sh", "-c", script, cwd=linked, env=env)
    assert done.returncode == 0, done.stderr
    assert not (linked / "many").exists()
    assert sandbox.trashed_names() == []
