"""Functions bound before the shim came, os reloaded, and refusals inside tempfile's
retrying cleanup: the Python shim still protects, and never loops."""

import json
import os
import subprocess

from test_python_shim_common import ALL_PYTHONS, assert_ok, in_trash, run_script, trashed_paths

EARLY = """
import importlib, json, os, posix, shutil, sys, tempfile
import early_binder

facts = {"tempfile_before_us": early_binder.TEMPFILE_FIRST}
with tempfile.NamedTemporaryFile(dir=".", prefix="ntf-") as handle:
    handle.write(b"data")
importlib.reload(os)
facts["wrapped_after_reload"] = all(
    hasattr(getattr(os, name), "__wrapped__") for name in ("remove", "unlink", "rmdir"))
facts["fd_functions"] = {os.unlink, os.rmdir} <= os.supports_dir_fd
open("after-reload", "w").close()
os.remove("after-reload")
os.makedirs("tree-after-reload/sub")
shutil.rmtree("tree-after-reload")
# Named in the coverage table: a name a module bound before the shim was installed.
facts["early_from_import_is_original"] = early_binder.remove is posix.remove
open("early-gap", "w").close()
early_binder.remove("early-gap")
print(json.dumps(facts))
"""


def user_site(sandbox, python, env):
    done = subprocess.run(
        [python, "-c", "import site; print(site.getusersitepackages())"],
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    return done.stdout.strip()


@ALL_PYTHONS
def test_early_binders_and_a_reloaded_os_still_trash(sandbox, python):
    env = sandbox.shim_env(PYTHONUSERBASE=sandbox.root / "userbase")
    site_dir = user_site(sandbox, python, env)
    os.makedirs(site_dir)
    with open(os.path.join(site_dir, "early_binder.py"), "w") as handle:
        handle.write(
            "import sys\nTEMPFILE_FIRST = 'sitecustomize' not in sys.modules\n"
            "from os import remove\n"
        )
    with open(os.path.join(site_dir, "zz-early.pth"), "w") as handle:
        handle.write("import tempfile, early_binder\n")
    done = assert_ok(run_script(sandbox, python, EARLY, env=env))
    facts = json.loads(done.stdout)
    assert facts == {
        "tempfile_before_us": True,
        "wrapped_after_reload": True,
        "fd_functions": True,
        "early_from_import_is_original": True,
    }
    events = trashed_paths(sandbox)
    names = sorted(os.path.basename(path) for path in events)
    assert len(names) == 3 and names[1].startswith("ntf-")
    assert names[::2] == ["after-reload", "tree-after-reload"]
    assert all(in_trash(sandbox, event) for event in events.values())
    assert os.listdir(sandbox.work) == ["probe.py"]  # early-gap: deleted for real


CLEANUP = """
import json, os, sys, tempfile, time

facts = {}
directory = tempfile.TemporaryDirectory(dir=".")
open(os.path.join(directory.name, "x"), "w").close()
if sys.version_info >= (3, 10):
    quiet = tempfile.TemporaryDirectory(dir=".", ignore_cleanup_errors=True)
# Both were there before the turn began: they count (what a turn makes is not counted).
time.sleep(0.05)
os.environ["SAFEDEL_TURN_START"] = f"{time.time():.6f}:{os.environ['SAFEDEL_TURN']}"
open("spent", "w").close()
os.remove("spent")  # the turn's one deletion
try:
    directory.cleanup()
    facts["outcome"] = "no error"
except RecursionError:
    facts["outcome"] = "RecursionError"
except OSError as exc:
    facts["outcome"] = [isinstance(exc, PermissionError), exc.errno, "bulk guard" in str(exc)]
facts["kept"] = os.path.isfile(os.path.join(directory.name, "x"))
if sys.version_info >= (3, 10):
    quiet.cleanup()
    facts["quiet_kept"] = os.path.isdir(quiet.name)
else:
    facts["quiet_kept"] = True
print(json.dumps(facts))
"""


@ALL_PYTHONS
def test_a_refusal_inside_temporary_directory_cleanup_never_loops(sandbox, python):
    done = assert_ok(run_script(sandbox, python, CLEANUP, threshold=1))
    facts = json.loads(done.stdout)
    # An OSError carrying EPERM, but not a PermissionError that tempfile retries on.
    assert facts == {"outcome": [False, 1, True], "kept": True, "quiet_kept": True}
    assert "RecursionError" not in done.stderr
