"""A caller in another mount namespace cannot pass a project off as the temp dir.

The path the net reads back from a caller's descriptor is spelled in the caller's own
mount namespace: a project bind-mounted under (or over) the temp dir there reads back
as a temp path. The net leaves a call to the kernel only when the directory the call
acts in is the very directory its reasoning names; otherwise the call is judged, and
the data ends up in the trash or stays in place with an error and a marker.
"""

import subprocess

import pytest
from conftest import last_markers, require
from mountns import require_root_mounts
from netkit import require_net


def _project(sandbox):
    proj = sandbox.work / "proj"
    (proj / "src").mkdir(parents=True)
    (proj / "src" / "main.c").write_text("int main(void) { return 0; }\n")
    (proj / "src" / "util.c").write_text("int util;\n")
    return proj


def _genuine_temp_file(sandbox):
    """A temp file one level down in the exempt temp dir: decided on the slow path."""
    scratch = sandbox.tmpdir / "cc-scratch"
    scratch.mkdir()
    (scratch / "t.o").write_text("obj")
    return scratch / "t.o"


def _in_namespace(sandbox, unshare, script, env=None):
    """script run by sh in a new mount namespace, under safedel run in the work tree."""
    return sandbox.run(unshare, "-m", "sh", "-c", script, env=env)


def _assert_nothing_destroyed(sandbox, proj, done):
    """Each file is in place (with an error and a marker) or in the trash, restorable."""
    kept = sorted(p.name for p in (proj / "src").glob("*.c")) if (proj / "src").is_dir() else []
    trashed = [name for name in sandbox.trashed_names() if name.endswith(".c")]
    assert sorted(kept + trashed) == ["main.c", "util.c"], (kept, trashed, done.stderr)
    if kept:
        assert done.returncode != 0, done.stderr
        # The net finds the path not its to reach; a shim that got there first (it
        # judges a mount inside the temp dir like any other path) asks the outside
        # question instead. Either way the file stays, and says so.
        markers = last_markers(done.stderr)
        closed = markers.get("SAFE_DELETE_FAIL_CLOSED")
        outside = markers.get("SAFE_DELETE_OUTSIDE_WORKSPACE")
        assert closed or outside, done.stderr
        if closed:
            assert closed["reason"] == "not visible", closed
        else:
            assert any(t.endswith(tuple(kept)) for t in outside["targets"]), outside
        assert (proj / "src" / kept[0]).read_text()
    for name in trashed:
        info = sandbox.trash / "info" / f"{name}.trashinfo"
        assert info.is_file(), name


@pytest.mark.parametrize("where", ["under", "over"])
def test_rm_r_of_a_project_bind_mounted_at_the_temp_dir_destroys_nothing(sandbox, where):
    require_net()
    unshare = require_root_mounts()
    proj = _project(sandbox)
    temp_file = _genuine_temp_file(sandbox)
    tmp = sandbox.tmpdir
    # "under": a fresh directory inside the temp dir; "over": the temp dir itself.
    point = tmp / "bw" if where == "under" else tmp
    script = (
        f"/usr/bin/rm -f {temp_file} && mkdir -p {point} && mount --bind {proj} {point}"
        f" && /usr/bin/rm -rv {point}/src; /usr/bin/rm -v {point}/top.txt"
    )
    (proj / "top.txt").write_text("top")
    done = _in_namespace(sandbox, unshare, script)
    _assert_nothing_destroyed(sandbox, proj, done)
    # Straight inside the bind mount: with "over", a call the fast path weighs (its
    # parent spelled as the temp root), which the root's own identity turns away.
    assert (proj / "top.txt").exists() or "top.txt" in sandbox.trashed_names()
    # The genuine temp file, deleted in the same mount namespace before the bind
    # mount, was left to the kernel: gone, and not in the trash.
    assert not temp_file.exists(), done.stderr
    assert "t.o" not in sandbox.trashed_names()


def test_find_delete_of_a_bind_mounted_project_destroys_nothing(sandbox):
    require_net()
    unshare = require_root_mounts()
    find = require("/usr/bin/find")
    proj = _project(sandbox)
    point = sandbox.tmpdir / "bw"
    script = f"mkdir -p {point} && mount --bind {proj} {point} && {find} {point}/src -delete"
    done = _in_namespace(sandbox, unshare, script)
    _assert_nothing_destroyed(sandbox, proj, done)


def test_python_without_its_shim_removing_through_a_bind_mount_destroys_nothing(sandbox):
    require_net()
    unshare = require_root_mounts()
    proj = _project(sandbox)
    point = sandbox.tmpdir / "bw"
    code = (
        "import os, sys\n"
        "status = 0\n"
        "for name in ('main.c', 'util.c'):\n"
        "    try:\n"
        f"        os.remove('{point}/src/' + name)\n"
        "    except OSError as exc:\n"
        "        print(exc, file=sys.stderr); status = 1\n"
        "sys.exit(status)\n"
    )
    script = f'mkdir -p {point} && mount --bind {proj} {point} && python3 -c "$CODE"'
    # A replaced PYTHONPATH (as pip's build isolation makes) drops the Python shim.
    env = sandbox.base_env(PYTHONPATH=str(sandbox.root / "isolated"), CODE=code)
    done = _in_namespace(sandbox, unshare, script, env=env)
    _assert_nothing_destroyed(sandbox, proj, done)


def test_temp_files_of_a_namespace_that_keeps_the_temp_dir_are_left_to_the_kernel(sandbox):
    require_net()
    unshare = require_root_mounts()
    temp_file = _genuine_temp_file(sandbox)
    straight = sandbox.tmpdir / "a.o"
    straight.write_text("obj")
    done = _in_namespace(sandbox, unshare, f"/usr/bin/rm {temp_file} {straight}")
    assert done.returncode == 0, done.stderr
    assert not temp_file.exists() and not straight.exists()
    assert sandbox.trashed_names() == []


def test_a_project_bind_mounted_in_an_ignored_build_tree_is_still_judged(sandbox):
    require_net()
    unshare = require_root_mounts()
    git = require("git")
    proj = _project(sandbox)
    repo = sandbox.work / "repo"
    (repo / "build").mkdir(parents=True)
    (repo / ".gitignore").write_text("build/\n")
    subprocess.run([git, "init", "-q", str(repo)], check=True, env=sandbox.base_env())
    point = repo / "build"
    script = f"mount --bind {proj} {point} && /usr/bin/rm -rv {point}/src"
    done = _in_namespace(sandbox, unshare, script)
    _assert_nothing_destroyed(sandbox, proj, done)
