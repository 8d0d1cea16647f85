"""A mount inside the temp dir or an ignored build tree is judged like any other path.

The net leaves a call to the kernel for lying under an exempt root or inside an ignored
build tree only when its directory is on the root's (or the work tree's) own mount. A
bind mount of a project over `build/` or under the temp dir, made in safedel's own
mount namespace, before the run or during it, must not let its files be destroyed;
ordinary build trees and temp files are still left to the kernel.

Each test runs `safedel run` inside `unshare -m` (as root: CI runs as root), so the
mounts live and die with that namespace and safedel sees them as its command does.
"""

import subprocess

from conftest import last_markers, require
from mountns import run_in_namespace
from netkit import require_net


def _repo_with_build(sandbox):
    """A work tree whose build/ is ignored, with sources in src/ and outputs in build/."""
    git = require("git")
    repo = sandbox.work / "repo"
    for folder in ("src", "build/sub"):
        (repo / folder).mkdir(parents=True)
    (repo / ".gitignore").write_text("build/\n")
    subprocess.run([git, "init", "-q", str(repo)], check=True, env=sandbox.base_env())
    (repo / "src" / "a.c").write_text("int a;\n")
    (repo / "build" / "a.o").write_text("obj")
    (repo / "build" / "sub" / "b.o").write_text("obj")
    return repo


def _project(sandbox):
    proj = sandbox.work / "proj"
    proj.mkdir()
    (proj / "notes.txt").write_text("mine")
    return proj


def _assert_kept_or_trashed(sandbox, original, done):
    """original is in place (the call failed, with a marker) or in the trash."""
    if original.exists():
        assert original.read_text(), done.stderr
        assert done.returncode != 0, done.stderr
        found = last_markers(done.stderr)
        assert found, done.stderr  # refused or failed closed, and said so
    else:
        assert original.name in _everything_trashed(sandbox), done.stderr


def _everything_trashed(sandbox):
    names = set(sandbox.trashed_names())
    for trash in sandbox.root.rglob(".Trash-*/files"):
        names.update(p.name for p in trash.iterdir())
    return names


def test_a_bind_mount_over_an_ignored_build_tree_is_judged(sandbox):
    require_net()
    repo = _repo_with_build(sandbox)
    done = run_in_namespace(
        sandbox, f"mount --bind {repo}/src {repo}/build", "/usr/bin/rm build/a.c", cwd=repo
    )
    _assert_kept_or_trashed(sandbox, repo / "src" / "a.c", done)


def test_a_tmpfs_on_an_ignored_build_tree_is_judged(sandbox):
    # A cache volume looks no different from someone's data: it goes to the trash of
    # its own mount (which lives as long as the tmpfs: so the test looks from inside).
    require_net()
    repo = _repo_with_build(sandbox)
    setup = f"mount -t tmpfs safedel-test {repo}/build && echo v > {repo}/build/volume.bin"
    script = "/usr/bin/rm build/volume.bin && cat build/.Trash-*/files/volume.bin"
    done = run_in_namespace(sandbox, setup, script, cwd=repo)
    assert done.returncode == 0, done.stderr
    assert done.stdout == b"v\n", done.stderr
    trashed = [e for e in sandbox.report() if e["operation"] == "trash"]
    assert [(e["runtime"], e["path"]) for e in trashed] == [
        ("net", str(repo / "build" / "volume.bin"))
    ]


def test_a_bind_mount_under_the_temp_dir_is_judged(sandbox):
    require_net()
    proj = _project(sandbox)
    point = sandbox.tmpdir / "x"
    point.mkdir()
    done = run_in_namespace(
        sandbox, f"mount --bind {proj} {point}", f"/usr/bin/rm {point}/notes.txt"
    )
    _assert_kept_or_trashed(sandbox, proj / "notes.txt", done)


def test_a_mount_made_mid_run_where_a_call_was_left_to_the_kernel_is_judged(sandbox):
    require_net()
    repo = _repo_with_build(sandbox)
    proj = _project(sandbox)
    scratch = sandbox.tmpdir / "cc"
    scratch.mkdir()
    (scratch / "t.o").write_text("obj")
    (scratch / "u.o").write_text("obj")
    script = (
        # First the genuine files, decided and remembered for these directories...
        f"/usr/bin/rm build/a.o {scratch}/t.o"
        # ...then the same directories become someone's data.
        f" && mount --bind src build && mount --bind {proj} {scratch}"
        f"; /usr/bin/rm build/a.c; /usr/bin/rm {scratch}/notes.txt"
    )
    done = run_in_namespace(sandbox, "true", script, cwd=repo)
    assert not (repo / "build" / "a.o").exists() and not (scratch / "t.o").exists()
    assert {"a.o", "t.o"}.isdisjoint(_everything_trashed(sandbox)), done.stderr
    _assert_kept_or_trashed(sandbox, repo / "src" / "a.c", done)
    _assert_kept_or_trashed(sandbox, proj / "notes.txt", done)
    assert (scratch / "u.o").exists()  # under the bind mount: untouched


def test_a_project_mounted_over_the_temp_dir_or_the_work_tree_mid_run_is_judged(sandbox):
    # Over the roots themselves: the temp dir (its fast path goes by its identity) and
    # the work tree whose build/ git was already asked about.
    require_net()
    repo = _repo_with_build(sandbox)
    proj = _project(sandbox)
    other = sandbox.work / "other"
    (other / "build").mkdir(parents=True)
    (other / "build" / "keep.o").write_text("not mine to lose")
    tmp = sandbox.tmpdir
    (tmp / "cc").mkdir()
    (tmp / "cc" / "t.o").write_text("obj")
    script = (
        f"/usr/bin/rm {repo}/build/a.o {tmp}/cc/t.o"
        f" && mount --bind {proj} {tmp} && mount --bind {other} {repo}"
        f"; /usr/bin/rm {tmp}/notes.txt; /usr/bin/rm {repo}/build/keep.o"
    )
    done = run_in_namespace(sandbox, "true", script)
    assert {"a.o", "t.o"}.isdisjoint(_everything_trashed(sandbox)), done.stderr
    _assert_kept_or_trashed(sandbox, proj / "notes.txt", done)
    _assert_kept_or_trashed(sandbox, other / "build" / "keep.o", done)


def test_build_trees_and_temp_files_are_still_left_to_the_kernel(sandbox):
    require_net()
    repo = _repo_with_build(sandbox)
    deep = sandbox.tmpdir / "pytest-of-me" / "t1"
    deep.mkdir(parents=True)
    (deep / "f.txt").write_text("scratch")
    (sandbox.tmpdir / "cc1.o").write_text("obj")
    script = (
        f"/usr/bin/rm build/a.o build/sub/b.o && /usr/bin/rmdir build/sub"
        f" && /usr/bin/rm -r {deep} {sandbox.tmpdir}/cc1.o"
    )
    done = run_in_namespace(sandbox, "true", script, cwd=repo)
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (repo / "build").iterdir()) == []
    assert not deep.exists() and not (sandbox.tmpdir / "cc1.o").exists()
    assert _everything_trashed(sandbox) == set(), done.stderr
    assert [e for e in sandbox.report() if e["operation"] == "trash"] == []


def test_a_temp_dir_that_is_a_mount_itself_keeps_its_files_exempt(sandbox):
    # The exempt root's own mount (a tmpfs on /tmp, as many systems have) is no boundary.
    require_net()
    tmp = sandbox.tmpdir
    setup = f"mount -t tmpfs safedel-test {tmp} && mkdir {tmp}/d && echo x > {tmp}/d/f"
    script = f"/usr/bin/rm {tmp}/d/f && /usr/bin/rmdir {tmp}/d && test ! -e {tmp}/d"
    done = run_in_namespace(sandbox, setup, script)
    assert done.returncode == 0, done.stderr
    assert _everything_trashed(sandbox) == set(), done.stderr
