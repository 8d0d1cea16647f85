"""A run's result holds what that run caused and nothing else: its own events, its own
guard signal, and the turn it was given."""

import json
import os
import subprocess
import sys
import time

from resultschema import valid_result


def start_run(sandbox, command, *options, turn=None, env=None):
    argv = [sys.executable, "-m", "safedel", "run", "--session", sandbox.session]
    argv += ["--turn", turn or sandbox.turn, *options, "--json", "--", "sh", "-c", command]
    return subprocess.Popen(
        argv,
        env=env or sandbox.base_env(),
        cwd=sandbox.work,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def finish(proc):
    out, err = proc.communicate(timeout=300)
    return valid_result(out.decode()), err.decode()


# One file at a time, going on past refusals, in one interpreter (fast enough for 5 trials).
DELETE_EACH = (
    "import os, sys\n"
    "for name in sorted(os.listdir(sys.argv[1])):\n"
    "    try:\n"
    "        os.remove(os.path.join(sys.argv[1], name))\n"
    "    except PermissionError:\n"
    "        pass\n"
)


def test_concurrent_tool_calls_each_get_their_own_events_and_the_guard_stays_exact(sandbox):
    script = sandbox.root / "delete_each.py"
    script.write_text(DELETE_EACH)
    for trial in range(5):
        turn = f"turn-c{trial}"
        procs = {}
        for call in ("A", "B"):
            folder = sandbox.work / f"{call}{trial}"
            folder.mkdir()
            for n in range(30):
                (folder / f"{call}{n:02d}").write_text(call)
            loop = f"{sys.executable} {script} {folder.name}"
            procs[call] = start_run(sandbox, loop, "--tool-call", call, turn=turn)
        trashed_total = 0
        for call, proc in procs.items():
            result, stderr = finish(proc)
            assert result["toolCall"] == call and result["turn"] == turn
            names = {os.path.basename(e["path"]) for e in result["safeDeleteEvents"]}
            assert names == {f"{call}{n:02d}" for n in range(30)}  # its own, every one
            assert all(e["toolCall"] == call for e in result["safeDeleteEvents"])
            trashed, refused = len(result["trashed"]), len(result["refused"])
            assert trashed + refused == 30
            if trashed:
                assert f"moved {trashed} item" in stderr
            trashed_total += trashed
        assert trashed_total == 50  # the threshold, exactly, across both tool calls


def test_a_reused_tool_call_does_not_get_a_stale_signal(sandbox):
    for name in "abc":
        (sandbox.work / name).write_text(name)
    env = sandbox.base_env(SAFEDEL_THRESHOLD="1")
    flag, go = sandbox.work / "done", sandbox.root / "go"
    # The late rm waits for the test's word, given once the run has returned.
    wait = f"while [ ! -e {go} ]; do sleep 0.02; done"
    late = f"({wait}; rm a b c; touch {flag}) >/dev/null 2>&1 &"
    options = ("--tool-call", "C", "--keep-background")
    first, _ = finish(start_run(sandbox, late, *options, turn="T1", env=env))
    go.touch()
    assert first["guard"] is None  # the refusal came after the run returned
    deadline = time.monotonic() + 60
    while not flag.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert flag.exists()
    second, _ = finish(start_run(sandbox, "echo hi", "--tool-call", "C", turn="T2", env=env))
    assert second["guard"] is None and second["stdout"] == "hi\n"
    argv = [sys.executable, "-m", "safedel", "guard", "signal", "--session", sandbox.session]
    pending = subprocess.run([*argv, "--tool-call", "C"], env=env, capture_output=True)
    assert pending.returncode == 0, pending.stderr
    signal = json.loads(pending.stdout)
    # Left running after its run, the process has no keeper to ask: it fails closed.
    assert (signal["type"], signal["turn"], signal["toolCall"]) == ("guardError", "T1", "C")
    again = subprocess.run([*argv, "--tool-call", "C"], env=env, capture_output=True)
    assert again.returncode == 1  # taken exactly once


def test_an_innocent_run_of_the_same_turn_does_not_take_the_refusal(sandbox):
    for name in "xyz":
        (sandbox.work / name).write_text(name)
    env = sandbox.base_env(SAFEDEL_THRESHOLD="1")
    flag = sandbox.work / "go"
    refused = start_run(sandbox, f"while [ ! -e {flag} ]; do sleep 0.02; done; rm x y z", env=env)
    innocent, _ = finish(start_run(sandbox, f"touch {flag}", env=env))
    assert innocent["guard"] is None
    result, _ = finish(refused)
    assert result["guard"]["type"] == "confirmRequired"
    assert sorted(result["guard"]["payload"]["targets"]) == [str(sandbox.work / n) for n in "xyz"]


def test_an_explicit_turn_beats_an_inherited_turn_file(sandbox):
    turn_file = sandbox.root / "turn"
    turn_file.write_text("turn-from-file\n")
    env = sandbox.base_env(SAFEDEL_TURN_FILE=str(turn_file))
    (sandbox.work / "f").write_text("f")
    result, _ = finish(start_run(sandbox, "rm f", turn="T-given", env=env))
    assert [e["turn"] for e in result["trashed"]] == ["T-given"]
    restore = [sys.executable, "-m", "safedel", "restore", "--turn", "T-given"]
    done = subprocess.run(restore, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
    assert (sandbox.work / "f").read_text() == "f"
    kept, _ = finish(start_run(sandbox, "rm f", "--keep-turn-file", turn="T-given", env=env))
    assert [e["turn"] for e in kept["trashed"]] == ["turn-from-file"]


def test_guard_reject_says_rejected(sandbox):
    argv = [sys.executable, "-m", "safedel", "guard", "reject", "--session", "S", "--turn", "T"]
    done = subprocess.run(argv, env=sandbox.base_env(), capture_output=True, text=True)
    assert done.returncode == 0
    assert done.stdout.startswith("rejected ") and "rejectd" not in done.stdout
