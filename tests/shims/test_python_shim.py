"""The Python shim in real interpreters: every patched API trashes, in every CPython here.

Debian's /usr/bin/python3 has no safedel installed: the shim must work from the shim
home alone, without putting safedel (or its engine) on sys.path.
"""

import json
import os

from test_python_shim_common import (
    ALL_PYTHONS,
    SYSTEM_PYTHON,
    assert_ok,
    in_trash,
    run_script,
    trashed_paths,
)

EVERY_API = """
    import importlib.util, json, os, pathlib, shutil, sys

    def make(path):
        with open(path, "w") as handle:
            handle.write("data")

    make("f_remove"); os.remove("f_remove")
    make("f_unlink"); os.unlink("f_unlink")
    os.mkdir("d_rmdir"); os.rmdir("d_rmdir")
    os.makedirs("t_rmtree/sub"); make("t_rmtree/sub/x"); shutil.rmtree("t_rmtree")
    os.makedirs("rd_top/rd_leaf"); os.removedirs("rd_top/rd_leaf")
    make("p_unlink"); pathlib.Path("p_unlink").unlink()
    os.mkdir("p_rmdir"); pathlib.Path("p_rmdir").rmdir()
    os.makedirs("fd_dir/fd_sub"); make("fd_dir/fd_file"); os.makedirs("fd_dir/fd_tree/x")
    fd = os.open("fd_dir", os.O_RDONLY)
    os.unlink("fd_file", dir_fd=fd)
    os.rmdir("fd_sub", dir_fd=fd)
    if sys.version_info >= (3, 11):
        shutil.rmtree("fd_tree", dir_fd=fd)
    os.close(fd)
    lib = os.path.join(os.environ["SAFEDEL_HOME"], "lib")
    print(json.dumps({
        "left": sorted(os.listdir(".")),
        "left_in_fd_dir": sorted(os.listdir("fd_dir")),
        "version": list(sys.version_info[:2]),
        "safedel_importable": importlib.util.find_spec("safedel") is not None,
        "engine_importable": importlib.util.find_spec("safedel_core") is not None,
        "lib_on_path": any(os.path.abspath(p).startswith(lib) for p in sys.path),
    }))
"""


@ALL_PYTHONS
def test_every_patched_api_trashes(sandbox, python):
    done = assert_ok(run_script(sandbox, python, EVERY_API))
    facts = json.loads(done.stdout)
    assert facts["engine_importable"] is False and facts["lib_on_path"] is False
    if python == SYSTEM_PYTHON:
        assert facts["safedel_importable"] is False  # a foreign interpreter
    assert facts["left"] == ["fd_dir", "probe.py"]
    work = os.path.realpath(sandbox.work)
    expected = ["f_remove", "f_unlink", "d_rmdir", "t_rmtree", "rd_top/rd_leaf", "rd_top"]
    expected += ["p_unlink", "p_rmdir", "fd_dir/fd_file", "fd_dir/fd_sub"]
    if tuple(facts["version"]) >= (3, 11):
        expected.append("fd_dir/fd_tree")
    assert facts["left_in_fd_dir"] == ([] if "fd_dir/fd_tree" in expected else ["fd_tree"])
    events = trashed_paths(sandbox)
    assert sorted(events) == sorted(os.path.join(work, name) for name in expected)
    for event in events.values():
        assert in_trash(sandbox, event), event
        assert event["session"] == sandbox.session and event["turn"] == sandbox.turn
    tree = events[os.path.join(work, "t_rmtree")]
    assert tree["kind"] == "dir"  # one rename: the whole tree, contents and all
    with open(os.path.join(tree["trashPath"], "sub", "x")) as handle:
        assert handle.read() == "data"
    assert "safedel: warning" not in done.stderr


PROBE_STATE = """
import json, os, posix, shutil, sys
print(json.dumps({
    "remove_is_builtin": os.remove is posix.remove and os.unlink is posix.unlink,
    "rmdir_is_builtin": os.rmdir is posix.rmdir,
    "rmtree_plain": not hasattr(shutil.rmtree, "__wrapped__"),
    "engine_loaded": any(name.startswith("_safedel") for name in sys.modules),
    "meta_path": [repr(finder) for finder in sys.meta_path],
    "sitecustomize": getattr(sys.modules.get("sitecustomize"), "__file__", None),
}))
"""


@ALL_PYTHONS
def test_inert_when_safedel_active_is_unset(sandbox, python):
    env = sandbox.shim_env()
    del env["SAFEDEL_ACTIVE"]
    assert env["PYTHONPATH"].startswith(os.path.join(sandbox.shim_home, "python"))
    (sandbox.work / "victim").write_text("x")
    source = "import os\nos.remove('victim')\n" + PROBE_STATE
    facts = json.loads(assert_ok(run_script(sandbox, python, source, env=env)).stdout)
    assert facts["remove_is_builtin"] and facts["rmdir_is_builtin"] and facts["rmtree_plain"]
    assert not facts["engine_loaded"]
    assert not any("pyshim" in finder for finder in facts["meta_path"])
    assert not (sandbox.work / "victim").exists() and trashed_paths(sandbox) == {}


def test_debian_sitecustomize_still_runs_once(sandbox):
    """Ours hides Debian's /usr/lib/python3.11/sitecustomize.py; it must still run."""
    for active in (True, False):
        env = sandbox.shim_env()
        if not active:
            del env["SAFEDEL_ACTIVE"]
        done = assert_ok(run_script(sandbox, SYSTEM_PYTHON, PROBE_STATE, env=env))
        facts = json.loads(done.stdout)
        assert os.path.realpath(facts["sitecustomize"]) == os.path.realpath(
            "/usr/lib/python3.11/sitecustomize.py"
        )
        assert facts["remove_is_builtin"] is not active


@ALL_PYTHONS
def test_a_later_sitecustomize_on_pythonpath_runs_exactly_once(sandbox, python):
    users = sandbox.root / "user-site"
    users.mkdir()
    (users / "sitecustomize.py").write_text(
        "import os\nwith open(os.environ['COUNT_FILE'], 'a') as f:\n    f.write('ran\\n')\n"
    )
    count_file = sandbox.root / "count"
    env = sandbox.shim_env(COUNT_FILE=count_file)
    env["PYTHONPATH"] += os.pathsep + str(users)
    facts = json.loads(assert_ok(run_script(sandbox, python, PROBE_STATE, env=env)).stdout)
    assert count_file.read_text() == "ran\n"
    assert facts["sitecustomize"] == str(users / "sitecustomize.py")
    assert not facts["remove_is_builtin"]


def test_a_shim_that_cannot_load_warns_once_and_leaves_deletion_alone(sandbox):
    """Fail-open on load: a broken Python would be worse than an unprotected one."""
    broken_home = sandbox.root / "broken-home"
    (broken_home / "python").mkdir(parents=True)
    source = os.path.join(sandbox.shim_home, "python", "sitecustomize.py")
    with open(source) as handle:
        (broken_home / "python" / "sitecustomize.py").write_text(handle.read())
    env = sandbox.shim_env()
    env["PYTHONPATH"] = str(broken_home / "python")
    (sandbox.work / "victim").write_text("x")
    source = "import os\nos.remove('victim')\n" + PROBE_STATE
    done = assert_ok(run_script(sandbox, SYSTEM_PYTHON, source, env=env))
    assert done.stderr.count("safedel: warning: the Python shim did not load") == 1
    assert json.loads(done.stdout)["remove_is_builtin"]
    assert not (sandbox.work / "victim").exists() and trashed_paths(sandbox) == {}


CHILDREN = """
    import multiprocessing, os, subprocess, sys

    def main():
        for name in ("by_subprocess", "by_spawn", "by_spawn_target", "by_execv"):
            open(name, "w").close()
        subprocess.run([sys.executable, "-c", "import os; os.remove('by_subprocess')"], check=True)
        spawn = multiprocessing.get_context("spawn")
        child = spawn.Process(target=remove, args=("by_spawn",))
        child.start(); child.join()
        child = spawn.Process(target=os.remove, args=("by_spawn_target",))
        child.start(); child.join()
        os.execv(sys.executable, [sys.executable, "-c", "import os; os.remove('by_execv')"])

    def remove(path):
        os.remove(path)

    if __name__ == "__main__":
        main()
"""


def test_subprocess_spawn_and_execv_children_stay_protected(sandbox):
    assert_ok(run_script(sandbox, SYSTEM_PYTHON, CHILDREN))
    work = os.path.realpath(sandbox.work)
    events = trashed_paths(sandbox)
    names = ["by_subprocess", "by_spawn", "by_spawn_target", "by_execv"]
    assert sorted(events) == sorted(os.path.join(work, n) for n in names)
    assert len({e["pid"] for e in events.values()}) >= 3  # each child trashed its own


def test_a_child_given_an_empty_environment_loses_the_shim(sandbox):
    """env={} is the caller's choice: documented in docs/coverage.md's table."""
    source = """
        import os, subprocess, sys
        open("victim", "w").close()
        subprocess.run([sys.executable, "-c", "import os; os.remove('victim')"], env={}, check=True)
    """
    assert_ok(run_script(sandbox, SYSTEM_PYTHON, source))
    assert not (sandbox.work / "victim").exists() and trashed_paths(sandbox) == {}


@ALL_PYTHONS
def test_isolated_ignore_environment_and_no_site_bypass_the_shim(sandbox, python):
    """The gaps in the coverage table: -I, -E and -S never read our sitecustomize."""
    for flag in ("-I", "-E", "-S"):
        victim = sandbox.work / f"victim{flag}"
        victim.write_text("x")
        source = f"import os\nos.remove({victim.name!r})\n"
        assert_ok(run_script(sandbox, python, source, flag))
        assert not victim.exists(), flag
    assert trashed_paths(sandbox) == {}


def test_posix_unlink_goes_around_the_shim(sandbox):
    """os is patched, posix (os's C layer) is not: the coverage table says so."""
    (sandbox.work / "victim").write_text("x")
    source = "import os, posix\nassert os.unlink is not posix.unlink\nposix.unlink('victim')\n"
    assert_ok(run_script(sandbox, SYSTEM_PYTHON, source))
    assert not (sandbox.work / "victim").exists() and trashed_paths(sandbox) == {}


def test_env_i_bypasses_the_shim(sandbox):
    (sandbox.work / "victim").write_text("x")
    source = "import os\nos.remove('victim')\n"
    assert_ok(run_script(sandbox, "/usr/bin/env", source, "-i", SYSTEM_PYTHON))
    assert not (sandbox.work / "victim").exists() and trashed_paths(sandbox) == {}


def test_safedel_run_protects_python(sandbox):
    (sandbox.work / "victim").write_text("x")
    done = sandbox.run(SYSTEM_PYTHON, "-c", "import os; os.remove('victim')")
    assert done.returncode == 0, done.stderr
    assert not (sandbox.work / "victim").exists()
    assert list(trashed_paths(sandbox)) == [os.path.join(os.path.realpath(sandbox.work), "victim")]
