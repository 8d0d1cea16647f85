"""A rename that carries workspace data to where the net leaves deletions to the kernel
(the temp dir, an ignored build tree) is answered EXDEV, so the data is copied and its
originals' deletions are judged: `mv src /tmp/x && rm -rf /tmp/x` loses nothing.
Every other rename goes on untouched.
"""

import errno
import subprocess

from conftest import require
from netkit import require_net, snapshot, summary_free, without_safedel

# renameat2(AT_FDCWD, a, AT_FDCWD, b, flags) through libc, printing the errno (0: done).
RENAMEAT2 = (
    "import ctypes, sys; libc = ctypes.CDLL(None, use_errno=True);"
    " code = libc.renameat2(-100, sys.argv[1].encode(), -100, sys.argv[2].encode(),"
    " int(sys.argv[3])); print(0 if code == 0 else ctypes.get_errno())"
)


def _project(sandbox):
    git = require("git")
    subprocess.run([git, "init", "-q", str(sandbox.work)], check=True, env=sandbox.base_env())
    (sandbox.work / ".gitignore").write_text("build/\n")
    (sandbox.work / "notes.txt").write_text("notes")
    (sandbox.work / "src").mkdir()
    (sandbox.work / "src" / "a.c").write_text("int a;")
    (sandbox.work / "src" / "b.c").write_text("int b;")
    (sandbox.work / "build").mkdir()
    return sandbox.work


def test_moved_to_the_temp_dir_then_removed_is_in_the_trash(sandbox):
    require_net()
    _project(sandbox)
    away = sandbox.tmpdir / "away"
    script = f"mv notes.txt src {sandbox.tmpdir}/ && mkdir {away} && /bin/rm -rf {away}"
    script += f" && /bin/rm -rf {sandbox.tmpdir}/notes.txt {sandbox.tmpdir}/src"
    done = sandbox.run("dash", "-c", script)
    assert done.returncode == 0, done.stderr
    assert sorted(sandbox.trashed_names()) == ["a.c", "b.c", "notes.txt", "src"], done.stderr
    files = sandbox.trash / "files"
    assert (files / "notes.txt").read_text() == "notes"
    assert (files / "a.c").read_text() == "int a;"
    assert not (sandbox.work / "src").exists() and not (sandbox.tmpdir / "src").exists()


def test_moved_into_an_ignored_build_tree_then_removed_is_in_the_trash(sandbox):
    require_net()
    _project(sandbox)
    done = sandbox.run("dash", "-c", "mv src build/old && /bin/rm -rf build")
    assert done.returncode == 0, done.stderr
    # build/ itself is no entry of a build tree: judged (an empty directory, trashed).
    assert sorted(sandbox.trashed_names()) == ["a.c", "b.c", "build", "src"], done.stderr


def test_mv_says_and_returns_what_it_does_without_safedel(sandbox):
    require_net()
    work = _project(sandbox)
    argv = ["dash", "-c", f"mv notes.txt {sandbox.tmpdir}/n; echo $?"]
    plain = without_safedel(sandbox, argv, work)
    (sandbox.tmpdir / "n").rename(work / "notes.txt")
    netted = sandbox.run(*argv)
    assert (netted.stdout, summary_free(netted.stderr)) == (plain.stdout, plain.stderr)
    assert (sandbox.tmpdir / "n").read_text() == "notes"
    assert sandbox.trashed_names() == ["notes.txt"]  # the original, judged


def test_python_sees_exdev_and_shutil_move_copies(sandbox):
    require_net()
    work = _project(sandbox)
    code = (
        "import errno, os, shutil, sys\n"
        "try:\n    os.rename('notes.txt', sys.argv[1] + '/n')\n"
        "except OSError as exc:\n    print(errno.errorcode[exc.errno])\n"
        "shutil.move('src', sys.argv[1] + '/src')\n"
    )
    done = sandbox.run("python3", "-I", "-c", code, str(sandbox.tmpdir))
    assert done.returncode == 0, done.stderr
    assert done.stdout.decode().split() == [errno.errorcode[errno.EXDEV]]
    assert (work / "notes.txt").read_text() == "notes"
    assert snapshot(sandbox.tmpdir / "src") == {"a.c": b"int a;", "b.c": b"int b;"}
    assert sorted(sandbox.trashed_names()) == ["a.c", "b.c", "src"], done.stderr


def test_renames_that_carry_nothing_out_go_on(sandbox):
    require_net()
    work = _project(sandbox)
    (sandbox.tmpdir / "t1").write_text("t1")
    (work / "build" / "o1").write_text("o1")
    script = (
        f"mv {sandbox.tmpdir}/t1 {sandbox.tmpdir}/t2 && mv {sandbox.tmpdir}/t2 in.txt"
        " && mv notes.txt renamed.txt && mv src/a.c src/a2.c && mv build/o1 build/o2"
        " && mv build/o2 out.txt && mv renamed.txt notes.txt"
    )
    done = sandbox.run("dash", "-c", script)
    assert done.returncode == 0, done.stderr
    assert sandbox.trashed_names() == [], done.stderr
    assert (work / "in.txt").read_text() == "t1" and (work / "out.txt").read_text() == "o1"
    assert (work / "src" / "a2.c").exists() and (work / "notes.txt").exists()


def test_an_exchange_is_judged_both_ways(sandbox):
    require_net()
    work = _project(sandbox)
    (sandbox.tmpdir / "t").write_text("temp")
    (work / "build" / "o").write_text("out")
    pairs = [
        (str(work / "notes.txt"), str(sandbox.tmpdir / "t"), errno.EXDEV),
        (str(sandbox.tmpdir / "t"), str(work / "notes.txt"), errno.EXDEV),
        (str(sandbox.tmpdir / "t"), str(work / "build" / "o"), 0),
    ]
    for first, second, expected in pairs:
        done = sandbox.run("python3", "-I", "-c", RENAMEAT2, first, second, "2")
        assert done.stdout.decode().strip() == str(expected), (first, second, done.stderr)
    assert (work / "notes.txt").read_text() == "notes"
    assert (sandbox.tmpdir / "t").read_text() == "out"


def test_a_workspace_in_the_temp_dir_keeps_its_files_from_the_temp_dir(sandbox):
    require_net()
    git = require("git")
    proj = sandbox.tmpdir / "clone"
    proj.mkdir()
    subprocess.run([git, "init", "-q", str(proj)], check=True, env=sandbox.base_env())
    (proj / "keep.txt").write_text("keep")
    script = f"mv keep.txt {sandbox.tmpdir}/k && /bin/rm {sandbox.tmpdir}/k"
    done = sandbox.run("dash", "-c", script, cwd=proj)
    assert done.returncode == 0, done.stderr
    assert sandbox.trashed_names() == ["keep.txt"], done.stderr


def test_the_temp_folder_holding_a_workspace_is_not_a_temp_file(sandbox):
    require_net()
    git = require("git")
    holder = sandbox.tmpdir / "A"
    proj = holder / "proj"
    (proj / "src").mkdir(parents=True)
    subprocess.run([git, "init", "-q", str(proj)], check=True, env=sandbox.base_env())
    (proj / "src" / "a.c").write_text("int a;")
    script = f"mv {holder} {holder}.moved && /bin/rm -rf {holder}.moved"
    done = sandbox.run("dash", "-c", script, cwd=proj)
    assert done.returncode == 0, done.stderr
    assert "a.c" in sandbox.trashed_names(), done.stderr
    assert (sandbox.trash / "files" / "a.c").read_text() == "int a;"


def test_a_rename_that_makes_an_ignored_build_tree_is_judged(sandbox):
    require_net()
    work = _project(sandbox)
    (work / "build").rmdir()  # ignored, not made yet: src becomes it
    done = sandbox.run("dash", "-c", "mv src build && /bin/rm -rf build")
    assert done.returncode == 0, done.stderr
    assert {"a.c", "b.c"} <= set(sandbox.trashed_names()), done.stderr
