"""Each environment fault, named: every command works or says what is wrong in one
`safedel: ` line, and the shims inside foreign programs refuse with a marker, never a
Python or Node stack trace."""

import os
import shutil
import subprocess
import tempfile

import pytest
import sampling
from conftest import last_markers, require

from . import fuzzcase

SYSTEM_NODE = "/usr/bin/node"

COMMANDS = [
    ["list", "--turns"],
    ["report"],
    ["doctor"],
    ["restore", "--last"],
    ["purge", "--all", "--dry-run"],
    ["guard", "approve"],
    ["workspace", "add", "."],
    ["env"],
    ["run", "--", "rm", "-f", "scratchfile"],
    ["rm", "file1"],
]


def fault_env(root, name):
    """(environment changes, variables to drop) for each named fault."""
    s = root
    os.makedirs(f"{s}/data/Trash-parent", exist_ok=True)
    with open(f"{s}/data/Trash", "w"):
        pass  # the home trash is a file
    with open(f"{s}/turnfile", "wb") as handle:
        handle.write(b"\xff\xfeturn\n")
    return {
        "report is a directory": {"SAFEDEL_REPORT": f"{s}/adir"},
        "trash is a file": {"XDG_DATA_HOME": f"{s}/data"},
        "trash dir is a file": {"SAFEDEL_TRASH_DIR": f"{s}/afile"},
        "state dir is a file": {"SAFEDEL_STATE_DIR": f"{s}/afile"},
        "state dir under a file": {"SAFEDEL_STATE_DIR": f"{s}/afile/state"},
        "home is a file": {"HOME": f"{s}/afile"},
        "home is missing": {"HOME": f"{s}/missing/home"},
        "xdg dirs are files": {
            k: f"{s}/afile" for k in ("XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CONFIG_HOME")
        },
        "tmpdir is a file": {"TMPDIR": f"{s}/afile"},
        "config is not utf-8": {"SAFEDEL_CONFIG": f"{s}/junk.jsonl"},
        "config is a directory": {"SAFEDEL_CONFIG": f"{s}/adir"},
        "turn file is not utf-8": {"SAFEDEL_TURN_FILE": f"{s}/turnfile"},
        "invalid values": {
            "SAFEDEL_THRESHOLD": "many",
            "SAFEDEL_TIMEOUT_MS": "-5",
            "SAFEDEL_MAX_TIMEOUT_MS": "soon",
            "SAFEDEL_MAX_OUTPUT": "lots",
            "SAFEDEL_REPORT_SEGMENT_BYTES": "big",
            "SAFEDEL_PROMPT": "perhaps",
            "SAFEDEL_OUTSIDE_WORKSPACE": "sometimes",
            "SAFEDEL_NET": "maybe",
            "SAFEDEL_ACTIVE": "2",
            "SAFEDEL_WORKSPACE_ROOTS": "\n::relative",
            "SAFEDEL_EXEMPT": "",
            "SAFEDEL_HOST": "\udcff",
        },
    }[name]


FAULTS = [
    "report is a directory",
    "trash is a file",
    "trash dir is a file",
    "state dir is a file",
    "state dir under a file",
    "home is a file",
    "home is missing",
    "xdg dirs are files",
    "tmpdir is a file",
    "config is not utf-8",
    "config is a directory",
    "turn file is not utf-8",
    "invalid values",
]


def check_all(root, env, cwd, prefix=(), commands=COMMANDS):
    for argv in commands:
        allowed = fuzzcase.operands(root, cwd, [*argv, *env.values()])
        before = fuzzcase.snapshot([root])
        done = fuzzcase.run_safedel(argv, env, cwd, prefix=prefix)
        fuzzcase.check_outcome(done, argv)
        # The argv is valid: whatever goes wrong is the environment's, never usage.
        assert done.returncode != 2, (argv, done.stderr)
        if done.returncode == 1 and argv[0] not in ("rm", "run"):
            # The command says what is wrong: on stderr as safedel, or in its output
            # (doctor's findings).
            lines = done.stderr.decode("utf-8", "replace").strip().splitlines()
            assert (lines and lines[-1].startswith("safedel")) or done.stdout, (argv, done)
        changed = fuzzcase.untouched(before, fuzzcase.snapshot([root]), allowed)
        assert not changed, f"{argv!r} changed files outside its operands: {changed}"


NAMED = {" ".join(argv): argv for argv in COMMANDS}


# fault x command is a matrix (tests/sampling.py): each fault and each command every run.
@sampling.matrix("fault, command", [(f, c) for f in FAULTS for c in NAMED], "faults", extra=7)
def test_a_command_under_a_fault(tmp_path, fault, command):
    root = fuzzcase.make_scratch(str(tmp_path))
    env = fuzzcase.base_env(root)
    env.update(fault_env(root, fault))
    check_all(root, env, os.path.join(root, "work"), commands=[NAMED[command]])


def test_every_command_in_a_deleted_cwd(tmp_path):
    root = fuzzcase.make_scratch(str(tmp_path))
    gone = os.path.join(root, "work", "gone")
    # For each command the shell makes the directory, enters it, removes it, then
    # becomes safedel there.
    prefix = ["sh", "-c", 'mkdir "$1" && cd "$1" && rmdir "$1" && shift && exec "$@"', "sh", gone]
    check_all(root, fuzzcase.base_env(root), os.path.join(root, "work"), prefix=prefix)
    done = fuzzcase.run_safedel(
        ["run", "--", "true"], fuzzcase.base_env(root), os.path.join(root, "work"), prefix=prefix
    )
    assert done.returncode == 1
    assert done.stderr == b"safedel: the current directory no longer exists\n"


@pytest.fixture
def open_scratch():
    """A scratch dir another user can enter (pytest's own tmp dir is root's alone)."""
    root = tempfile.mkdtemp(prefix="safedel-fault-")
    os.chmod(root, 0o755)
    yield root
    shutil.rmtree(root, ignore_errors=True)


def as_nobody(root):
    """(scratch, argv prefix, environment) for running safedel as uid 65534.

    The environment puts a world-readable copy of the package first on PYTHONPATH:
    the checkout an editable install points at may sit where only root can read it.
    """
    setpriv = require("setpriv")
    scratch = fuzzcase.make_scratch(root)
    os.chmod(scratch, 0o755)
    subprocess.run(["chown", "-R", "65534:65534", os.path.join(scratch, "work")], check=True)
    env = fuzzcase.base_env(scratch)
    env["PYTHONPATH"] = fuzzcase.readable_package(os.path.join(root, "package"))
    return scratch, [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", "--"], env


def test_home_unset_as_a_user_whose_home_is_missing(open_scratch):
    scratch, prefix, env = as_nobody(open_scratch)
    del env["HOME"]  # nobody's passwd home is /nonexistent
    check_all(scratch, env, os.path.join(scratch, "work"), prefix=prefix)


def test_unwritable_state_dir(open_scratch):
    scratch, prefix, env = as_nobody(open_scratch)
    home = os.path.join(scratch, "work", "home")
    os.mkdir(home)
    os.chown(home, 65534, 65534)
    env["HOME"] = home
    env["SAFEDEL_STATE_DIR"] = os.path.join(scratch, "state")  # root's, 0755
    check_all(scratch, env, os.path.join(scratch, "work"), prefix=prefix)


# The shims, inside foreign programs, with a state dir they cannot use.
PY_REMOVE = """import os
try:
    os.remove('victim')
except OSError as exc:
    raise SystemExit(exc.errno)
"""
NODE_REMOVE = """try {
  require('fs').unlinkSync('victim');
} catch (err) {
  process.exit(err.errno ? -err.errno : 99);
}"""


def broken_state(sandbox, how):
    if how == "state is a file":
        blocker = sandbox.root / "state-file"
        blocker.write_text("")
        return {"SAFEDEL_STATE_DIR": str(blocker)}
    if how == "state under a file":
        blocker = sandbox.root / "state-file"
        blocker.write_text("")
        return {"SAFEDEL_STATE_DIR": str(blocker / "state")}
    assert how == "state is a dangling symlink"
    link = sandbox.root / "state-link"
    link.symlink_to(sandbox.root / "nowhere")
    return {"SAFEDEL_STATE_DIR": str(link)}


@pytest.mark.parametrize(
    "how", ["state is a file", "state under a file", "state is a dangling symlink"]
)
@pytest.mark.parametrize("tool", ["rm", "python", "node"])
def test_shims_refuse_with_a_marker_when_the_state_dir_is_broken(sandbox, tool, how):
    env = sandbox.shim_env()
    env.update(broken_state(sandbox, how))
    victim = sandbox.work / "victim"
    victim.write_text("keep me")
    command = {
        "rm": ["rm", "victim"],
        "python": [require("/usr/bin/python3"), "-c", PY_REMOVE],
        "node": [require(SYSTEM_NODE), "-e", NODE_REMOVE],
    }[tool]
    done = subprocess.run(command, cwd=sandbox.work, env=env, capture_output=True, timeout=60)
    stderr = done.stderr.decode("utf-8", "replace")
    assert victim.read_text() == "keep me", stderr
    assert done.returncode != 0
    found = last_markers(done.stderr)
    assert {"SAFE_DELETE_BULK_GUARD_ERROR", "SAFE_DELETE_FAIL_CLOSED"} & set(found), stderr
    # The program caught its error: any stack trace would be safedel's own.
    assert "Traceback" not in stderr and "\n    at " not in stderr, stderr
