"""Regenerable targets: created this turn, or ignored by git (git decides)."""

import os
import subprocess
import time

import pytest
from conftest import require

from safedel.core.contract import settings
from safedel.core.guard import ledger, regenerable


@pytest.fixture(autouse=True)
def fresh_cache():
    regenerable._ignored_dirs.clear()
    yield
    regenerable._ignored_dirs.clear()


# A turn that starts after the repository's rules were written.
LATER = time.time() + 3600


def git(repo, *args):
    subprocess.run([require("git"), "-C", str(repo), *args], check=True, capture_output=True)


@pytest.fixture
def repo(tmp_path):
    root = tmp_path / "repo"
    root.mkdir()
    git(root, "init", "-q")
    (root / ".gitignore").write_text("dist/\n*.log\n")
    for name in ("dist/a.js", "dist/b.js", "src/keep.c", "src/x.log", "forced/f.js"):
        (root / name).parent.mkdir(exist_ok=True)
        (root / name).write_text(name)
    (root / ".gitignore").write_text("dist/\n*.log\nforced/\n")
    git(root, "add", "src/keep.c")
    git(root, "add", "-f", "forced/f.js")
    (root / "forced" / "loose.js").write_text("x")
    return root


def test_git_decides_what_is_ignored(repo):
    targets = [str(repo / n) for n in ("dist/a.js", "src/x.log", "src/keep.c", "src/new.c")]
    targets += [str(repo / "dist"), str(repo / "forced"), str(repo / "forced" / "f.js")]
    targets.append(str(repo / "forced" / "loose.js"))
    found = regenerable.ignored(targets, since=LATER)
    loose = str(repo / "forced" / "loose.js")
    assert found == {str(repo / "dist/a.js"), str(repo / "src/x.log"), str(repo / "dist"), loose}
    # forced/ holds a force-added, tracked file: it is not regenerable as a whole, and
    # it is not remembered as ignored, so each file in it is put to git again.
    assert regenerable._ignored_dirs == {str(repo / "dist")}


def test_ignored_directories_are_remembered_per_process(repo, monkeypatch):
    regenerable.ignored([str(repo / "dist" / "a.js")], since=LATER)
    monkeypatch.setenv("PATH", "/nonexistent")  # no git any more: the cache answers
    other = str(repo / "dist" / "b.js")
    assert regenerable.ignored([other], since=LATER) == {other}
    assert regenerable.ignored([str(repo / "src" / "x.log")], since=LATER) == set()


def test_no_git_or_no_work_tree_means_not_ignored(repo, tmp_path, monkeypatch):
    outside = tmp_path / "plain"
    outside.mkdir()
    (outside / "a.log").write_text("x")
    assert regenerable.ignored([str(outside / "a.log")], since=LATER) == set()
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    assert regenerable.ignored([str(repo / "dist" / "a.js")], since=LATER) == set()


def test_a_broken_git_means_not_ignored(repo, tmp_path, monkeypatch):
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "git").write_text("#!/bin/sh\necho boom >&2\nexit 128\n")
    (fake / "git").chmod(0o755)
    monkeypatch.setenv("PATH", str(fake))
    assert regenerable.ignored([str(repo / "dist" / "a.js")], since=LATER) == set()


def conf(tmp_path, turn="T"):
    env = {"SAFEDEL_STATE_DIR": str(tmp_path / "state"), "SAFEDEL_SESSION": "S"}
    env["SAFEDEL_TURN"] = turn
    return settings.load(env), env


def test_created_this_turn_by_birth_time(tmp_path):
    old = tmp_path / "old"
    old.write_text("x")
    marker = tmp_path / "marker"
    marker.write_text("x")
    # The start on the clock files are stamped with: made after old, before new.
    start = regenerable.birth_or_change_time(str(marker))
    new = tmp_path / "new"
    new.write_text("x")
    assert regenerable.created_this_turn(str(new), start)
    assert not regenerable.created_this_turn(str(old), start + 1)
    assert not regenerable.created_this_turn(str(tmp_path / "missing"), start)
    assert not regenerable.created_this_turn(str(new), None)
    # A file made before the start and written to since is not new where the file
    # system keeps a birth time (ext4, tmpfs, btrfs, xfs do).
    before = regenerable.birth_or_change_time(str(old))
    old.write_text("changed")
    if os.lstat(old).st_ctime != regenerable.birth_or_change_time(str(old)):
        assert regenerable.birth_or_change_time(str(old)) == before


def test_turn_start_from_the_environment_else_the_ledger(tmp_path):
    current, env = conf(tmp_path)
    assert regenerable.turn_start(current, env) is None
    env[regenerable.START_VARIABLE] = "1234.5:T"
    assert regenerable.turn_start(current, env) == 1234.5
    assert regenerable.start_value("T").endswith(":T")
    # A turn file moved the turn on: the exported start belongs to another turn.
    moved, _ = conf(tmp_path, turn="T2")
    before = time.time()
    ledger.take(moved, 1)
    assert before - 0.01 <= regenerable.turn_start(moved, env) <= time.time()


def test_classify_names_why(repo, tmp_path):
    current, env = conf(tmp_path)
    # The turn starts surely after the rules were written: past the file clock's lag.
    time.sleep(0.05)
    (tmp_path / "marker").write_text("x")
    start = regenerable.birth_or_change_time(str(tmp_path / "marker"))
    env[regenerable.START_VARIABLE] = f"{start}:T"
    (repo / "src" / "made.c").write_text("x")
    targets = [str(repo / n) for n in ("src/made.c", "dist/a.js", "src/keep.c")]
    link = tmp_path / "via"
    link.symlink_to(repo)
    targets.append(str(link / "dist" / "b.js"))
    assert regenerable.classify(current, targets, env) == {
        targets[0]: regenerable.CREATED,
        targets[1]: regenerable.IGNORED,
        targets[3]: regenerable.IGNORED,
    }
