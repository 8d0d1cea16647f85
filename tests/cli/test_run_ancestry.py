"""A command under `safedel run` stays under its run's session, turn and threshold, and
cannot approve for the user, even when it drops or forges SAFEDEL_RUN_ID or moves
SAFEDEL_STATE_DIR: the run is found from the process tree (core/contract/runpointer.py)."""

import os
import subprocess
import sys

import pytest
import sampling
from resultschema import valid_result

FORGERIES = {
    "unset": "unset SAFEDEL_RUN_ID; ",
    "forged": "export SAFEDEL_RUN_ID=r-000000000000; ",
    "moved state": 'unset SAFEDEL_RUN_ID; export SAFEDEL_STATE_DIR="$TMPDIR/elsewhere"; ',
}

# The same eight deletions through each runtime, with the threshold lifted for itself.
DELETERS = {
    "rm": "SAFEDEL_THRESHOLD=1000 rm self/*",
    "find": "SAFEDEL_THRESHOLD=1000 find self -type f -delete",
    "python": (
        "SAFEDEL_THRESHOLD=1000 python3 -c "
        '\'import os; [os.remove("self/" + n) for n in sorted(os.listdir("self"))]\''
    ),
    "node": (
        "SAFEDEL_THRESHOLD=1000 node -e "
        '\'const fs = require("fs"); '
        'for (const n of fs.readdirSync("self").sort()) fs.unlinkSync("self/" + n)\''
    ),
}


def run(sandbox, script, threshold="5"):
    argv = [sys.executable, "-m", "safedel", "run", "--session", sandbox.session]
    argv += ["--turn", sandbox.turn, "--threshold", threshold, "--json", "--"]
    argv += ["bash", "-c", script]
    env = sandbox.base_env(PATH=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"])
    done = subprocess.run(argv, env=env, cwd=sandbox.work, capture_output=True, timeout=300)
    return valid_result(done.stdout.decode())


def make_files(sandbox, count=8):
    folder = sandbox.work / "self"
    folder.mkdir()
    for n in range(count):
        (folder / f"f{n + 11}").write_text("x")
    return folder


# A matrix (tests/sampling.py): each forgery and each deleter every run.
@sampling.matrix(
    "forgery, deleter",
    [(f, d) for f in sorted(FORGERIES) for d in sorted(DELETERS)],
    "run-ancestry",
)
def test_the_command_cannot_lift_its_runs_threshold(sandbox, forgery, deleter):
    folder = make_files(sandbox)
    result = run(sandbox, FORGERIES[forgery] + DELETERS[deleter])
    # rm and find refuse all eight at once; the shims, deleting one by one, stop at five.
    kept = 8 if deleter in ("rm", "find") else 3
    assert len(os.listdir(folder)) == kept, result["stderr"]
    assert len(sandbox.trashed_names()) == 8 - kept
    assert result["exitCode"] != 0
    assert "SAFE_DELETE_BULK_CONFIRM_REQUIRED" in result["stderr"]
    assert result["guard"]["type"] == "confirmRequired"  # the harness learns of it
    assert len(result["trashed"]) == 8 - kept  # and its result lists what it trashed


def test_the_command_cannot_spread_its_deletions_over_other_turns(sandbox):
    make_files(sandbox, 3)
    script = "unset SAFEDEL_RUN_ID; for n in 11 12 13; do SAFEDEL_TURN=t$n rm self/f$n; done"
    result = run(sandbox, script, threshold="50")
    assert result["exitCode"] == 0, result["stderr"]
    trashed = [e for e in sandbox.report() if e.get("operation") == "trash"]
    assert len(trashed) == 3
    assert {(e["session"], e["turn"]) for e in trashed} == {(sandbox.session, sandbox.turn)}


@pytest.mark.parametrize("forgery", sorted(FORGERIES))
def test_approval_from_inside_the_run_is_refused_without_its_run_id(sandbox, forgery):
    for action in ("approve", "reject", "reset"):
        result = run(sandbox, FORGERIES[forgery] + f"safedel guard {action}")
        assert result["exitCode"] == 1, (action, result["stderr"])
        assert "approval must come from the user" in result["stderr"]


def test_a_moved_state_dir_with_pointers_of_its_own_still_finds_the_run(sandbox):
    # The pointer folder of the command's own state dir opens but holds no pointer to
    # this run: it is never read, and the run's turn binds the deletion.
    (sandbox.work / "f").write_text("x")
    script = (
        'unset SAFEDEL_RUN_ID; export SAFEDEL_STATE_DIR="$TMPDIR/other"; '
        'mkdir -p "$SAFEDEL_STATE_DIR/runs/by-pid"; SAFEDEL_TURN=forged rm f'
    )
    result = run(sandbox, script)
    assert result["exitCode"] == 0, result["stderr"]
    trashed = [e for e in sandbox.report() if e["operation"] == "trash"]
    assert [(e["turn"], e["session"]) for e in trashed] == [(sandbox.turn, sandbox.session)]


def test_a_turn_file_the_command_sets_moves_no_python_deletion(sandbox):
    # The Python shim rereads a turn file at each call (a prompt hook rotates it); under
    # a run the record's turn wins at every call, not only the first.
    make_files(sandbox, 3)
    script = (
        'echo forged > "$TMPDIR/turn"; SAFEDEL_TURN_FILE="$TMPDIR/turn" python3 -c '
        '\'import os; [os.remove("self/" + n) for n in sorted(os.listdir("self"))]\''
    )
    result = run(sandbox, script, threshold="50")
    assert result["exitCode"] == 0, result["stderr"]
    trashed = [e for e in sandbox.report() if e.get("operation") == "trash"]
    assert [e["turn"] for e in trashed] == [sandbox.turn] * 3
