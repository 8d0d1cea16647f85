"""What the launchers load on their way to a simple removal.

A launcher's cost is mostly start-up, so the path of `rm -f FILE` (and of rmdir,
unlink and find) must not import the heavy standard modules, and the engine must come
from the shim home's bundle rather than one .pyc per module.
"""

import os
import pathlib
import shutil
import subprocess

import pytest

from safedel.executor import shimhome

HEAVY = ("re", "enum", "locale", "json", "hashlib", "typing", "collections", "pathlib")


def private_home(tmp_path):
    """A shim home of this test's own (the launchers name their lib dir in full)."""
    return pathlib.Path(shimhome.materialize(str(tmp_path / "shims")))


# Runs a launcher's own code in an interpreter started as its shebang starts it, and
# writes the names of the modules loaded by the time it exits (the launchers leave by
# os._exit) to a file. The import system's own trace (-X importtime) would miss what
# the launchers preload straight from the bundle.
SHOW_MODULES = """
import os, sys
shown, launcher = sys.argv[1:3]
sys.argv = sys.argv[2:]
leave = os._exit
def exit_showing(status):
    with open(shown, "w") as handle:
        handle.write(" ".join(sys.modules))
    leave(status)
os._exit = exit_showing
exec(compile(open(launcher).read(), launcher, "exec"))
"""


def run_launcher(sandbox, shim_home, name, args, home=None):
    """Run bin/<name>; (completed, names of the modules it loaded)."""
    home = home or shim_home
    launcher = os.path.join(home, "bin", name)
    with open(launcher, "rb") as handle:
        python = handle.readline()[2:].split()[0].decode()
    shown = os.path.join(sandbox.root, "modules-shown")
    done = subprocess.run(
        [python, "-I", "-S", "-c", SHOW_MODULES, shown, launcher, *args],
        cwd=sandbox.work,
        env=sandbox.shim_env(),
        capture_output=True,
    )
    with open(shown) as handle:
        names = set(handle.read().split())
    os.unlink(shown)
    return done, names


@pytest.mark.parametrize(
    "name,args,make",
    [
        ("rm", ["-f", "victim"], "file"),
        ("rm", ["victim"], "file"),
        ("unlink", ["victim"], "file"),
        ("rmdir", ["victim"], "dir"),
        ("find", ["victim", "-delete"], "file"),
    ],
)
def test_simple_removal_imports_nothing_heavy(sandbox, shim_home, name, args, make):
    victim = sandbox.work / "victim"
    victim.mkdir() if make == "dir" else victim.write_bytes(b"x")
    done, names = run_launcher(sandbox, shim_home, name, args)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert not victim.exists()
    assert names & set(HEAVY) == set(), sorted(names & set(HEAVY))
    assert "safedel_core.deletion" in names  # it really went through the engine


def test_engine_comes_from_the_bundle(sandbox, shim_home, tmp_path):
    # A private home, so its __pycache__ shows what was read from .py files.
    home = private_home(tmp_path)
    engine = home / "lib" / "safedel_core"
    for cache in engine.rglob("__pycache__"):
        shutil.rmtree(cache)
    (sandbox.work / "victim").write_bytes(b"x")
    done, names = run_launcher(sandbox, shim_home, "rm", ["victim"], home=str(home))
    assert done.returncode == 0 and not (sandbox.work / "victim").exists()
    # Nothing is found on the path: the launcher boots from the bundle, which serves
    # the package, the launcher module and the engine, deletion and trash included.
    assert [str(c) for c in engine.rglob("__pycache__") if os.listdir(c)] == []
    assert {"safedel_core", "safedel_core.trash.move", "safedel_core.guard.ledger"} <= names


def test_without_the_bundle_the_launcher_still_works(sandbox, shim_home, tmp_path):
    home = private_home(tmp_path)
    (home / "lib" / "safedel_core.bundle").unlink()
    (sandbox.work / "victim").write_bytes(b"x")
    done, _ = run_launcher(sandbox, shim_home, "rm", ["-v", "victim"], home=str(home))
    assert done.returncode == 0 and done.stdout == b"removed 'victim'\n"
    assert len(os.listdir(sandbox.trash / "files")) == 1


def test_a_bundle_from_another_interpreter_is_ignored(sandbox, shim_home, tmp_path):
    home = private_home(tmp_path)
    bundle = home / "lib" / "safedel_core.bundle"
    bundle.write_bytes(b"\0\0\0\0" + bundle.read_bytes()[4:])
    (sandbox.work / "victim").write_bytes(b"x")
    done, _ = run_launcher(sandbox, shim_home, "rm", ["victim"], home=str(home))
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert not (sandbox.work / "victim").exists()


def test_a_damaged_bundle_falls_back_to_the_files(sandbox, shim_home, tmp_path):
    home = private_home(tmp_path)
    bundle = home / "lib" / "safedel_core.bundle"
    data = bundle.read_bytes()
    bundle.write_bytes(data[: len(data) // 2])  # the index survives, modules do not
    (sandbox.work / "victim").write_bytes(b"x")
    done, _ = run_launcher(sandbox, shim_home, "rm", ["victim"], home=str(home))
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert not (sandbox.work / "victim").exists()


def bundle_plans(home):
    """The bundle's plans: per launcher, (the modules it runs before its work, where)."""
    import marshal

    data = (pathlib.Path(home) / "lib" / "safedel_core.bundle").read_bytes()
    boot, size = int.from_bytes(data[4:8], "little"), int.from_bytes(data[8:12], "little")
    return marshal.loads(data[12 + boot : 12 + boot + size])[1]


@pytest.mark.parametrize(
    "name,args,make",
    [
        ("rm", ["-f", "victim"], "file"),
        ("unlink", ["victim"], "file"),
        ("rmdir", ["victim"], "dir"),
        ("find", ["victim", "-delete"], "file"),
    ],
)
def test_a_simple_removal_needs_nothing_beyond_its_plan(sandbox, shim_home, name, args, make):
    # Each engine module imported the usual way costs a launcher the import system's
    # overhead on top of its code: the plan must hold the whole path of a simple removal
    # (the turn's first removal also starts the turn's ledger, which only it imports).
    victim = sandbox.work / "victim"
    for _ in range(2):
        victim.mkdir() if make == "dir" else victim.write_bytes(b"x")
        done, names = run_launcher(sandbox, shim_home, name, args)
        assert done.returncode == 0 and not victim.exists(), done.stderr.decode()[-2000:]
    engine = {n.partition(".")[2] for n in names if n.startswith("safedel_core.")}
    plan = set(bundle_plans(shim_home)[name][0])
    assert engine - plan - {"gnu.launch"} == set(), sorted(engine - plan)
    assert plan <= engine


def test_a_damaged_plan_falls_back_to_the_usual_imports(sandbox, shim_home, tmp_path):
    # Bytes damaged inside a plan (its length intact, so the bundle looks whole): the
    # launcher imports its modules the usual way, with no traceback.
    home = private_home(tmp_path)
    bundle = home / "lib" / "safedel_core.bundle"
    data = bytearray(bundle.read_bytes())
    boot, size = int.from_bytes(data[4:8], "little"), int.from_bytes(data[8:12], "little")
    data[12 + boot + size + bundle_plans(home)["rm"][1]] = 0  # not a marshal type code
    bundle.write_bytes(bytes(data))
    (sandbox.work / "victim").write_bytes(b"x")
    done, _ = run_launcher(sandbox, shim_home, "rm", ["victim"], home=str(home))
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert b"Traceback" not in done.stderr
    assert not (sandbox.work / "victim").exists()
    assert len(os.listdir(sandbox.trash / "files")) == 1


def test_a_damaged_later_piece_of_a_plan_falls_back_for_the_rest(sandbox, shim_home, tmp_path):
    # A plan is read in pieces: the modules of the pieces before the damaged one are
    # preloaded, the rest imported the usual way, and the removal goes through.
    home = private_home(tmp_path)
    bundle = home / "lib" / "safedel_core.bundle"
    data = bytearray(bundle.read_bytes())
    boot, size = int.from_bytes(data[4:8], "little"), int.from_bytes(data[8:12], "little")
    _names, offset, lengths = bundle_plans(home)["rm"]
    assert len(lengths) > 1
    data[12 + boot + size + offset + sum(lengths[:-1])] = 0  # not a marshal type code
    bundle.write_bytes(bytes(data))
    (sandbox.work / "victim").write_bytes(b"x")
    done, names = run_launcher(sandbox, shim_home, "rm", ["victim"], home=str(home))
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert b"Traceback" not in done.stderr
    assert not (sandbox.work / "victim").exists()
    assert "fcntl" in names  # the info file was locked while its item moved


def bundle_extensions(home):
    import marshal

    data = (pathlib.Path(home) / "lib" / "safedel_core.bundle").read_bytes()
    boot, size = int.from_bytes(data[4:8], "little"), int.from_bytes(data[8:12], "little")
    return marshal.loads(data[12 + boot : 12 + boot + size])[2]


def test_the_bundle_names_the_shared_libraries_a_launcher_loads(shim_home):
    import fcntl

    assert bundle_extensions(shim_home) == {"fcntl": fcntl.__file__}


def test_a_named_shared_library_is_loaded_only_from_where_the_search_would_look(tmp_path):
    import fcntl
    import sys

    from safedel.core.gnu import launch

    def finder(origin):
        return launch._BundleFinder(None, 0, {}, str(tmp_path), {}, {"fcntl": origin})

    spec = finder(fcntl.__file__).find_spec("fcntl")
    assert spec.origin == fcntl.__file__ and spec.loader.path == fcntl.__file__
    assert spec.has_location
    # Gone, or somewhere the usual search would not look: the usual import decides.
    missing = os.path.join(os.path.dirname(fcntl.__file__), "gone-fcntl.so")
    assert finder(missing).find_spec("fcntl") is None
    elsewhere = tmp_path / os.path.basename(fcntl.__file__)
    shutil.copy(fcntl.__file__, elsewhere)
    assert str(tmp_path) not in sys.path
    assert finder(str(elsewhere)).find_spec("fcntl") is None
    assert finder(fcntl.__file__).find_spec("termios") is None


def test_under_a_run_the_plan_leaves_out_the_config_file(shim_home):
    # A run's record fixes every setting: a launcher under one reads no config file.
    plans = bundle_plans(shim_home)
    for name in ("rm", "rmdir", "unlink", "find"):
        outside, inside = plans[name][0], plans[name + ":run"][0]
        assert "contract.confirmed" in outside
        assert set(inside) == set(outside) - {"contract.confirmed"}


def test_under_a_run_a_simple_removal_needs_nothing_beyond_its_plan(sandbox):
    # Under `safedel run`, with -X importtime: what went through the import system is
    # shown, and of the engine that is only what the bundle's boot imports itself (the
    # turn's first removal also starts its ledger, so the second one is traced).
    # Made before the turn: one the turn made and removed at once would be churn.
    for name in ("victim1", "victim2"):
        (sandbox.work / name).write_text("x")
    script = (
        'rm=$(command -v rm); py=$(head -n1 "$rm" | cut -c3- | cut -d" " -f1); '
        '"$rm" victim1 && "$py" -I -S -X importtime "$rm" victim2'
    )
    done = sandbox.run("sh", "-c", script)
    assert done.returncode == 0, done.stderr.decode()[-2000:]
    assert not (sandbox.work / "victim2").exists()
    assert len(sandbox.trashed_names()) == 2
    names = {
        line.split("|")[-1].strip()
        for line in done.stderr.decode().splitlines()
        if line.startswith("import time:") and "|" in line
    }
    assert "encodings" in names  # the trace is there
    engine = {name for name in names if name.startswith("safedel_core")}
    assert engine == {"safedel_core", "safedel_core.gnu"}, sorted(engine)
