"""Each wrapper keeps its original's contract, in every CPython here; the guard and the
exempt paths apply as they do for rm."""

import os
import time

from conftest import last_markers
from test_python_shim_common import (
    ALL_PYTHONS,
    assert_ok,
    run_script,
    trashed_paths,
)

# Runs under the shim; every check is an assert, so a clean exit means all held.
CONTRACT = r"""
import copy, errno, inspect, os, pathlib, pickle, posix, shutil, sys

class Str(str):
    pass

class Fake:
    def __init__(self, path):
        self.path = path
    def __fspath__(self):
        return self.path

def make(path):
    with open(path, "w") as handle:
        handle.write("data")

def raised(call, *args, **kwargs):
    try:
        call(*args, **kwargs)
    except OSError as exc:
        return exc
    raise AssertionError(f"{call.__name__}{args} did not raise")

# Identity: names, signatures, dir_fd support, and what shutil concludes from it.
for name in ("remove", "unlink", "rmdir"):
    shim, original = getattr(os, name), getattr(posix, name)
    assert shim is not original and shim.__wrapped__ is original, name
    assert (shim.__name__, shim.__qualname__, shim.__module__, shim.__doc__) == (
        original.__name__, original.__qualname__, original.__module__, original.__doc__)
    assert inspect.signature(shim) == inspect.signature(original), name
    assert pickle.loads(pickle.dumps(shim)) is shim and copy.deepcopy(shim) is shim
assert os.remove is not os.unlink
assert {os.unlink, os.rmdir} <= os.supports_dir_fd
assert not {posix.unlink, posix.rmdir} & os.supports_dir_fd
assert shutil._use_fd_functions and shutil.rmtree.avoids_symlink_attacks is True
original_rmtree = shutil.rmtree.__wrapped__
assert shutil.rmtree.__qualname__ == "rmtree" and shutil.rmtree.__module__ == "shutil"
assert (inspect.signature(shutil.rmtree, follow_wrapped=False)
        == inspect.signature(original_rmtree))
try:
    shutil.rmtree("x", bogus=1)
except TypeError as exc:
    assert str(exc) == "rmtree() got an unexpected keyword argument 'bogus'", exc
try:
    os.unlink("x", bogus=1)
except TypeError as exc:
    try:
        posix.unlink("x", bogus=1)
    except TypeError as native:
        assert str(exc) == str(native)

# Errors: same type, errno and filename as the builtins (a path-like's own str or
# bytes, as CPython gives it), nothing touched.
os.mkdir("dir"); make("file"); os.mkdir("full"); make("full/x"); os.symlink("dir", "link")
for path in ("dir", Str("dir"), b"dir", Fake("dir"), Fake(b"dir")):
    for call in (os.remove, os.unlink):
        exc = raised(call, path)
        assert type(exc) is IsADirectoryError and exc.filename is os.fspath(path), (call, path)
for call in (pathlib.Path("dir").unlink, pathlib.Path("file").rmdir):
    assert type(raised(call).filename) is str, call  # the string, never the PosixPath
cases = [
    (os.unlink, "file/", NotADirectoryError, errno.ENOTDIR),
    (os.unlink, "link/", NotADirectoryError, errno.ENOTDIR),
    (os.unlink, "missing", FileNotFoundError, errno.ENOENT),
    (os.unlink, "", FileNotFoundError, errno.ENOENT),
    (os.rmdir, "file", NotADirectoryError, errno.ENOTDIR),
    (os.rmdir, "link", NotADirectoryError, errno.ENOTDIR),
    (os.rmdir, "link/", NotADirectoryError, errno.ENOTDIR),
    (os.rmdir, Str("full"), OSError, errno.ENOTEMPTY),
    (os.rmdir, b"dir/.", OSError, errno.EINVAL),
    (os.rmdir, ".", OSError, errno.EINVAL),
    (os.rmdir, "dir/..", OSError, errno.ENOTEMPTY),
    (os.rmdir, Fake("missing"), FileNotFoundError, errno.ENOENT),
]
for call, path, kind, code in cases:
    exc = raised(call, path)
    assert type(exc) is kind and exc.errno == code, (call, path, exc)
    assert exc.filename is os.fspath(path), (call, path, exc)
for bad in ("nul\0byte", 42):
    for call in (os.unlink, os.rmdir):
        native = getattr(posix, call.__name__)
        try:
            call(bad)
        except (TypeError, ValueError) as exc:
            try:
                native(bad)
            except (TypeError, ValueError) as expected:
                assert (type(exc), str(exc)) == (type(expected), str(expected))
pathlib.Path("missing").unlink(missing_ok=True)
exc = raised(pathlib.Path("dir").unlink, missing_ok=True)
assert type(exc) is IsADirectoryError
assert sorted(os.listdir(".")) == ["dir", "file", "full", "link", "probe.py"]

# rmtree on what it refuses: the same calls to onerror/onexc as without the shim.
def calls_of(rmtree, path, **kwargs):
    seen = []
    rmtree(path, onerror=lambda *args: seen.append((args[0], args[1], type(args[2][1]))), **kwargs)
    return seen

for path in ("link", "file", "missing", b"file"):
    assert calls_of(shutil.rmtree, path) == calls_of(original_rmtree, path), path
assert calls_of(shutil.rmtree, "link")[0][0] is os.path.islink
assert [c[0] for c in calls_of(shutil.rmtree, "file")] == [os.scandir, os.rmdir]
exc = raised(shutil.rmtree, "link")
assert exc.args[0] == "Cannot call rmtree on a symbolic link" and os.path.isdir("link")
assert type(raised(shutil.rmtree, "file")) is NotADirectoryError
shutil.rmtree("missing", ignore_errors=True)
if sys.version_info >= (3, 12):
    seen = []
    shutil.rmtree("link", onexc=lambda *args: seen.append(args))
    assert seen[0][0] is os.path.islink and isinstance(seen[0][2], OSError)
assert sorted(os.listdir(".")) == ["dir", "file", "full", "link", "probe.py"]

# What is trashed: str subclass, bytes, PathLike; pathlib; dir_fd relative names.
make("t1"); os.remove(Str("t1"))
make("t2"); os.unlink(b"t2")
make("t3"); os.remove(Fake("t3"))
os.mkdir("t4"); os.rmdir(Fake(b"t4"))
os.makedirs("t5/a/b"); shutil.rmtree(b"t5")
os.makedirs("t6/a"); shutil.rmtree(Fake("t6"))
os.mkdir("t7"); pathlib.Path("t7").rmdir()
make("t8"); pathlib.Path("t8").unlink(missing_ok=True)
fd = os.open("full", os.O_RDONLY)
name = Str("nothere")
exc = raised(os.unlink, name, dir_fd=fd)
assert type(exc) is FileNotFoundError and exc.filename is name
os.unlink("x", dir_fd=fd)
os.close(fd)
os.rmdir("full")
print("contract held")
"""


@ALL_PYTHONS
def test_wrappers_keep_the_originals_contract(sandbox, python):
    done = assert_ok(run_script(sandbox, python, CONTRACT))
    assert done.stdout.strip() == "contract held"
    work = os.path.realpath(sandbox.work)
    names = ["t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8", "full/x", "full"]
    assert sorted(trashed_paths(sandbox)) == sorted(os.path.join(work, n) for n in names)
    assert sorted(os.listdir(sandbox.work)) == ["dir", "file", "link", "probe.py"]


REFUSED = """
    import errno, os, shutil, sys

    class Fake:
        def __fspath__(self):
            return "refused"

    for index in range(3):
        open(f"ok{index}", "w").close()
        os.remove(f"ok{index}")
    open("refused", "w").close()
    path = Fake()
    try:
        os.remove(path)
    except PermissionError as exc:
        assert exc.errno == errno.EPERM and exc.filename == "refused", exc
        print("refused:", exc.strerror)
    os.makedirs("tree/sub")
    seen = []
    shutil.rmtree("tree", onerror=lambda *args: seen.append(args))
    assert seen[0][0] is os.rmdir and seen[0][1] == "tree", seen
    assert type(seen[0][2][1]) is PermissionError and seen[0][2][1].errno == errno.EPERM
    shutil.rmtree("tree", ignore_errors=True)
    try:
        shutil.rmtree("tree")
    except PermissionError as exc:
        assert exc.filename == "tree"
        print("tree refused")
"""


@ALL_PYTHONS
def test_a_refusal_is_a_permission_error_with_the_marker(sandbox, python):
    env = sandbox.shim_env(threshold=3)
    # The script makes its own files; a turn said to start later counts them all, as if
    # they had been there before it (files the turn made are not counted).
    env["SAFEDEL_TURN_START"] = f"{time.time() + 3600}:{sandbox.turn}"
    done = assert_ok(run_script(sandbox, python, REFUSED, env=env))
    assert "refused: bulk guard" in done.stdout and "tree refused" in done.stdout
    marker = last_markers(done.stderr)["SAFE_DELETE_BULK_CONFIRM_REQUIRED"]
    assert marker["threshold"] == 3 and marker["count"] == 3 and marker["targetCount"] == 1
    assert (sandbox.work / "refused").exists() and (sandbox.work / "tree" / "sub").is_dir()
    assert len(trashed_paths(sandbox)) == 3
    refusals = [e for e in sandbox.report() if e["operation"] == "refuse"]
    assert {e["runtime"] for e in refusals} == {"python"}


@ALL_PYTHONS
def test_protected_paths_are_refused(sandbox, python):
    source = """
        import errno, os, shutil
        for call, path in ((shutil.rmtree, os.environ["HOME"]), (os.remove, "/bin")):
            try:
                call(path)
            except PermissionError as exc:
                assert exc.errno == errno.EPERM and exc.filename is path
                print("refused", path)
    """
    done = assert_ok(run_script(sandbox, python, source))
    assert done.stdout.count("refused") == 2 and os.path.isdir(sandbox.home)
    assert last_markers(done.stderr)["SAFE_DELETE_FAIL_CLOSED"]["path"] == "/bin"
    assert trashed_paths(sandbox) == {}


EXEMPT = """
    import os, shutil, sys
    base = os.path.join(os.environ["TMPDIR"], "many")
    os.mkdir(base)
    for index in range(2000):
        path = os.path.join(base, f"f{index}")
        open(path, "w").close()
        os.remove(path)
    os.makedirs(os.path.join(base, "tree", "sub"))
    shutil.rmtree(os.path.join(base, "tree"))
    os.rmdir(base)
    for index in range(50):
        open(f"w{index}", "w").close()
        os.remove(f"w{index}")
"""


@ALL_PYTHONS
def test_exempt_deletions_are_real_and_uncounted(sandbox, python):
    """2,000 deletions under $TMPDIR never trip a threshold of 50, and take nothing
    from the turn: the 50 deletions that follow in the work tree are all granted."""
    done = assert_ok(run_script(sandbox, python, EXEMPT, threshold=50))
    assert "[safe-delete]" not in done.stderr
    assert os.listdir(sandbox.tmpdir) == []
    assert len(sandbox.trashed_names()) == 50
    assert sorted(trashed_paths(sandbox)) == sorted(
        os.path.join(os.path.realpath(sandbox.work), f"w{i}") for i in range(50)
    )


@ALL_PYTHONS
def test_an_unusable_state_dir_refuses_cleanly(sandbox, python):
    """An unusable state dir is a guard error: PermissionError, nothing deleted."""
    blocker = sandbox.root / "not-a-dir"
    blocker.write_text("")
    source = """
        import errno, os
        open("victim", "w").close()
        try:
            os.remove("victim")
        except PermissionError as exc:
            assert exc.errno == errno.EPERM and exc.filename == "victim"
            print("refused")
    """
    env = sandbox.shim_env(SAFEDEL_STATE_DIR=blocker / "state")
    done = assert_ok(run_script(sandbox, python, source, env=env))
    assert done.stdout.strip() == "refused" and (sandbox.work / "victim").exists()
    assert "SAFE_DELETE_BULK_GUARD_ERROR" in last_markers(done.stderr)


LATE = """
    import os, pathlib, runpy, shutil, sys
    # Imported before the shim: pathlib (3.9, 3.10) and shutil hold os functions already.
    runpy.run_path(sys.argv[1])
    for name in ("late_file", "late_dir", "late_tree"):
        os.makedirs(name) if name != "late_file" else open(name, "w").close()
    pathlib.Path("late_file").unlink()
    pathlib.Path("late_dir").rmdir()
    shutil.rmtree("late_tree")
"""


@ALL_PYTHONS
def test_pathlib_and_shutil_imported_before_the_shim_are_covered(sandbox, python):
    sitecustomize = os.path.join(sandbox.shim_home, "python", "sitecustomize.py")
    assert_ok(run_script(sandbox, python, LATE, "-S", args=[sitecustomize]))
    work = os.path.realpath(sandbox.work)
    names = ("late_file", "late_dir", "late_tree")
    assert sorted(trashed_paths(sandbox)) == sorted(os.path.join(work, n) for n in names)


@ALL_PYTHONS
def test_a_dir_fd_whose_directory_cannot_be_named_fails_closed(sandbox, python):
    source = """
        import errno, os, posix
        os.mkdir("gone")
        fd = os.open("gone", os.O_RDONLY)
        posix.rmdir("gone")
        try:
            os.unlink("x", dir_fd=fd)
        except PermissionError as exc:
            assert exc.errno == errno.EPERM and exc.filename == "x"
            print("failed closed")
    """
    done = assert_ok(run_script(sandbox, python, source))
    assert done.stdout.strip() == "failed closed"
    assert "dir_fd" in last_markers(done.stderr)["SAFE_DELETE_FAIL_CLOSED"]["reason"]


@ALL_PYTHONS
def test_the_environment_is_read_at_call_time(sandbox, python):
    """A process that changes its environment is seen as it is now."""
    source = """
        import os
        for name in ("one", "two", "three"):
            open(name, "w").close()
        os.remove("one")
        os.environ["SAFEDEL_TURN"] = "turn-2"
        os.remove("two")
        os.environ["SAFEDEL_ACTIVE"] = "0"
        os.remove("three")
    """
    assert_ok(run_script(sandbox, python, source))
    work = os.path.realpath(sandbox.work)
    events = trashed_paths(sandbox)
    assert sorted(events) == [os.path.join(work, "one"), os.path.join(work, "two")]
    assert events[os.path.join(work, "two")]["turn"] == "turn-2"
    assert events[os.path.join(work, "one")]["turn"] == sandbox.turn
    assert not (sandbox.work / "three").exists()
