"""A command under `safedel run` cannot leave its run by moving the places safedel looks
in: with SAFEDEL_STATE_DIR, HOME and XDG_STATE_HOME pointed at directories it controls
(empty, or holding a pointer folder of their own), and SAFEDEL_RUN_ID emptied, rm,
Python, Node and the net still delete under the run's threshold, turn, ledger and
report (core/contract/runpointer.py)."""

import os
import subprocess
import sys

import pytest
import sampling
from conftest import IN_CI, last_markers, require
from resultschema import valid_result

from safedel.net import kernel_supports

# The threshold is the default, 50; each escape tries to lift it to 999 for itself.
ESCAPES = {
    "state and xdg": "env SAFEDEL_STATE_DIR={x} XDG_STATE_HOME={y} HOME={y} SAFEDEL_THRESHOLD=999",
    "state, home, empty run id": (
        "env SAFEDEL_STATE_DIR={x} HOME={y} SAFEDEL_RUN_ID= SAFEDEL_THRESHOLD=999"
    ),
}

# Sixty deletions, one call each, stopping at the first refusal.
DELETERS = {
    "rm": "bash -c 'for f in f*; do rm -f \"$f\" || exit 1; done'",
    "python": "python3 -c 'import os\nfor n in sorted(os.listdir()): os.remove(n)'",
    "node": (
        'node -e \'const fs = require("fs"); '
        'for (const n of fs.readdirSync(".").sort()) fs.rmSync(n)\''
    ),
    # No shim sees busybox's own rm: the net judges it, in `safedel run` itself.
    "net": "/bin/busybox sh -c 'for f in f*; do /bin/busybox rm -f \"$f\" || exit 1; done'",
}


def require_net():
    require("/bin/busybox")
    ok, why = kernel_supports()
    if not ok:
        (pytest.fail if IN_CI else pytest.skip)(f"the net is required: {why}")


def run(sandbox, command):
    argv = [sys.executable, "-m", "safedel", "run", "--session", sandbox.session]
    argv += ["--turn", sandbox.turn, "--json", "--", "bash", "-c", command]
    env = sandbox.base_env(PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    done = subprocess.run(argv, env=env, cwd=sandbox.work, capture_output=True, timeout=300)
    return valid_result(done.stdout.decode())


def attacker_dirs(sandbox, planted):
    """The command's own state dir and home; planted: each holds an empty pointer folder
    where the run's would be, as a command preparing its own "state" would leave it."""
    x, y = sandbox.root / "x", sandbox.root / "y"
    x.mkdir()
    y.mkdir()
    if planted:
        for folder in (x / "runs" / "by-pid", y / ".local" / "state" / "safedel" / "by-pid"):
            folder.mkdir(parents=True)
        (y / "safedel" / "by-pid").mkdir(parents=True)  # its XDG_STATE_HOME's
    return x, y


# A matrix (tests/sampling.py): each deleter, escape and layout every run.
@sampling.matrix(
    "deleter, escape, planted",
    [(d, e, p) for d in sorted(DELETERS) for e in sorted(ESCAPES) for p in (False, True)],
    "run-pointer-places",
    ids=lambda cell: f"{cell[0]}-{cell[1]}-{'planted' if cell[2] else 'empty'}",
)
def test_the_51st_deletion_is_refused_whatever_the_command_moves(sandbox, deleter, escape, planted):
    if deleter in ("node", "python"):
        require("node" if deleter == "node" else "python3")
    if deleter == "net":
        require_net()
    x, y = attacker_dirs(sandbox, planted)
    for n in range(60):
        (sandbox.work / f"f{n + 10}").write_text("x")
    result = run(sandbox, ESCAPES[escape].format(x=x, y=y) + " " + DELETERS[deleter])
    left = sorted(os.listdir(sandbox.work))
    assert left == [f"f{n}" for n in range(60, 70)], result["stderr"]
    assert result["exitCode"] != 0
    payload = last_markers(result["stderr"])["SAFE_DELETE_BULK_CONFIRM_REQUIRED"]
    assert (payload["count"], payload["threshold"], payload["targets"]) == (
        50,
        50,
        [str(sandbox.work / "f60")],
    )
    # The run's own report, result and guard signal know of all of it.
    trashed = [e for e in sandbox.report() if e["operation"] == "trash"]
    assert len(trashed) == 50
    assert {(e["session"], e["turn"]) for e in trashed} == {(sandbox.session, sandbox.turn)}
    assert len(result["trashed"]) == 50
    assert result["guard"]["type"] == "confirmRequired"
    # Nothing went to the state the command chose: no ledger, no report, no signal.
    assert not [p for p in x.rglob("*") if p.is_file()]


def test_one_rm_of_sixty_is_refused_whole(sandbox):
    x, y = attacker_dirs(sandbox, planted=False)
    for n in range(60):
        (sandbox.work / f"f{n + 10}").write_text("x")
    escape = ESCAPES["state and xdg"].format(x=x, y=y)
    result = run(sandbox, escape + " rm -f f*")
    assert len(os.listdir(sandbox.work)) == 60
    assert result["exitCode"] == 1
    payload = last_markers(result["stderr"])["SAFE_DELETE_BULK_CONFIRM_REQUIRED"]
    assert (payload["count"], payload["targetCount"]) == (0, 60)


def pointer_folders():
    """The pointer folders of this uid, as core/contract/runpointer.py names them, where their
    root exists (a home from the password database may not)."""
    from safedel.core.contract import runpointer

    places = runpointer.places()
    return [os.path.join(root, *parts) for root, parts in places if os.path.isdir(root)]


def test_a_run_points_to_itself_in_every_place_and_leaves_none_behind(sandbox):
    folders = pointer_folders()
    assert f"/tmp/safedel-{os.getuid()}/by-pid" in folders
    # Other runs' pointers may come and go meanwhile (a file gone between the glob and
    # grep is an error, not a miss): only what grep lists counts.
    listing = "; ".join(f'grep -ls "$SAFEDEL_RUN_ID" {f}/* | grep . || echo none' for f in folders)
    result = run(sandbox, listing)
    found = result["stdout"].split()
    assert "none" not in found and len(found) == len(folders), result
    for path in found:
        assert os.path.dirname(path) in folders
        assert not os.path.exists(path)  # removed when the run ended


def test_a_pointer_folder_others_can_write_to_is_not_read(tmp_path):
    # A folder another user could write to (here: world-writable) is skipped: what it
    # holds binds nothing.
    from safedel.core.contract import runpointer

    root = tmp_path / "place"
    (root / "by-pid").mkdir(parents=True)
    (root / "by-pid").chmod(0o777)
    with pytest.raises(PermissionError):
        runpointer.open_place(str(tmp_path), ["place", "by-pid"], create=False)
    (root / "by-pid").chmod(0o700)
    runpointer.open_place(str(tmp_path), ["place", "by-pid"], create=False).close()


def test_a_command_that_removes_the_tmp_pointer_still_finds_its_run(sandbox):
    # /tmp is exempt, so a cleanup there really deletes: the home's pointer still binds.
    require("grep")
    if not any("/.local/state/safedel/" in f for f in pointer_folders()):
        pytest.skip("this uid has no home in the password database")
    x, y = attacker_dirs(sandbox, planted=False)
    for n in range(60):
        (sandbox.work / f"f{n + 10}").write_text("x")
    mine = f'grep -l "$SAFEDEL_RUN_ID" /tmp/safedel-{os.getuid()}/by-pid/*'
    escape = ESCAPES["state, home, empty run id"].format(x=x, y=y)
    result = run(sandbox, f"rm -f $({mine}) && ! {mine}; " + escape + " " + DELETERS["rm"])
    assert sorted(os.listdir(sandbox.work)) == [f"f{n}" for n in range(60, 70)], result
    payload = last_markers(result["stderr"])["SAFE_DELETE_BULK_CONFIRM_REQUIRED"]
    assert (payload["count"], payload["threshold"]) == (50, 50)
